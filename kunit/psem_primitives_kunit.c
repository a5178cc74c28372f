// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for the primitives built on psem: psem_rwlock, psem_mutex
 * and psem_pool.
 *
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

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/debug_locks.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_mutex.h"
#include "psem_pool.h"
#include "psem_rwlock.h"

#define RW_MAX		PSEM_RWLOCK_MAX_READERS

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

#define PT_RW_ITERS	1000	/* stress iterations per kthread */
#define PT_MX_ITERS	1000
#define PT_POOL_ITERS	1000	/* with few objects: gets sleep, slowly */
#define PT_PLENTY_ITERS	5000	/* with many: gets race each other */

#define PT_NR_OBJS	16	/* pool objects, BITS_PER_LONG at most */
#define PT_SCARCE_CAP	3	/* fewer objects than stress kthreads */

/*
 * Cases that make psem warn on purpose (its refusal WARNING, not a quiet
 * count) print a "psem-expect-splat: begin refusal" window around it, which
 * scripts/lib.sh must accept: until it knows the kind "refusal", every such
 * WARNING fails make check, so they are compiled in but skip. Build with
 * PT_LOUD_CASES 1 to run them. (A module parameter cannot switch them on:
 * Linux 6.1 runs a module's suites before it parses its parameters.)
 */
#ifndef PT_LOUD_CASES
#define PT_LOUD_CASES 1
#endif

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

static struct pt_fix *pt_fix_new(unsigned int max_threads)
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
	for (i = 0; i < PT_NR_OBJS; i++)
		fix->objp[i] = &fix->obj[i];
	return fix;
}

static int pt_pool_init(struct pt_fix *fix, unsigned int capacity)
{
	int ret = psem_pool_init(&fix->pool, fix->objp, capacity, GFP_KERNEL);

	fix->pool_live = !ret;
	return ret;
}

/* Frees the fixture, unless a helper that may still touch it is stuck. */
static void pt_fix_free(struct kunit *test, struct pt_fix *fix)
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

static int pt_state(struct pt_thread *t)
{
	return atomic_read_acquire(&t->state);
}

static void pt_set_state(struct pt_thread *t, int state)
{
	atomic_set_release(&t->state, state);
}

static void pt_go(struct pt_thread *t)
{
	atomic_set_release(&t->go, 1);
}

/* The waiters linked on @sem's queue: they hold their place in the FIFO. */
static unsigned int pt_waiters(struct psem *sem)
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
static struct pt_thread *pt_create(struct kunit *test, struct pt_fix *fix,
				   int (*fn)(void *), enum pt_op op, int cpu)
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

static struct pt_thread *pt_start(struct kunit *test, struct pt_fix *fix,
				  int (*fn)(void *), enum pt_op op)
{
	struct pt_thread *t = pt_create(test, fix, fn, op, -1);

	if (t)
		wake_up_process(t->task);
	return t;
}

static bool pt_all_done(struct pt_fix *fix)
{
	unsigned int i;

	for (i = 0; i < fix->nr; i++)
		if (pt_state(&fix->t[i]) != PT_DONE)
			return false;
	return true;
}

