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
 */

#include <kunit/test.h>
#include <linux/bottom_half.h>
#include <linux/irqflags.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_mutex.h"
#include "psem_rwlock.h"
#include "psem_test.h"

#define PHK_PERMITS	5
#define PHK_TAKE	2
#define PHK_RW_MAX	PSEM_RWLOCK_MAX_READERS

/**
 * struct hostile_fix - what a case works on, fresh for every case
 * @sem:    a psem of PHK_PERMITS permits
 * @mutex:  an unlocked psem_mutex
 * @rwlock: an unlocked psem_rwlock
 * @lock:   the spinlock a case holds around a sleeping call
 * @warns:  psem_warn_count() when the case began
 * @ret:    what the call returned, for the psem_acquire*() cases
 */
struct hostile_fix {
	struct psem		sem;
	struct psem_mutex	mutex;
	struct psem_rwlock	rwlock;
	spinlock_t		lock;	/* held around a call; guards nothing */
	u64			warns;
	int			ret;
};

static int hostile_init(struct kunit *test)
{
	struct hostile_fix *f;

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
 * Nothing between hostile_begin() and hostile_end() may abort the case, or the
 * window would stay open (which the host also reports).
 */
static void hostile_begin(struct kunit *test, const char *what)
{
	if (!IS_ENABLED(CONFIG_DEBUG_ATOMIC_SLEEP))
		kunit_skip(test, "needs CONFIG_DEBUG_ATOMIC_SLEEP to report the bug");
	pr_notice("psem-expect-splat: begin atomic-sleep %s\n", what);
}

/*
 * Closes the window, then waits out __might_resched()'s one-report-a-second
 * limit so that the next report is printed.
 */
static void hostile_end(void)
{
	pr_notice("psem-expect-splat: end atomic-sleep\n");
	schedule_timeout_uninterruptible(HZ + 1);
}

/* The call took PHK_TAKE of @f->sem's permits; give them back. */
static void hostile_sem_taken(struct kunit *test, struct hostile_fix *f)
{
	KUNIT_EXPECT_EQ(test, f->ret, 0);
	KUNIT_EXPECT_EQ(test, psem_available(&f->sem), PHK_PERMITS - PHK_TAKE);
	KUNIT_EXPECT_EQ(test, psem_release(&f->sem, PHK_TAKE), 0);
	KUNIT_EXPECT_EQ(test, psem_available(&f->sem), PHK_PERMITS);
	KUNIT_EXPECT_EQ(test, psem_debt(&f->sem), 0UL);
}

/* The call locked @f->mutex; unlock it. */
static void hostile_mutex_taken(struct kunit *test, struct hostile_fix *f)
{
	KUNIT_EXPECT_TRUE(test, psem_mutex_is_locked(&f->mutex));
	KUNIT_EXPECT_EQ(test, psem_available(&f->mutex.sem), 0L);
	psem_mutex_unlock(&f->mutex);
	KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&f->mutex));
	KUNIT_EXPECT_EQ(test, psem_available(&f->mutex.sem), 1L);
}

/* The call read-locked @f->rwlock; unlock it. */
static void hostile_read_taken(struct kunit *test, struct hostile_fix *f)
{
	KUNIT_EXPECT_EQ(test, psem_available(&f->rwlock.sem), PHK_RW_MAX - 1);
	psem_read_unlock(&f->rwlock);
	KUNIT_EXPECT_EQ(test, psem_available(&f->rwlock.sem), PHK_RW_MAX);
}

/* The call write-locked @f->rwlock; unlock it. */
static void hostile_write_taken(struct kunit *test, struct hostile_fix *f)
{
	KUNIT_EXPECT_EQ(test, psem_available(&f->rwlock.sem), 0L);
	psem_write_unlock(&f->rwlock);
	KUNIT_EXPECT_EQ(test, psem_available(&f->rwlock.sem), PHK_RW_MAX);
}

/*
 * HOSTILE_CASE - define case @name: @call made between @enter and @exit
 * (whole statements, so that sparse sees a lock taken and dropped in one
 * function), in the window @what names. The call must succeed all the
 * same: @taken(test, f) expects what it took and gives it back, and no
 * refusal may have been counted.
 */
#define HOSTILE_CASE(name, what, enter, exit, call, taken)		\
static void name(struct kunit *test)					\
{									\
	struct hostile_fix *f = test->priv;				\
									\
	hostile_begin(test, what);					\
	enter;								\
	call;								\
	exit;								\
	hostile_end();							\
	taken(test, f);							\
	KUNIT_EXPECT_EQ(test, psem_warn_count(), f->warns);		\
}

HOSTILE_CASE(psem_hostile_acquire_preempt_off,
	     "psem_acquire() under preempt_disable()",
	     preempt_disable(), preempt_enable(),
	     f->ret = psem_acquire(&f->sem, PHK_TAKE), hostile_sem_taken)

HOSTILE_CASE(psem_hostile_interruptible_spinlock,
	     "psem_acquire_interruptible() under spin_lock()",
	     spin_lock(&f->lock), spin_unlock(&f->lock),
	     f->ret = psem_acquire_interruptible(&f->sem, PHK_TAKE),
	     hostile_sem_taken)

HOSTILE_CASE(psem_hostile_killable_spinlock_irq,
	     "psem_acquire_killable() under spin_lock_irq()",
	     spin_lock_irq(&f->lock), spin_unlock_irq(&f->lock),
	     f->ret = psem_acquire_killable(&f->sem, PHK_TAKE),
	     hostile_sem_taken)

HOSTILE_CASE(psem_hostile_timeout_bh_off,
	     "psem_acquire_timeout() under local_bh_disable()",
	     local_bh_disable(), local_bh_enable(),
	     f->ret = psem_acquire_timeout(&f->sem, PHK_TAKE, HZ),
	     hostile_sem_taken)

HOSTILE_CASE(psem_hostile_mutex_preempt_off,
	     "psem_mutex_lock() under preempt_disable()",
	     preempt_disable(), preempt_enable(),
	     psem_mutex_lock(&f->mutex), hostile_mutex_taken)

HOSTILE_CASE(psem_hostile_read_lock_preempt_off,
	     "psem_read_lock() under preempt_disable()",
	     preempt_disable(), preempt_enable(),
	     psem_read_lock(&f->rwlock), hostile_read_taken)

HOSTILE_CASE(psem_hostile_write_lock_irqs_off,
	     "psem_write_lock() under local_irq_disable()",
	     local_irq_disable(), local_irq_enable(),
	     psem_write_lock(&f->rwlock), hostile_write_taken)

PSEM_TEST_HOOKED_SUITE("psem_hostile",
		       "KUnit tests for psem's sleeping calls made from atomic context",
		       hostile_init, NULL,
		       psem_hostile_acquire_preempt_off,
		       psem_hostile_interruptible_spinlock,
		       psem_hostile_killable_spinlock_irq,
		       psem_hostile_timeout_bh_off,
		       psem_hostile_mutex_preempt_off,
		       psem_hostile_read_lock_preempt_off,
		       psem_hostile_write_lock_irqs_off);
