/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem.pml - a Promela model of psem's release/acquire protocol with the
 * waiters bit, asynchronous waiters and close.
 *
 * Checked exhaustively by scripts/check-model.sh (see model/README).
 *
 * The model is one file for spin, in parts that the C preprocessor puts
 * together (spin -a runs it), in this order:
 *   psem.pml          this comment, the configuration macros, and, at the
 *                     end, the processes (P, Closer, init)
 *   psem_state.pml    the state, the invariants, the coverage events and
 *                     the monitor
 *   psem_release.pml  the queue lock, the hand-off, the releases
 *   psem_acquire.pml  the acquires, waiters and cancel, close, reduce
 * Each part uses only what the parts before it define.
 *
 * The word here is the layout before issue 27, whose states psem.h's
 * PSEM_BIAS layout keeps: BLOCKED stands for the bias that a debt (with
 * PSEM_WAITERS) and a close add, DCLOSED for the second bias of a closed
 * psem that owes. The releases here read the word first: psem's release
 * of more than PSEM_ADD_MAX permits, and every release under the
 * positive-balance and always-locked rules. The release of up to
 * PSEM_ADD_MAX, which adds first, its field of adds in flight and the
 * credit, are psem_add.pml's.
 *
 * What is modelled (kmod names in brackets):
 *   word       [count]  the one atomic word: balance * ONE | CONTENDED |
 *                       WAITERS, or, while WAITERS is set, debt * ONE |
 *                       WAITERS, with ONE = 8 [PSEM_ONE], WAITERS = 1,
 *                       CONTENDED = 2, and BLOCKED = 128, the byte's top
 *                       bit as PSEM_BLOCKED is the sign bit: set while
 *                       closed or a debt is owed; with both, DCLOSED (2,
 *                       CONTENDED's bit) says closed. Every access
 *                       compares/writes the whole word, so the flags ride
 *                       along as in C.
 *                       PSEM_EXT (4) is left out: a constant bit below
 *                       ONE that every RMW keeps, whose only use is to
 *                       say where the limit is (MAX here).
 *   lk                  the queue lock [lock], a spinlock
 *   q[], qlen           the FIFO list of waiters [first], oldest first
 *   debt                DEBT(word): permits psem_reduce() still has to
 *                       remove, in the word while WAITERS is set
 *   want/needed         per waiter: count asked for, permits still missing
 *   done[]     [done]   set by the releaser after its unlock
 *                       (smp_store_release), read by the waiter
 *   MAX                 stands in for the limit: PSEM_MAX_PERMITS
 *                       (LONG_MAX >> 3), or a psem_ext's capacity
 *
 * The release rule [the debugfs switches fast_release, zero_release],
 * chosen at compile time with -DRULE=:
 *   RULE_ALWAYS_LOCKED    (0)  always-locked, fast_release=0: every release
 *                              takes the lock
 *   RULE_POSITIVE_BALANCE (1)  positive-balance, zero_release=0 (the rule
 *                              of the original Rust pull request): the fast
 *                              exchange only when the balance is positive
 *                              and CONTENDED is clear
 *   RULE_WAITERS_BIT      (2)  waiters-bit, the default: the fast exchange
 *                              whenever (word & FLAGS) == 0, at any balance
 *                              including zero; release_all_held tries one
 *                              exchange 0 -> n * ONE
 *   RULE_ANY              (3)  each release picks one of the three (the
 *                              switches flipped while releases run)
 * FLAG (default 1) is the contention_flag switch.
 *
 * Operations: try_acquire (lock-free cmpxchg loop, flags ride along);
 * acquire (try, then under the lock drain the balance, and if that is not
 * enough the same exchange leaves the word at exactly WAITERS; link; sleep
 * until done); a cancellable acquire (a signal or timeout: under the lock,
 * if still linked unlink and give back the partial grant through the locked
 * path; if already served, unlock and wait for done); reduce (under the
 * lock: drain, and if short set WAITERS and record the debt in the word,
 * with BLOCKED if it is the first, merged into one step: only lock holders
 * write the word then); release (a strong cmpxchg by the rule, retried
 * under the waiters-bit rule while the word passes it, else the locked
 * path); release_all_held (one cmpxchg 0 -> n * ONE, else the locked
 * path).
 *
 * The locked path. WAITERS clear: add n * ONE with a cmpxchg loop that
 * refuses overflow (-EOVERFLOW, nothing added); a lost race sets CONTENDED
 * (atomic or) once, the winning cmpxchg clears it in the same exchange, and
 * a refusal after a trip clears it with an atomic and-not. WAITERS set: the
 * word holds the debt and only lock holders write it; pay the debt (the
 * last of it takes BLOCKED, or DCLOSED, with it), hand
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
 * moment, and may then reopen (REOPEN, default 1). Closing sets BLOCKED
 * (DCLOSED with a debt): BAL() masks it, a closed word fails every
 * lock-free test (try, fast release, release_all_held's exchange from 0),
 * the locked add and the clearing fetch_add carry it along. close: under
 * the lock, fetch_or(CLOSEDBIT), fail every waiter with
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
 *   - I2: WAITERS set -> the bits above ONE are the debt (balance 0), and
 *     CONTENDED's bit is clear but as DCLOSED; BLOCKED set exactly when
 *     closed (the ghost `closed`) or a debt is owed, DCLOSED exactly when
 *     both; positive-balance's "balance > 0 -> queue empty and no debt"
 *     follows, and is asserted too, as is "no linked waiter the balance
 *     could serve";
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
 *   BROKEN_FAST_RETRY           the positive-balance rule's fast release
 *                               retries its exchange too, as the
 *                               waiters-bit rule's does (a performance
 *                               question, not expected to break safety)
 *   BROKEN_CANCEL_UNLOCKED      (ASYNC) the cancel reads `served` before
 *                               it takes the lock and acts on that
 *   BROKEN_CB_UNDER_LOCK        (ASYNC) a release calls the callbacks (and
 *                               publishes done) before its unlock
 *   BROKEN_CLOSE_NO_GIVEBACK    (CLOSE) close fails the waiters without
 *                               giving back their partial grants
 *   BROKEN_ACQUIRE_CLOSED       (CLOSE) the slow acquire does not refuse
 *                               on a closed psem
 *   BROKEN_DEBT_DROPS_CLOSED    (CLOSE) a debt's first and last permits
 *                               move BLOCKED, never DCLOSED: the closed
 *                               state is lost with the debt
 *   NO_QUEUE_INV                drop I1, I2 and the queue assertions, to
 *                               show that the broken variants also strand a
 *                               waiter or a debt
 */

#define RULE_ALWAYS_LOCKED	0
#define RULE_POSITIVE_BALANCE	1
#define RULE_WAITERS_BIT	2
#define RULE_ANY		3

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
#define RULE		RULE_WAITERS_BIT
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
#define DCLOSED		2	/* the second PSEM_BIAS (was PSEM_DEBT_CLOSED) */
#define FLAGS		3
#define ONE		8
#define NUM		120	/* the bits above ONE: the balance, or the debt */
#define BLOCKED		128	/* PSEM_BLOCKED, the sign bit of the byte */
/* The balance, none while WAITERS is set; the debt, only then (I2). */
#define BAL(x)		(((x) & WAITERS) -> 0 : ((x) & NUM) / ONE)
#define DEBT(x)		(((x) & WAITERS) -> ((x) & NUM) / ONE : 0)
/* psem_word_closed(), in the encoding before issue 27 (see the header) */
#define CLOSEDBIT(x)	((DEBT(x) > 0) -> DCLOSED : BLOCKED)
#define ISCLOSED(x)	(((x) & BLOCKED) && ((x) & CLOSEDBIT(x)))
#ifdef BROKEN_DEBT_DROPS_CLOSED
#define DEBTBIT(x)	BLOCKED
#else
#define DEBTBIT(x)	((DEBT(x) > 0) -> \
			 (((x) & DCLOSED) -> DCLOSED : BLOCKED) : \
			 (((x) & BLOCKED) -> DCLOSED : BLOCKED))
#endif
/* A closed word with no debt as it would be open. */
#define UNCLOSED(x)	(ISCLOSED(x) -> ((x) & ~BLOCKED) : (x))

#ifdef OVERFLOW
/* Each process starts owning one permit from outside the semaphore. */
#define EXTRA		1
#else
#define EXTRA		0
#endif
#define TOTAL		(INIT + NPROC * EXTRA)
#define OVERFLOW_CONFIG	(EXTRA > 0)

#include "psem_state.pml"
#include "psem_release.pml"
#include "psem_acquire.pml"

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