/* Waits up to PT_HANG_MS in all for every helper to be done. */
static bool pt_all_done_within(struct pt_fix *fix)
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
static void pt_stop_all(struct kunit *test, struct pt_fix *fix)
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
static void pt_finish(struct kunit *test, struct pt_fix *fix,
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

static int pt_acquire(struct pt_thread *t)
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

static void pt_release(struct pt_thread *t)
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
static void pt_wait_go(struct pt_thread *t)
{
	unsigned long end = jiffies + msecs_to_jiffies(PT_HOLD_MS);

	while (!atomic_read_acquire(&t->go) && time_before(jiffies, end))
		pt_nap();
}

static int pt_step_fn(void *arg)
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
static void pt_hold(struct pt_thread *t)
{
	if (++t->holds % 32 == 0)
		pt_nap();
}

/* Starts @per_cpu kthreads running @fn on each online CPU. */
static bool pt_start_per_cpu(struct kunit *test, struct pt_fix *fix,
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
static bool pt_wait_stress(struct kunit *test, struct pt_fix *fix)
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
static void pt_sum(struct pt_fix *fix, unsigned long *errors,
		   unsigned long *got, unsigned long *misses, int *max_readers)
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

/* The mutex's recorded owner; NULL where it is not tracked. */
static struct task_struct *pt_mx_owner(struct psem_mutex *mx)
{
#ifdef CONFIG_DEBUG_MUTEXES
	return READ_ONCE(mx->owner);
#else
	return NULL;
#endif
}

/* ---- trylock sequences, run with interrupts off or in hard IRQ ---- */

/* A trylock that should fail; undoes it if it did not. */
static bool pt_rw_try_undo(struct psem_rwlock *rw, bool write)
{
	if (write) {
		if (!psem_write_trylock(rw))
			return false;
		psem_write_unlock(rw);
	} else {
		if (!psem_read_trylock(rw))
			return false;
		psem_read_unlock(rw);
	}
	return true;
}

static bool pt_mx_try_undo(struct psem_mutex *mx)
{
	if (!psem_mutex_trylock(mx))
		return false;
	psem_mutex_unlock(mx);
	return true;
}

/*
 * On a free rwlock: two readers share it and keep a writer out, then a
 * writer keeps everybody out. Returns a mask of the steps that went wrong
 * and leaves the lock free.
 */
static unsigned long pt_rw_try_steps(struct pt_fix *fix)
{
	struct psem_rwlock *rw = &fix->rw;
	unsigned long bad = 0;
	bool r1, r2, w;

	r1 = psem_read_trylock(rw);
	r2 = psem_read_trylock(rw);
	if (!r1 || !r2)
		bad |= BIT(0);
	if (psem_available(&rw->sem) != RW_MAX - r1 - r2)
		bad |= BIT(1);
	if (pt_rw_try_undo(rw, true))
		bad |= BIT(2);
	if (r1)
		psem_read_unlock(rw);
	if (r2)
		psem_read_unlock(rw);
	w = psem_write_trylock(rw);
	if (!w || psem_available(&rw->sem))
		bad |= BIT(3);
	if (pt_rw_try_undo(rw, false))
		bad |= BIT(4);
	if (pt_rw_try_undo(rw, true))
		bad |= BIT(5);
	if (w)
		psem_write_unlock(rw);
	if (psem_available(&rw->sem) != RW_MAX)
		bad |= BIT(6);
	return bad;
}

/* On a free mutex: trylock, is_locked, a second trylock fails, unlock. */
static unsigned long pt_mx_try_steps(struct pt_fix *fix)
{
	struct psem_mutex *mx = &fix->mx;
	unsigned long bad = 0;
	bool got;

	got = psem_mutex_trylock(mx);
	if (!got)
		bad |= BIT(0);
	if (!psem_mutex_is_locked(mx))
		bad |= BIT(1);
	if (pt_mx_try_undo(mx))
		bad |= BIT(2);
	if (got)
		psem_mutex_unlock(mx);
	if (psem_mutex_is_locked(mx))
		bad |= BIT(3);
	return bad;
}

static DEFINE_SPINLOCK(pt_atomic_lock);

/* Runs @fn under a spinlock with interrupts off. */
static unsigned long pt_run_atomic(struct pt_fix *fix,
				   unsigned long (*fn)(struct pt_fix *fix))
{
	unsigned long flags, bad;

	spin_lock_irqsave(&pt_atomic_lock, flags);
	bad = fn(fix);
	spin_unlock_irqrestore(&pt_atomic_lock, flags);
	return bad;
}

static void pt_irq_fn(struct irq_work *work)
{
	struct pt_irq *p = container_of(work, struct pt_irq, work);

	p->hardirq = in_hardirq();
	p->bad = p->fn(p->fix);
}

/*
 * Runs @fn in an irq_work callback: hard interrupt context (a HARD irq_work,
 * also on PREEMPT_RT), which the case checks rather than assumes.
 */
static unsigned long pt_run_hardirq(struct kunit *test, struct pt_fix *fix,
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

static bool pt_saved_fast, pt_saved_flag, pt_saved_zero, pt_saved_stats;

static int pt_suite_init(struct kunit_suite *suite)
{
	pt_saved_fast = psem_fast_release_enabled();
	pt_saved_flag = psem_contention_flag_enabled();
	pt_saved_zero = psem_zero_release_enabled();
	pt_saved_stats = psem_stats_enabled();
	return 0;
}

/* Runs after every case, even one that failed an assertion. */
static void pt_case_exit(struct kunit *test)
{
	psem_set_quiet_warnings(false);
	psem_set_fast_release(pt_saved_fast);
	psem_set_contention_flag(pt_saved_flag);
	psem_set_zero_release(pt_saved_zero);
	psem_set_stats(pt_saved_stats);
}

/* Counting on, fast path on (psem's rule), counters zeroed. */
static void pt_stats_on(void)
{
	psem_set_fast_release(true);
	psem_set_zero_release(true);
	psem_set_stats(true);
	psem_stats_reset();
}

/* Expects @fast fast and @locked locked releases since snapshot @before. */
static void pt_expect_releases(struct kunit *test,
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

/* ==== psem_rwlock ==== */

static void pt_rw_read_once(struct pt_thread *t, unsigned int i)
{
	struct pt_fix *fix = t->fix;
	int ret = 0, in;

	switch (i / 4 % 4) {
	case 0:
		psem_read_lock(&fix->rw);
		break;
	case 1:
		ret = psem_read_lock_interruptible(&fix->rw);
		break;
	case 2:
		ret = psem_read_lock_killable(&fix->rw);
		break;
	default:
		if (!psem_read_trylock(&fix->rw))
			psem_read_lock(&fix->rw);
		break;
	}
	if (ret) {		/* nobody sends a signal here */
		t->errors++;
		return;
	}
	in = atomic_inc_return(&fix->readers);
	t->max_readers = max(t->max_readers, in);
	if (atomic_read(&fix->writers))
		t->errors++;
	t->seen = fix->count;	/* plain: KCSAN reports a writer inside */
	pt_hold(t);
	atomic_dec(&fix->readers);
	psem_read_unlock(&fix->rw);
}

static void pt_rw_write_once(struct pt_thread *t, unsigned int i)
{
	struct pt_fix *fix = t->fix;
	int ret = 0;

	switch (i / 4 % 4) {
	case 0:
		psem_write_lock(&fix->rw);
		break;
	case 1:
		ret = psem_write_lock_interruptible(&fix->rw);
		break;
	case 2:
		ret = psem_write_lock_killable(&fix->rw);
		break;
	default:
		if (!psem_write_trylock(&fix->rw))
			psem_write_lock(&fix->rw);
		break;
	}
	if (ret) {
		t->errors++;
		return;
	}
	if (atomic_inc_return(&fix->writers) != 1 ||
	    atomic_read(&fix->readers))
		t->errors++;
	fix->count++;		/* plain: only one writer may be here */
	t->got++;
	pt_hold(t);
	if (atomic_read(&fix->readers))
		t->errors++;
	atomic_dec(&fix->writers);
	psem_write_unlock(&fix->rw);
}

static int pt_rw_stress_fn(void *arg)
{
	struct pt_thread *t = arg;
	unsigned int i;

	for (i = 0; i < PT_RW_ITERS; i++) {
		/* One write in four, at a different phase per kthread. */
		if ((i + t->id) % 4 == 0)
			pt_rw_write_once(t, i);
		else
			pt_rw_read_once(t, i);
		atomic_long_inc(&t->fix->progress);
	}
	pt_set_state(t, PT_DONE);
	return 0;
}

/*
 * Three kthreads per online CPU mix every read and write lock call. Inside
 * each critical section they check that no writer overlaps anybody, and
 * writers bump a plain counter, so a lost update shows too.
 */
static void psem_rwlock_test_exclusion(struct kunit *test)
{
	unsigned int per_cpu = 3, n = per_cpu * num_online_cpus();
	unsigned long errors, writes, misses;
	struct pt_fix *fix = pt_fix_new(n);
	int max_readers;

	KUNIT_ASSERT_NOT_NULL(test, fix);
	if (pt_start_per_cpu(test, fix, pt_rw_stress_fn, per_cpu) &&
	    pt_wait_stress(test, fix)) {
		pt_sum(fix, &errors, &writes, &misses, &max_readers);
		KUNIT_EXPECT_EQ(test, errors, 0UL);
		KUNIT_EXPECT_EQ(test, fix->count, writes);
		KUNIT_EXPECT_EQ(test, atomic_read(&fix->readers), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&fix->writers), 0);
		/* Overlap depends on scheduling: reported, not asserted. */
		kunit_info(test, "%u kthreads, %lu writes, up to %d readers at once\n",
			   fix->nr, writes, max_readers);
	}
	pt_finish(test, fix, &fix->rw.sem, RW_MAX);
}

/*
 * R1 (the test) reads; writer W queues; a later reader R2 must queue
 * behind W, not join R1. When R1 leaves, W gets in before R2; when W
 * leaves, R2 gets in.
 */
static void psem_rwlock_test_writer_fairness(struct kunit *test)
{
	struct pt_fix *fix = pt_fix_new(2);
	struct pt_thread *w, *r2;
	bool reading;

	KUNIT_ASSERT_NOT_NULL(test, fix);
	psem_read_lock(&fix->rw);
	reading = true;

	w = pt_start(test, fix, pt_step_fn, PT_WRITE);
	if (!w || !pt_wait(test, pt_waiters(&fix->rw.sem) == 1))
		goto out;
	/* W drained every permit R1 left: there is none for R2. */
	KUNIT_EXPECT_EQ(test, psem_available(&fix->rw.sem), 0L);
	KUNIT_EXPECT_FALSE(test, pt_rw_try_undo(&fix->rw, false));

	r2 = pt_start(test, fix, pt_step_fn, PT_READ);
	if (!r2 || !pt_wait(test, pt_waiters(&fix->rw.sem) == 2))
		goto out;
	KUNIT_EXPECT_EQ(test, pt_state(w), PT_WAIT);
	KUNIT_EXPECT_EQ(test, pt_state(r2), PT_WAIT);

	psem_read_unlock(&fix->rw);
	reading = false;
	if (!pt_wait(test, pt_state(w) == PT_HOLD))
		goto out;
	KUNIT_EXPECT_EQ(test, w->order, 1);
	KUNIT_EXPECT_EQ(test, pt_state(r2), PT_WAIT);
	KUNIT_EXPECT_EQ(test, pt_waiters(&fix->rw.sem), 1U);
	KUNIT_EXPECT_FALSE(test, pt_rw_try_undo(&fix->rw, false));

	pt_go(w);
	if (!pt_wait(test, pt_state(r2) == PT_HOLD))
		goto out;
	KUNIT_EXPECT_EQ(test, r2->order, 2);
	KUNIT_EXPECT_EQ(test, pt_state(w), PT_DONE);
out:
	if (reading)
		psem_read_unlock(&fix->rw);
	pt_finish(test, fix, &fix->rw.sem, RW_MAX);
}

/*
 * The test writes, with reader R and then writer W queued. After the
 * downgrade R reads alongside the test, and W waits until both are gone.
 */
static void psem_rwlock_test_downgrade(struct kunit *test)
{
	struct pt_fix *fix = pt_fix_new(2);
	struct pt_thread *r, *w;
	enum { PT_FREE, PT_WRITING, PT_READING } held;

	KUNIT_ASSERT_NOT_NULL(test, fix);
	psem_write_lock(&fix->rw);
	held = PT_WRITING;

	r = pt_start(test, fix, pt_step_fn, PT_READ);
	if (!r || !pt_wait(test, pt_waiters(&fix->rw.sem) == 1))
		goto out;
	w = pt_start(test, fix, pt_step_fn, PT_WRITE);
	if (!w || !pt_wait(test, pt_waiters(&fix->rw.sem) == 2))
		goto out;

	psem_downgrade_write(&fix->rw);
	held = PT_READING;
	if (!pt_wait(test, pt_state(r) == PT_HOLD))
		goto out;
	/* Two readers in; W took the rest and still waits for two. */
	KUNIT_EXPECT_EQ(test, psem_available(&fix->rw.sem), 0L);
	KUNIT_EXPECT_EQ(test, pt_waiters(&fix->rw.sem), 1U);
	KUNIT_EXPECT_EQ(test, pt_state(w), PT_WAIT);
	KUNIT_EXPECT_FALSE(test, pt_rw_try_undo(&fix->rw, false));

	psem_read_unlock(&fix->rw);
	held = PT_FREE;
	/* R still reads: W still waits. */
	KUNIT_EXPECT_EQ(test, pt_waiters(&fix->rw.sem), 1U);
	KUNIT_EXPECT_EQ(test, pt_state(w), PT_WAIT);

	pt_go(r);
	if (!pt_wait(test, pt_state(w) == PT_HOLD))
		goto out;
	KUNIT_EXPECT_EQ(test, r->order, 1);
	KUNIT_EXPECT_EQ(test, w->order, 2);
out:
	if (held == PT_WRITING)
		psem_write_unlock(&fix->rw);
	else if (held == PT_READING)
		psem_read_unlock(&fix->rw);
	pt_finish(test, fix, &fix->rw.sem, RW_MAX);
}

/*
 * Writer W waits behind the test's read hold with readers queued behind
 * it; a signal ends W's wait. W got every permit but the test's, and must
 * pass them on: both queued readers get in.
 */
static void pt_rw_cancel(struct kunit *test, enum pt_op op, int sig)
{
	struct pt_fix *fix = pt_fix_new(3);
	struct pt_thread *w, *r[2];
	bool reading;

	KUNIT_ASSERT_NOT_NULL(test, fix);
	psem_read_lock(&fix->rw);
	reading = true;

	w = pt_start(test, fix, pt_step_fn, op);
	if (!w || !pt_wait(test, pt_waiters(&fix->rw.sem) == 1))
		goto out;
	r[0] = pt_start(test, fix, pt_step_fn, PT_READ_INTR);
	if (!r[0] || !pt_wait(test, pt_waiters(&fix->rw.sem) == 2))
		goto out;
	r[1] = pt_start(test, fix, pt_step_fn, PT_READ_KILL);
	if (!r[1] || !pt_wait(test, pt_waiters(&fix->rw.sem) == 3))
		goto out;

	if (sig == SIGKILL) {
		/* A killable wait ignores other signals (can only miss). */
		send_sig(SIGUSR1, w->task, 1);
		msleep(20);
		KUNIT_EXPECT_EQ(test, pt_state(w), PT_WAIT);
	}
	send_sig(sig, w->task, 1);
	if (!pt_wait(test, pt_state(w) == PT_DONE))
		goto out;
	KUNIT_EXPECT_EQ(test, w->ret, -EINTR);
	if (!pt_wait(test,
		     pt_state(r[0]) == PT_HOLD && pt_state(r[1]) == PT_HOLD))
		goto out;
	KUNIT_EXPECT_EQ(test, psem_available(&fix->rw.sem), RW_MAX - 3);
	KUNIT_EXPECT_EQ(test, pt_waiters(&fix->rw.sem), 0U);
out:
	if (reading)
		psem_read_unlock(&fix->rw);
	pt_finish(test, fix, &fix->rw.sem, RW_MAX);
}

static void psem_rwlock_test_write_interruptible(struct kunit *test)
{
	pt_rw_cancel(test, PT_WRITE_INTR, SIGUSR1);
}

static void psem_rwlock_test_write_killable(struct kunit *test)
{
	pt_rw_cancel(test, PT_WRITE_KILL, SIGKILL);
}

/*
 * Trylocks never sleep: with interrupts off under a spinlock, and in hard
 * IRQ, on a free lock; and on one a kthread holds for writing, then on one
 * a kthread holds for reading.
 */
static void psem_rwlock_test_trylock_atomic(struct kunit *test)
{
	struct pt_fix *fix = pt_fix_new(2);
	struct pt_thread *w, *r;
	unsigned long flags;

	KUNIT_ASSERT_NOT_NULL(test, fix);
	KUNIT_EXPECT_EQ(test, pt_run_atomic(fix, pt_rw_try_steps), 0UL);
	KUNIT_EXPECT_EQ(test, pt_run_hardirq(test, fix, pt_rw_try_steps), 0UL);

	w = pt_start(test, fix, pt_step_fn, PT_WRITE);
	if (!w || !pt_wait(test, pt_state(w) == PT_HOLD))
		goto out;
	spin_lock_irqsave(&pt_atomic_lock, flags);
	KUNIT_EXPECT_FALSE(test, pt_rw_try_undo(&fix->rw, false));
	KUNIT_EXPECT_FALSE(test, pt_rw_try_undo(&fix->rw, true));
	spin_unlock_irqrestore(&pt_atomic_lock, flags);
	pt_go(w);

	r = pt_start(test, fix, pt_step_fn, PT_READ);
	if (!r || !pt_wait(test, pt_state(r) == PT_HOLD))
		goto out;
	spin_lock_irqsave(&pt_atomic_lock, flags);
	KUNIT_EXPECT_TRUE(test, pt_rw_try_undo(&fix->rw, false));
	KUNIT_EXPECT_FALSE(test, pt_rw_try_undo(&fix->rw, true));
	spin_unlock_irqrestore(&pt_atomic_lock, flags);
out:
	pt_finish(test, fix, &fix->rw.sem, RW_MAX);
}

/*
 * PSEM_RWLOCK_MAX_READERS readers fit: each takes one permit. 2^30 kthreads
 * are out of reach, so the test takes a few permits as readers and the
 * rest straight from the semaphore; then the limit is reached, the next
 * reader queues and gets in when one of the others leaves.
 */
static void psem_rwlock_test_reader_limit(struct kunit *test)
{
	struct pt_fix *fix = pt_fix_new(1);
	struct pt_thread *r;
	long i, readers = 0, others = 0;

	KUNIT_ASSERT_NOT_NULL(test, fix);
	KUNIT_EXPECT_EQ(test, RW_MAX, 1L << 30);
	KUNIT_EXPECT_EQ(test, psem_available(&fix->rw.sem), RW_MAX);
	for (i = 0; i < 8; i++) {
		if (!psem_read_trylock(&fix->rw)) {
			KUNIT_FAIL(test, "reader %ld refused", i);
			goto out;
		}
		readers++;
		KUNIT_EXPECT_EQ(test, psem_available(&fix->rw.sem),
				RW_MAX - readers);
		KUNIT_EXPECT_FALSE(test, pt_rw_try_undo(&fix->rw, true));
	}

	/* Stand-ins for the other RW_MAX - 8 readers. */
	others = psem_drain(&fix->rw.sem, RW_MAX);
	KUNIT_EXPECT_EQ(test, others, RW_MAX - readers);
	KUNIT_EXPECT_FALSE(test, pt_rw_try_undo(&fix->rw, false));

	r = pt_start(test, fix, pt_step_fn, PT_READ);
	if (!r || !pt_wait(test, pt_waiters(&fix->rw.sem) == 1))
		goto out;
	psem_read_unlock(&fix->rw);
	readers--;
	if (!pt_wait(test, pt_state(r) == PT_HOLD))
		goto out;
	KUNIT_EXPECT_EQ(test, psem_available(&fix->rw.sem), 0L);
out:
	if (others)
		psem_release(&fix->rw.sem, others);
	while (readers--)
		psem_read_unlock(&fix->rw);
	pt_finish(test, fix, &fix->rw.sem, RW_MAX);
}

/*
 * With nobody waiting, a read_unlock is one lock-free exchange, the last
 * reader's too, and so is a write_unlock (psem's rule; under the seed's,
 * zero_release off, the write_unlock onto a zero balance takes the queue
 * lock). A read_unlock that a writer waits for takes the queue lock.
 */
static void psem_rwlock_test_read_unlock_fast_path(struct kunit *test)
{
	struct pt_fix *fix = pt_fix_new(1);
	struct pt_thread *w;
	struct psem_stats before;
	bool reading = false;

	KUNIT_ASSERT_NOT_NULL(test, fix);
	pt_stats_on();

	/* Two readers; trylock, so that lockdep allows the second. */
	if (!psem_read_trylock(&fix->rw) || !psem_read_trylock(&fix->rw)) {
		KUNIT_FAIL(test, "read_trylock failed on a free lock");
		goto out;
	}
	psem_stats_snapshot(&before);
	psem_read_unlock(&fix->rw);
	pt_expect_releases(test, &before, 1, 0);
	psem_stats_snapshot(&before);
	psem_read_unlock(&fix->rw);
	pt_expect_releases(test, &before, 1, 0);

	if (!psem_write_trylock(&fix->rw)) {
		KUNIT_FAIL(test, "write_trylock failed on a free lock");
		goto out;
	}
	psem_stats_snapshot(&before);
	psem_write_unlock(&fix->rw);
	pt_expect_releases(test, &before, 1, 0);

	psem_set_zero_release(false);
	if (!psem_write_trylock(&fix->rw)) {
		KUNIT_FAIL(test, "write_trylock failed on a free lock");
		goto out;
	}
	psem_stats_snapshot(&before);
	psem_write_unlock(&fix->rw);
	pt_expect_releases(test, &before, 0, 1);
	psem_set_zero_release(true);

	psem_read_lock(&fix->rw);
	reading = true;
	w = pt_start(test, fix, pt_step_fn, PT_WRITE);
	if (!w || !pt_wait(test, pt_waiters(&fix->rw.sem) == 1))
		goto out;
	psem_stats_snapshot(&before);
	psem_read_unlock(&fix->rw);
	reading = false;
	pt_expect_releases(test, &before, 0, 1);
	if (!pt_wait(test, pt_state(w) == PT_HOLD))
		goto out;
	KUNIT_EXPECT_EQ(test, psem_available(&fix->rw.sem), 0L);
out:
	if (reading)
		psem_read_unlock(&fix->rw);
	pt_finish(test, fix, &fix->rw.sem, RW_MAX);
}

static int pt_read_unlock_non_owner_fn(void *arg)
{
	struct pt_thread *t = arg;

	psem_read_unlock_non_owner(&t->fix->rw);
	pt_set_state(t, PT_DONE);
	return 0;
}

static unsigned long pt_rw_unlock_non_owner(struct pt_fix *fix)
{
	psem_read_unlock_non_owner(&fix->rw);
	return 0;
}

static unsigned long pt_rw_trylock_non_owner(struct pt_fix *fix)
{
	return !psem_read_trylock_non_owner(&fix->rw);
}

/*
 * A read hold taken by one context and released by another, through the
 * _non_owner pair: by another task, by a hard interrupt, and taken in a
 * hard interrupt for a task to release. lockdep must not see it: with the
 * owned calls (psem_read_lock() and psem_read_unlock(), which once claimed
 * "any context") it reports "bad unlock balance" and turns itself off.
 */
static void psem_rwlock_test_non_owner(struct kunit *test)
{
	struct pt_fix *fix = pt_fix_new(1);
	bool locks_on = debug_locks;
	struct pt_thread *t;

	KUNIT_ASSERT_NOT_NULL(test, fix);

	psem_read_lock_non_owner(&fix->rw);
	KUNIT_EXPECT_EQ(test, psem_available(&fix->rw.sem), RW_MAX - 1);
	t = pt_start(test, fix, pt_read_unlock_non_owner_fn, PT_NONE);
	if (!t || !pt_wait(test, pt_state(t) == PT_DONE))
		goto out;
	KUNIT_EXPECT_EQ(test, psem_available(&fix->rw.sem), RW_MAX);

	KUNIT_ASSERT_TRUE(test, psem_read_trylock_non_owner(&fix->rw));
	KUNIT_EXPECT_EQ(test, pt_run_hardirq(test, fix, pt_rw_unlock_non_owner), 0UL);
	KUNIT_EXPECT_EQ(test, psem_available(&fix->rw.sem), RW_MAX);

	KUNIT_EXPECT_EQ(test, pt_run_hardirq(test, fix, pt_rw_trylock_non_owner), 0UL);
	KUNIT_EXPECT_EQ(test, psem_available(&fix->rw.sem), RW_MAX - 1);
	psem_read_unlock_non_owner(&fix->rw);
	KUNIT_EXPECT_EQ(test, psem_available(&fix->rw.sem), RW_MAX);

	/* A writer still gets in, and the owned calls still work. */
	KUNIT_EXPECT_TRUE(test, pt_rw_try_undo(&fix->rw, true));
	KUNIT_EXPECT_EQ(test, debug_locks, locks_on);
out:
	pt_finish(test, fix, &fix->rw.sem, RW_MAX);
}

static struct kunit_case psem_rwlock_cases[] = {
	KUNIT_CASE(psem_rwlock_test_exclusion),
	KUNIT_CASE(psem_rwlock_test_writer_fairness),
	KUNIT_CASE(psem_rwlock_test_downgrade),
	KUNIT_CASE(psem_rwlock_test_write_interruptible),
	KUNIT_CASE(psem_rwlock_test_write_killable),
	KUNIT_CASE(psem_rwlock_test_trylock_atomic),
	KUNIT_CASE(psem_rwlock_test_reader_limit),
	KUNIT_CASE(psem_rwlock_test_read_unlock_fast_path),
	KUNIT_CASE(psem_rwlock_test_non_owner),
	{}
};

static struct kunit_suite psem_rwlock_suite = {
	.name		= "psem_rwlock",
	.suite_init	= pt_suite_init,
	.exit		= pt_case_exit,
	.test_cases	= psem_rwlock_cases,
};

/* ==== psem_mutex ==== */

static int pt_mx_stress_fn(void *arg)
{
	struct pt_thread *t = arg;
	struct pt_fix *fix = t->fix;
	struct psem_mutex *mx = &fix->mx;
	unsigned int i;
	int ret;

	for (i = 0; i < PT_MX_ITERS; i++, atomic_long_inc(&fix->progress)) {
		ret = 0;
		switch ((i + t->id) % 4) {
		case 0:
			psem_mutex_lock(mx);
			break;
		case 1:
			ret = psem_mutex_lock_interruptible(mx);
			break;
		case 2:
			ret = psem_mutex_lock_killable(mx);
			break;
		default:
			if (!psem_mutex_trylock(mx))
				psem_mutex_lock(mx);
			break;
		}
		if (ret) {	/* nobody sends a signal here */
			t->errors++;
			continue;
		}
		if (atomic_inc_return(&fix->inside) != 1 ||
		    !psem_mutex_is_locked(mx))
			t->errors++;
		if (IS_ENABLED(CONFIG_DEBUG_MUTEXES) &&
		    pt_mx_owner(mx) != current)
			t->errors++;
		fix->count++;	/* plain: only the holder is here */
		t->got++;
		pt_hold(t);
		atomic_dec(&fix->inside);
		psem_mutex_unlock(mx);
	}
	pt_set_state(t, PT_DONE);
	return 0;
}

/* Two kthreads per online CPU bump a plain counter under the mutex. */
static void psem_mutex_test_exclusion(struct kunit *test)
{
	unsigned int per_cpu = 2, n = per_cpu * num_online_cpus();
	unsigned long errors, got, misses;
	struct pt_fix *fix = pt_fix_new(n);
	int unused;

	KUNIT_ASSERT_NOT_NULL(test, fix);
	if (pt_start_per_cpu(test, fix, pt_mx_stress_fn, per_cpu) &&
	    pt_wait_stress(test, fix)) {
		pt_sum(fix, &errors, &got, &misses, &unused);
		KUNIT_EXPECT_EQ(test, errors, 0UL);
		KUNIT_EXPECT_EQ(test, got, (unsigned long)n * PT_MX_ITERS);
		KUNIT_EXPECT_EQ(test, fix->count, got);
		KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&fix->mx));
	}
	pt_finish(test, fix, &fix->mx.sem, 1);
}

/* Waiters that queued one after another get the mutex in that order. */
static void psem_mutex_test_fifo(struct kunit *test)
{
	static const enum pt_op ops[] = {
		PT_MUTEX, PT_MUTEX_INTR, PT_MUTEX_KILL, PT_MUTEX,
	};
	struct pt_thread *t[ARRAY_SIZE(ops)];
	struct pt_fix *fix = pt_fix_new(ARRAY_SIZE(ops));
	bool locked;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fix);
	psem_mutex_lock(&fix->mx);
	locked = true;
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		t[i] = pt_start(test, fix, pt_step_fn, ops[i]);
		if (!t[i] || !pt_wait(test, pt_waiters(&fix->mx.sem) == i + 1))
			goto out;
		pt_go(t[i]);	/* unlock as soon as it holds */
	}
	KUNIT_EXPECT_FALSE(test, pt_mx_try_undo(&fix->mx));

	psem_mutex_unlock(&fix->mx);
	locked = false;
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		if (!pt_wait(test, pt_state(t[i]) == PT_DONE))
			goto out;
		KUNIT_EXPECT_EQ(test, t[i]->ret, 0);
		KUNIT_EXPECT_EQ(test, t[i]->order, (int)i + 1);
	}
	KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&fix->mx));
