/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem.pml - a Promela model of psem's release/acquire protocol with the
 * waiters bit, asynchronous waiters and close.
 *
 * Checked exhaustively by scripts/check-model.sh (see model/README).
 *
 * What is modelled (kmod names in brackets):
 *   word       [count]  the one atomic word: balance * ONE | CONTENDED |
 *                       WAITERS, with ONE = 4 [PSEM_ONE], WAITERS = 1,
 *                       CONTENDED = 2. Every access compares/writes the
 *                       whole word, so the flags ride along as in C.
 *   lk                  the queue lock [wq.lock], a spinlock
 *   q[], qlen           the FIFO list of waiters [wq.head], oldest first
 *   debt       [debt]   permits psem_reduce() still has to remove
 *   want/needed         per waiter: count asked for, permits still missing
 *   done[]     [done]   set by the releaser after its unlock
 *                       (smp_store_release), read by the waiter
 *   MAX                 stands in for PSEM_MAX_PERMITS (LONG_MAX >> 2)
 *
 * The release rule [the debugfs switches fast_release, zero_release],
 * chosen at compile time with -DRULE=:
 *   RULE_LOCKED (0)  fast_release=0: every release takes the lock
 *   RULE_SEED   (1)  zero_release=0: the fast exchange only when the
 *                    balance is positive and CONTENDED is clear
 *   RULE_PSEM   (2)  the default: the fast exchange whenever
 *                    (word & FLAGS) == 0, at any balance including zero;
 *                    release_all_held tries one exchange 0 -> n * ONE
 *   RULE_ANY    (3)  each release picks one of the three (the switches
 *                    flipped while releases run)
 * FLAG (default 1) is the contention_flag switch.
 *
 * Operations: try_acquire (lock-free cmpxchg loop, flags ride along);
 * acquire (try, then under the lock drain the balance, and if that is not
 * enough the same exchange leaves the word at exactly WAITERS; link; sleep
 * until done); a cancellable acquire (a signal or timeout: under the lock,
 * if still linked unlink and give back the partial grant through the locked
 * path; if already served, unlock and wait for done); reduce (under the
 * lock: drain, and if short record the debt with the word set to WAITERS
 * in the same exchange); release (one strong cmpxchg by the rule, else the
 * locked path); release_all_held (one cmpxchg 0 -> n * ONE, else the locked
 * path).
 *
 * The locked path. WAITERS clear: add n * ONE with a cmpxchg loop that
 * refuses overflow (-EOVERFLOW, nothing added); a lost race sets CONTENDED
 * (atomic or) once, the winning cmpxchg clears it in the same exchange, and
 * a refusal after a trip clears it with an atomic and-not. WAITERS set: the
 * word is exactly WAITERS and only lock holders write it; pay the debt, hand
 * off FIFO (served waiters are unlinked onto a private list, `served`), and
 * if the queue is then empty and no debt remains, clear WAITERS and add the
 * rest in one fetch_add(rest * ONE - WAITERS). After the unlock the releaser
 * publishes done for each served waiter, one step each.
 *
 * Asynchronous waiters (-DASYNC) [psem_async.c]: an operation
 * acquire_async(n) takes like acquire(), links the same way (same queue,
 * partial grants, WAITERS) with async[id] set, and does not sleep. Whoever
 * takes it off the queue (a hand-off, a close) calls its callback after
 * the unlock, in publish_done() [psem_wake_served()]; with a grant the
 * callback releases the permits into the same psem at once, taking the
 * queue lock afresh, and that release's wake list is walked one level
 * deeper (sv[d]) before the callback returns (cbret[], the end of the RCU
 * read-side section). The owner either waits for the callback to return,
 * or cancels at any moment [psem_cancel_async_sync()]: under the lock, if
 * still linked (`served` clear) unlink and give the partial grant back
 * through the locked path, else wait until the callback has returned.
 *
 * Close (-DCLOSE) [psem_lifecycle.c]: a Closer process closes once, at any
 * moment, and may then reopen (REOPEN, default 1). CLOSED = 128 is the
 * byte's top bit, as PSEM_CLOSED is the sign bit: BAL() masks it, a closed
 * word fails every lock-free test (try, fast release, release_all_held's
 * exchange from 0), the locked add and the clearing fetch_add carry it
 * along. close: under the lock, fetch_or(CLOSED), fail every waiter with
 * -ESHUTDOWN (moved to the wake list with what it was assigned, which goes
 * back through the locked path: debt first), unlock, then done or the
 * callback for each. A slow acquire (sleeping or async) under the lock
 * refuses with -ESHUTDOWN on a closed word [psem_refuse_wait()]; reduce
 * and releases work as before.
 *
 * Memory model: spin explores interleavings of sequentially consistent
 * steps. Every load, store and RMW of a shared word is one step (a d_step
 * where the real instruction is a single atomic RMW; ghost updates ride
 * along in the same step). Bugs that need weaker ordering are invisible
 * here (LKMM litmus tests and KCSAN are the tools for those). Steps taken
 * under the queue lock that touch only lock-protected state (the queue, the
 * debt) are merged into one d_step: nothing else reads them without the
 * lock.
 *
 * Ghost state (no counterpart in the C code), used only by assertions:
 *   held[p]  permits process p owns (acquired, not yet released)
 *   acq[p]   permits assigned to p's acquire in progress (drained in its
 *            slow path + handed to it), until it returns
 *   infl[p]  permits a releaser p has in flight
 *   live[p]  p's waiter struct (on its stack) is live: from linking until
 *            the acquire returns; the releaser asserts it when it
 *            publishes done
 *   ticket[] rank in link order among the linked waiters (1 = oldest;
 *            renumbered on every unlink, so it stays bounded)
 *   A reduce(n) is followed by the same process releasing n (the capacity
 *   is restored, so that every waiter can still be served): in the model
 *   the reducer holds those n permits from the reduce on, so the debt is
 *   what the semaphore owes on top of TOTAL.
 *
 * Checked properties:
 *   - conservation at every state: balance + sum(held + acq + infl) ==
 *     TOTAL + debt, and balance <= min(MAX, TOTAL) (no permit created, a
 *     debt is never bypassed);
 *   - I1: WAITERS clear -> queue empty and debt == 0;
 *   - I2: WAITERS set -> the word is exactly WAITERS (balance 0, CONTENDED
 *     clear); the seed's "balance > 0 -> queue empty and no debt" follows,
 *     and is asserted too, as is "no linked waiter the balance could serve";
 *   - CONTENDED set -> the queue lock is held; CONTENDED clear whenever a
 *     task takes the lock;
 *   - FIFO: waiters are served in the order they linked, and only once the
 *     debt is paid;
 *   - a served waiter's struct is live when its releaser publishes done (a
 *     served waiter that cancels waits for done);
 *   - all processes terminate: a waiter never served, or served and never
 *     told, is an invalid end state; at the end the queue is empty, the debt
 *     paid, the word back at INIT * ONE with no flag;
 *   - overflow refused without effect, and in the OVERFLOW configuration of
 *     two racing releases of 1 from MAX - 1 exactly one lands.
 * With ASYNC or CLOSE (ghost how[]: how a waiter left the queue, recorded
 * once under the lock):
 *   - every waiter leaves the queue exactly one way: served (whole count),
 *     shut out by close (-ESHUTDOWN, nothing held: its partial grant given
 *     back), or cancelled by itself; a second dequeue is an assertion;
 *   - ASYNC: the callback is called at most once, only for a waiter still
 *     psem's (not cancelled), never under the lock (a callback that
 *     releases would wait for the lock forever: an invalid end state); when
 *     the owner has its aw back exactly one of "cancelled" and "called
 *     back" happened;
 *   - CLOSE: closed -> nobody linked; an acquire (try, sleeping, async)
 *     that began on a closed psem with no reopen since does not succeed;
 *     conservation as above, through close's give-back.
 *
 * Configuration macros (spin -DNAME=VALUE):
 *   NPROC (1..3), OPS (operations per process), INIT (initial balance),
 *   MAX, RULE, FLAG, CANCEL (cancellable acquires), REDUCE (reduce as an
 *   operation), ASYNC (asynchronous acquire as an operation), CLOSE (the
 *   Closer process; NPROC <= 2), REOPEN, OVERFLOW (overflow scenario),
 *   REACH=<n> (coverage witness, see E_* below), REACH_LOG (log every
 *   event reached, in one search). Counts are 1..NMAX with NMAX <= INIT,
 *   so that every acquire can eventually be served.
 * Broken variants:
 *   BROKEN_CLEAR_WITH_WAITER    the locked path clears WAITERS when the debt
 *                               is paid, without checking the queue is empty
 *   BROKEN_LINK_WITHOUT_BIT     the slow acquirer drains to 0, not to
 *                               WAITERS, and links
 *   BROKEN_DEBT_WITHOUT_BIT     reduce records a debt without setting
 *                               WAITERS
 *   BROKEN_RELEASE_WITH_WAITER  the locked path adds to the word without
 *                               paying the debt or serving waiters
 *   BROKEN_LINK_WITHOUT_DRAIN   the slow acquirer sets WAITERS and links
 *                               without draining the balance
 *   BROKEN_NO_DONE_WAIT         a served waiter that cancels returns without
 *                               waiting for done
 *   BROKEN_FAST_RETRY           the fast release retries its exchange in a
 *                               loop (a performance problem, not expected to
 *                               break safety)
 *   BROKEN_CANCEL_UNLOCKED      (ASYNC) the cancel reads `served` before
 *                               it takes the lock and acts on that
 *   BROKEN_CB_UNDER_LOCK        (ASYNC) a release calls the callbacks (and
 *                               publishes done) before its unlock
 *   BROKEN_CLOSE_NO_GIVEBACK    (CLOSE) close fails the waiters without
 *                               giving back their partial grants
 *   BROKEN_ACQUIRE_CLOSED       (CLOSE) the slow acquire does not refuse
 *                               on a closed psem
 *   NO_QUEUE_INV                drop I1, I2 and the queue assertions, to
 *                               show that the broken variants also strand a
 *                               waiter or a debt
 */

