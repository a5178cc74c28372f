/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test helpers that psem's KUnit suites share: kthreads started per
 * test (or on every CPU), a context that reaps them even after an aborted
 * test, step barriers, waiters that link at a known FIFO position, hang
 * guards, and the expectations on a psem's state and statistics.
 *
 * Helper kthreads never use KUNIT_EXPECT or KUNIT_ASSERT: they record what
 * happened in their struct pkt_thread and the test thread checks it once
 * the helper is done. Every helper is registered in the test's context so
 * that the exit hook (pkt_exit()) reaps it even after an assertion aborted
 * the test, and everything a helper touches comes from kunit_kzalloc(),
 * which outlives an aborted test function until after the exit hook.
 *
 * Waits are bounded polls that fail the test when a generous bound passes
 * without progress: hang guards, not timing assertions. They poll once a
 * jiffy with schedule_timeout(): the hrtimer sleep behind usleep_range()
 * has a benign data race of its own (hrtimer_wakeup() clears the sleeper's
 * task with a plain store) that KCSAN reports on a 6.1 kernel.
 */
#ifndef _PSEM_TEST_H
#define _PSEM_TEST_H

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/signal.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "psem.h"
#include "psem_knobs.h"

/* Longest wait without progress before a test declares a hang. */
#define PKT_HANG_GUARD		(10 * HZ)
#define PKT_MAX_THREADS		64

/* The largest request of a stress helper; its initial balance covers it. */
#define PKT_MAX_TAKE		4

struct pkt_thread;

/**
 * struct pkt_ctx - a test case's helpers and how it drives them
 * @thread:   every helper started, in start order
 * @nr:       the number of helpers started
 * @finished: ranks the helpers in the order they finished
 * @step:     the last step the test posted (see pkt_post_step())
 * @step_wq:  where helpers wait for the next step
 * @abort:    set when the test gives up: looping helpers stop early
 */
struct pkt_ctx {
	struct pkt_thread	*thread[PKT_MAX_THREADS];
	unsigned int		nr;
	atomic_t		finished;
	unsigned int		step;
	wait_queue_head_t	step_wq;
	bool			abort;
};

/* What a waiter helper calls. */
enum pkt_op {
	PKT_ACQUIRE,
	PKT_INTERRUPTIBLE,
	PKT_KILLABLE,
	PKT_TIMEOUT,
};

/**
 * struct pkt_thread - a helper kthread and its results
 * @fn:       the work; its return value lands in @ret
 * @sem:      the psem it works on; a hung helper is sent @n permits there
 * @n:        permits to ask for (waiters) or to unblock it (stress)
 * @op:       for waiters: which acquire to call
 * @timeout:  for PKT_TIMEOUT: the timeout in jiffies
 * @iters:    for loops: the number of iterations
 * @arg:      test-specific shared state
 * @task:     the kthread, NULL once stopped
 * @ctx:      the test's context
 * @id:       the index in @ctx->thread
 * @seed:     the state of the helper's pseudo-random sequence
 * @progress: bumped by loops, so that a hang guard can tell slow from stuck
 * @ret:      @fn's result, valid once @done
 * @rank:     1 for the first helper of the test to finish, 2 for the next...
 * @done:     set with release semantics once @ret and @rank are written
 */
struct pkt_thread {
	int			(*fn)(struct pkt_thread *t);
	struct psem		*sem;
	long			n;
	enum pkt_op		op;
	long			timeout;
	unsigned int		iters;
	void			*arg;

	struct task_struct	*task;
	struct pkt_ctx		*ctx;
	unsigned int		id;
	u32			seed;
	unsigned long		progress;
	int			ret;
	int			rank;
	bool			done;
};

/* ---- helper kthreads ---- */