out:
	if (locked)
		psem_mutex_unlock(&fix->mx);
	pt_finish(test, fix, &fix->mx.sem, 1);
}

/*
 * A waiter whose wait a signal ends gets -EINTR and holds nothing: the
 * test still owns the mutex, and once it unlocks the mutex is free.
 */
static void pt_mx_cancel(struct kunit *test, enum pt_op op, int sig)
{
	struct pt_fix *fix = pt_fix_new(1);
	struct pt_thread *t;
	bool locked;

	KUNIT_ASSERT_NOT_NULL(test, fix);
	psem_mutex_lock(&fix->mx);
	locked = true;

	t = pt_start(test, fix, pt_step_fn, op);
	if (!t || !pt_wait(test, pt_waiters(&fix->mx.sem) == 1))
		goto out;
	if (sig == SIGKILL) {
		/* A killable wait ignores other signals (can only miss). */
		send_sig(SIGUSR1, t->task, 1);
		msleep(20);
		KUNIT_EXPECT_EQ(test, pt_state(t), PT_WAIT);
	}
	send_sig(sig, t->task, 1);
	if (!pt_wait(test, pt_state(t) == PT_DONE))
		goto out;
	KUNIT_EXPECT_EQ(test, t->ret, -EINTR);
	KUNIT_EXPECT_EQ(test, pt_waiters(&fix->mx.sem), 0U);
	KUNIT_EXPECT_TRUE(test, psem_mutex_is_locked(&fix->mx));
	if (IS_ENABLED(CONFIG_DEBUG_MUTEXES))
		KUNIT_EXPECT_PTR_EQ(test, pt_mx_owner(&fix->mx), current);

	psem_mutex_unlock(&fix->mx);
	locked = false;
	KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&fix->mx));
	/* Still usable. */
	if (psem_mutex_trylock(&fix->mx))
		psem_mutex_unlock(&fix->mx);
	else
		KUNIT_FAIL(test, "mutex not free after the cancelled wait");