#define RULE_LOCKED	0
#define RULE_SEED	1
#define RULE_PSEM	2
#define RULE_ANY	3

#ifndef NPROC
#define NPROC		2
#endif
#ifndef OPS
#define OPS		2
#endif
#ifndef INIT
#define INIT		2
#endif
#ifndef MAX
#define MAX		3
#endif
#ifndef RULE
#define RULE		RULE_PSEM
#endif
#ifndef FLAG
#define FLAG		1
#endif
#ifndef CANCEL
#define CANCEL		1
#endif
#ifndef REDUCE
#define REDUCE		1
#endif
#ifndef NMAX
#define NMAX		2	/* largest count one call asks for (<= INIT) */
#endif
#ifdef CLOSE
#ifndef REOPEN
#define REOPEN		1
#endif
#if NPROC > 2
#error "CLOSE: at most 2 processes besides the closer (arrays of 3)"
#endif
#endif
#if defined(ASYNC) || defined(CLOSE)
#define EXT		1	/* waiters end in one of several ways */
#else
#define EXT		0
#endif

#define WAITERS		1
#define CONTENDED	2
#define FLAGS		3
#define ONE		4
#ifdef CLOSE
#define CLOSED		128	/* PSEM_CLOSED, the sign bit of the byte */
#define BAL(x)		(((x) & ~CLOSED) / ONE)
#define UNCLOSED(x)	((x) & ~CLOSED)
#else
#define CLOSED		0	/* never set: the tests of it are false */
#define BAL(x)		((x) / ONE)
#define UNCLOSED(x)	(x)
#endif

