/* SPDX-License-Identifier: GPL-2.0 */
/*
 * proposal_fadd.pml - the word that Documentation/design.rst, "The word a
 * blind add needs", proposes for issue 27: a release that adds first,
 * with no read of the word before it. A model of a design, checked
 * before its code exists; psem's protocol today is psem.pml.
 *
 * The word, every read-modify-write of it one atomic step:
 *   W     PSEM_WAITERS, which the design makes set PSEM_BLOCKED too: the
 *         word is then negative, and no take succeeds
 *   val   the bits from PSEM_ONE to the field's top: the balance while W
 *         is clear; while it is set, the field of adds in flight, each
 *         owned by the release that made it
 *   dc    the bits above the field while W is set, signed: a debt (dc >
 *         0), permits a reduce could not take, which releases pay before
 *         any waiter; or a credit (dc < 0), what a lock holder had left to
 *         add while adds were in flight; zero while W is clear
 *   closed the closed state (PSEM_BLOCKED, or bit 1 with W, as
 *         PSEM_DEBT_CLOSED is today with a debt): a
 *         closed word is negative with W clear too, so no take succeeds,
 *         and an add onto it lands in the balance, where it belongs (a
 *         closed psem takes releases), with nothing for its adder to move
 * Capacities (a psem_ext's word, negative for good) are not modelled.
 *
 * Processes: NW waiters, each taking one permit (lock-free, else under
 * the queue lock, else linked and asleep until served); NR releasers,
 * each returning one permit with the blind add (one more than the
 * waiters take, so that a lock holder can find the queue empty with
 * another add in flight and keep a credit); a try that takes one
 * permit lock-free and returns it the same way; the owner, which
 * quiesces and frees the psem once every waiter has returned and the try
 * is done (Documentation/design.rst, "Teardown: when a psem may be
 * freed"; the design makes psem_sync() wait for the adds in flight too).
 * With -DREDUCE, a reducer removes one permit (from the balance, from a
 * credit, or as a debt) and then returns it with the blind add, as
 * psem.pml's reducer does. With -DCLOSE, a closer closes the psem at any
 * moment, failing the linked waiters (which hold nothing: each takes one
 * permit), and may reopen it; a waiter refuses under the lock while it is
 * closed.
 *
 * Properties (assertions, and spin's end states):
 *   conservation   outside + val + credit + held + hand == NR + debt, in
 *                  every state
 *   I1'            W clear implies no waiter linked, no debt, no credit
 *   credit         a credit only while no waiter is linked
 *   debt first     no waiter is served while a debt is owed
 *   closed         no waiter linked while closed, no take succeeds
 *   no overtake    a try never succeeds while a waiter is linked
 *   FIFO           waiters are served in the order they linked
 *   own move       an adder under the lock finds its own add in the field
 *   teardown       nobody touches the psem once the owner freed it
 *   progress       no end state with a waiter asleep (a lost permit or
 *                  wake-up leaves one there)
 * Broken variants, each of which must fail, with and without
 * -DNO_OWN_CHECK (which drops the own-move assertion, so that the other
 * properties must catch it):
 *   -DBROKEN_SHARED_FIELD   a lock holder moves every add in flight, not
 *                           only its own: a served waiter returns, the
 *                           owner frees, an adder still takes the lock
 *   -DBROKEN_CLEAR_EARLY    the bit is cleared with adds in flight: they
 *                           become balance under their adders
 *   -DBROKEN_NOT_NEGATIVE   the waiters word is not negative: a try takes
 *                           an add in flight from a linked waiter
 *   -DBROKEN_DROP_REST      no credit: a lock holder that must keep the
 *                           bit drops what it had left to add
 *   -DBROKEN_NEWEST_FIRST   the hand-off serves the newest waiter first
 *   -DBROKEN_REDUCE_FIELD   (REDUCE) a reduce on a word with W takes an
 *                           add in flight instead of owing a debt
 *   -DBROKEN_DEBT_LAST      (REDUCE) an adder's move serves the waiters
 *                           before it pays the debt
 *   -DBROKEN_CLOSE_CLEARS   (CLOSE) close clears the bit once it has
 *                           failed the waiters, adds in flight or not
 *   -DBROKEN_TAKE_CLOSED    (CLOSE) a take reads a closed word with W
 *                           clear as takeable: the add's balance is not
 *                           behind the sign bit
 * In check-model.sh's breadth-first searches, the first failure is: the
 * own move (SHARED_FIELD, CLEAR_EARLY, REDUCE_FIELD, CLOSE_CLEARS), I1'
 * (SHARED_FIELD, REDUCE_FIELD and CLOSE_CLEARS without it), the teardown
 * (CLEAR_EARLY without it), no overtake (NOT_NEGATIVE), conservation
 * (DROP_REST), FIFO (NEWEST_FIRST), debt first (DEBT_LAST: a release's
 * permit left over with the debt unpaid; a waiter served while a debt is
 * owed is among its later failures), closed (TAKE_CLOSED). The credit
 * rule is among SHARED_FIELD's failures (pan -e -c0), never the first; no
 * variant here shows the progress check failing.
 */

#define NW	2	/* waiters (the wake-up mask below has two bits) */
#define NR	3	/* releasers: one permit more than the waiters take */
#ifdef REDUCE
#define NRED	1	/* the reducer's release */
#else
#define NRED	0
#endif

bit W;
byte val;
short dc;
bit closed;
bit lk;

#define CRED	(dc < 0 -> -dc : 0)
#define DEBT	(dc > 0 -> dc : 0)

byte q[NW];		/* linked waiters, oldest first */
byte qlen;
bit done[NW];

