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
#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_mutex.h"
#include "psem_pool.h"
#include "psem_rwlock.h"

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

/*
 * How long a race test goes on looking for the interleaving it needs: on
 * a loaded host the virtual CPUs may seldom run at once, on an idle one
 * they may seldom collide. A bound on the search, not a timing assertion.
 */
#define PKT_RACE_SEARCH		(5 * HZ)

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

/*
 * ==== The primitives' fixture: psem_rwlock, psem_mutex and psem_pool ====
 *
 * The suites of kunit/psem_rwlock_kunit.c, psem_mutex_kunit.c and
 * psem_pool_kunit.c share a heap fixture (struct pt_fix) and step and
 * stress kthreads (struct pt_thread), separate from the pkt_ helpers above.
 * How the cases are built:
 *
 *  - Helper kthreads never assert. Each records what it saw in its struct
 *    pt_thread (a lock call's result, the order it got in, an error count)
 *    and publishes it with a RELEASE store of its state; the test thread
 *    reads the state with an ACQUIRE load, then asserts.
 *  - Every wait is a bounded poll (pt_wait(), PT_HANG_MS) that fails the
 *    case as a hang guard instead of hanging the guest. Nothing asserts on
 *    time: a poll only waits for something that must happen.
 *  - "A kthread now sleeps in the lock" is known white-box, by counting the
 *    waiters linked on the psem's queue under its queue lock. Linking is
 *    what fixes a waiter's place in the FIFO, so once the count says so the
 *    order of the waiters is deterministic.
 *  - Everything a helper can touch lives in a heap fixture (struct pt_fix),
 *    not on the test's stack. If a helper cannot be stopped (a real hang),
 *    the fixture and the thread are leaked rather than freed under it.
 *  - Calls that are refused on purpose run with quiet warnings and assert
 *    that psem_warn_count() rose by exactly one, so that any WARNING on the
 *    console is a real failure.
 */

/*
 * A wait this long is a hang. Well below the test kernels' 30 s hung-task
 * timeout, which the KUnit runner, asleep for the whole case, is subject to.
 */
#define PT_HANG_MS	10000
#define PT_HOLD_MS	60000	/* a helper gives up waiting to be told */
#define PT_STRESS_MS	60000	/* a stress run this long livelocks */

/*
 * One poll interval, and a short sleep inside a critical section: up to the
 * next tick. Not usleep_range(): 6.1's hrtimer sleeper clears its task
 * pointer with a plain store that KCSAN_STRICT reports as a data race.
 */
#define pt_nap()	schedule_timeout_uninterruptible(1)

#define PT_NR_OBJS	16	/* pool objects, BITS_PER_LONG at most */

/* What a step kthread does: take one lock, hold it until told, release. */
enum pt_op {
	PT_NONE,
	PT_READ,
	PT_READ_INTR,
	PT_READ_KILL,
	PT_WRITE,
	PT_WRITE_INTR,
	PT_WRITE_KILL,
	PT_MUTEX,
	PT_MUTEX_INTR,
	PT_MUTEX_KILL,
	PT_GET,
	PT_GET_INTR,
	PT_GET_KILL,
};

/* A step kthread waits in the lock, then holds it, then is done. */
enum pt_state {
	PT_WAIT,
	PT_HOLD,
	PT_DONE,
};

/* What a getter's @obj holds until a get stores an object there. */
#define PT_NO_OBJ	ERR_PTR(-ENODATA)

struct pt_fix;

/**
 * struct pt_thread - one helper kthread and what it recorded
 * @fix:         the fixture it works on
 * @task:        the kthread, with a reference held until it is stopped
 * @op:          what a step kthread does
 * @id:          its index in @fix->t
 * @state:       &enum pt_state; RELEASE by the kthread, ACQUIRE by the test
 * @go:          set by the test: release the lock and finish
 * @ret:         the lock call's result
 * @order:       @fix->seq when it got in (1 for the first), 0 if never
 * @obj:         the pool object it got, PT_NO_OBJ if none
 * @holds:       critical sections so far (stress), to pace pt_hold()
 * @got:         acquisitions that incremented @fix->count (stress)
 * @errors:      invariant violations seen inside critical sections (stress)
 * @misses:      pool try_gets that found nothing (stress)
 * @seen:        a plain read of @fix->count under the read lock (stress)
 * @max_readers: the most readers it saw inside at once (stress)
 */