#ifdef OVERFLOW
/* Each process starts owning one permit from outside the semaphore. */
#define EXTRA		1
#else
#define EXTRA		0
#endif
#define TOTAL		(INIT + NPROC * EXTRA)
#define OVERFLOW_CONFIG	(EXTRA > 0)

byte word = INIT * ONE;
bit lk;
byte debt;

byte q[3];		/* waiter ids, q[0] is the head */
byte qlen;
byte want[3];
byte needed[3];
bit linked[3];
bit done[3];

/* ghost */
byte held[3];
byte acq[3];
byte infl[3];
bit live[3];
byte ticket[3];
byte outside = NPROC * EXTRA;	/* permits not yet given to a process */
byte nfin;
#if EXT
/* how each waiter left the queue, set once under the lock (ghost) */
#define HOW_SERVED	1	/* its whole count handed to it */
#define HOW_SHUT	2	/* failed by close, -ESHUTDOWN */
#define HOW_CANCEL	3	/* unlinked by its own cancel */
byte how[3];
#ifdef NO_QUEUE_INV
#define OUTCOME(x, h)	how[x] = h
#else
#define OUTCOME(x, h)	assert(how[x] == 0); how[x] = h
#endif
#else
#define OUTCOME(x, h)	skip
#endif
#ifdef ASYNC
bit async[3];		/* [w.kind == PSEM_WAIT_ASYNC] */
bit cbs[3];		/* ghost: the callback was called */
bit cbret[3];		/* ghost: the callback has returned (RCU section
			 * closed): the owner may reuse aw */
#endif
#ifdef CLOSE
byte reopens;		/* ghost: reopen epoch */
/* an acquire that began on a closed psem, no reopen since, must fail */
#define TOOK \
	if \
	:: sc -> EVENT(E_REOPEN_TAKE) \
	:: else -> skip \
	fi; \
	assert(!(sc && se == reopens))
#else
#define TOOK		skip
#endif
#ifdef OVERFLOW
byte refusals;
byte landed;
#define LANDED		landed++
#else
#define LANDED		skip
#endif

#define SUM3(a)		(a[0] + a[1] + a[2])
#define CONSERVED	(BAL(word) + SUM3(held) + SUM3(acq) + SUM3(infl) + \
			 outside == TOTAL + debt)
#define WAITER_OK(p)	(!linked[p] || (acq[p] + needed[p] == want[p] && \
			 needed[p] > 0 && live[p]))
/* I1: WAITERS clear -> queue empty and no debt */
#define I1		((word & WAITERS) || (qlen == 0 && debt == 0))
/* I2: WAITERS set -> the word is exactly WAITERS */
#define I2		(!(word & WAITERS) || UNCLOSED(word) == WAITERS)
/* the seed's: balance > 0 -> queue empty and no debt */
#define POS_EMPTY	(BAL(word) == 0 || (qlen == 0 && debt == 0))
/* no waiter asleep while the balance could serve it (no lost wake-up) */
#define NOT_LOST(p)	(!linked[p] || BAL(word) < needed[p])
#define NO_LOST_WAKEUP	(NOT_LOST(0) && NOT_LOST(1) && NOT_LOST(2))
/* closed -> nobody waits (no quiesce in the model) */
#define CLOSED_EMPTY	(!(word & CLOSED) || qlen == 0)
#ifdef NO_QUEUE_INV
#define QUEUE_INV	true
#else
#define QUEUE_INV	(I1 && I2 && POS_EMPTY && NO_LOST_WAKEUP && CLOSED_EMPTY)
#endif
#define QUEUE_OK	(qlen == linked[0] + linked[1] + linked[2] && \
			 WAITER_OK(0) && WAITER_OK(1) && WAITER_OK(2))
/* CONTENDED is set and cleared only under the lock */
#define FLAG_OK		(!(word & CONTENDED) || lk)
/* no permit created: the balance never exceeds what the semaphore holds */
#define BOUNDED		(BAL(word) <= MAX && BAL(word) <= TOTAL)
#define INV		(CONSERVED && BOUNDED && QUEUE_INV && QUEUE_OK && \
			 FLAG_OK)

#define MIN(a, b)	((a) < (b) -> (a) : (b))

/*
 * Coverage witnesses: with -DREACH=<n>, reaching event n is an assertion
 * failure naming it, so a search that finds it proves the event is
 * reachable in that configuration (the checks above are not vacuous).
 */
#define E_FLAG_TRIP		1	/* locked release sets CONTENDED */
#define E_FLAG_HONOURED		2	/* fast release sent to the lock by it */
#define E_FAST_CAS_FAIL		3	/* fast release loses its exchange */
#define E_TWO_WAITERS		4	/* two waiters linked at once */
#define E_PARTIAL		5	/* a waiter handed part of its count */
#define E_CANCEL_HANDBACK	6	/* a cancelled waiter gives permits back */
#define E_CANCEL_RACE		7	/* cancel finds itself already served */
#define E_REFUSE		8	/* overflow refused */
#define E_LOCKED_ADD		9	/* locked path adds with WAITERS clear */
#define E_SLOW_TAKE_ALL		10	/* slow acquire served under the lock */
#define E_FAST_AT_ZERO		11	/* fast release lands on balance 0 */
#define E_CANCEL_WAIT_DONE	12	/* cancel finds itself served, done not
					 * yet published: must wait for it */
#define E_DEBT			13	/* reduce records a debt */
#define E_DEBT_FIRST		14	/* a release pays debt while a waiter
					 * is linked */
#define E_CLEAR_ADD		15	/* a release clears WAITERS and adds a
					 * positive rest in one fetch_add */
#define E_CANCEL_CLEARS		16	/* a cancel clears WAITERS */
#define E_ALL_HELD_FAST		17	/* release_all_held's 0 -> n exchange */
#define E_TRIP_AT_ZERO		18	/* locked add loses to a fast release
					 * at balance 0 */
#define E_REFUSE_TRIPPED	19	/* refusal after a trip: CONTENDED
					 * cleared by and-not */