out:
	if (locked)
		psem_mutex_unlock(&fix->mx);
	pt_finish(test, fix, &fix->mx.sem, 1);
}

static void psem_mutex_test_interruptible(struct kunit *test)
{
	pt_mx_cancel(test, PT_MUTEX_INTR, SIGUSR1);
}

static void psem_mutex_test_killable(struct kunit *test)
{
	pt_mx_cancel(test, PT_MUTEX_KILL, SIGKILL);
}

/*
 * In hard IRQ: a trylock is refused, as mutex_trylock() must not be called
 * there (the interrupted task would become the owner). It fails on a free
 * mutex; if it took it anyway, it gives it back so the case can go on.
 */
static unsigned long pt_mx_try_irq(struct pt_fix *fix)
{
	if (!psem_mutex_trylock(&fix->mx))
		return 0;
	/* Undo what the old code did, from the same context. */
	psem_mutex_unlock(&fix->mx);
	return BIT(0);
}

/*
 * Trylock and is_locked with interrupts off in task context, where they
 * work, and in hard IRQ, where the trylock is refused.
 */
static void psem_mutex_test_trylock_atomic(struct kunit *test)
{
	struct pt_fix *fix = pt_fix_new(1);
	struct pt_thread *t;
	unsigned long flags;
	u64 warns;

	KUNIT_ASSERT_NOT_NULL(test, fix);
	KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&fix->mx));
	KUNIT_EXPECT_EQ(test, pt_run_atomic(fix, pt_mx_try_steps), 0UL);

	/* From interrupt context: refused, counted once, nothing changed. */
	warns = psem_warn_count();
	psem_set_quiet_warnings(true);
	KUNIT_EXPECT_EQ(test, pt_run_hardirq(test, fix, pt_mx_try_irq), 0UL);
	psem_set_quiet_warnings(false);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns + 1);
	KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&fix->mx));
	KUNIT_EXPECT_PTR_EQ(test, pt_mx_owner(&fix->mx), NULL);
	KUNIT_EXPECT_EQ(test, pt_mx_try_steps(fix), 0UL);

	t = pt_start(test, fix, pt_step_fn, PT_MUTEX);
	if (!t || !pt_wait(test, pt_state(t) == PT_HOLD))
		goto out;
	spin_lock_irqsave(&pt_atomic_lock, flags);
	KUNIT_EXPECT_TRUE(test, psem_mutex_is_locked(&fix->mx));
	KUNIT_EXPECT_FALSE(test, pt_mx_try_undo(&fix->mx));
	spin_unlock_irqrestore(&pt_atomic_lock, flags);