static inline int pkt_main(void *data)
{
	struct pkt_thread *t = data;

	/* Kthreads ignore every signal; the waiters under test must not. */
	allow_signal(SIGUSR1);
	/*
	 * allow_signal(SIGKILL) would leave a SIGKILL in the shared queue,
	 * where fatal_signal_pending() does not look: killable waits would
	 * never see it. With the default action SIGKILL is fatal, so the
	 * kernel marks it pending on this task, as for a user task.
	 */
	if (t->op == PKT_KILLABLE)
		kernel_sigaction(SIGKILL, SIG_DFL);

	t->ret = t->fn(t);
	t->rank = atomic_inc_return(&t->ctx->finished);
	flush_signals(current);
	/* Publishes @ret and @rank; pairs with pkt_done(). */
	smp_store_release(&t->done, true);

	/* kthread_stop() must find this task alive: wait for it. */
	for (;;) {
		set_current_state(TASK_IDLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static inline bool pkt_done(struct pkt_thread *t)
{
	/* Pairs with pkt_main(): @ret and @rank are visible once @done is. */
	return smp_load_acquire(&t->done);
}

static inline void pkt_progress(struct pkt_thread *t)
{
	WRITE_ONCE(t->progress, t->progress + 1);
}

/* Records the first error of a helper's loop. */
static inline void pkt_note(int *err, int ret)
{
	if (ret && !*err)
		*err = ret;
}

static inline u32 pkt_rand(u32 *state)
{
	u32 x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

/*
 * Starts a helper that is a copy of @tmpl, bound to @cpu unless @cpu is
 * negative. It runs at once: a created kthread that never ran would make
 * kthread_stop() skip its function, and pkt_reap() wait for nothing.
 */
static inline struct pkt_thread *pkt_spawn(struct kunit *test,
					   const struct pkt_thread *tmpl,
					   int cpu)
{
	struct pkt_ctx *ctx = test->priv;
	struct task_struct *task;
	struct pkt_thread *t;

	KUNIT_ASSERT_LT(test, ctx->nr, PKT_MAX_THREADS);
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	*t = *tmpl;
	t->ctx = ctx;
	t->id = ctx->nr;
	t->seed = (ctx->nr + 1) * 2654435761u;

	task = kthread_create(pkt_main, t, "psem_kt/%u", t->id);
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	if (cpu >= 0)
		kthread_bind(task, cpu);
	t->task = task;
	ctx->thread[ctx->nr++] = t;
	wake_up_process(task);
	return t;
}

/*
 * Waits for @t to finish; false if it made no progress for the guard. Once
 * the test gave up, helpers have been told to stop: wait less for each, so
 * that a broken psem that hangs many of them fails the test quickly.
 */
static inline bool pkt_wait_done(struct pkt_thread *t)
{
	unsigned long guard = READ_ONCE(t->ctx->abort) ? HZ : PKT_HANG_GUARD;
	unsigned long seen = READ_ONCE(t->progress);
	unsigned long end = jiffies + guard;

	while (!pkt_done(t)) {
		unsigned long now = READ_ONCE(t->progress);

		if (now != seen) {
			seen = now;
			end = jiffies + guard;
		} else if (time_after(jiffies, end)) {
			return false;
		}
		schedule_timeout_uninterruptible(1);
	}
	return true;
}

/* Polls @cond; false if it is still false after @timeout jiffies. */
#define pkt_wait_until(cond, timeout)					\
({									\
	unsigned long __end = jiffies + (timeout);			\
	bool __ok;							\
									\
	for (;;) {							\
		__ok = (cond);						\
		if (__ok || time_after(jiffies, __end))			\
			break;						\
		schedule_timeout_uninterruptible(1);			\
	}								\
	__ok;								\
})

#define pkt_wait_for(cond)	pkt_wait_until(cond, PKT_HANG_GUARD)

/* Tries to free a hung helper: stop the loops, signal it, add permits. */
static inline void pkt_unstick(struct pkt_thread *t)
{
	WRITE_ONCE(t->ctx->abort, true);
	wake_up_all(&t->ctx->step_wq);
	send_sig(SIGUSR1, t->task, 1);
	send_sig(SIGKILL, t->task, 1);
	if (t->sem && t->n > 0)
		psem_release(t->sem, t->n);
}

/* Waits for @t to finish and stops it; a hung helper fails the test. */
static inline void pkt_reap(struct kunit *test, struct pkt_thread *t)
{
	if (!t->task)
		return;
	if (!pkt_wait_done(t)) {
		KUNIT_FAIL(test, "helper %u hung", t->id);
		pkt_unstick(t);
		if (!pkt_wait_done(t)) {
			/* kthread_stop() would hang the test runner too. */
			kunit_err(test, "leaking hung helper %u\n", t->id);
			t->task = NULL;
			return;
		}
	}
	kthread_stop(t->task);
	t->task = NULL;
}

static inline void pkt_reap_all(struct kunit *test)
{
	struct pkt_ctx *ctx = test->priv;
	unsigned int i;

	for (i = 0; i < ctx->nr; i++)
		pkt_reap(test, ctx->thread[i]);
}

/* Lets the helpers waiting in pkt_wait_step() for up to @step go on. */
static inline void pkt_post_step(struct pkt_ctx *ctx, unsigned int step)
{
	/* Orders the test's set-up before the helpers' work on it. */
	smp_store_release(&ctx->step, step);
	wake_up_all(&ctx->step_wq);
}

/* Sleeps until the test posts @step; false if the test gave up instead. */
static inline bool pkt_wait_step(struct pkt_thread *t, unsigned int step)
{
	struct pkt_ctx *ctx = t->ctx;

	/* Pairs with pkt_post_step(). */
	wait_event_idle(ctx->step_wq, smp_load_acquire(&ctx->step) >= step ||
			READ_ONCE(ctx->abort));
	return !READ_ONCE(ctx->abort);
}

/* Whether the test has posted @step: for helpers that poll, not sleep. */
static inline bool pkt_step_posted(struct pkt_thread *t, unsigned int step)
{
	/* Pairs with pkt_post_step(). */
	return smp_load_acquire(&t->ctx->step) >= step;
}

static inline bool pkt_aborted(struct pkt_thread *t)
{
	return READ_ONCE(t->ctx->abort);
}

/* ---- waiters ---- */

static inline int pkt_waiter_fn(struct pkt_thread *t)
{
	switch (t->op) {
	case PKT_ACQUIRE:
		return psem_acquire(t->sem, t->n);
	case PKT_INTERRUPTIBLE:
		return psem_acquire_interruptible(t->sem, t->n);
	case PKT_KILLABLE:
		return psem_acquire_killable(t->sem, t->n);
	case PKT_TIMEOUT:
		return psem_acquire_timeout(t->sem, t->n, t->timeout);
	}
	return -EINVAL;
}

static inline struct pkt_thread *pkt_waiter(struct kunit *test,
					    struct psem *sem, enum pkt_op op,
					    long n, long timeout)
{
	const struct pkt_thread tmpl = {
		.fn = pkt_waiter_fn, .sem = sem, .n = n, .op = op,
		.timeout = timeout,
	};

	return pkt_spawn(test, &tmpl, -1);
}

/* The number of linked waiters, counted under the queue lock. */
static inline unsigned int pkt_nr_waiters(struct psem *sem)
{
	struct list_head *pos;
	unsigned int nr = 0;

	spin_lock_irq(&sem->wq.lock);
	list_for_each(pos, &sem->wq.head)
		nr++;
	spin_unlock_irq(&sem->wq.lock);
	return nr;
}

/*
 * Starts a waiter that sleeps until served and waits until it is linked as
 * waiter number @nr: the caller then knows the FIFO position it holds.
 */
static inline struct pkt_thread *pkt_linked_waiter(struct kunit *test,
						   struct psem *sem,
						   enum pkt_op op, long n,
						   unsigned int nr)
{
	struct pkt_thread *t;

	t = pkt_waiter(test, sem, op, n, MAX_SCHEDULE_TIMEOUT);
	KUNIT_ASSERT_TRUE_MSG(test, pkt_wait_for(pkt_nr_waiters(sem) == nr),
			      "waiter %u not linked", t->id);
	return t;
}

/* Waits for a helper to finish and expects it to have returned @want. */
#define PKT_EXPECT_RETURNS(test, t, want)				\
do {									\
	struct kunit *__test = (test);					\
	struct pkt_thread *__t = (t);					\
									\
	KUNIT_ASSERT_TRUE_MSG(__test, pkt_wait_done(__t),		\
			      "helper %u hung", __t->id);		\
	KUNIT_EXPECT_EQ_MSG(__test, __t->ret, want, "helper %u", __t->id); \
} while (0)

/* ---- state and statistics ---- */

static inline struct psem *pkt_sem(struct kunit *test, long permits)
{
	struct psem *sem = kunit_kzalloc(test, sizeof(*sem), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, sem);
	psem_init(sem, permits);
	return sem;
}

/* @sem holds @avail permits and owes, awaits and flags nothing. */
#define PKT_EXPECT_IDLE(test, sem, avail)				\
do {									\
	struct kunit *__test = (test);					\
	struct psem *__sem = (sem);					\
	long __flags = atomic_long_read(&__sem->count) & PSEM_FLAGS;	\
									\
	KUNIT_EXPECT_EQ(__test, psem_available(__sem), (long)(avail));	\
	KUNIT_EXPECT_EQ(__test, psem_debt(__sem), 0UL);			\
	KUNIT_EXPECT_EQ(__test, pkt_nr_waiters(__sem), 0U);		\
	KUNIT_EXPECT_EQ(__test, __flags, 0L);				\
} while (0)

/* Counts events from now on; the counters are global, tests run singly. */
static inline void pkt_stats_start(void)
{
	psem_set_stats(true);
	psem_stats_reset();
}

static inline u64 pkt_stat(enum psem_stat s)
{
	struct psem_stats snap;

	psem_stats_snapshot(&snap);
	return snap.count[s];
}

#define PKT_EXPECT_STAT(test, s, want)					\
do {									\
	enum psem_stat __s = (s);					\
									\
	KUNIT_EXPECT_EQ_MSG(test, pkt_stat(__s), (u64)(want), "stat %s", \
			    psem_stat_names[__s]);			\
} while (0)

/* A refused call: its result, one more refusal, the balance unchanged. */
#define PKT_EXPECT_REFUSED(test, sem, call, want)			\
do {									\
	struct kunit *__test = (test);					\
	struct psem *__sem = (sem);					\
	u64 __warned = psem_warn_count();				\
	long __avail = psem_available(__sem);				\
									\
	KUNIT_EXPECT_EQ_MSG(__test, call, want, #call);			\
	KUNIT_EXPECT_EQ_MSG(__test, psem_warn_count() - __warned, 1ULL, \
			    "refusals by " #call);			\
	KUNIT_EXPECT_EQ_MSG(__test, psem_available(__sem), __avail,	\
			    "balance after " #call);			\
} while (0)

static inline void pkt_defaults(void)
{
	psem_set_quiet_warnings(false);
	psem_set_fast_release(true);
	psem_set_zero_release(true);
	psem_set_contention_flag(true);
	psem_set_stats(false);
}

static inline int pkt_init(struct kunit *test)
{
	struct pkt_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	atomic_set(&ctx->finished, 0);
	init_waitqueue_head(&ctx->step_wq);
	test->priv = ctx;
	pkt_defaults();
	return 0;
}

static inline void pkt_exit(struct kunit *test)
{
	struct pkt_ctx *ctx = test->priv;

	/* Helpers still running here mean the test was aborted. */
	WRITE_ONCE(ctx->abort, true);
	wake_up_all(&ctx->step_wq);
	pkt_reap_all(test);
	pkt_defaults();
}

/* The flags of the word: PSEM_WAITERS and PSEM_CONTENDED. */
static inline long pkt_flags(struct psem *sem)
{
	return atomic_long_read(&sem->count) & PSEM_FLAGS;
}

#endif /* _PSEM_TEST_H */