/* asynchronous waiters (-DASYNC) */
#define E_CB_GRANT		20	/* a callback releases its grant into
					 * the same psem through the lock */
#define E_CB_NESTED		21	/* a callback's release calls another
					 * waiter's callback (depth 2) */
#define E_ACANCEL_WON		22	/* an async cancel gives back a
					 * partial grant */
#define E_ACANCEL_LOST		23	/* an async cancel finds its waiter
					 * served, callback not yet returned */
#define E_ASYNC_PARTIAL		24	/* an async waiter handed part of its
					 * count */
/* close (-DCLOSE) */
#define E_CLOSE_PARTIAL		25	/* close gives back a partial grant */
#define E_CLOSE_DEBT		26	/* close's give-back pays a debt */
#define E_CLOSED_RELEASE	27	/* a locked release adds while closed */
#define E_CLOSED_REFUSE		28	/* a slow acquire refused: closed */
#define E_REOPEN_TAKE		29	/* an acquire that began closed
					 * succeeds after a reopen */
#define E_CANCEL_SHUT		30	/* a cancel finds itself shut out */
#define E_CB_SHUT		31	/* a callback told -ESHUTDOWN */
#ifdef REACH
#define EVENT(e)	assert(!(REACH == (e)))
#elif defined(REACH_LOG)
/*
 * The events reached in one search, logged by pan as it runs: a C global
 * outside the state vector (it changes no state), one line per event the
 * first time its statement executes.
 */
c_decl { unsigned long reach_seen; }
#define EVENT(e)	c_code { if (!(reach_seen & (1UL << (e)))) { \
				reach_seen |= 1UL << (e); \
				printf("model-event %d\n", (e)); } }
#else
#define EVENT(e)	skip
#endif

/*
 * The private wake list of the running release: a bit set of waiter ids.
 * With asynchronous waiters a callback's own release builds a list of its
 * own, walked before the callback returns (psem_wake_served() nests): one
 * set per nesting depth d.
 */
#ifdef ASYNC
#define SERVED		sv[d]
#define ASYNC_PARTIAL(x) \
	if \
	:: async[x] -> EVENT(E_ASYNC_PARTIAL) \
	:: else -> skip \
	fi
#else
#define SERVED		served
#define ASYNC_PARTIAL(x) skip
#endif

/* The monitor is enabled only in a state that breaks the invariant. */
active proctype monitor()
{
end:	atomic {
		!(INV) ->
		assert(CONSERVED);
		assert(BOUNDED);
#ifndef NO_QUEUE_INV
		assert(I1);
		assert(I2);
		assert(POS_EMPTY);
		assert(NO_LOST_WAKEUP);
#ifdef CLOSE
		assert(CLOSED_EMPTY);
#endif
#endif
		assert(QUEUE_OK);
		assert(FLAG_OK)
	}
}

/* CONTENDED is always clear when a task acquires the queue lock. */
inline lock()
{
	atomic { lk == 0 -> lk = 1; assert(!(word & CONTENDED)) }
}

inline unlock()
{
	lk = 0
}

/*
 * WAITERS is set: pay the debt, then hand rem permits (in flight, held by
 * releaser `id`) to waiters in FIFO order, unlinking the served ones onto
 * the private list `served`. Lock-protected state only: one step.
 */
inline pay_and_hand_off()
{
	k = MIN(rem, debt);
	if
	:: k > 0 && qlen > 0 -> EVENT(E_DEBT_FIRST)
	:: else -> skip
	fi;
	debt = debt - k;
	infl[id] = infl[id] - k;
	rem = rem - k;
	do
	:: rem > 0 && qlen > 0 ->
		assert(debt == 0);	/* debt before any waiter */
		w = q[0];
		k = MIN(rem, needed[w]);
		needed[w] = needed[w] - k;
		acq[w] = acq[w] + k;
		infl[id] = infl[id] - k;
		rem = rem - k;
		if
		:: needed[w] > 0 -> EVENT(E_PARTIAL); ASYNC_PARTIAL(w)
		:: else -> skip
		fi;
		if
		:: needed[w] == 0 ->
			/* FIFO: served in link order */
			assert(ticket[w] == 1);
			OUTCOME(w, HOW_SERVED);
			i = 0;
			do
			:: i + 1 < qlen -> q[i] = q[i + 1]; i++
			:: else -> break
			od;
			qlen--;
			q[qlen] = 0;
			linked[w] = 0;
			want[w] = 0;
			untick(w);
			SERVED = SERVED | (1 << w)
		:: else -> skip
		fi
	:: else -> break
	od;
	w = 0; k = 0; i = 0
}

/* Renumber the link ranks when waiter x leaves the queue (in a d_step). */
inline untick(x)
{
	j = 0;
	do
	:: j < 3 ->
		if
		:: ticket[j] > ticket[x] -> ticket[j]--
		:: else -> skip
		fi;
		j++
	:: else -> break
	od;
	ticket[x] = 0;
	j = 0
}

/* Refuse with -EOVERFLOW: nothing added, permits stay with the caller. */
inline refuse()
{
	d_step {
		assert(rem == infl[id]);
		held[id] = held[id] + infl[id];
		infl[id] = 0;
#ifdef OVERFLOW
		refusals++;
#else
		assert(OVERFLOW_CONFIG);	/* MAX - INIT > NMAX */
#endif
		EVENT(E_REFUSE);
		rem = 0;
		if
		:: mine ->
			/* atomic and-not: a refusal after a trip */
			EVENT(E_REFUSE_TRIPPED);
			word = word & ~CONTENDED;
			mine = 0
		:: else -> skip
		fi
	}
}

/*
 * The locked path. Caller holds the lock and has put its permits in
 * infl[id]; rem may be 0 (a cancel with nothing to give back).
 */
