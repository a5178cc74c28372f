// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for psem as a drop-in for struct semaphore (kmod/psem_sem.h):
 * psem_down(), psem_up() and the "is it held" query psem_is_held(), used
 * as XFS uses its buffer lock: one permit, taken by one task and returned
 * by another context, with the held query asserted while waiters queue.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/semaphore.h>
#include <linux/workqueue.h>

#include "psem_sem.h"
#include "psem_test.h"

/* A helper that takes the permit with psem_down() and keeps it. */
static int sem_down_fn(struct psem_test_thread *t)
{
	psem_down(t->sem);
	return 0;
}

static struct psem_test_thread *sem_down_waiter(struct kunit *test, struct psem *sem,
						unsigned int nr)
{
	const struct psem_test_thread tmpl = { .fn = sem_down_fn, .sem = sem };
	struct psem_test_thread *t = psem_test_spawn(test, &tmpl, -1);

	KUNIT_ASSERT_TRUE_MSG(test, psem_test_wait_for(psem_test_nr_waiters(sem) == nr),
			      "psem_down() waiter %u not linked", t->id);
	return t;
}

/* The held query with nobody waiting: down, try, up. */
static void psem_sem_test_binary(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 1);

	psem_test_stats_start();
	KUNIT_EXPECT_FALSE(test, psem_is_held(sem));
	psem_down(sem);
	KUNIT_EXPECT_TRUE(test, psem_is_held(sem));
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(sem, 1));
	psem_up(sem);
	KUNIT_EXPECT_FALSE(test, psem_is_held(sem));
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 1));
	KUNIT_EXPECT_TRUE(test, psem_is_held(sem));
	psem_up(sem);
	PSEM_TEST_EXPECT_IDLE(test, sem, 1);
	/* Uncontended: both releases lock-free, nobody slept. */
	PSEM_TEST_EXPECT_RELEASE_STATS(test, 2, 0);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_SLEEP, 0);
}

/*
 * XFS's case: the lock is held, waiters queue in psem_down(), and the held
 * query must say "held" all along: with PSEM_WAITERS set and a balance of
 * zero, and across each hand-over, until the last holder lets go.
 */
static void psem_sem_test_held_with_waiters(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 1);
	struct psem_test_thread *a, *b;

	psem_test_stats_start();
	psem_down(sem);
	a = sem_down_waiter(test, sem, 1);
	KUNIT_EXPECT_EQ(test, psem_test_flags(sem) & PSEM_WAITERS, PSEM_WAITERS);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_TRUE(test, psem_is_held(sem));
	b = sem_down_waiter(test, sem, 2);
	KUNIT_EXPECT_TRUE(test, psem_is_held(sem));

	/* The first hand-over: to a, with b still queued. */
	psem_up(sem);
	PSEM_TEST_EXPECT_RETURNS(test, a, 0);
	KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(sem), 1U);
	KUNIT_EXPECT_EQ(test, psem_test_flags(sem) & PSEM_WAITERS, PSEM_WAITERS);
	KUNIT_EXPECT_TRUE(test, psem_is_held(sem));
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(sem, 1));

	/* The second, for a: to b, the queue now empty. */
	psem_up(sem);
	PSEM_TEST_EXPECT_RETURNS(test, b, 0);
	KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(sem), 0U);
	KUNIT_EXPECT_TRUE(test, psem_is_held(sem));

	/* b lets go: free at last. */
	psem_up(sem);
	KUNIT_EXPECT_FALSE(test, psem_is_held(sem));
	PSEM_TEST_EXPECT_IDLE(test, sem, 1);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_SLEEP, 2);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 2);
}

/* An up() from a workqueue, as XFS's I/O completion releases its buffers. */
struct sem_up_work {
	struct work_struct	work;
	struct psem		*sem;
};

static void sem_up_fn(struct work_struct *work)
{
	psem_up(container_of(work, struct sem_up_work, work)->sem);
}