out:
	pt_finish(test, fix, &fix->mx.sem, 1);
}

static int pt_unlock_fn(void *arg)
{
	struct pt_thread *t = arg;

	psem_mutex_unlock(&t->fix->mx);
	pt_set_state(t, PT_DONE);
	return 0;
}

/*
 * With CONFIG_DEBUG_MUTEXES an unlock by a task that does not own the
 * mutex, or of a free mutex, is refused and counted, and changes nothing:
 * the owner still holds it and can still unlock it.
 */
static void psem_mutex_test_non_owner_unlock(struct kunit *test)
{
	struct pt_fix *fix;
	struct pt_thread *t;
	bool locked;
	u64 warns;

	if (!IS_ENABLED(CONFIG_DEBUG_MUTEXES))
		kunit_skip(test, "owner is tracked only with CONFIG_DEBUG_MUTEXES");
	fix = pt_fix_new(1);
	KUNIT_ASSERT_NOT_NULL(test, fix);
	psem_mutex_lock(&fix->mx);
	locked = true;

	warns = psem_warn_count();
	psem_set_quiet_warnings(true);
	t = pt_start(test, fix, pt_unlock_fn, PT_NONE);
	if (!t || !pt_wait(test, pt_state(t) == PT_DONE))
		goto out;
	psem_set_quiet_warnings(false);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns + 1);
	KUNIT_EXPECT_TRUE(test, psem_mutex_is_locked(&fix->mx));
	KUNIT_EXPECT_PTR_EQ(test, pt_mx_owner(&fix->mx), current);
	KUNIT_EXPECT_FALSE(test, pt_mx_try_undo(&fix->mx));

	psem_mutex_unlock(&fix->mx);
	locked = false;
	KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&fix->mx));
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns + 1);

	/* Unlocking a free mutex would let two holders in next. */
	psem_set_quiet_warnings(true);
	psem_mutex_unlock(&fix->mx);
	psem_set_quiet_warnings(false);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns + 2);
	KUNIT_EXPECT_EQ(test, psem_available(&fix->mx.sem), 1L);

	KUNIT_EXPECT_EQ(test, pt_mx_try_steps(fix), 0UL);