inline locked_release()
{
	d_step {
		rem = infl[id];
		cur = word		/* relaxed read */
	};
	if
	:: cur & WAITERS ->
		/*
		 * I2: the word is exactly WAITERS and only lock holders write
		 * it, and the queue and the debt are lock-protected: the pay,
		 * the hand-off and the final fetch_add are one step.
		 */
		d_step {
#ifdef BROKEN_RELEASE_WITH_WAITER
			word = word + rem * ONE;
			infl[id] = infl[id] - rem;
			rem = 0;
#endif
			pay_and_hand_off();
			if
#ifdef BROKEN_CLEAR_WITH_WAITER
			:: debt == 0 ->
#else
			:: qlen == 0 && debt == 0 ->
#endif
				/* fetch_add_release(rest * ONE - WAITERS) */
				if
				:: rem > 0 -> EVENT(E_CLEAR_ADD); LANDED
				:: else -> skip
				fi;
				word = word + rem * ONE - WAITERS;
				infl[id] = infl[id] - rem;
				rem = 0
			:: else ->
				/* all of it went to the debt or to waiters */
				assert(rem == 0)
			fi
		}
	:: else ->
		/* nobody waits: a cmpxchg loop, overflow refused */
		do
		:: rem == 0 -> break
		:: rem > 0 && rem > MAX - BAL(cur) ->
			refuse();
			break
		:: rem > 0 && rem <= MAX - BAL(cur) ->
			d_step {
				if
				:: word == cur ->
					/* the winning exchange clears
					 * CONTENDED */
					word = (cur & ~CONTENDED) + rem * ONE;
					EVENT(E_LOCKED_ADD);
#ifdef CLOSE
					if
					:: cur & CLOSED -> EVENT(E_CLOSED_RELEASE)
					:: else -> skip
					fi;
#endif
					infl[id] = 0;
					LANDED;
					rem = 0;
					mine = 0;
					ok = 1
				:: else ->
					if
					:: BAL(cur) == 0 && BAL(word) > 0 ->
						EVENT(E_TRIP_AT_ZERO)
					:: else -> skip
					fi;
					/* cmpxchg returns the current value */
					cur = word;
					ok = 0
				fi
			};
			if
			:: ok -> ok = 0; break
			:: !ok && !mine && FLAG ->
				/* lost a race: ask releases to queue */
				d_step {
					word = word | CONTENDED;
					EVENT(E_FLAG_TRIP)
				};
				mine = 1
			:: else -> skip
			fi
		od
	fi;
	cur = 0
}

#ifndef ASYNC
/* After the unlock: publish done for every waiter this release served. */
inline publish_done()
{
	do
	:: SERVED != 0 ->
		/* read the task, smp_store_release(&w->done, true) */
		d_step {
			i = 0;
			do
			:: !(SERVED & (1 << i)) -> i++
			:: else -> break
			od;
			assert(live[i]);	/* the waiter's stack is live */
			done[i] = 1;
			SERVED = SERVED & ~(1 << i);
			i = 0
		}
	:: else -> break
	od
}
#else
/*
 * After the unlock [psem_wake_served()]: for each waiter this release took
 * off the queue, publish done (a sleeping waiter) or call the callback (an
 * asynchronous one). The callback owns aw from the call on; with a grant
 * it releases the permits into the same psem at once (taking the queue
 * lock afresh: it runs after the unlock), and that release's own wake list
 * is walked, one level deeper, before the callback returns.
 */
inline publish_done()
{
	do
	:: SERVED != 0 ->
		d_step {
			i = 0;
			do
			:: !(SERVED & (1 << i)) -> i++
			:: else -> break
			od;
			SERVED = SERVED & ~(1 << i);
			assert(live[i]);	/* the waiter is still psem's */
			if
			:: !async[i] ->
				/* smp_store_release(&w->done, true) */
				done[i] = 1
			:: else ->
				/* aw->fn(aw, w->result): exactly once, never
				 * for a cancelled waiter */
				assert(!cbs[i] && (how[i] == HOW_SERVED ||
						   how[i] == HOW_SHUT));
				cbs[i] = 1;
				live[i] = 0;	/* the callback owns aw */
				if
				:: how[i] == HOW_SHUT -> EVENT(E_CB_SHUT)
				:: else -> skip
				fi;
				/* with a grant the callback holds the permits */
				cbn = acq[i];
				held[id] = held[id] + cbn;
				acq[i] = 0;
				if
				:: d > 0 -> EVENT(E_CB_NESTED)
				:: else -> skip
				fi;
				assert(d < 2);
				d++;
				cbof[d] = i
			fi;
			i = 0
		};
		if
		:: cbn > 0 ->
			/* the callback releases into the same psem */
			release_in_cb(cbn);
			cbn = 0
		:: else -> skip
		fi
	:: SERVED == 0 && d > 0 ->
		/* the callback returns; rcu_read_unlock() */
		d_step {
			cbret[cbof[d]] = 1;
			cbof[d] = 0;
			d--
		}
	:: else -> break
	od
}
#endif

inline slow_release()
{
	lock();
	locked_release();
#ifdef BROKEN_CB_UNDER_LOCK
	publish_done();
	unlock()
#else
	unlock();
	publish_done()
#endif
}

/* The fast exchange is allowed for word c by rule r. */
#define FAST_OK(c, n, r) \
	((r == RULE_PSEM && ((c) & FLAGS) == 0 || \
	  r == RULE_SEED && BAL(c) > 0 && !((c) & CONTENDED)) && \
	 (n) <= MAX - BAL(c) && !((c) & CLOSED))

/*
 * Give up cnt held permits and pick the release rule (the switches are
 * read once per call). RULE_ANY: any of the three, as if flipped meanwhile.
 */
inline begin_release(cnt)
{
#if RULE == RULE_ANY
	if
	:: r = RULE_LOCKED
	:: r = RULE_SEED
	:: r = RULE_PSEM
	fi;
#endif
	d_step {
#if RULE != RULE_ANY
		r = RULE;
#endif
		held[id] = held[id] - cnt;
		infl[id] = cnt;
		cur = word		/* relaxed read (release) */
	}
}