struct pt_thread {
	struct pt_fix		*fix;
	struct task_struct	*task;
	enum pt_op		op;
	unsigned int		id;
	atomic_t		state;
	atomic_t		go;
	int			ret;
	int			order;
	void			*obj;
	unsigned long		holds;
	unsigned long		got;
	unsigned long		errors;
	unsigned long		misses;
	unsigned long		seen;
	int			max_readers;
};

/* An object for the pool: "taken" catches an object handed out twice. */
struct pt_obj {
	atomic_t	taken;
	unsigned int	stamp;	/* plain, written by the holder */
};

/* Runs a sequence of trylocks in hard interrupt context. */
struct pt_irq {
	struct irq_work	work;
	struct pt_fix	*fix;
	unsigned long	(*fn)(struct pt_fix *fix);
	unsigned long	bad;
	bool		hardirq;
};

/**
 * struct pt_fix - one case's locks, objects and helpers, on the heap
 * @rw:        the rwlock under test
 * @mx:        the mutex under test
 * @pool:      the pool under test, live if @pool_live
 * @pool_live: @pool was initialised and is not destroyed yet
 * @obj:       the pool's objects
 * @objp:      pointers to @obj, as psem_pool_init() takes them
 * @irq:       for the cases that run in hard interrupt context
 * @atomic_lock: held, with interrupts off, around pt_run_atomic()'s @fn
 * @seq:       acquisition order, bumped by a step kthread that got in
 * @progress:  stress iterations done by all kthreads, for the hang guard
 * @readers:   readers inside the rwlock (stress)
 * @writers:   writers inside the rwlock (stress)
 * @inside:    holders of the mutex (stress)
 * @out:       pool objects out (stress)
 * @count:     plain counter, written only under the lock under test
 * @cap:       the stress pool's capacity
 * @iters:     stress iterations per kthread
 * @nap:       stress kthreads sometimes sleep inside a critical section
 * @nr:        helpers started
 * @max:       helpers @t has room for
 * @t:         the helpers
 * @leak:      a helper could not be stopped: free nothing
 */
struct pt_fix {
	struct psem_rwlock	rw;
	struct psem_mutex	mx;
	struct psem_pool	pool;
	bool			pool_live;
	struct pt_obj		obj[PT_NR_OBJS];
	void			*objp[PT_NR_OBJS];
	struct pt_irq		irq;
	spinlock_t		atomic_lock;	/* only held, guards nothing */
	atomic_t		seq;
	atomic_long_t		progress;
	atomic_t		readers;
	atomic_t		writers;
	atomic_t		inside;
	atomic_t		out;
	unsigned long		count;
	unsigned int		cap;
	unsigned int		iters;
	bool			nap;
	unsigned int		nr;
	unsigned int		max;
	struct pt_thread	*t;
	bool			leak;
};

/*
 * pt_wait - poll @cond every tick until it holds, for at most
 * PT_HANG_MS; then fail the case as a hang. Evaluates to whether @cond held.
 */