out:
	psem_set_quiet_warnings(false);
	if (locked)
		psem_mutex_unlock(&fix->mx);
	pt_finish(test, fix, &fix->mx.sem, 1);
}

static int pt_idle_fn(void *arg)
{
	while (!kthread_should_stop())
		schedule_timeout_idle(1);
	return 0;
}

/*
 * A foreign unlock of a mutex whose recorded owner has exited: the warning
 * must not read the owner's task_struct, which is freed (KASAN reports a
 * use-after-free if it does). The owner is a kthread that has run and been
 * reaped; the test holds the mutex itself (lockdep sees a real hold) with
 * the stale pointer planted as owner, as if that task had locked it and
 * died. The refusal has to warn for the bug to show (the old code read
 * the owner's name only to print it), so the case needs PT_LOUD_CASES and
 * prints its expected-splat window.
 */
static void psem_mutex_test_stale_owner_unlock(struct kunit *test)
{
	struct task_struct *gone;
	struct pt_fix *fix;
	u64 warns;

	if (!IS_ENABLED(CONFIG_DEBUG_MUTEXES))
		kunit_skip(test, "owner is tracked only with CONFIG_DEBUG_MUTEXES");
	if (!PT_LOUD_CASES)
		kunit_skip(test, "its refusal must warn: build with PT_LOUD_CASES 1");
	fix = pt_fix_new(1);
	KUNIT_ASSERT_NOT_NULL(test, fix);

	gone = kthread_run(pt_idle_fn, NULL, "psem_pt_gone");
	if (IS_ERR(gone)) {
		KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(gone));
		goto out;
	}
	get_task_struct(gone);
	kthread_stop(gone);
	/* Until the exit's own references are dropped, ours is not the last. */
	if (!pt_wait(test, refcount_read(&gone->usage) == 1)) {
		put_task_struct(gone);
		goto out;
	}

	psem_mutex_lock(&fix->mx);
#ifdef CONFIG_DEBUG_MUTEXES
	WRITE_ONCE(fix->mx.owner, gone);
#endif
	put_task_struct(gone);	/* frees it: "gone" is now a stale pointer */

	warns = psem_warn_count();
	pr_info("psem-expect-splat: begin refusal psem_mutex_unlock() by a task that does not own it\n");
	psem_mutex_unlock(&fix->mx);
	pr_info("psem-expect-splat: end refusal\n");
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns + 1);
	KUNIT_EXPECT_TRUE(test, psem_mutex_is_locked(&fix->mx));

#ifdef CONFIG_DEBUG_MUTEXES
	WRITE_ONCE(fix->mx.owner, current);
#endif
	psem_mutex_unlock(&fix->mx);
	KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&fix->mx));
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns + 1);
out:
	pt_finish(test, fix, &fix->mx.sem, 1);
}

static struct kunit_case psem_mutex_cases[] = {
	KUNIT_CASE(psem_mutex_test_exclusion),
	KUNIT_CASE(psem_mutex_test_fifo),
	KUNIT_CASE(psem_mutex_test_interruptible),
	KUNIT_CASE(psem_mutex_test_killable),
	KUNIT_CASE(psem_mutex_test_trylock_atomic),
	KUNIT_CASE(psem_mutex_test_non_owner_unlock),
	KUNIT_CASE(psem_mutex_test_stale_owner_unlock),
	{}
};

static struct kunit_suite psem_mutex_suite = {
	.name		= "psem_mutex",
	.suite_init	= pt_suite_init,
	.exit		= pt_case_exit,
	.test_cases	= psem_mutex_cases,
};

/* ==== psem_pool ==== */

/* The index of @obj among the fixture's first @n objects, or -1. */
static int pt_obj_index(struct pt_fix *fix, void *obj, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (obj == &fix->obj[i])
			return i;
	return -1;
}

/* The pool's slots that hold an object (white box). */
static unsigned int pt_pool_full_slots(struct psem_pool *pool)
{
	unsigned int i, n = 0;

	for (i = 0; i < pool->capacity; i++)
		n += !!atomic_long_read(&pool->slots[i]);
	return n;
}

/*
 * Empties a pool of capacity @cap with try_get: it must yield exactly the
 * first @cap objects, once each, then NULL. Puts them back.
 */
static void pt_pool_expect_full(struct kunit *test, struct pt_fix *fix,
				unsigned int cap)
{
	unsigned long seen = 0, all = GENMASK(cap - 1, 0);
	void *got[PT_NR_OBJS];
	unsigned int i, n = 0;
	void *extra;
	int idx;

	/*
	 * A get that holds a permit spins until it finds a full slot: with an
	 * object lost, draining would spin forever. Check the count first.
	 */
	KUNIT_EXPECT_EQ(test, psem_available(&fix->pool.sem), (long)cap);
	if (pt_pool_full_slots(&fix->pool) != cap) {
		KUNIT_FAIL(test, "%u of %u slots full",
			   pt_pool_full_slots(&fix->pool), cap);
		return;
	}
	for (i = 0; i < cap; i++) {
		got[n] = psem_pool_try_get(&fix->pool);
		idx = pt_obj_index(fix, got[n], cap);
		if (idx < 0 || (seen & BIT(idx))) {
			KUNIT_FAIL(test, "try_get %u: bad object %p", i, got[n]);
			continue;
		}
		seen |= BIT(idx);
		n++;
	}
	KUNIT_EXPECT_EQ(test, seen, all);
	extra = psem_pool_try_get(&fix->pool);
	KUNIT_EXPECT_NULL(test, extra);
	if (pt_obj_index(fix, extra, cap) >= 0)
		got[n++] = extra;
	while (n--)
		KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, got[n]), 0);
	KUNIT_EXPECT_EQ(test, psem_available(&fix->pool.sem), (long)cap);
}