/*
 * The fast part of release(n): one strong compare-exchange if the rule
 * allows it (a closed word never does: it is negative in C); ok = 1 if it
 * landed.
 */
inline release_fast(cnt)
{
	begin_release(cnt);
	do
	:: FAST_OK(cur, cnt, r) ->
		d_step {
			if
			:: word == cur ->
				if
				:: BAL(cur) == 0 -> EVENT(E_FAST_AT_ZERO)
				:: else -> skip
				fi;
				word = cur + cnt * ONE;
				infl[id] = 0;
				LANDED;
				ok = 1
			:: else ->
				EVENT(E_FAST_CAS_FAIL);
				cur = word;	/* what cmpxchg returns */
				ok = 0
			fi
		};
		if
		:: ok -> break
#ifdef BROKEN_FAST_RETRY
		:: else -> skip		/* retry while the rule allows it */
#else
		:: else -> break	/* no retry: to the lock */
#endif
		fi
	:: else ->
		d_step {
			if
			:: r != RULE_LOCKED && (cur & CONTENDED) ->
				EVENT(E_FLAG_HONOURED)
			:: else -> skip
			fi;
			ok = 0
		};
		break
	od;
	r = 0;
	cur = 0
}

/*
 * release(n): one strong compare-exchange if the rule allows it, else (or
 * if it fails) the locked path.
 */
inline release(cnt)
{
	release_fast(cnt);
	if
	:: ok -> ok = 0
	:: else -> slow_release()
	fi
}

#ifdef ASYNC
/*
 * The release inside a callback: the same, but its wake list is the next
 * level of publish_done()'s walk (in C psem_wake_served() nests).
 */
inline release_in_cb(cnt)
{
	release_fast(cnt);
	if
	:: ok -> ok = 0
	:: else ->
		lock();		/* not held: the callback runs unlocked */
		EVENT(E_CB_GRANT);
		locked_release();
		unlock()
	fi
}
#endif

/* release_all_held(n): one cmpxchg 0 -> n * ONE, else the locked path. */
inline release_all_held(cnt)
{
	begin_release(cnt);
	d_step {
		if
		:: r == RULE_PSEM && word == 0 ->
			word = cnt * ONE;
			EVENT(E_ALL_HELD_FAST);
			infl[id] = 0;
			LANDED;
			ok = 1
		:: else -> ok = 0
		fi;
		r = 0;
		cur = 0
	};
	if
	:: ok -> ok = 0
	:: else -> slow_release()
	fi
}

/*
 * try_acquire(n): lock-free; ok = 1 on success. A closed word fails the
 * first test (in C it is negative). The first read of every acquire: with
 * CLOSE it also notes, as ghost, whether the call began closed.
 */
inline try_acquire(cnt)
{
#ifdef CLOSE
	d_step {
		cur = word;
		sc = (cur & CLOSED) != 0;
		se = reopens
	};
#else
	cur = word;
#endif
	do
	:: BAL(cur) < cnt || (cur & CLOSED) -> ok = 0; break
	:: else ->
		d_step {
			if
			:: word == cur ->
				word = cur - cnt * ONE;
				held[id] = held[id] + cnt;
				TOOK;
				ok = 1
			:: else -> cur = word; ok = 0
			fi
		};
		if
		:: ok -> break
		:: else -> skip
		fi
	od;
	cur = 0
}

/*
 * Under the lock: take min(balance, cnt); if that is not enough, the same
 * exchange leaves the word at exactly WAITERS. take = what was taken.
 */
inline drain_or_mark(cnt, nobit, isred)
{
	cur = word;
	do
	:: true ->
		d_step {
			take = MIN(BAL(cur), cnt);
			if
			:: take == cnt -> nw = cur - cnt * ONE
			:: else ->
				if
				:: nobit -> nw = cur & CLOSED
				:: else -> nw = (cur & CLOSED) | WAITERS
				fi
			fi;
#ifdef BROKEN_LINK_WITHOUT_DRAIN
			if
			:: take < cnt && !nobit -> take = 0; nw = cur | WAITERS
			:: else -> skip
			fi;
#endif
			if
			:: word == cur ->
				word = nw;
				if
				:: isred ->
					debt = debt + cnt - take;
					held[id] = held[id] + cnt
				:: else -> acq[id] = take
				fi;
				ok = 1
			:: else -> cur = word; ok = 0
			fi
		};
		if
		:: ok -> ok = 0; break
		:: else -> skip
		fi
	od;
	cur = 0; nw = 0
}

/* Link at the tail for what drain_or_mark() could not take (in a d_step). */
inline link_waiter(cnt)
{
	want[id] = cnt;
	needed[id] = cnt - take;
	ticket[id] = qlen + 1;
	q[qlen] = id;
	qlen++;
	if
	:: qlen > 1 -> EVENT(E_TWO_WAITERS)
	:: else -> skip
	fi;
	linked[id] = 1;
	live[id] = 1;
	take = 0
}

/* Unlink waiter id, wherever it is in the queue (in a d_step). */
inline unlink_self()
{
	i = 0;
	do
	:: i < qlen && q[i] != id -> i++
	:: else -> break
	od;
	if
	:: i < qlen ->
		do
		:: i + 1 < qlen -> q[i] = q[i + 1]; i++
		:: else -> break
		od;
		qlen--;
		q[qlen] = 0;
		untick(id)
	:: else -> skip		/* not in the queue: a broken variant */
	fi;
	i = 0;
	linked[id] = 0;
	live[id] = 0;
	want[id] = 0;
	needed[id] = 0
}

/*
 * A sleeping waiter off the queue, done read (in a d_step): it holds its
 * whole count, or (closed) nothing, its partial grant given back already.
 */
inline woken(cnt)
{
	done[id] = 0;
	live[id] = 0;
#if EXT
	if
	:: how[id] == HOW_SERVED ->
		assert(acq[id] == cnt);
		held[id] = held[id] + acq[id];
		acq[id] = 0;
		TOOK;
		ok = 1
	:: else ->
		/* -ESHUTDOWN */
		assert(how[id] == HOW_SHUT && acq[id] == 0);
		ok = 0
	fi;
	how[id] = 0
#else
	held[id] = held[id] + acq[id];
	acq[id] = 0
#endif
}

