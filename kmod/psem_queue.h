/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem's waiter queue (psem_queue.c): the locked paths that link, serve,
 * fail and cancel waiters, and the wake-ups and callbacks that follow once
 * the queue lock is dropped. Above the word (psem_word.h); below the core,
 * the lifecycle calls, the asynchronous waiters and the primitives.
 */
#ifndef _PSEM_QUEUE_H
#define _PSEM_QUEUE_H

#include <linux/hardirq.h>
#include <linux/list.h>
#include <linux/prefetch.h>
#include <linux/preempt.h>
#include <linux/sched.h>

#include "psem_word.h"

/*
 * A waiter's state (&psem_waiter.state). Every change is made under the
 * queue lock but one: a task whose wait a signal or its timeout ended
 * turns LINKED into LEAVING on its own before it takes the lock to cancel
 * (psem_leave()), so that a server that dequeues it meanwhile knows it
 * will still take the lock once.
 */
enum psem_waiter_state {
	PSEM_W_IDLE,	/* not queued: never, cancelled, or called back */
	PSEM_W_LINKED,	/* on the queue */
	PSEM_W_LEAVING,	/* on the queue; its task is on its way to cancel */
	PSEM_W_SERVED,	/* off the queue: its task's wake-up, or its callback, is due */
};

/**
 * struct psem_calls - the callbacks of the one path calling back on a psem
 * @list:    the asynchronous waiters whose callbacks are due, oldest first
 * @calling: the one whose callback runs now, or NULL; read under the queue
 *           lock by psem_cancel_async_sync(), which waits for it
 *
 * On the stack of that path, and pointed at by &psem_ext.calls while it runs
 * them: the psem_ext itself holds one pointer for both.
 */
struct psem_calls {
	struct list_head	list;
	struct psem_async	*calling;
};

/**
 * struct psem_wake - what a locked path does once it drops the queue lock
 * @tasks: the task waiters it served, to wake
 * @calls: the callbacks due, if this path runs them (it found no other
 *         path doing so: &psem_ext.calls)
 */
struct psem_wake {
	struct list_head	tasks;
	struct psem_calls	calls;
};

#define DEFINE_PSEM_WAKE(name)							\
	struct psem_wake name = {					\
		.tasks = LIST_HEAD_INIT((name).tasks),			\
		.calls = {						\
			.list = LIST_HEAD_INIT((name).calls.list),	\
			.calling = NULL,				\
		},							\
	}

/*
 * Whether the queue lock, a spinlock_t, may not be taken here. NMI: never
 * on any kernel. PREEMPT_RT: spinlock_t sleeps, so not in hard IRQ (only
 * hard-only contexts are hard IRQ there: _HARD hrtimers, IRQF_NO_THREAD
 * handlers, hard irq_work) nor where preemption or interrupts are off.
 * !PREEMPT_RT with PROVE_RAW_LOCK_NESTING: lockdep applies RT's rule, and
 * its task_wait_context() calls a hard IRQ "hard" (LD_WAIT_SPIN) unless
 * it would be threaded on RT (hardirq_threaded: a threadable handler;
 * irq_config: a soft hrtimer or irq_work); this is that test. Otherwise a
 * spinlock_t is a raw spinlock, legal in any IRQ. Documentation/design.rst,
 * "Releases from every context", argues it.
 */
static __always_inline bool psem_lock_forbidden(void)
{
	if (in_nmi())
		return true;
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return in_hardirq() || !preemptible();
#ifdef CONFIG_PROVE_RAW_LOCK_NESTING
	return lockdep_hardirq_context() && !current->hardirq_threaded &&
	       !current->irq_config;
#else
	return false;
#endif
}

/*
 * Refuses, from such a context, a call that must take the queue lock
 * and cannot defer (close, reopen, resize, reduce, an asynchronous
 * acquire that would queue).
 */
#define psem_refuse_context()						\
	(unlikely(psem_lock_forbidden()) &&				\
	 psem_refuse("%s: the queue lock may not be taken here (NMI, hard-only IRQ)\n", \
		     __func__))

/*
 * The permits available, and those on their way there or to a waiter
 * (parked by a deferred release): for a check that a release has nowhere
 * to go (psem_pool_put()'s full pool), which psem_available() alone would
 * miss while the hand-off has yet to run. A snapshot.
 */
static inline long psem_home(const struct psem *sem)
{
	return psem_available(sem) + psem_parked(sem);
}

/*
 * Under the queue lock, with PSEM_WAITERS set and no credit (I2): records
 * a debt of @n in the word, above the field. Relaxed: no permit changes
 * hands; an RMW all the same, to keep the word's chain of releases
 * unbroken, and to commute with the adds in flight (Documentation/design.rst).
 */