#define pt_wait(test, cond)						\
({									\
	unsigned long __end = jiffies + msecs_to_jiffies(PT_HANG_MS);	\
	bool __ok;							\
									\
	for (;;) {							\
		__ok = (cond);						\
		if (__ok || time_after(jiffies, __end))			\
			break;						\
		pt_nap();						\
	}								\
	if (!__ok)							\
		KUNIT_FAIL(test, "hang guard: %s", #cond);		\
	__ok;								\
})

/* ---- fixture and helper kthreads ---- */

static inline struct pt_fix *pt_fix_new(unsigned int max_threads)
{
	struct pt_fix *fix = kzalloc(sizeof(*fix), GFP_KERNEL);
	unsigned int i;

	if (!fix)
		return NULL;
	fix->t = kcalloc(max_threads, sizeof(*fix->t), GFP_KERNEL);
	if (!fix->t) {
		kfree(fix);
		return NULL;
	}
	fix->max = max_threads;
	psem_rwlock_init(&fix->rw);
	psem_mutex_init(&fix->mx);
	spin_lock_init(&fix->atomic_lock);
	for (i = 0; i < PT_NR_OBJS; i++)
		fix->objp[i] = &fix->obj[i];
	return fix;
}

static inline int pt_pool_init(struct pt_fix *fix, unsigned int capacity)
{
	int ret = psem_pool_init(&fix->pool, fix->objp, capacity, GFP_KERNEL);

	fix->pool_live = !ret;
	return ret;
}

/* Frees the fixture, unless a helper that may still touch it is stuck. */
static inline void pt_fix_free(struct kunit *test, struct pt_fix *fix)
{
	if (fix->leak) {
		kunit_err(test, "leaking the fixture of a stuck kthread\n");
		return;
	}
	if (fix->pool_live)
		psem_pool_destroy(&fix->pool);
	kfree(fix->t);
	kfree(fix);
}

static inline int pt_state(struct pt_thread *t)
{
	return atomic_read_acquire(&t->state);
}

static inline void pt_set_state(struct pt_thread *t, int state)
{
	atomic_set_release(&t->state, state);
}

static inline void pt_go(struct pt_thread *t)
{
	atomic_set_release(&t->go, 1);
}

/* The waiters linked on @sem's queue: they hold their place in the FIFO. */
static inline unsigned int pt_waiters(struct psem *sem)
{
	struct wait_queue_entry *e;
	unsigned int n = 0;

	spin_lock_irq(&sem->wq.lock);
	list_for_each_entry(e, &sem->wq.head, entry)
		n++;
	spin_unlock_irq(&sem->wq.lock);
	return n;
}

/* Creates a helper, bound to @cpu unless it is negative; does not wake it. */
static inline struct pt_thread *
pt_create(struct kunit *test, struct pt_fix *fix, int (*fn)(void *),
	  enum pt_op op, int cpu)
{
	struct task_struct *task;
	struct pt_thread *t;

	if (fix->nr == fix->max) {
		KUNIT_FAIL(test, "no room for kthread %u", fix->nr);
		return NULL;
	}
	t = &fix->t[fix->nr];
	t->fix = fix;
	t->op = op;
	t->id = fix->nr;
	t->obj = PT_NO_OBJ;
	if (cpu < 0)
		task = kthread_create(fn, t, "psem_pt/%u", t->id);
	else
		task = kthread_create_on_cpu(fn, t, cpu, "psem_pt/%u");
	if (IS_ERR(task)) {
		KUNIT_FAIL(test, "kthread_create: %ld", PTR_ERR(task));
		return NULL;
	}
	/* It may exit before kthread_stop(): keep its task_struct. */
	get_task_struct(task);
	t->task = task;
	fix->nr++;
	return t;
}

static inline struct pt_thread *
pt_start(struct kunit *test, struct pt_fix *fix, int (*fn)(void *),
	 enum pt_op op)
{
	struct pt_thread *t = pt_create(test, fix, fn, op, -1);

	if (t)
		wake_up_process(t->task);
	return t;
}

static inline bool pt_all_done(struct pt_fix *fix)
{
	unsigned int i;

	for (i = 0; i < fix->nr; i++)
		if (pt_state(&fix->t[i]) != PT_DONE)
			return false;
	return true;
}

/* Waits up to PT_HANG_MS in all for every helper to be done. */
static inline bool pt_all_done_within(struct pt_fix *fix)
{
	unsigned long end = jiffies + msecs_to_jiffies(PT_HANG_MS);

	while (!pt_all_done(fix)) {
		if (time_after(jiffies, end))
			return false;
		pt_nap();
	}
	return true;
}

/*
 * Tells every helper to finish and reaps it. Helpers that do not finish
 * fail the case and get a SIGKILL (every helper allows it) in case they are
 * stuck in a killable wait. Any still stuck after that are leaked, fixture
 * and all, and pin this module: they sleep with return addresses in it.
 */
static inline void pt_stop_all(struct kunit *test, struct pt_fix *fix)
{
	unsigned int i;

	for (i = 0; i < fix->nr; i++)
		pt_go(&fix->t[i]);
	if (!pt_all_done_within(fix)) {
		KUNIT_FAIL(test, "kthreads do not finish");
		for (i = 0; i < fix->nr; i++)
			if (fix->t[i].task && pt_state(&fix->t[i]) != PT_DONE)
				send_sig(SIGKILL, fix->t[i].task, 1);
		pt_all_done_within(fix);
	}
	for (i = 0; i < fix->nr; i++) {
		struct pt_thread *t = &fix->t[i];

		if (!t->task)
			continue;
		if (pt_state(t) != PT_DONE) {
			if (!fix->leak)
				__module_get(THIS_MODULE);
			fix->leak = true;
			continue;
		}
		kthread_stop(t->task);
		put_task_struct(t->task);
		t->task = NULL;
	}
}

/* Stops the helpers, checks @sem is back to @full with no waiter, frees. */
static inline void pt_finish(struct kunit *test, struct pt_fix *fix,
			     struct psem *sem, long full)
{
	pt_stop_all(test, fix);
	if (!fix->leak) {
		KUNIT_EXPECT_EQ(test, psem_available(sem), full);
		KUNIT_EXPECT_EQ(test, pt_waiters(sem), 0U);
	}
	pt_fix_free(test, fix);
}

/* ---- step kthreads: one lock call each, recorded ---- */

static inline int pt_acquire(struct pt_thread *t)
{
	struct pt_fix *fix = t->fix;

	switch (t->op) {
	case PT_READ:
		psem_read_lock(&fix->rw);
		return 0;
	case PT_READ_INTR:
		return psem_read_lock_interruptible(&fix->rw);
	case PT_READ_KILL:
		return psem_read_lock_killable(&fix->rw);
	case PT_WRITE:
		psem_write_lock(&fix->rw);
		return 0;
	case PT_WRITE_INTR:
		return psem_write_lock_interruptible(&fix->rw);
	case PT_WRITE_KILL:
		return psem_write_lock_killable(&fix->rw);
	case PT_MUTEX:
		psem_mutex_lock(&fix->mx);
		return 0;
	case PT_MUTEX_INTR:
		return psem_mutex_lock_interruptible(&fix->mx);
	case PT_MUTEX_KILL:
		return psem_mutex_lock_killable(&fix->mx);
	case PT_GET:
		t->obj = psem_pool_get(&fix->pool);
		return 0;
	case PT_GET_INTR:
		return psem_pool_get_interruptible(&fix->pool, &t->obj);
	case PT_GET_KILL:
		return psem_pool_get_killable(&fix->pool, &t->obj);
	default:
		return -EINVAL;
	}
}

static inline void pt_release(struct pt_thread *t)
{
	struct pt_fix *fix = t->fix;

	switch (t->op) {
	case PT_READ:
	case PT_READ_INTR:
	case PT_READ_KILL:
		psem_read_unlock(&fix->rw);
		break;
	case PT_WRITE:
	case PT_WRITE_INTR:
	case PT_WRITE_KILL:
		psem_write_unlock(&fix->rw);
		break;
	case PT_MUTEX:
	case PT_MUTEX_INTR:
	case PT_MUTEX_KILL:
		psem_mutex_unlock(&fix->mx);
		break;
	default:
		if (psem_pool_put(&fix->pool, t->obj))
			t->errors++;
		break;
	}
}

/* Holds until the test says go; bounded in case the test died. */
static inline void pt_wait_go(struct pt_thread *t)
{
	unsigned long end = jiffies + msecs_to_jiffies(PT_HOLD_MS);

	while (!atomic_read_acquire(&t->go) && time_before(jiffies, end))
		pt_nap();
}

static inline int pt_step_fn(void *arg)
{
	struct pt_thread *t = arg;

	/* A kthread ignores every signal it does not allow. */
	allow_signal(SIGUSR1);
	allow_signal(SIGKILL);
	t->ret = pt_acquire(t);
	if (!t->ret) {
		t->order = atomic_inc_return(&t->fix->seq);
		pt_set_state(t, PT_HOLD);
		pt_wait_go(t);
		pt_release(t);
	}
	pt_set_state(t, PT_DONE);
	return 0;
}

/* ---- stress kthreads on every online CPU ---- */

/* Now and then, sleep inside the critical section so that others queue. */
static inline void pt_hold(struct pt_thread *t)
{
	if (++t->holds % 32 == 0)
		pt_nap();
}

/* Starts @per_cpu kthreads running @fn on each online CPU. */
static inline bool pt_start_per_cpu(struct kunit *test, struct pt_fix *fix,
				    int (*fn)(void *), unsigned int per_cpu)
{
	unsigned int cpu, i;
	bool ok = true;

	for_each_online_cpu(cpu)
		for (i = 0; ok && i < per_cpu; i++)
			ok = pt_create(test, fix, fn, PT_NONE, cpu);
	/* Wake even after a failure: pt_stop_all() waits for them to end. */
	for (i = 0; i < fix->nr; i++)
		wake_up_process(fix->t[i].task);
	return ok;
}

/*
 * Waits for the stress kthreads. A hang is no progress for PT_HANG_MS, or
 * (a livelock, such as getters spinning for an object that was lost) not
 * being done after PT_STRESS_MS, many times what a healthy run takes.
 */
static inline bool pt_wait_stress(struct kunit *test, struct pt_fix *fix)
{
	unsigned long start = jiffies, idle_since = jiffies;
	long last = -1;

	while (!pt_all_done(fix)) {
		long now = atomic_long_read(&fix->progress);

		if (now != last) {
			last = now;
			idle_since = jiffies;
		}
		if (time_after(jiffies, idle_since + msecs_to_jiffies(PT_HANG_MS)) ||
		    time_after(jiffies, start + msecs_to_jiffies(PT_STRESS_MS))) {
			KUNIT_FAIL(test, "hang guard: stuck at %ld iterations",
				   now);
			return false;
		}
		msleep(20);
	}
	return true;
}

/* Sums what the stress kthreads recorded. */
static inline void pt_sum(struct pt_fix *fix, unsigned long *errors,
			  unsigned long *got, unsigned long *misses,
			  int *max_readers)
{
	unsigned int i;

	*errors = 0;
	*got = 0;
	*misses = 0;
	*max_readers = 0;
	for (i = 0; i < fix->nr; i++) {
		*errors += fix->t[i].errors;
		*got += fix->t[i].got;
		*misses += fix->t[i].misses;
		*max_readers = max(*max_readers, fix->t[i].max_readers);
	}
}

/* Runs @fn under a spinlock with interrupts off. */
static inline unsigned long
pt_run_atomic(struct pt_fix *fix, unsigned long (*fn)(struct pt_fix *fix))
{
	unsigned long flags, bad;

	spin_lock_irqsave(&fix->atomic_lock, flags);
	bad = fn(fix);
	spin_unlock_irqrestore(&fix->atomic_lock, flags);
	return bad;
}

static inline void pt_irq_fn(struct irq_work *work)
{
	struct pt_irq *p = container_of(work, struct pt_irq, work);

	p->hardirq = in_hardirq();
	p->bad = p->fn(p->fix);
}

/*
 * Runs @fn in an irq_work callback: hard interrupt context (a HARD irq_work,
 * also on PREEMPT_RT), which the case checks rather than assumes.
 */
static inline unsigned long
pt_run_hardirq(struct kunit *test, struct pt_fix *fix,
	       unsigned long (*fn)(struct pt_fix *fix))
{
	struct pt_irq *p = &fix->irq;

	p->fix = fix;
	p->fn = fn;
	p->bad = ~0UL;
	/* HARD: on PREEMPT_RT a plain irq_work would run in a kthread. */
	p->work = IRQ_WORK_INIT_HARD(pt_irq_fn);
	irq_work_queue(&p->work);
	irq_work_sync(&p->work);
	KUNIT_EXPECT_TRUE(test, p->hardirq);
	return p->bad;
}

/* ---- the switches a case may change, and statistics ---- */

/*
 * What pt_suite_init() saw, for pt_case_exit() to restore. One copy per
 * module that includes this header; unused in the modules whose suites do
 * not use these hooks.
 */
static bool pt_saved_fast __maybe_unused, pt_saved_flag __maybe_unused;
static bool pt_saved_zero __maybe_unused, pt_saved_stats __maybe_unused;

static inline int pt_suite_init(struct kunit_suite *suite)
{
	pt_saved_fast = psem_fast_release_enabled();
	pt_saved_flag = psem_contention_flag_enabled();
	pt_saved_zero = psem_zero_release_enabled();
	pt_saved_stats = psem_stats_enabled();
	return 0;
}

/* Runs after every case, even one that failed an assertion. */
static inline void pt_case_exit(struct kunit *test)
{
	psem_set_quiet_warnings(false);
	psem_set_fast_release(pt_saved_fast);
	psem_set_contention_flag(pt_saved_flag);
	psem_set_zero_release(pt_saved_zero);
	psem_set_stats(pt_saved_stats);
}

/* Counting on, fast path on (psem's rule), counters zeroed. */
static inline void pt_stats_on(void)
{
	psem_set_fast_release(true);
	psem_set_zero_release(true);
	psem_set_stats(true);
	psem_stats_reset();
}

/* Expects @fast fast and @locked locked releases since snapshot @before. */
static inline void pt_expect_releases(struct kunit *test,
				      const struct psem_stats *before,
				      u64 fast, u64 locked)
{
	struct psem_stats now;

	psem_stats_snapshot(&now);
	KUNIT_EXPECT_EQ(test, now.count[PSEM_STAT_FAST_RELEASE] -
			before->count[PSEM_STAT_FAST_RELEASE], fast);
	KUNIT_EXPECT_EQ(test, now.count[PSEM_STAT_LOCKED_RELEASE] -
			before->count[PSEM_STAT_LOCKED_RELEASE], locked);
}

#endif /* _PSEM_TEST_H */
