// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for careless callers of psem: sleeping calls made from
 * atomic context.
 *
 *   psem_hostile  psem_acquire() and its interruptible, killable and timed
 *                 variants, psem_mutex_lock(), psem_read_lock() and
 *                 psem_write_lock(), each called with its permits available
 *                 inside preempt_disable(), a spinlock, spin_lock_irq(),
 *                 local_bh_disable() or local_irq_disable()
 *
 * Each call succeeds at once on the lock-free fast path without sleeping,
 * so the caller's bug would pass every functional test. What catches it is
 * the might_sleep() at the top of every sleeping entry point: on a kernel
 * with CONFIG_DEBUG_ATOMIC_SLEEP it prints "BUG: sleeping function called
 * from invalid context" and a stack dump. A case cannot see that report,
 * so it brackets the call with two console lines,
 *
 *	psem-expect-splat: begin atomic-sleep <what is called, and where>
 *	psem-expect-splat: end atomic-sleep
 *
 * and the host (scan_splats() in scripts/lib.sh) fails the run if the
 * report is missing between them, or if anything else splats there. The
 * case itself checks that the call took exactly its permits, counted no
 * refusal, and that everything is back to the initial state once released.
 *
 * What Linux 6.1 (kernel/sched/core.c, kernel/locking/lockdep.c) imposes:
 *
 *  - __might_resched() prints at most one report per HZ jiffies, whatever
 *    the call site. Every case sleeps HZ + 1 jiffies after its report, so
 *    the next case's report, and any real one after the suite, is printed.
 *  - The report taints the kernel (TAINT_WARN) but leaves lockdep on
 *    (LOCKDEP_STILL_OK), so the suites that load after this one still run
 *    under lockdep.
 *  - psem_mutex and psem_rwlock are sleeping locks to lockdep
 *    (LD_WAIT_SLEEP). Taking one under a spinlock is reported by lockdep
 *    as "Invalid wait context", which turns lockdep off for the rest of the
 *    boot; so they are called under preempt_disable() and
 *    local_irq_disable(), which lockdep's wait-context check does not look
 *    at. psem itself has no lockdep map, so only psem_acquire*() is called
 *    under a spinlock.
 *
 * Without CONFIG_DEBUG_ATOMIC_SLEEP there is no report to expect: the cases
 * are skipped and print no markers.
 *
 *   psem_live_flips  an administrator flipping psem's debugfs switches
 *                 (fast_release, contention_flag, zero_release,
 *                 stats_enabled) while psems are in use: kthreads on every
 *                 CPU hammer a psem, a psem_mutex and a psem_rwlock while
 *                 the case flips a switch every live_flip_ms; afterwards
 *                 every permit is back, exactly, and the locks excluded.
 *
 * Each flip patches kernel text on every CPU (static keys). QEMU 7.2's
 * multi-threaded TCG soft-locks on such cross-modifying code (issue 12), so
 * the case runs only when loaded with live_flip_ms=N, which
 * scripts/torture.sh does on single-threaded TCG; otherwise it skips.
 */

#include <kunit/test.h>
#include <linux/bottom_half.h>
#include <linux/irqflags.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/prandom.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_mutex.h"
#include "psem_rwlock.h"

#define PHK_PERMITS	5
#define PHK_TAKE	2
#define PHK_RW_MAX	PSEM_RWLOCK_MAX_READERS

/**
 * struct phk_fix - what a case works on, fresh for every case
 * @sem:    a psem of PHK_PERMITS permits
 * @mutex:  an unlocked psem_mutex
 * @rwlock: an unlocked psem_rwlock
 * @lock:   the spinlock a case holds around a sleeping call
 * @warns:  psem_warn_count() when the case began
 */
struct phk_fix {
	struct psem		sem;
	struct psem_mutex	mutex;
	struct psem_rwlock	rwlock;
	spinlock_t		lock;	/* held around a call; guards nothing */
	u64			warns;
};

static int phk_init(struct kunit *test)
{
	struct phk_fix *f;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	psem_init(&f->sem, PHK_PERMITS);
	psem_mutex_init(&f->mutex);
	psem_rwlock_init(&f->rwlock);
	spin_lock_init(&f->lock);
	f->warns = psem_warn_count();
	test->priv = f;
	return 0;
}

/*
 * Opens the window in which the console must show one atomic-sleep report.
 * Nothing between phk_begin() and phk_end() may abort the case, or the
 * window would stay open (which the host also reports).
 */