/*
 * Under the lock, before draining [psem_refuse_wait()]: a closed psem
 * refuses with -ESHUTDOWN. The closed state changes only under the lock.
 */
#ifdef BROKEN_ACQUIRE_CLOSED
#define REFUSE_CLOSED	false
#else
#define REFUSE_CLOSED	(word & CLOSED)
#endif

/* acquire(n), cancellable if canc; ok = 1 when the permits are held. */
inline acquire(cnt, canc)
{
	try_acquire(cnt);
	if
	:: ok -> skip
	:: else ->
		lock();
#ifdef CLOSE
		if
		:: REFUSE_CLOSED ->
			d_step { EVENT(E_CLOSED_REFUSE); unlock() };
			ok = 0
		:: else ->
#endif
#ifdef BROKEN_LINK_WITHOUT_BIT
		drain_or_mark(cnt, 1, 0);
#else
		drain_or_mark(cnt, 0, 0);
#endif
		if
		:: take == cnt ->
			d_step {
				EVENT(E_SLOW_TAKE_ALL);
				held[id] = held[id] + acq[id];
				acq[id] = 0;
				take = 0;
				TOOK;
				unlock()
			};
			ok = 1
		:: else ->
			d_step {
				link_waiter(cnt);
				/* lock-protected state: link and unlock in
				 * one step */
				unlock()
			};
			/* sleep: no end label, a waiter never told it was
			 * served is a deadlock (invalid end state) */
			if	/* asleep */
			:: done[id] ->
				/* smp_load_acquire(&w.done) */
				d_step { woken(cnt) }
#if !EXT
				; ok = 1
#endif
			:: canc ->
				/* signal or timeout */
				lock();
				if
				:: !linked[id] ->
					/* served before we got the lock */
					d_step {
						if
						:: done[id] -> EVENT(E_CANCEL_RACE)
						:: else -> EVENT(E_CANCEL_WAIT_DONE)
						fi;
#if EXT
						if
						:: how[id] == HOW_SHUT ->
							EVENT(E_CANCEL_SHUT)
						:: else -> skip
						fi;
#endif
						unlock()
					};
#ifndef BROKEN_NO_DONE_WAIT
					/* wait (uninterruptible) for done */
					done[id];	/* asleep for done */
#endif
					d_step { woken(cnt) }
#if !EXT
					; ok = 1
#endif
				:: else ->
					d_step {
						OUTCOME(id, HOW_CANCEL);
						unlink_self();
						/* give back what we were handed */
						if
						:: acq[id] > 0 -> EVENT(E_CANCEL_HANDBACK)
						:: else -> skip
						fi;
						infl[id] = acq[id];
						acq[id] = 0
					};
					locked_release();
					d_step {
						assert(infl[id] == 0);	/* never refused */
						if
						:: !(word & WAITERS) -> EVENT(E_CANCEL_CLEARS)
						:: else -> skip
						fi;
#if EXT
						how[id] = 0;
#endif
						unlock()
					};
					publish_done();
					ok = 0
				fi
			fi
		fi
#ifdef CLOSE
		fi
#endif
	fi
}

#ifdef ASYNC
/*
 * psem_acquire_async(n): as acquire(), but a waiter that links does not
 * sleep (-EINPROGRESS). Whoever takes it off the queue (a hand-off, a
 * close) calls its callback after the unlock, in publish_done(). The owner
 * then either waits until the callback has returned, or cancels at any
 * moment with psem_cancel_async_sync(): under the lock, if it is still
 * linked (not served), unlink it and give back its partial grant; else
 * wait for the callback to return (synchronize_rcu()). Afterwards aw is
 * the owner's again: exactly one of "cancelled" and "called back" must
 * have happened.
 */
inline acquire_async(cnt)
{
	try_acquire(cnt);
	if
	:: ok -> skip
	:: else ->
		lock();
#ifdef CLOSE
		if
		:: REFUSE_CLOSED ->
			d_step { EVENT(E_CLOSED_REFUSE); unlock() };
			ok = 0
		:: else ->
#endif
		drain_or_mark(cnt, 0, 0);
		if
		:: take == cnt ->
			d_step {
				held[id] = held[id] + acq[id];
				acq[id] = 0;
				take = 0;
				TOOK;
				unlock()
			};
			ok = 1
		:: else ->
			d_step {
				link_waiter(cnt);
				async[id] = 1;
				unlock()
			};
			/* -EINPROGRESS */
			if
			:: cbret[id] -> skip	/* called back, returned */
			:: true ->
				/* psem_cancel_async_sync() */
#ifdef BROKEN_CANCEL_UNLOCKED
				/* reads served before taking the lock */
				stale = !linked[id];
				lock();
				if
				:: stale ->
#else
				lock();
				if
				:: !linked[id] ->
#endif
					/* served: false; the callback has run or
					 * will run: wait until it returns */
					d_step {
						if
						:: !cbret[id] -> EVENT(E_ACANCEL_LOST)
						:: else -> skip
						fi;
						unlock()
					};
					cbret[id]
				:: else ->
					/* still linked: true, fn never runs */
					d_step {
						OUTCOME(id, HOW_CANCEL);
						unlink_self();
						if
						:: acq[id] > 0 -> EVENT(E_ACANCEL_WON)
						:: else -> skip
						fi;
						infl[id] = acq[id];
						acq[id] = 0
					};
					locked_release();
					d_step {
						assert(infl[id] == 0);	/* never refused */
						unlock()
					};
					publish_done()
				fi
			fi;
			/* aw is the caller's again (ok = 0 first: spin
			 * refuses a break into a d_step) */
			ok = 0;
			d_step {
				/* exactly one of cancelled and called back */
				assert(how[id] == HOW_CANCEL && !cbs[id] &&
				       !cbret[id] ||
				       how[id] != HOW_CANCEL && how[id] != 0 &&
				       cbs[id] && cbret[id]);
				how[id] = 0;
				cbs[id] = 0;
				cbret[id] = 0;
				async[id] = 0;
				stale = 0
			}
		fi
#ifdef CLOSE
		fi
#endif
	fi
}
#endif