static void psem_sem_test_up_from_work(struct kunit *test)
{
	struct sem_up_work *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct psem *sem = psem_test_sem(test, 1);
	struct psem_test_thread *t;

	KUNIT_ASSERT_NOT_NULL(test, w);
	w->sem = sem;
	INIT_WORK(&w->work, sem_up_fn);

	psem_down(sem);
	t = sem_down_waiter(test, sem, 1);
	schedule_work(&w->work);
	flush_work(&w->work);
	PSEM_TEST_EXPECT_RETURNS(test, t, 0);
	KUNIT_EXPECT_TRUE(test, psem_is_held(sem));

	/* And the waiter's permit, freed from the work item too. */
	schedule_work(&w->work);
	flush_work(&w->work);
	PSEM_TEST_EXPECT_IDLE(test, sem, 1);
}

/*
 * psem_down() on a closed psem: psem_acquire() fails with -ESHUTDOWN and
 * psem_down() warns once and returns holding nothing; the balance is what
 * it was, so no permit was lost, and once reopened the psem works on.
 */
static void psem_sem_test_down_closed(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 1);
	long before;

	if (!PSEM_TEST_LOUD_CASES)
		kunit_skip(test, "built without the loud cases");
	KUNIT_ASSERT_EQ(test, psem_close(sem), 0);
	before = psem_available(sem);
	pr_notice("psem-expect-splat: begin refusal psem_down() on a closed psem\n");
	psem_down(sem);
	pr_notice("psem-expect-splat: end refusal\n");
	KUNIT_EXPECT_EQ(test, psem_available(sem), before);
	KUNIT_EXPECT_EQ(test, psem_reopen(sem), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 1);
	psem_down(sem);
	KUNIT_EXPECT_TRUE(test, psem_is_held(sem));
	psem_up(sem);
	PSEM_TEST_EXPECT_IDLE(test, sem, 1);
}

/* A helper that takes the kernel semaphore in its ->arg and keeps it. */
static int ksem_down_fn(struct psem_test_thread *t)
{
	down(t->arg);
	return 0;
}

/* The helper sleeps in down(), queued behind the holders. */
static bool ksem_sleeping(struct psem_test_thread *t)
{
	return READ_ONCE(t->task->__state) == TASK_UNINTERRUPTIBLE;
}

/*
 * The model the drop-in follows: the kernel's own struct semaphore, read
 * as XFS reads its buffer lock (xfs_buf_islocked(): count <= 0). The count
 * is the permits free, and zero while a task waits in down(), on every
 * kernel; on the sem-7.3 test kernel, struct semaphore on psem's word (the
 * series' RFC), it is the low half of the state word, and the takes and
 * releases here are its lock-free paths and its hand-over.
 */
static void psem_sem_test_kernel_count(struct kunit *test)
{
	struct semaphore *ks = kunit_kzalloc(test, sizeof(*ks), GFP_KERNEL);
	const struct psem_test_thread tmpl = { .fn = ksem_down_fn, .arg = ks };
	struct psem_test_thread *t;

	KUNIT_ASSERT_NOT_NULL(test, ks);
	sema_init(ks, 2);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ks->count), 2U);
	KUNIT_EXPECT_EQ(test, down_trylock(ks), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ks->count), 1U);
	down(ks);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ks->count), 0U);
	KUNIT_EXPECT_EQ(test, down_trylock(ks), 1);
	KUNIT_EXPECT_EQ(test, down_timeout(ks, 0), -ETIME);

	t = psem_test_spawn(test, &tmpl, -1);
	KUNIT_ASSERT_TRUE_MSG(test, psem_test_wait_for(ksem_sleeping(t)),
			      "helper %u never slept in down()", t->id);
	/* Held, with a waiter: what XFS asserts. */
	KUNIT_EXPECT_EQ(test, READ_ONCE(ks->count), 0U);
	KUNIT_EXPECT_EQ(test, down_trylock(ks), 1);

	/* The hand-over: the waiter holds, the count never saw the permit. */
	up(ks);
	PSEM_TEST_EXPECT_RETURNS(test, t, 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ks->count), 0U);
	KUNIT_EXPECT_EQ(test, down_trylock(ks), 1);

	/* Both permits back: the waiter's and the test's. */
	up(ks);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ks->count), 1U);
	up(ks);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ks->count), 2U);
}

PSEM_TEST_SUITE("psem_sem",
		"KUnit tests for psem as a drop-in for struct semaphore",
		psem_sem_test_binary, psem_sem_test_held_with_waiters,
		psem_sem_test_up_from_work, psem_sem_test_down_closed,
		psem_sem_test_kernel_count);