static void *pt_pool_get_once(struct pt_thread *t, unsigned int i)
{
	struct psem_pool *pool = &t->fix->pool;
	void *obj = NULL;

	switch ((i + t->id) % 3) {
	case 0:
		obj = psem_pool_get(pool);
		break;
	case 1:
		obj = psem_pool_try_get(pool);
		if (!obj) {
			t->misses++;
			obj = psem_pool_get(pool);
		}
		break;
	default:
		if (psem_pool_get_interruptible(pool, &obj))
			obj = NULL;	/* nobody sends a signal here */
		break;
	}
	return obj;
}

static int pt_pool_stress_fn(void *arg)
{
	struct pt_thread *t = arg;
	struct pt_fix *fix = t->fix;
	unsigned int i;

	for (i = 0; i < fix->iters; i++, atomic_long_inc(&fix->progress)) {
		void *obj = pt_pool_get_once(t, i);
		struct pt_obj *o;

		if (pt_obj_index(fix, obj, fix->cap) < 0) {
			t->errors++;	/* not ours: cannot put it back */
			continue;
		}
		o = obj;
		if (atomic_cmpxchg(&o->taken, 0, 1))
			t->errors++;	/* handed out twice */
		if (atomic_inc_return(&fix->out) > fix->cap)
			t->errors++;
		o->stamp = t->id;	/* plain: KCSAN reports a second holder */
		t->got++;
		if (fix->nap)
			pt_hold(t);
		if (o->stamp != t->id)
			t->errors++;
		atomic_dec(&fix->out);
		atomic_set(&o->taken, 0);
		if (psem_pool_put(&fix->pool, o))
			t->errors++;
	}
	pt_set_state(t, PT_DONE);
	return 0;
}

/*
 * @per_cpu kthreads on each online CPU get and put @iters times from a pool
 * of @cap objects. Nobody gets an object another holds, no more than @cap
 * are ever out, and at the end the pool holds each object exactly once.
 */
static void pt_pool_stress(struct kunit *test, unsigned int per_cpu,
			   unsigned int cap, unsigned int iters, bool nap)
{
	unsigned int n = per_cpu * num_online_cpus();
	unsigned long errors, got, misses;
	struct pt_fix *fix = pt_fix_new(n);
	unsigned int i;
	int unused;
	u64 warns;

	KUNIT_ASSERT_NOT_NULL(test, fix);
	fix->cap = cap;
	fix->iters = iters;
	fix->nap = nap;
	KUNIT_ASSERT_EQ(test, pt_pool_init(fix, cap), 0);
	if (pt_start_per_cpu(test, fix, pt_pool_stress_fn, per_cpu) &&
	    pt_wait_stress(test, fix)) {
		pt_sum(fix, &errors, &got, &misses, &unused);
		KUNIT_EXPECT_EQ(test, errors, 0UL);
		KUNIT_EXPECT_EQ(test, got, (unsigned long)n * iters);
		KUNIT_EXPECT_EQ(test, atomic_read(&fix->out), 0);
		for (i = 0; i < cap; i++)
			KUNIT_EXPECT_EQ(test, atomic_read(&fix->obj[i].taken), 0);
		pt_pool_expect_full(test, fix, cap);
		kunit_info(test, "%u kthreads, %lu gets, %lu empty try_gets\n",
			   fix->nr, got, misses);
	}
	pt_stop_all(test, fix);
	if (!fix->leak) {
		KUNIT_EXPECT_EQ(test, pt_waiters(&fix->pool.sem), 0U);
		warns = psem_warn_count();
		psem_pool_destroy(&fix->pool);
		fix->pool_live = false;
		KUNIT_EXPECT_EQ(test, psem_warn_count(), warns);
	}
	pt_fix_free(test, fix);
}

/*
 * More kthreads than objects, which holders sometimes keep while asleep:
 * gets sleep, and puts hand objects over to them.
 */
static void psem_pool_test_stress_scarce(struct kunit *test)
{
	pt_pool_stress(test, 4, PT_SCARCE_CAP, PT_POOL_ITERS, true);
}

/*
 * More objects than kthreads (up to 4 CPUs), held only briefly: gets rarely
 * wait, so they claim and fill slots at the same time, walking into each
 * other's slots. This is where a non-atomic claim or fill would show.
 */
static void psem_pool_test_stress_plenty(struct kunit *test)
{
	pt_pool_stress(test, 4, PT_NR_OBJS, PT_PLENTY_ITERS, false);
}

/*
 * With the pool empty, getters G1 then G2 sleep; try_get finds nothing.
 * Each put wakes the oldest sleeper, which gets the object just put.
 */
static void psem_pool_test_get_sleeps_fifo(struct kunit *test)
{
	struct pt_fix *fix = pt_fix_new(2);
	struct pt_thread *g1, *g2;
	void *a, *b, *first;

	KUNIT_ASSERT_NOT_NULL(test, fix);
	KUNIT_ASSERT_EQ(test, pt_pool_init(fix, 2), 0);
	a = psem_pool_try_get(&fix->pool);
	b = psem_pool_try_get(&fix->pool);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_PTR_NE(test, a, b);
	KUNIT_EXPECT_NULL(test, psem_pool_try_get(&fix->pool));

	g1 = pt_start(test, fix, pt_step_fn, PT_GET);
	if (!g1 || !pt_wait(test, pt_waiters(&fix->pool.sem) == 1))
		goto out;
	g2 = pt_start(test, fix, pt_step_fn, PT_GET_INTR);
	if (!g2 || !pt_wait(test, pt_waiters(&fix->pool.sem) == 2))
		goto out;
	KUNIT_EXPECT_NULL(test, psem_pool_try_get(&fix->pool));

	/* The only object in the pool now is the one put: G1 gets it. */
	first = a;
	a = NULL;
	KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, first), 0);
	if (!pt_wait(test, pt_state(g1) == PT_HOLD))
		goto out;
	KUNIT_EXPECT_PTR_EQ(test, g1->obj, first);
	KUNIT_EXPECT_EQ(test, pt_state(g2), PT_WAIT);
	KUNIT_EXPECT_EQ(test, pt_waiters(&fix->pool.sem), 1U);

	KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, b), 0);
	if (!pt_wait(test, pt_state(g2) == PT_HOLD))
		goto out;
	KUNIT_EXPECT_PTR_EQ(test, g2->obj, b);
	b = NULL;
	KUNIT_EXPECT_EQ(test, g1->order, 1);
	KUNIT_EXPECT_EQ(test, g2->order, 2);
out:
	if (a)
		psem_pool_put(&fix->pool, a);
	if (b)
		psem_pool_put(&fix->pool, b);
	pt_stop_all(test, fix);
	if (!fix->leak)
		pt_pool_expect_full(test, fix, 2);
	pt_finish(test, fix, &fix->pool.sem, 2);
}

/* A getter whose wait a signal ends gets -EINTR and takes nothing. */
static void pt_pool_cancel(struct kunit *test, enum pt_op op, int sig)
{
	struct pt_fix *fix = pt_fix_new(1);
	struct pt_thread *g;
	void *a;

	KUNIT_ASSERT_NOT_NULL(test, fix);
	KUNIT_ASSERT_EQ(test, pt_pool_init(fix, 1), 0);
	a = psem_pool_try_get(&fix->pool);
	KUNIT_ASSERT_PTR_EQ(test, a, (void *)&fix->obj[0]);

	g = pt_start(test, fix, pt_step_fn, op);
	if (!g || !pt_wait(test, pt_waiters(&fix->pool.sem) == 1))
		goto out;
	send_sig(sig, g->task, 1);
	if (!pt_wait(test, pt_state(g) == PT_DONE))
		goto out;
	KUNIT_EXPECT_EQ(test, g->ret, -EINTR);
	KUNIT_EXPECT_PTR_EQ(test, g->obj, PT_NO_OBJ);
	KUNIT_EXPECT_EQ(test, pt_waiters(&fix->pool.sem), 0U);
	KUNIT_EXPECT_EQ(test, psem_available(&fix->pool.sem), 0L);
out:
	KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, a), 0);
	pt_stop_all(test, fix);
	if (!fix->leak)
		pt_pool_expect_full(test, fix, 1);
	pt_finish(test, fix, &fix->pool.sem, 1);
}