#ifdef CLOSE
/*
 * psem_close(): under the lock, set CLOSED (a fetch_or on the word), fail
 * every waiter with -ESHUTDOWN (there is no quiesce in the model to
 * spare), and give their partial grants back through the locked path
 * (debt first). The failed waiters are told after the unlock, like served
 * ones: done, or the callback.
 */
inline close_psem()
{
	lock();
	d_step {
		assert(!(word & CLOSED));	/* closed once: no -EALREADY */
		word = word | CLOSED;
		i = 0;
		do
		:: i < qlen ->
			w = q[i];
			OUTCOME(w, HOW_SHUT);
			if
			:: acq[w] > 0 -> EVENT(E_CLOSE_PARTIAL)
			:: else -> skip
			fi;
#ifndef BROKEN_CLOSE_NO_GIVEBACK
			/* psem_fail_waiter() returns w->n - w->needed */
			infl[id] = infl[id] + acq[w];
#endif
			acq[w] = 0;
			needed[w] = 0;
			want[w] = 0;
			linked[w] = 0;
			ticket[w] = 0;
			q[i] = 0;
			SERVED = SERVED | (1 << w);
			i++
		:: else -> break
		od;
		if
		:: debt > 0 && infl[id] > 0 -> EVENT(E_CLOSE_DEBT)
		:: else -> skip
		fi;
		qlen = 0;
		i = 0;
		w = 0
	};
	locked_release();
	d_step {
		assert(infl[id] == 0);	/* never refused */
		unlock()
	};
	publish_done()
}

/* psem_reopen(): clear CLOSED (a fetch_andnot) under the lock. */
inline reopen_psem()
{
	lock();
	d_step {
		assert(word & CLOSED);
		word = word & ~CLOSED;
		reopens++;
		unlock()
	}
}
#endif

/*
 * reduce(n): under the lock, take what the balance holds; the rest becomes
 * a debt, with WAITERS set in the same exchange. The process then brings
 * the n permits back with a release (capacity restored), so that every
 * waiter can still be served.
 */
inline reduce(cnt)
{
	lock();
#ifdef BROKEN_DEBT_WITHOUT_BIT
	drain_or_mark(cnt, 1, 1);
#else
	drain_or_mark(cnt, 0, 1);
#endif
	d_step {
		if
		:: take < cnt -> EVENT(E_DEBT)
		:: else -> skip
		fi;
		take = 0;
		unlock()
	}
}

/* the locals every operation uses (the inlines name them) */
#ifdef ASYNC
#define ASYNC_LOCALS	byte sv[3], cbof[3], d, cbn; bit stale
#else
#define ASYNC_LOCALS	byte served
#endif

proctype P(byte id)
{
	byte n, cur, nw, take, rem, k, w, i, j, ops, r;
	bit ok, mine;
	ASYNC_LOCALS;
#ifdef CLOSE
	bit sc;		/* ghost: this acquire began on a closed psem */
	byte se;	/* ghost: the reopen epoch it began in */
#endif

#ifdef OVERFLOW
	/* Release one permit obtained from outside the semaphore. */
	d_step { outside = outside - EXTRA; held[id] = EXTRA };
	if
	:: release(1)
	:: release_all_held(1)
	fi;
#else
	do
	:: ops < OPS ->
		select(n : 1 .. NMAX);
		if
		:: try_acquire(n)
		:: acquire(n, 0)
#if CANCEL
		:: acquire(n, 1)
#endif
#if REDUCE
		:: reduce(n)
#endif
#ifdef ASYNC
		:: acquire_async(n)
#endif
		fi;
		ok = 0;
		/* release everything held, in one or several calls */
		if
		:: held[id] == 0 -> skip
		:: held[id] > 0 -> n = held[id]; release(n)
		:: held[id] > 0 -> n = held[id]; release_all_held(n)
		:: held[id] > 1 -> release(1); n = held[id]; release(n)
		fi;
		n = 0;
		ops++
	:: else -> break
	od;
#endif
	nfin++
}

#ifdef CLOSE
/* Closes the psem once, at any moment; then may reopen it. */
proctype Closer(byte id)
{
	byte cur, rem, k, w, i, j, r;
	bit ok, mine;
	ASYNC_LOCALS;

	close_psem();
	if
	:: REOPEN -> reopen_psem()
	:: true -> skip
	fi;
	nfin++
}
#define NCLOSER		1
#else
#define NCLOSER		0
#endif

init
{
	byte p;

	atomic {
		p = 0;
		do
		:: p < NPROC -> run P(p); p++
		:: else -> break
		od;
#ifdef CLOSE
		run Closer(NPROC);
#endif
		p = 0
	}
	(nfin == NPROC + NCLOSER);
	assert(qlen == 0 && lk == 0 && debt == 0);
	assert(SUM3(acq) == 0 && SUM3(infl) == 0 && SUM3(live) == 0);
	assert(done[0] + done[1] + done[2] == 0);
	assert((word & FLAGS) == 0);
	assert(BAL(word) + SUM3(held) == TOTAL);
#ifdef OVERFLOW
	/* INIT == MAX - 1, two releases of 1: exactly one lands */
	assert(word == MAX * ONE && refusals == 1 && landed == 1);
#else
	assert(UNCLOSED(word) == INIT * ONE)
#endif
#if EXT
	assert(how[0] + how[1] + how[2] == 0);
#endif
#ifdef ASYNC
	assert(cbs[0] + cbs[1] + cbs[2] + cbret[0] + cbret[1] + cbret[2] == 0);
#endif
}
