/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem.pml - a Promela model of psem's release/acquire protocol.
 *
 * Checked exhaustively by scripts/check-model.sh (see model/README).
 *
 * What is modelled (kmod/psem.h names in brackets):
 *   balance    [balance]   atomic word, available permits, 0..MAX
 *   contended  [contended] the contention flag (a word)
 *   lk                     the queue lock [wq.lock], a spinlock
 *   q[], qlen              the FIFO list of waiters [wq.head], oldest first
 *   want/needed/woken      per-waiter: count asked for, permits still
 *                          missing, and the done flag the waker sets under
 *                          the lock
 *   MAX                    stands in for PSEM_MAX_PERMITS (LONG_MAX)
 *
 * Operations: try_acquire, acquire (fast try, then the locked slow path and a
 * sleep), a cancellable acquire (signal/timeout: gives up under the lock and
 * gives back what it was handed), release (one fast compare-exchange, else
 * the locked path) and release_all_held (straight to the locked path).
 * Debt (psem_reduce) is not modelled: the locked path pays it from `rem`
 * before any waiter, and the invariant becomes "balance > 0 -> no waiter
 * linked and no debt owed"; the handoff and add logic below are unchanged.
 *
 * Memory model: spin explores interleavings of sequentially consistent
 * steps. Every load, store and compare-exchange of a shared word is one step
 * (a d_step where the real instruction is a single atomic RMW; ghost updates
 * ride along in the same step). Bugs that need weaker ordering are invisible
 * here. In particular, the locked path's zero-balance add must be an atomic
 * add (fetch_add with release ordering), not a plain store of `rem`: under
 * sequential consistency the two are equivalent (the assertion there shows a
 * zero balance cannot change while the lock is held), so spin accepts the
 * store, but on real hardware a plain atomic_long_set() orders nothing: a
 * lock-free try_acquire that sees the new balance need not see the
 * releaser's earlier writes. That is a memory-ordering bug this model
 * cannot find (KCSAN / LKMM litmus tests are the tools for it).
 *
 * Ghost state (no counterpart in the C code), used only by assertions:
 *   held[p]  permits process p owns (acquired, not yet released)
 *   acq[p]   permits assigned to p's acquire in progress (taken from the
 *            balance in its slow path + handed to it by releasers), i.e.
 *            want - needed while p is linked
 *   infl[p]  permits a releaser p has in flight (between the start of its
 *            release and the moment they land in the balance / a waiter)
 *   ticket[] order of linking, lastdone: ticket of the last completed waiter
 *
 * Checked properties:
 *   - conservation at every state: balance + sum(held+acq+infl) == TOTAL,
 *     and at the end balance == TOTAL - sum(held) (== INIT in the normal
 *     configurations, where every process releases what it acquired);
 *   - balance > 0 -> no waiter is linked (the fast path relies on it);
 *   - no linked waiter with balance >= needed (no lost wake-up);
 *   - all processes terminate: a waiter left asleep is an invalid end state;
 *     at the end the queue is empty;
 *   - FIFO: waiters complete in the order they linked;
 *   - overflow refused without effect (nothing added, nothing handed out,
 *     permits stay with the caller), and the OVERFLOW configuration checks
 *     that of two racing releases of 1 from MAX-1 exactly one lands.
 *
 * Configuration macros (spin -DNAME=VALUE):
 *   NPROC (1..3), OPS (operations per process), INIT (initial balance),
 *   MAX, CANCEL (allow cancellable acquires), OVERFLOW (overflow scenario),
 *   REACH=<n> (coverage witness, see E_* below). Counts are 1..NMAX with
 *   NMAX <= INIT, so that every acquire can eventually be served: a waiter
 *   stuck for want of permits nobody holds would be a usage deadlock, not a
 *   protocol bug.
 * Broken variants:
 *   BROKEN_RELEASE_WITH_WAITER  the locked path adds rem to the balance
 *                               without handing it to linked waiters first
 *   BROKEN_LINK_WITHOUT_DRAIN   the slow acquirer links its waiter without
 *                               first draining the balance to zero
 *   BROKEN_FAST_RETRY           the fast release retries its exchange in a
 *                               loop (a performance problem, not expected to
 *                               break safety)
 *   NO_QUEUE_INV                drop the "balance > 0 -> queue empty" and
 *                               lost-wake-up assertions, to show that the
 *                               broken variants also strand a waiter
 */

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
#ifndef CANCEL
#define CANCEL		1
#endif
#ifndef NMAX
#define NMAX		2	/* largest count one call asks for (<= INIT) */
#endif