static void phk_begin(struct kunit *test, const char *what)
{
	if (!IS_ENABLED(CONFIG_DEBUG_ATOMIC_SLEEP))
		kunit_skip(test, "needs CONFIG_DEBUG_ATOMIC_SLEEP to report the bug");
	pr_info("psem-expect-splat: begin atomic-sleep %s\n", what);
}

/*
 * Closes the window, then waits out __might_resched()'s one-report-a-second
 * limit so that the next report is printed.
 */
static void phk_end(void)
{
	pr_info("psem-expect-splat: end atomic-sleep\n");
	schedule_timeout_uninterruptible(HZ + 1);
}

/* The call took PHK_TAKE of @f->sem's permits; give them back. */
static void phk_expect_sem_taken(struct kunit *test, struct phk_fix *f,
				 int ret)
{
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, psem_available(&f->sem), PHK_PERMITS - PHK_TAKE);
	KUNIT_EXPECT_EQ(test, psem_release(&f->sem, PHK_TAKE), 0);
	KUNIT_EXPECT_EQ(test, psem_available(&f->sem), PHK_PERMITS);
	KUNIT_EXPECT_EQ(test, psem_debt(&f->sem), 0UL);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), f->warns);
}

static void psem_hostile_acquire_preempt_off(struct kunit *test)
{
	struct phk_fix *f = test->priv;
	int ret;

	phk_begin(test, "psem_acquire() under preempt_disable()");
	preempt_disable();
	ret = psem_acquire(&f->sem, PHK_TAKE);
	preempt_enable();
	phk_end();
	phk_expect_sem_taken(test, f, ret);
}

static void psem_hostile_interruptible_spinlock(struct kunit *test)
{
	struct phk_fix *f = test->priv;
	int ret;

	phk_begin(test, "psem_acquire_interruptible() under spin_lock()");
	spin_lock(&f->lock);
	ret = psem_acquire_interruptible(&f->sem, PHK_TAKE);
	spin_unlock(&f->lock);
	phk_end();
	phk_expect_sem_taken(test, f, ret);
}

static void psem_hostile_killable_spinlock_irq(struct kunit *test)
{
	struct phk_fix *f = test->priv;
	int ret;

	phk_begin(test, "psem_acquire_killable() under spin_lock_irq()");
	spin_lock_irq(&f->lock);
	ret = psem_acquire_killable(&f->sem, PHK_TAKE);
	spin_unlock_irq(&f->lock);
	phk_end();
	phk_expect_sem_taken(test, f, ret);
}

static void psem_hostile_timeout_bh_off(struct kunit *test)
{
	struct phk_fix *f = test->priv;
	int ret;

	phk_begin(test, "psem_acquire_timeout() under local_bh_disable()");
	local_bh_disable();
	ret = psem_acquire_timeout(&f->sem, PHK_TAKE, HZ);
	local_bh_enable();
	phk_end();
	phk_expect_sem_taken(test, f, ret);
}

static void psem_hostile_mutex_preempt_off(struct kunit *test)
{
	struct phk_fix *f = test->priv;

	phk_begin(test, "psem_mutex_lock() under preempt_disable()");
	preempt_disable();
	psem_mutex_lock(&f->mutex);
	preempt_enable();
	phk_end();

	KUNIT_EXPECT_TRUE(test, psem_mutex_is_locked(&f->mutex));
	KUNIT_EXPECT_EQ(test, psem_available(&f->mutex.sem), 0L);
	psem_mutex_unlock(&f->mutex);
	KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&f->mutex));
	KUNIT_EXPECT_EQ(test, psem_available(&f->mutex.sem), 1L);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), f->warns);
}

static void psem_hostile_read_lock_preempt_off(struct kunit *test)
{
	struct phk_fix *f = test->priv;

	phk_begin(test, "psem_read_lock() under preempt_disable()");
	preempt_disable();
	psem_read_lock(&f->rwlock);
	preempt_enable();
	phk_end();

	KUNIT_EXPECT_EQ(test, psem_available(&f->rwlock.sem), PHK_RW_MAX - 1);
	psem_read_unlock(&f->rwlock);
	KUNIT_EXPECT_EQ(test, psem_available(&f->rwlock.sem), PHK_RW_MAX);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), f->warns);
}

