/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem_add.pml - psem's word for the release that adds first
 * (psem_release_add(), kmod/psem_queue.h): the word of kmod/psem.h
 * ("PSEM_BIAS"), its field of adds in flight, the debt and the credit
 * above it, and every path that reads or writes them. psem.pml models the
 * rest of the protocol (the release rules, the flag, asynchronous
 * waiters) on the read-first release; this file, the add.
 *
 * The word, every read-modify-write of it one atomic step:
 *   W      PSEM_WAITERS with its PSEM_BIAS: the word is negative, and no
 *          lock-free take reads it as a balance
 *   cr     PSEM_CREDIT: with W, the count above the field is a credit
 *   val    bits 3..34: the balance while W is clear; while it is set, the
 *          field of adds in flight, each taken back at once by its adder
 *   hi     the count above the field while W is set: the debt, or with cr
 *          the credit; zero while W is clear
 *   closed the closed state, PSEM_BIAS once more: a closed word is
 *          negative, and an add onto it with W clear lands in the balance
 * A psem_ext's word (W and cr for good, its balance the credit) is the
 * credit's case, without the settle; capacities and the overflow are in
 * the explorer's scenarios (add/over-max-vs-takes, retry/*), not here.
 *
 * Processes: NW waiters, each taking one permit (lock-free from the
 * balance or the credit, else under the queue lock, else linked and asleep
 * until served); NR releasers, each returning one permit with the add (one
 * more than the waiters take, so that a lock holder can find the queue
 * empty with another add in flight and leave a credit); a try that takes
 * one permit lock-free and returns it the same way; the owner, which frees
 * the psem once every waiter has returned, the try is done and every
 * permit the waiters do not hold is home (psem_quiesce(), then the free:
 * Documentation/design.rst, "Teardown: when a psem may be freed"). With
 * -DREDUCE, a reducer removes one permit (from the balance, from a credit,
 * or as a debt) and then returns it with the add. With -DCLOSE, a closer
 * closes the psem at any moment, failing the linked waiters (which hold
 * nothing: each takes one permit), and may reopen it; a waiter refuses
 * under the lock while it is closed.
 *
 * The release (psem_release_add(), psem_release_added()): the add, one
 * step; if the word it returned was not waiting, that was the release. If
 * it was, the add is in the field: the adder takes it back, one step, and
 * then adds to the credit lock-free (psem_release_credit(), one
 * compare-exchange) if the word holds one, else takes the locked path
 * (psem_add_locked()): the balance if the word has settled meanwhile, the
 * credit if it holds one, else the debt first, the waiters in FIFO order,
 * and what is left, with nobody queued and no debt, becomes the credit.
 * Every RMW that leaves a credit settles the word in the same step if the
 * field is empty (psem_credit_settled()): W, cr and the bias go, and the
 * credit becomes the balance.
 *
 * Properties (assertions, and spin's end states):
 *   conservation   outside + field + home + held + hand + back ==
 *                  NR + debt, in every state
 *   I1             W clear implies no waiter linked, no debt, no credit
 *   I3             a credit only while no waiter is linked
 *   debt first     no waiter is served while a debt is owed
 *   closed         no waiter linked while closed, no take succeeds
 *   no overtake    a try never succeeds while a waiter is linked
 *   FIFO           waiters are served in the order they linked
 *   own add        an adder taking back finds its add in the field
 *   teardown       nobody touches the psem once the owner freed it
 *   progress       no end state with a waiter asleep (a lost permit or
 *                  wake-up leaves one there)
 * Broken variants, each of which must fail, with and without -DNO_OWN_CHECK
 * (which drops the own-add assertion, so that the other properties must
 * catch it):
 *   -DBROKEN_CLEAR_EARLY    the word settles with adds in flight: they
 *                           become balance under their adders
 *   -DBROKEN_NO_TAKEBACK    an adder onto a waiting word leaves its add in
 *                           the field and releases its permit all the same
 *   -DBROKEN_NOT_NEGATIVE   the waiting word is not negative: a try takes
 *                           an add in flight from a linked waiter
 *   -DBROKEN_DROP_REST      no credit: a lock holder that finds an add in
 *                           the field drops what it had left to add
 *   -DBROKEN_CREDIT_LINK    a waiter links with the credit flag still set,
 *                           so releases go on adding to a credit
 *   -DBROKEN_NEWEST_FIRST   the hand-off serves the newest waiter first
 *   -DBROKEN_REDUCE_FIELD   (REDUCE) a reduce on a waiting word takes an
 *                           add in flight instead of owing a debt
 *   -DBROKEN_DEBT_LAST      (REDUCE) a locked release serves the waiters
 *                           before it pays the debt
 *   -DBROKEN_CLOSE_CLEARS   (CLOSE) close settles the word once it has
 *                           failed the waiters, adds in flight or not
 *   -DBROKEN_TAKE_CLOSED    (CLOSE) a take reads a closed word with W
 *                           clear as takeable: the balance of a closed
 *                           word is not behind the bias
 */

#define NW	2	/* waiters (the wake-up mask below has two bits) */
#define NR	3	/* releasers: one permit more than the waiters take */
#ifdef REDUCE
#define NRED	1	/* the reducer's release */
#else
#define NRED	0
#endif

bit W;
bit cr;
byte val;
byte hi;
bit closed;
bit lk;

#define FIELD	(W -> val : 0)
#define HOME	(!W -> val : (cr -> hi : 0))
#define DEBT	((W && !cr) -> hi : 0)

byte q[NW];		/* linked waiters, oldest first */
byte qlen;
bit done[NW];

/* ghost */
byte outside = NR;	/* permits no releaser has taken out yet */
byte held;		/* permits held by waiters, the try and the reducer */
byte hand;		/* permits a lock holder took to hand out */
byte back;		/* permits adders took back out of the field */
byte linked;		/* waiters linked so far, the FIFO ticket */
byte served;		/* waiters served so far */
byte ticket[NW];
byte returned;		/* waiters that returned */
byte wheld;		/* permits the waiters hold */
bit trydone;
bit freed;
bit rdone = 1;		/* the reducer is done (set to 0 by init if any) */
bit cdone = 1;		/* the closer is done (likewise) */

/* The word as a take sees it: negative while W is set or closed. */
#if defined(BROKEN_NOT_NEGATIVE)
#define TAKEABLE	(!closed && val >= 1)
#elif defined(BROKEN_TAKE_CLOSED)
#define TAKEABLE	(!W && val >= 1)
#else
#define TAKEABLE	(!W && !closed && val >= 1)
#endif
/* A credit, lock-free (psem_take_range()). */
#define CREDITABLE	(W && cr && !closed && hi >= 1)

#define TOUCH		assert(!freed)

/*
 * psem_credit_settled(), inside the step of the RMW that leaves a credit:
 * with the field empty, the credit becomes the balance.
 */
#ifdef BROKEN_CLEAR_EARLY
#define SETTLE	if :: W && cr -> W = 0; cr = 0; val = val + hi; hi = 0 :: else fi
#else
#define SETTLE	if :: W && cr && val == 0 -> W = 0; cr = 0; val = hi; hi = 0 :: else fi
#endif

inline lock()
{
	atomic { lk == 0 -> TOUCH; lk = 1 }
}

inline unlock()
{
	atomic { TOUCH; lk = 0 }
}

/*
 * Under the lock, with @hand permits to hand out and the debt paid: serve
 * the waiters in FIFO order, then, with none left and no debt, leave the
 * rest as the credit, settled if the field is empty. @srv collects whom to
 * wake.
 */
inline hand_over(srv)
{
	do
	:: hand > 0 && qlen > 0 ->
		atomic {
			assert(DEBT == 0);	/* debt first */
#ifdef BROKEN_NEWEST_FIRST
			qlen--;
			assert(ticket[q[qlen]] == served);	/* FIFO */
			srv = srv | (1 << q[qlen]);
#else
			assert(ticket[q[0]] == served);	/* FIFO */
			srv = srv | (1 << q[0]);
			q[0] = q[1];
			qlen--;
#endif
			served++;
			hand--;
			wheld++;
			held++
		}
	:: else -> break
	od;
	if
	:: qlen == 0 && DEBT == 0 ->
		atomic {
			TOUCH;
#ifdef BROKEN_DROP_REST
			if
			:: val == 0 -> cr = 1; hi = hand; SETTLE
			:: else -> skip
			fi;
#else
			cr = 1; hi = hi + hand; SETTLE;
#endif
			hand = 0
		}
	:: else -> assert(hand == 0)	/* debt first: the debt took it */
	fi
}

/* Under the lock: what a release brings pays the debt first. */
inline pay_debt()
{
	atomic {
		if
		:: hand > 0 && DEBT > 0 -> hi--; hand--
		:: else
		fi
	}
}

/* After the unlock: wake the served (their "done", on their stacks). */
inline wake(srv)
{
	if
	:: srv & 1 -> done[0] = 1
	:: else
	fi;
	if
	:: srv & 2 -> done[1] = 1
	:: else
	fi
}

/*
 * The locked path of the permit an adder took back (psem_add_locked()):
 * the balance if the word settled meanwhile, the credit if it holds one,
 * else the debt first, then the waiters, then the credit.
 */
inline release_locked()
{
	lock();
	atomic {
		TOUCH;
		back--;
		if
		:: !W -> val++; locked_done = 1
		:: W && cr -> hi++; SETTLE; locked_done = 1
		:: else -> hand = 1; locked_done = 0
		fi
	};
	if
	:: !locked_done ->
#ifndef BROKEN_DEBT_LAST
		pay_debt();
#endif
		hand_over(srv);
#ifdef BROKEN_DEBT_LAST
		pay_debt();
#endif
	:: else
	fi;
	unlock();
	wake(srv)
}

/*
 * Return one permit: the add; onto a waiting word, taken back, then onto
 * the credit lock-free, or through the locked path.
 */
inline release_one()
{
	atomic { TOUCH; held--; val++; inw = W };
	if
	:: !inw -> skip
	:: else ->
#ifndef BROKEN_NO_TAKEBACK
		atomic {
			TOUCH;
#ifndef NO_OWN_CHECK
			assert(W && val >= 1);		/* its own add is there */
#endif
			if
			:: val >= 1 -> val--
			:: else
			fi;
			back++
		};
#else
		atomic { back++ };
#endif
		atomic {
			TOUCH;
			if
			:: W && cr -> back--; hi++; SETTLE; landed = 1
			:: else -> landed = 0
			fi
		};
		if
		:: !landed -> release_locked()
		:: else
		fi
	fi
}

proctype releaser()
{
	bit inw, landed, locked_done;
	byte srv;

	/* it holds a permit from outside, which it returns */
	atomic { outside--; held++ };
	release_one()
}

proctype tryer()
{
	bit inw, landed, locked_done, got;
	byte srv;

	atomic {
		TOUCH;
		if
		:: TAKEABLE -> val--; got = 1
		:: CREDITABLE -> hi--; SETTLE; got = 1
		:: else
		fi;
		if
		:: got -> held++;
			assert(qlen == 0);		/* no overtake */
			assert(!closed)
		:: else
		fi
	};
	if
	:: got -> release_one()
	:: else
	fi;
	trydone = 1
}

proctype waiter(byte me)
{
	bit took, refused;

	atomic {
		TOUCH;
		if
		:: TAKEABLE -> val--; took = 1
		:: CREDITABLE -> hi--; SETTLE; took = 1
		:: else
		fi;
		if
		:: took -> held++; wheld++; assert(!closed)
		:: else
		fi
	};
	if
	:: took -> goto out
	:: else
	fi;
	lock();
	/* psem_refuse_wait(), then psem_take_or_mark(), then the link */
	atomic {
		TOUCH;
		if
		:: closed -> refused = 1		/* -ESHUTDOWN */
		:: !closed && !W && val >= 1 -> val--; took = 1
		:: !closed && !W && val == 0 -> W = 1	/* marks, balance drained */
		:: !closed && W && cr && hi >= 1 -> hi--; SETTLE; took = 1
#ifdef BROKEN_CREDIT_LINK
		:: !closed && W && cr && hi == 0 -> skip
#else
		:: !closed && W && cr && hi == 0 -> cr = 0	/* drains it */
#endif
		:: !closed && W && !cr -> skip
		fi;
		if
		:: took -> held++; wheld++
		:: !took && !refused ->
			q[qlen] = me; qlen++;
			ticket[me] = linked; linked++
		:: else
		fi
	};
	unlock();
	if
	:: !took && !refused -> done[me] == 1
	:: else
	fi;
out:
	returned++
}

#ifdef REDUCE
/*
 * Removes one permit for good (psem_reduce(1)): from the balance, or, with
 * none, marks the word and owes it; with W set, from a credit or as a
 * debt. Then, as psem.pml's reducer does, returns it with the add.
 */
proctype reducer()
{
	bit inw, landed, locked_done;
	byte srv;

	lock();
	atomic {
		TOUCH;
		if
		:: !W && val >= 1 -> val--
		:: !W && val == 0 -> W = 1; hi = 1
		:: W && cr && hi >= 1 -> hi--; SETTLE
		:: W && cr && hi == 0 -> cr = 0; hi = 1
#ifdef BROKEN_REDUCE_FIELD
		:: W && !cr && val >= 1 -> val--
		:: W && !cr && val == 0 -> hi++
#else
		:: W && !cr -> hi++
#endif
		fi;
		held++
	};
	unlock();
	release_one();
	rdone = 1
}
#endif

#ifdef CLOSE
/*
 * Closes the psem (psem_close()): every linked waiter fails, holding
 * nothing, and leaves the queue oldest first; the locked path then runs
 * with nothing to add, as psem_add_locked(0) does. May reopen.
 */
proctype closer()
{
	byte srv;

	lock();
	atomic {
		TOUCH;
		closed = 1;
		do
		:: qlen > 0 ->
			assert(ticket[q[0]] == served);
			srv = srv | (1 << q[0]);
			q[0] = q[1];
			qlen--;
			served++
		:: else -> break
		od
	};
#ifdef BROKEN_CLOSE_CLEARS
	atomic { TOUCH; if :: W && DEBT == 0 -> W = 0; val = val + hi; hi = 0; cr = 0 :: else fi };
#else
	if
	:: W && !cr -> hand_over(srv)
	:: else
	fi;
#endif
	unlock();
	wake(srv);
	if
	:: true ->
		lock();
		closed = 0;
		unlock()
	:: true
	fi;
	cdone = 1
}
#endif

/*
 * The owner: once its waiters have returned, its try is done, and every
 * permit its waiters do not hold is home with no debt (psem_quiesce()
 * served; a call that has not begun is the owner's to exclude:
 * design.rst, "Teardown"), and the lock is free (psem_sync()), it frees.
 */
proctype owner()
{
	atomic {
		returned == NW && trydone && rdone && cdone &&
		HOME + wheld == NR && DEBT == 0 && lk == 0 ->
		freed = 1
	}
}

/* The invariants, in every state. */
active proctype monitor()
{
end:	do
	:: atomic {
		assert(outside + FIELD + HOME + held + hand + back == NR + DEBT);
		assert(W || (qlen == 0 && hi == 0 && !cr));
		assert(!cr || qlen == 0);
		assert(!closed || qlen == 0)
	}
	od
}

init
{
	atomic {
#ifdef REDUCE
		rdone = 0;
		run reducer();
#endif
#ifdef CLOSE
		cdone = 0;
		run closer();
#endif
		run waiter(0);
		run waiter(1);
		run releaser();
		run releaser();
		run releaser();
		run tryer();
		run owner()
	}
}