#ifdef OVERFLOW
/* Each process starts owning one permit from outside the semaphore. */
#define EXTRA		1
#else
#define EXTRA		0
#endif
#define TOTAL		(INIT + NPROC * EXTRA)

byte balance = INIT;
bit contended;
bit lk;

byte q[3];		/* waiter ids, q[0] is the head */
byte qlen;
byte want[3];
byte needed[3];
bit woken[3];
bit linked[3];

/* ghost */
byte held[3];
byte acq[3];
byte infl[3];
byte ticket[3];
byte seq;
byte lastdone;
byte outside = NPROC * EXTRA;	/* permits not yet given to a process */
byte nfin;
byte refusals;
byte landed;

#define SUM3(a)		(a[0] + a[1] + a[2])
#define CONSERVED	(balance + SUM3(held) + SUM3(acq) + SUM3(infl) + \
			 outside == TOTAL)
#define WAITER_OK(p)	(!linked[p] || (acq[p] + needed[p] == want[p] && \
			 needed[p] > 0))
/* balance > 0 -> queue empty */
#define POS_EMPTY	(balance == 0 || qlen == 0)
/* no waiter asleep while the balance could serve it (no lost wake-up) */
#define NOT_LOST(p)	(!linked[p] || balance < needed[p])
#define NO_LOST_WAKEUP	(NOT_LOST(0) && NOT_LOST(1) && NOT_LOST(2))
#ifdef NO_QUEUE_INV
#define QUEUE_INV	true
#else
#define QUEUE_INV	(POS_EMPTY && NO_LOST_WAKEUP)
#endif
#define QUEUE_OK	(qlen == linked[0] + linked[1] + linked[2] && \
			 WAITER_OK(0) && WAITER_OK(1) && WAITER_OK(2))
#define INV		(CONSERVED && balance <= MAX && QUEUE_INV && QUEUE_OK)

#define MIN(a, b)	((a) < (b) -> (a) : (b))

/*
 * Coverage witnesses: with -DREACH=<n>, reaching event n is an
 * assertion failure naming it, so a search that finds it proves the event
 * is reachable in that configuration (the checks above are not vacuous).
 */
#define E_FLAG_TRIP		1	/* locked release sets contended */
#define E_FLAG_HONOURED		2	/* fast release sent to the lock by it */
#define E_FAST_CAS_FAIL		3	/* fast release loses its exchange */
#define E_TWO_WAITERS		4	/* two waiters linked at once */
#define E_PARTIAL		5	/* a waiter handed part of its count */
#define E_CANCEL_HANDBACK	6	/* a cancelled waiter gives permits back */
#define E_CANCEL_RACE		7	/* cancel finds itself already served */
#define E_REFUSE		8	/* overflow refused */
#define E_LOCKED_ADD_POS	9	/* locked path adds to a positive balance */
#define E_SLOW_TAKE_ALL		10	/* slow acquire served under the lock */
#ifdef REACH
#define EVENT(e)	assert(!(REACH == (e)))
#else
#define EVENT(e)	skip
#endif

/* The monitor is enabled only in a state that breaks the invariant. */
active proctype monitor()
{
end:	atomic {
		!(INV) ->
		assert(CONSERVED);
		assert(balance <= MAX);
#ifndef NO_QUEUE_INV
		assert(POS_EMPTY);
		assert(NO_LOST_WAKEUP);
#endif
		assert(QUEUE_OK)
	}
}

inline lock()
{
	atomic { lk == 0 -> lk = 1 }
}

inline unlock()
{
	lk = 0
}

/*
 * Hand rem permits (in flight, held by releaser `id`) to waiters in FIFO
 * order. Caller holds the lock; nothing else reads the queue without it, so
 * one deterministic step is faithful.
 */