static void psem_hostile_write_lock_irqs_off(struct kunit *test)
{
	struct phk_fix *f = test->priv;

	phk_begin(test, "psem_write_lock() under local_irq_disable()");
	local_irq_disable();
	psem_write_lock(&f->rwlock);
	local_irq_enable();
	phk_end();

	KUNIT_EXPECT_EQ(test, psem_available(&f->rwlock.sem), 0L);
	psem_write_unlock(&f->rwlock);
	KUNIT_EXPECT_EQ(test, psem_available(&f->rwlock.sem), PHK_RW_MAX);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), f->warns);
}

static struct kunit_case phk_cases[] = {
	KUNIT_CASE(psem_hostile_acquire_preempt_off),
	KUNIT_CASE(psem_hostile_interruptible_spinlock),
	KUNIT_CASE(psem_hostile_killable_spinlock_irq),
	KUNIT_CASE(psem_hostile_timeout_bh_off),
	KUNIT_CASE(psem_hostile_mutex_preempt_off),
	KUNIT_CASE(psem_hostile_read_lock_preempt_off),
	KUNIT_CASE(psem_hostile_write_lock_irqs_off),
	{}
};

static struct kunit_suite phk_suite = {
	.name		= "psem_hostile",
	.init		= phk_init,
	.test_cases	= phk_cases,
};

/* ==== psem_live_flips ==== */

static unsigned int live_flip_ms;
module_param(live_flip_ms, uint, 0444);
MODULE_PARM_DESC(live_flip_ms, "psem_live_flips: flip a switch every N ms (0: skip the case; needs single-threaded TCG under QEMU)");

static unsigned int live_flip_s = 10;
module_param(live_flip_s, uint, 0444);
MODULE_PARM_DESC(live_flip_s, "psem_live_flips: how long to flip, in seconds");

#define PLF_PERMITS	6
#define PLF_PER_CPU	2
#define PLF_MAX_THREADS	64

/**
 * struct plf_fix - what psem_live_flips works on
 * @sem:     a psem of PLF_PERMITS permits
 * @mutex:   a psem_mutex
 * @rwlock:  a psem_rwlock
 * @stop:    set by the case: workers finish their step and stop
 * @inside:  holders of @mutex, or writers of @rwlock, inside at once
 * @readers: readers inside @rwlock
 * @held:    permits of @sem that workers hold
 * @count:   plain, written only under @mutex
 * @entered: exclusive sections of @mutex entered
 * @ops:     steps done by all workers
 * @errors:  rules seen broken by the workers
 * @task:    the workers
 * @nr:      how many
 */
struct plf_fix {
	struct psem		sem;
	struct psem_mutex	mutex;
	struct psem_rwlock	rwlock;
	bool			stop;
	atomic_t		inside;
	atomic_t		readers;
	atomic_long_t		held;
	unsigned long		count;
	atomic_long_t		entered;
	atomic_long_t		ops;
	atomic_long_t		errors;
	struct task_struct	*task[PLF_MAX_THREADS];
	unsigned int		nr;
};

static void plf_sem_step(struct plf_fix *f, struct rnd_state *rnd)
{
	long n = 1 + prandom_u32_state(rnd) % PLF_PERMITS;
	bool got;

	switch (prandom_u32_state(rnd) % 3) {
	case 0:
		got = psem_try_acquire(&f->sem, n);
		break;
	case 1:
		got = !psem_acquire_timeout(&f->sem, n, 1 + prandom_u32_state(rnd) % 3);
		break;
	default:
		got = !psem_acquire(&f->sem, n);
		break;
	}
	if (!got)
		return;
	if (atomic_long_add_return(n, &f->held) > PLF_PERMITS)
		atomic_long_inc(&f->errors);
	udelay(prandom_u32_state(rnd) % 5);
	atomic_long_sub(n, &f->held);
	if (n == PLF_PERMITS && prandom_u32_state(rnd) % 2)
		psem_release_all_held(&f->sem, n);
	else
		psem_release(&f->sem, n);
}

static void plf_exclusive(struct plf_fix *f, struct rnd_state *rnd)
{
	if (atomic_inc_return(&f->inside) != 1 || atomic_read(&f->readers))
		atomic_long_inc(&f->errors);
	udelay(prandom_u32_state(rnd) % 3);
	atomic_dec(&f->inside);
}