static inline void psem_owe(struct psem *sem, long n)
{
	atomic_long_add(n * PSEM_HIGH_ONE, &sem->count);
}

/*
 * The refusals that no release can change. The closed state and the
 * capacity change only under the queue lock: under it the answer is
 * stable; without it (psem_acquire_async() where the lock may not be
 * taken) it is a snapshot, as psem_available() is. Inline: the way into
 * every wait.
 */
static __always_inline int psem_refuse_wait(struct psem *sem, long n)
{
	/* Relaxed: stable under the lock; a snapshot without it. */
	long cur = atomic_long_read(&sem->count);

	if (psem_word_closed(cur))
		return -ESHUTDOWN;
	return n > psem_word_capacity(sem, cur) ? -E2BIG : 0;
}

/* Under the queue lock. */
int psem_add_locked_cap(struct psem *sem, long n, long cap,
			struct psem_wake *wake, unsigned long ip);

/* The capacity psem_add_locked_cap() reads from the word. */
#define PSEM_CAP_WORD	(-1L)

/* The locked path of a release, against the psem's own capacity. */
static inline int psem_add_locked(struct psem *sem, long n,
				  struct psem_wake *wake, unsigned long ip)
{
	return psem_add_locked_cap(sem, n, PSEM_CAP_WORD, wake, ip);
}

long psem_fail_waiter(struct psem *sem, struct psem_waiter *w, int result,
		      struct psem_wake *wake);
void psem_link(struct psem *sem, struct psem_waiter *w, long n,
	       enum psem_wait_kind kind, struct task_struct *task);
int psem_wait_queued(struct psem *sem, struct psem_waiter *w, long n,
		     enum psem_wait_kind kind, unsigned int state,
		     long timeout) __releases(&sem->lock);

/* Without it. */
int psem_release_added(struct psem *sem, long old, long n, unsigned long ip);
atomic_t *psem_let_go_var(const struct psem *sem);
void psem_kick_init(void);
void psem_kick_exit(void);
void psem_wake_served(struct psem *sem, struct psem_wake *wake);
bool psem_cancel(struct psem *sem, struct psem_waiter *w);
int __psem_release_locked(struct psem *sem, long n, unsigned long ip);
#define psem_release_locked(sem, n) __psem_release_locked(sem, n, _RET_IP_)
int psem_acquire_slow(struct psem *sem, long n, unsigned int state,
		      long timeout);

/*
 * The waiters-bit rule's release of @n, 0..PSEM_ADD_MAX: adds first, with
 * one fetch_add that cannot fail, and is done if the word it added onto
 * was clean and the sum fits (psem.h, PSEM_BIAS). Otherwise
 * psem_release_added(), out of line, judges the add by the word it
 * returned: it stands on a closed word, is taken back from an overflow,
 * and out of the field of a waiting word, to go to the credit or the lock.
 */
static __always_inline int psem_release_add(struct psem *sem, long n,
					    unsigned long ip)
{
	long old;

	/*
	 * Orders nothing: asks for the line in the exclusive state as soon
	 * as the release is decoded. A locked RMW takes its line only when
	 * it retires, so after a long critical section the add would start
	 * the transfer there, where the read-first release's plain load had
	 * fetched the line early (Documentation/benchmarks.rst, "The
	 * prefetch before the add").
	 */
	prefetchw(&sem->count);
	/*
	 * RELEASE: orders the caller's critical section before the permits
	 * reach a taker; pairs with the ACQUIRE in psem_take(), directly or
	 * through the chain of RMWs after it (model/litmus/MP+blindadd+take,
	 * RS+blindadd+blindadd+take). An add that lands in the field is
	 * taken back and released again, and orders nothing itself.
	 */
	old = atomic_long_fetch_add_release(n * PSEM_ONE, &sem->count);

	if (likely(!((old + n * PSEM_ONE) & PSEM_ADD_FAIL))) {
		psem_account_fast_release(sem, n, true);
		return 0;
	}
	return psem_release_added(sem, old, n, ip);
}

/*
 * psem_release() of @n, 0..PSEM_ADD_MAX, without the range test: for the
 * primitives' unlocks, whose counts are constants.
 */
static __always_inline int psem_release_small(struct psem *sem, long n,
					      unsigned long ip)
{
	if (static_branch_likely(&psem_waiters_bit_rule_key))
		return psem_release_add(sem, n, ip);
	if (psem_release_seed(sem, n))
		return 0;
	return __psem_release_locked(sem, n, ip);
}

#endif /* _PSEM_QUEUE_H */