inline hand_off()
{
	d_step {
		do
		:: rem > 0 && qlen > 0 ->
			w = q[0];
			k = MIN(rem, needed[w]);
			needed[w] = needed[w] - k;
			acq[w] = acq[w] + k;
			infl[id] = infl[id] - k;
			rem = rem - k;
			handed = 1;
			if
			:: needed[w] > 0 -> EVENT(E_PARTIAL)
			:: else -> skip
			fi;
			if
			:: needed[w] == 0 ->
				/* FIFO: completions in link order */
				assert(ticket[w] > lastdone);
				lastdone = ticket[w];
				i = 0;
				do
				:: i + 1 < qlen -> q[i] = q[i + 1]; i++
				:: else -> break
				od;
				qlen--;
				q[qlen] = 0;
				linked[w] = 0;
				want[w] = 0;
				ticket[w] = 0;
				woken[w] = 1
			:: else -> skip
			fi
		:: else -> break
		od;
		w = 0; k = 0; i = 0
	}
}

/* Refuse with -EOVERFLOW: nothing added, permits stay with the caller. */
inline refuse()
{
	d_step {
		/* only possible when nothing was handed to waiters */
		assert(!handed && rem == infl[id]);
		held[id] = held[id] + infl[id];
		infl[id] = 0;
		refusals++;
		EVENT(E_REFUSE);
		rem = 0
	}
}

/*
 * The locked path. Caller holds the lock and has put its rem permits in
 * infl[id].
 */
inline locked_release()
{
	rem = infl[id];
	handed = 0;
#ifndef BROKEN_RELEASE_WITH_WAITER
	hand_off();
#endif
	if
	:: rem == 0 -> skip
	:: else ->
		/* queue is empty here (unless broken) */
		cur = balance;
		if
		:: cur == 0 ->
			if
			:: rem > MAX -> refuse()
			:: else ->
				d_step {
					/* fetch_add; a zero balance cannot change
					 * under the lock */
					assert(balance == 0);
					balance = balance + rem;
					infl[id] = 0;
					landed++;
					rem = 0
				}
			fi
		:: else ->
			do
			:: rem > MAX - cur -> refuse(); break
			:: else ->
				d_step {
					if
					:: balance == cur ->
						balance = cur + rem;
						EVENT(E_LOCKED_ADD_POS);
						infl[id] = 0;
						landed++;
						rem = 0;
						ok = 1
					:: else ->
						/* cmpxchg returns the new value */
						cur = balance;
						ok = 0
					fi
				};
				if
				:: ok -> ok = 0; break
				:: else ->
					/* lost a race to a fast release (or a
					 * try_acquire): ask releases to queue */
					contended = 1;
					EVENT(E_FLAG_TRIP);
					mine = 1
				fi
			od;
			if
			:: mine -> contended = 0; mine = 0
			:: else -> skip
			fi
		fi
	fi;
	cur = 0; handed = 0
}

/* release(n): one fast compare-exchange, else the locked path. */
inline release(cnt)
{
	d_step { held[id] = held[id] - cnt; infl[id] = cnt };
	cur = balance;			/* relaxed read */
#ifdef BROKEN_FAST_RETRY
	/*
	 * Variant (b): retry the exchange while the fast path still applies,
	 * with the value the failed compare-exchange returned.
	 */
	ok = 0;
	do
	:: cur > 0 ->
		c = contended;
		if
		:: c == 0 && cnt <= MAX - cur ->
			d_step {
				if
				:: balance == cur ->
					balance = cur + cnt;
					infl[id] = 0;
					landed++;
					ok = 1
				:: else -> cur = balance; ok = 0
				fi
			};
			if
			:: ok -> break
			:: else -> skip
			fi
		:: else -> break
		fi
	:: else -> break
	od;
	c = 0;
#else
	/* one strong compare-exchange, no retry */
	if
	:: cur > 0 ->
		c = contended;
		if
		:: c == 0 && cnt <= MAX - cur ->
			d_step {
				if
				:: balance == cur ->
					balance = cur + cnt;
					infl[id] = 0;
					landed++;
					ok = 1
				:: else -> EVENT(E_FAST_CAS_FAIL); ok = 0
				fi
			}
		:: else ->
			if
			:: c -> EVENT(E_FLAG_HONOURED)
			:: else -> skip
			fi;
			ok = 0
		fi;
		c = 0
	:: else -> ok = 0
	fi;
#endif
	cur = 0;
	if
	:: ok -> ok = 0
	:: else ->
		lock();
		locked_release();
		unlock()
	fi
}