static int plf_worker(void *arg)
{
	struct plf_fix *f = arg;
	struct rnd_state rnd;

	prandom_seed_state(&rnd, (u64)(unsigned long)current ^ jiffies);
	while (!READ_ONCE(f->stop)) {
		switch (prandom_u32_state(&rnd) % 4) {
		case 0:
		case 1:
			plf_sem_step(f, &rnd);
			break;
		case 2:
			psem_mutex_lock(&f->mutex);
			f->count++;
			atomic_long_inc(&f->entered);
			psem_mutex_unlock(&f->mutex);
			break;
		default:
			if (prandom_u32_state(&rnd) % 4) {
				psem_read_lock(&f->rwlock);
				atomic_inc(&f->readers);
				if (atomic_read(&f->inside))
					atomic_long_inc(&f->errors);
				udelay(prandom_u32_state(&rnd) % 3);
				atomic_dec(&f->readers);
				psem_read_unlock(&f->rwlock);
			} else {
				psem_write_lock(&f->rwlock);
				plf_exclusive(f, &rnd);
				psem_write_unlock(&f->rwlock);
			}
			break;
		}
		atomic_long_inc(&f->ops);
		cond_resched();
	}
	while (!kthread_should_stop())
		schedule_timeout_idle(1);
	return 0;
}

/* Flips one switch, chosen by @r. */
static void plf_flip(u32 r)
{
	switch (r % 4) {
	case 0:
		psem_set_fast_release(!psem_fast_release_enabled());
		break;
	case 1:
		psem_set_contention_flag(!psem_contention_flag_enabled());
		break;
	case 2:
		psem_set_zero_release(!psem_zero_release_enabled());
		break;
	default:
		psem_set_stats(!psem_stats_enabled());
		break;
	}
}

static void psem_live_flips_test(struct kunit *test)
{
	bool fast = psem_fast_release_enabled();
	bool flag = psem_contention_flag_enabled();
	bool zero = psem_zero_release_enabled();
	bool stats = psem_stats_enabled();
	unsigned long end, flips = 0;
	struct rnd_state rnd;
	struct plf_fix *f;
	unsigned int i;
	int cpu;

	if (!live_flip_ms)
		kunit_skip(test, "flips static keys: needs live_flip_ms=N, single-threaded TCG");
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	psem_init(&f->sem, PLF_PERMITS);
	psem_mutex_init(&f->mutex);
	psem_rwlock_init(&f->rwlock);

	for_each_online_cpu(cpu) {
		for (i = 0; i < PLF_PER_CPU && f->nr < PLF_MAX_THREADS; i++) {
			struct task_struct *t;

			t = kthread_create_on_cpu(plf_worker, f, cpu, "psem_plf/%u");
			if (IS_ERR(t))
				continue;
			get_task_struct(t);
			f->task[f->nr++] = t;
			wake_up_process(t);
		}
	}
	KUNIT_EXPECT_GT(test, f->nr, 0U);

	prandom_seed_state(&rnd, jiffies);
	end = jiffies + (unsigned long)live_flip_s * HZ;
	while (time_before(jiffies, end)) {
		schedule_timeout_idle(max(msecs_to_jiffies(live_flip_ms), 1UL));
		plf_flip(prandom_u32_state(&rnd));
		flips++;
	}

	WRITE_ONCE(f->stop, true);
	for (i = 0; i < f->nr; i++) {
		kthread_stop(f->task[i]);
		put_task_struct(f->task[i]);
	}
	psem_set_fast_release(fast);
	psem_set_contention_flag(flag);
	psem_set_zero_release(zero);
	psem_set_stats(stats);

	KUNIT_EXPECT_EQ(test, atomic_long_read(&f->errors), 0L);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&f->held), 0L);
	KUNIT_EXPECT_EQ(test, psem_available(&f->sem), (long)PLF_PERMITS);
	KUNIT_EXPECT_EQ(test, psem_debt(&f->sem), 0UL);
	KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&f->mutex));
	KUNIT_EXPECT_EQ(test, f->count, (unsigned long)atomic_long_read(&f->entered));
	KUNIT_EXPECT_EQ(test, psem_available(&f->rwlock.sem), PHK_RW_MAX);
	kunit_info(test, "psem_live_flips: %lu flips, %ld ops by %u kthreads, every permit back\n",
		   flips, atomic_long_read(&f->ops), f->nr);
	kfree(f);
}

static struct kunit_case plf_cases[] = {
	KUNIT_CASE(psem_live_flips_test),
	{}
};

static struct kunit_suite plf_suite = {
	.name		= "psem_live_flips",
	.test_cases	= plf_cases,
};

kunit_test_suites(&phk_suite, &plf_suite);

MODULE_IMPORT_NS(PSEM);
MODULE_IMPORT_NS(PSEM_KNOBS);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for psem's sleeping calls made from atomic context");
