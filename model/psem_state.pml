/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem_state.pml - the state of the model of psem (the word, the queue,
 * the ghost variables), the invariants, the coverage events and the
 * monitor that asserts the invariants in every state.
 *
 * Part of psem.pml, which includes it (spin runs the C preprocessor): see
 * psem.pml for the model, its configuration macros and the properties.
 */

byte word = INIT * ONE;
bit lk;
#define debt		DEBT(word)	/* in the word, read only through this */
bit closed;		/* ghost: psem_close() and no psem_reopen() since */

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
/* I2: WAITERS set -> the debt above ONE, CONTENDED's bit clear but as DCLOSED */
#define I2		(!(word & WAITERS) || !(word & CONTENDED) || \
			 (debt > 0 && closed))
/* BLOCKED: closed or a debt; DCLOSED: both; the word says closed exactly then */
#define BLOCKED_INV	(((word & BLOCKED) != 0) == (closed || debt > 0) && \
			 ISCLOSED(word) == closed)
/* positive-balance's: balance > 0 -> queue empty and no debt */
#define POS_EMPTY	(BAL(word) == 0 || (qlen == 0 && debt == 0))
/* no waiter asleep while the balance could serve it (no lost wake-up) */
#define NOT_LOST(p)	(!linked[p] || BAL(word) < needed[p])
#define NO_LOST_WAKEUP	(NOT_LOST(0) && NOT_LOST(1) && NOT_LOST(2))
/* closed -> nobody waits (no quiesce in the model) */
#define CLOSED_EMPTY	(!closed || qlen == 0)
#ifdef NO_QUEUE_INV
#define QUEUE_INV	true
#else
#define QUEUE_INV	(I1 && I2 && BLOCKED_INV && POS_EMPTY && NO_LOST_WAKEUP && \
			 CLOSED_EMPTY)
#endif
#define QUEUE_OK	(qlen == linked[0] + linked[1] + linked[2] && \
			 WAITER_OK(0) && WAITER_OK(1) && WAITER_OK(2))
/* CONTENDED is set and cleared only under the lock (DCLOSED aside) */
#define FLAG_OK		(!(word & CONTENDED) || lk || (word & WAITERS))
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
#define E_DEBT_CLOSED		32	/* a closed psem owes a debt: DCLOSED
					 * holds its closed state */
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