inline release_all_held(cnt)
{
	d_step { held[id] = held[id] - cnt; infl[id] = cnt };
	lock();
	locked_release();
	unlock()
}

/* try_acquire(n): lock-free; ok = 1 on success. */
inline try_acquire(cnt)
{
	cur = balance;
	do
	:: cur < cnt -> ok = 0; break
	:: else ->
		d_step {
			if
			:: balance == cur ->
				balance = cur - cnt;
				held[id] = held[id] + cnt;
				ok = 1
			:: else -> cur = balance; ok = 0
			fi
		};
		if
		:: ok -> break
		:: else -> skip
		fi
	od;
	cur = 0
}

/* acquire(n), cancellable if canc; ok = 1 when the permits are held. */
inline acquire(cnt, canc)
{
	try_acquire(cnt);
	if
	:: ok -> skip
	:: else ->
		lock();
		cur = balance;
		do
		:: true ->
#ifdef BROKEN_LINK_WITHOUT_DRAIN
			take = (cur >= cnt -> cnt : 0);
#else
			take = MIN(cur, cnt);
#endif
			d_step {
				if
				:: balance == cur ->
					balance = cur - take;
					acq[id] = take;
					ok = 1
				:: else -> cur = balance; ok = 0
				fi
			};
			if
			:: ok -> ok = 0; break
			:: else -> skip
			fi
		od;
		cur = 0;
		if
		:: take == cnt ->
			d_step {
				if
				:: take > 0 -> EVENT(E_SLOW_TAKE_ALL)
				:: else -> skip
				fi; held[id] = held[id] + acq[id]; acq[id] = 0 };
			take = 0;
			unlock();
			ok = 1
		:: else ->
			d_step {
				want[id] = cnt;
				needed[id] = cnt - take;
				seq++;
				ticket[id] = seq;
				q[qlen] = id;
				qlen++;
				if
				:: qlen > 1 -> EVENT(E_TWO_WAITERS)
				:: else -> skip
				fi;
				linked[id] = 1
			};
			take = 0;
			unlock();
			/* sleep: no end label, a waiter never woken is a
			 * deadlock (invalid end state) */
			if	/* asleep */
			:: woken[id] ->
				d_step {
					woken[id] = 0;
					held[id] = held[id] + acq[id];
					acq[id] = 0
				};
				ok = 1
			:: canc ->
				/* signal or timeout */
				lock();
				if
				:: woken[id] ->
					/* woken before we got the lock */
					d_step {
						EVENT(E_CANCEL_RACE);
						woken[id] = 0;
						held[id] = held[id] + acq[id];
						acq[id] = 0
					};
					ok = 1
				:: else ->
					d_step {
						i = 0;
						do
						:: q[i] == id -> break
						:: else -> i++
						od;
						do
						:: i + 1 < qlen -> q[i] = q[i + 1]; i++
						:: else -> break
						od;
						qlen--;
						q[qlen] = 0;
						i = 0;
						linked[id] = 0;
						want[id] = 0;
						needed[id] = 0;
						ticket[id] = 0;
						/* give back what we were handed */
						if
						:: acq[id] > 0 -> EVENT(E_CANCEL_HANDBACK)
						:: else -> skip
						fi;
						infl[id] = acq[id];
						acq[id] = 0
					};
					locked_release();
					assert(infl[id] == 0);	/* never refused */
					ok = 0
				fi;
				unlock()
			fi
		fi
	fi
}

proctype P(byte id)
{
	byte n, cur, take, rem, k, w, i, ops;
	bit ok, c, mine, handed;

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
		fi;
		/* release everything acquired, in one or several calls */
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

init
{
	byte p;

	atomic {
		p = 0;
		do
		:: p < NPROC -> run P(p); p++
		:: else -> break
		od;
		p = 0
	}
	(nfin == NPROC);
	assert(qlen == 0 && lk == 0 && contended == 0);
	assert(SUM3(acq) == 0 && SUM3(infl) == 0);
	assert(balance + SUM3(held) == TOTAL);
#ifdef OVERFLOW
	/* INIT == MAX - 1, two releases of 1: exactly one lands */
	assert(balance == MAX && refusals == 1 && landed == 1);
#else
	assert(balance == INIT && refusals == 0)
#endif
}
