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
 *   cred  the bits above the field while W is set: a credit, what a lock
 *         holder had left to add while adds were in flight; zero while W
 *         is clear
 * The debt, close and capacities are not modelled here (psem.pml models
 * them for today's word).
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
 *
 * Properties (assertions, and spin's end states):
 *   conservation   outside + val + cred + held + hand == NR, in every state
 *   I1'            W clear implies no waiter linked and no credit
 *   credit         a credit only while no waiter is linked
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
 * In check-model.sh's breadth-first searches, the first failure is: the
 * own move (SHARED_FIELD, CLEAR_EARLY), I1' (SHARED_FIELD without it),
 * the teardown (CLEAR_EARLY without it), no overtake (NOT_NEGATIVE),
 * conservation (DROP_REST), FIFO (NEWEST_FIRST). The credit rule is
 * among SHARED_FIELD's failures (pan -e -c0), never the first; no
 * variant here shows the progress check failing.
 */

#define NW	2	/* waiters (the wake-up mask below has two bits) */
#define NR	3	/* releasers: one permit more than the waiters take */

bit W;
byte val;
byte cred;
bit lk;

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

/* The word as a take sees it: negative while W is set. */
#ifdef BROKEN_NOT_NEGATIVE
#define TAKEABLE	(val >= 1)
#else
#define TAKEABLE	(!W && val >= 1)
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
 * Under the lock, with @hand permits taken from the word: serve the
 * waiters in FIFO order, then, with none left, clear the bit if no add is
 * in flight, moving the credit and the rest to the balance in the same
 * exchange, or keep the rest as a credit. @srv collects whom to wake.
 */
inline hand_over(srv)
{
	do
	:: hand > 0 && qlen > 0 ->
		atomic {
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
	:: qlen == 0 ->
		atomic {
			TOUCH;
			if
#ifdef BROKEN_CLEAR_EARLY
			:: true ->
#else
			:: val == 0 ->
#endif
				W = 0; val = val + cred + hand; cred = 0
#ifdef BROKEN_DROP_REST
			:: else -> skip
#else
			:: else -> cred = cred + hand
#endif
			fi;
			hand = 0
		}
	:: else
	fi
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
		hand_over(srv);
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
			assert(qlen == 0)		/* no overtake */
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
	bit took;

	atomic {
		TOUCH;
		if
		:: TAKEABLE -> val--; held++; took = 1
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
		:: !W && val >= 1 -> val--; held++; took = 1
		:: !W && val == 0 -> W = 1		/* marks, balance drained */
		:: W && cred >= 1 -> cred--; held++; took = 1
		:: else
		fi;
		if
		:: !took ->
			q[qlen] = me; qlen++;
			ticket[me] = linked; linked++
		:: else
		fi
	};
	unlock();
	if
	:: !took -> done[me] == 1
	:: else
	fi;
out:
	returned++
}

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
		returned == NW && trydone && nadd == NR + tgot && lk == 0 &&
		!(W && val > 0) -> freed = 1
	}
}

/* The invariants, in every state. */
active proctype monitor()
{
end:	do
	:: atomic {
		assert(outside + val + cred + held + hand == NR);
		assert(W || (qlen == 0 && cred == 0));
		assert(cred == 0 || qlen == 0)
	}
	od
}

init
{
	atomic {
		run waiter(0);
		run waiter(1);
		run releaser();
		run releaser();
		run releaser();
		run tryer();
		run owner()
	}
}