static void psem_pool_test_get_interruptible(struct kunit *test)
{
	pt_pool_cancel(test, PT_GET_INTR, SIGUSR1);
}

static void psem_pool_test_get_killable(struct kunit *test)
{
	pt_pool_cancel(test, PT_GET_KILL, SIGKILL);
}

/* Each bad call is refused, counted once, and changes nothing. */
static void psem_pool_test_bad_input(struct kunit *test)
{
	struct pt_fix *fix = pt_fix_new(1);
	struct psem_pool p = {};
	void *objs[2];
	void *a;
	u64 warns;

	KUNIT_ASSERT_NOT_NULL(test, fix);
	objs[0] = &fix->obj[0];
	objs[1] = NULL;
	warns = psem_warn_count();
	psem_set_quiet_warnings(true);

	KUNIT_EXPECT_EQ(test, psem_pool_init(&p, objs, 0, GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), ++warns);
	KUNIT_EXPECT_EQ(test, psem_pool_init(&p, objs, 2, GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), ++warns);
	KUNIT_EXPECT_NULL(test, p.slots);
	KUNIT_EXPECT_EQ(test, p.capacity, 0U);

	KUNIT_EXPECT_EQ(test, pt_pool_init(fix, 2), 0);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns);
	if (!fix->pool_live)
		goto out;
	a = psem_pool_try_get(&fix->pool);
	KUNIT_EXPECT_NOT_NULL(test, a);
	KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), ++warns);
	KUNIT_EXPECT_EQ(test, psem_available(&fix->pool.sem), 1L);
	if (a)
		KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, a), 0);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns);

	/* Full: a third object has nowhere to go. */
	KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, &fix->obj[2]), -EINVAL);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), ++warns);
	psem_set_quiet_warnings(false);
	pt_pool_expect_full(test, fix, 2);
out:
	psem_set_quiet_warnings(false);
	pt_finish(test, fix, &fix->pool.sem, 2);
}

/*
 * With nobody waiting a put is lock-free, into an empty pool too (psem's
 * rule); under the seed's rule (zero_release off) a put into an empty pool
 * takes the queue lock, one into a pool that holds objects does not.
 */
static void psem_pool_test_put_fast_path(struct kunit *test)
{
	struct pt_fix *fix = pt_fix_new(1);
	void *o[3] = {};
	struct psem_stats before;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fix);
	KUNIT_ASSERT_EQ(test, pt_pool_init(fix, 3), 0);
	pt_stats_on();

	for (i = 0; i < 3; i++)
		o[i] = psem_pool_try_get(&fix->pool);
	if (!o[0] || !o[1] || !o[2]) {
		KUNIT_FAIL(test, "pool of 3 did not give 3 objects");
		goto out;
	}

	psem_stats_snapshot(&before);
	KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, o[0]), 0);
	pt_expect_releases(test, &before, 1, 0);
	o[0] = psem_pool_try_get(&fix->pool);
	if (!o[0]) {
		KUNIT_FAIL(test, "the object just put is not in the pool");
		goto out;
	}

	psem_set_zero_release(false);
	psem_stats_snapshot(&before);
	KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, o[0]), 0);
	pt_expect_releases(test, &before, 0, 1);
	o[0] = NULL;

	psem_stats_snapshot(&before);
	KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, o[1]), 0);
	pt_expect_releases(test, &before, 1, 0);
	o[1] = NULL;

	psem_stats_snapshot(&before);
	KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, o[2]), 0);
	pt_expect_releases(test, &before, 1, 0);
	o[2] = NULL;
out:
	for (i = 0; i < 3; i++)
		if (o[i])
			psem_pool_put(&fix->pool, o[i]);
	pt_finish(test, fix, &fix->pool.sem, 3);
}

/*
 * With CONFIG_DEBUG_OBJECTS, putting an object that is already in the pool
 * is refused, counted once, and changes nothing. Without the check the pool
 * would hold it twice and hand it to two getters.
 */
static void psem_pool_test_double_put(struct kunit *test)
{
	struct pt_fix *fix;
	void *a, *b, *got[3] = {};
	unsigned int i;
	u64 warns;

	if (!IS_ENABLED(CONFIG_DEBUG_OBJECTS))
		kunit_skip(test, "the double-put check needs CONFIG_DEBUG_OBJECTS");
	fix = pt_fix_new(1);
	KUNIT_ASSERT_NOT_NULL(test, fix);
	KUNIT_ASSERT_EQ(test, pt_pool_init(fix, 3), 0);

	a = psem_pool_try_get(&fix->pool);
	b = psem_pool_try_get(&fix->pool);
	if (!a || !b) {
		KUNIT_FAIL(test, "pool of 3 did not give 2 objects");
		goto out;
	}
	KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, a), 0);

	warns = psem_warn_count();
	psem_set_quiet_warnings(true);
	KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, a), -EINVAL);
	psem_set_quiet_warnings(false);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns + 1);
	KUNIT_EXPECT_EQ(test, psem_available(&fix->pool.sem), 2L);
	KUNIT_EXPECT_EQ(test, pt_pool_full_slots(&fix->pool), 2U);

	/* The two objects in the pool are distinct. */
	got[0] = psem_pool_try_get(&fix->pool);
	got[1] = psem_pool_try_get(&fix->pool);
	got[2] = psem_pool_try_get(&fix->pool);
	KUNIT_EXPECT_NOT_NULL(test, got[0]);
	KUNIT_EXPECT_NOT_NULL(test, got[1]);
	KUNIT_EXPECT_NULL(test, got[2]);
	KUNIT_EXPECT_PTR_NE(test, got[0], got[1]);
	for (i = 0; i < 2; i++)
		if (got[i] && (!i || got[1] != got[0]))
			KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, got[i]), 0);
	KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, b), 0);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns + 1);
out:
	psem_set_quiet_warnings(false);
	pt_finish(test, fix, &fix->pool.sem, 3);
}

static struct kunit_case psem_pool_cases[] = {
	KUNIT_CASE(psem_pool_test_stress_scarce),
	KUNIT_CASE(psem_pool_test_stress_plenty),
	KUNIT_CASE(psem_pool_test_get_sleeps_fifo),
	KUNIT_CASE(psem_pool_test_get_interruptible),
	KUNIT_CASE(psem_pool_test_get_killable),
	KUNIT_CASE(psem_pool_test_bad_input),
	KUNIT_CASE(psem_pool_test_put_fast_path),
	KUNIT_CASE(psem_pool_test_double_put),
	{}
};

static struct kunit_suite psem_pool_suite = {
	.name		= "psem_pool",
	.suite_init	= pt_suite_init,
	.exit		= pt_case_exit,
	.test_cases	= psem_pool_cases,
};

kunit_test_suites(&psem_rwlock_suite, &psem_mutex_suite, &psem_pool_suite);

MODULE_IMPORT_NS(PSEM_NS);
MODULE_IMPORT_NS(PSEM_KNOBS_NS);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for psem's rwlock, mutex and pool");