/* ghost */
byte outside = NR;	/* permits no releaser has taken out yet */
byte held;		/* permits held by waiters and the try */
byte hand;		/* permits a lock holder took from the word to hand */
byte linked;		/* waiters linked so far, the FIFO ticket */
byte served;		/* waiters served so far */
byte ticket[NW];
byte returned;		/* waiters that returned */
bit trydone;
bit tgot;		/* the try took a permit, which it returns */
byte nadd;		/* blind adds made */
bit freed;
bit rdone = 1;		/* the reducer is done (set to 0 by init if any) */
bit cdone = 1;		/* the closer is done (likewise) */
bit shut[NW];		/* a waiter failed by close */

/* The word as a take sees it: negative while W is set or closed. */
#if defined(BROKEN_NOT_NEGATIVE)
#define TAKEABLE	(!closed && val >= 1)
#elif defined(BROKEN_TAKE_CLOSED)
#define TAKEABLE	(!W && val >= 1)
#else
#define TAKEABLE	(!W && !closed && val >= 1)
#endif

#define TOUCH		assert(!freed)

inline lock()
{
	atomic { lk == 0 -> TOUCH; lk = 1 }
}

inline unlock()
{
	atomic { TOUCH; lk = 0 }
}

/*
 * Under the lock, with @hand permits taken from the word and the debt
 * paid: serve the waiters in FIFO order, then, with none left and no
 * debt, clear the bit if no add is in flight, moving the credit and the
 * rest to the balance in the same exchange, or keep the rest as a
 * credit. @srv collects whom to wake.
 */
inline hand_over(srv)
{
	do
	:: hand > 0 && qlen > 0 ->
		atomic {
			assert(dc <= 0);	/* debt first */
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
			held++
		}
	:: else -> break
	od;
	if
	:: qlen == 0 && dc <= 0 ->
		atomic {
			TOUCH;
			if
#ifdef BROKEN_CLEAR_EARLY
			:: true ->
#else
			:: val == 0 ->
#endif
				W = 0; val = val + CRED + hand; dc = 0
#ifdef BROKEN_DROP_REST
			:: else -> skip
#else
			:: else -> dc = dc - hand
#endif
			fi;
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
		:: hand > 0 && dc > 0 -> dc--; hand--
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

/* Return one permit: the blind add, then, if the word was not clean, the
 * adder's own move under the lock. */
inline release_one()
{
	atomic { TOUCH; held--; val++; clean = !W; nadd++ };
	if
	:: clean -> skip
	:: else ->
		lock();
		atomic {
			TOUCH;
#ifdef NO_OWN_CHECK
			/* take what is left of it, to let the others decide */
			if
			:: val >= 1 -> val--; hand = 1
			:: else -> hand = 0
			fi;
#else
			assert(W && val >= 1);		/* its own add is there */
#endif
#if defined(BROKEN_SHARED_FIELD)
			hand = hand + val; val = 0
#elif !defined(NO_OWN_CHECK)
			val--; hand = 1
#else
			skip
#endif
		};
#ifndef BROKEN_DEBT_LAST
		pay_debt();
#endif
		hand_over(srv);
#ifdef BROKEN_DEBT_LAST
		pay_debt();
#endif
		unlock();
		wake(srv)
	fi
}

proctype releaser()
{
	bit clean;
	byte srv;

	/* it holds a permit from outside, which it returns */
	atomic { outside--; held++ };
	release_one()
}

proctype tryer()
{
	bit clean, got;
	byte srv;

	atomic {
		TOUCH;
		if
		:: TAKEABLE -> val--; held++; got = 1; tgot = 1;
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
		:: TAKEABLE -> val--; held++; took = 1; assert(!closed)
		:: else
		fi
	};
	if
	:: took -> goto out
	:: else
	fi;
	lock();
	atomic {
		TOUCH;
		if
		:: closed -> refused = 1		/* -ESHUTDOWN */
		:: !closed && !W && val >= 1 -> val--; held++; took = 1
		:: !closed && !W && val == 0 -> W = 1	/* marks, balance drained */
		:: !closed && W && dc < 0 -> dc++; held++; took = 1
		:: else
		fi;
		if
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
 * debt. Then, as psem.pml's reducer does, returns it with the blind add.
 */
proctype reducer()
{
	bit clean;
	byte srv;

	lock();
	atomic {
		TOUCH;
		if
		:: !W && val >= 1 -> val--
		:: !W && val == 0 -> W = 1; dc = 1
#ifdef BROKEN_REDUCE_FIELD
		:: W && val >= 1 -> val--
		:: W && val == 0 -> dc++
#else
		:: W -> dc++
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
 * nothing, and leaves the queue oldest first; the bit then goes as a
 * release's would, unless an add is in flight or a debt owed. May reopen.
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
			shut[q[0]] = 1;
			q[0] = q[1];
			qlen--;
			served++
		:: else -> break
		od
	};
#ifdef BROKEN_CLOSE_CLEARS
	atomic { TOUCH; W = 0; val = val + CRED; dc = 0 };
#else
	if
	:: W -> hand_over(srv)
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
 * The owner: once its waiters have returned, its try is done and every
 * release has made its add (a call that has not begun is the owner's to
 * exclude: design.rst, "Teardown"), it quiesces and frees. psem_sync()
 * reads, under the queue lock, the traces a call leaves; the design adds
 * one, an add in flight (W set with the field not empty), which it waits
 * for as for the others.
 */
proctype owner()
{
	atomic {
		returned == NW && trydone && rdone && cdone &&
		nadd == NR + tgot + NRED && lk == 0 && !(W && val > 0) ->
		freed = 1
	}
}

/* The invariants, in every state. */
active proctype monitor()
{
end:	do
	:: atomic {
		assert(outside + val + CRED + held + hand == NR + DEBT);
		assert(W || (qlen == 0 && dc == 0));
		assert(dc >= 0 || qlen == 0);
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
