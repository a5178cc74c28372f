// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite psem_lifecycle: psem's lifecycle calls
 * (kmod/psem_lifecycle.c) and its debugfs view (kmod/psem_view.c):
 * capacity, resize, close, reopen, quiesce, the debugfs view, and every
 * refusal. Their races are in psem_lifecycle_race_test.c.
 */

#include <kunit/test.h>
#include <linux/seq_file.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_test.h"

/* A capacity bounds requests and releases; bad ones change nothing. */
static void psem_test_capacity(struct kunit *test)
{
	struct psem *sem = psem_test_capped_sem(test, 4);
	struct psem_ext zero;
	struct psem plain;

	KUNIT_EXPECT_EQ(test, psem_capacity(sem), 4L);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 4L);
	/* Could never be met: refused at once, nothing taken. */
	KUNIT_EXPECT_EQ(test, psem_acquire(sem, 5), -E2BIG);
	KUNIT_EXPECT_EQ(test, psem_acquire_timeout(sem, 5, 0), -E2BIG);
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(sem, 5));
	KUNIT_EXPECT_EQ(test, psem_available(sem), 4L);
	/* A release above the capacity is refused like an overflow. */
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 1));
	psem_set_quiet_warnings(true);
	PSEM_TEST_EXPECT_REFUSED(test, sem, psem_release(sem, 2), -EOVERFLOW);
	PSEM_TEST_EXPECT_REFUSED(test, sem, psem_reduce(sem, 1), -EINVAL);
	/* A capacity out of range leaves a psem of capacity zero. */
	KUNIT_EXPECT_EQ(test, psem_init_capacity(&zero, -1), -EINVAL);
	KUNIT_EXPECT_EQ(test, psem_capacity(&zero.sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_available(&zero.sem), 0L);
	/* Without a capacity: unbounded, and no resize or quiesce. */
	psem_init(&plain, 2);
	KUNIT_EXPECT_EQ(test, psem_capacity(&plain), PSEM_MAX_PERMITS);
	PSEM_TEST_EXPECT_REFUSED(test, &plain, psem_resize(&plain, 8), -EINVAL);
	PSEM_TEST_EXPECT_REFUSED(test, &plain, psem_quiesce(&plain, 1), -EINVAL);
	PSEM_TEST_EXPECT_REFUSED(test, sem, psem_resize(sem, -1), -EINVAL);
	PSEM_TEST_EXPECT_REFUSED(test, sem, psem_resize(sem, PSEM_MAX_PERMITS + 1),
				 -EINVAL);
	psem_set_quiet_warnings(false);
	KUNIT_EXPECT_EQ(test, psem_capacity(sem), 4L);
	KUNIT_EXPECT_EQ(test, psem_capacity(&plain), PSEM_MAX_PERMITS);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 4);
}

/* Growing serves waiters in FIFO order; shrinking leaves a debt. */
static void psem_test_resize(struct kunit *test)
{
	struct psem *sem = psem_test_capped_sem(test, 2);
	struct psem_test_thread *a;

	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 2));
	a = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 2, 1);
	KUNIT_EXPECT_EQ(test, psem_resize(sem, 4), 0);
	PSEM_TEST_EXPECT_RETURNS(test, a, 0);
	KUNIT_EXPECT_EQ(test, psem_capacity(sem), 4L);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_test_flags(sem), 0L);

	/* 4 out; give 1 back, then shrink by 2: 1 now, 1 as debt. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_resize(sem, 2), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 1UL);
	KUNIT_EXPECT_EQ(test, psem_test_flags(sem), PSEM_WAITERS);
	/* The 3 still out come home: 1 pays the debt, 2 fill the capacity. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 2);
	KUNIT_EXPECT_EQ(test, psem_capacity(sem), 2L);
	/* Same size: nothing changes. */
	KUNIT_EXPECT_EQ(test, psem_resize(sem, 2), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 2);
}

/* Waiters that no longer fit fail with -E2BIG and give their grant back. */
static void psem_test_resize_too_big(struct kunit *test)
{
	struct psem *sem = psem_test_capped_sem(test, 4);
	struct psem_test_thread *a, *b;

	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 4));
	a = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 3, 1);
	b = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 1, 2);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);	/* a has 2 of 3 */
	KUNIT_EXPECT_EQ(test, psem_resize(sem, 2), 0);
	PSEM_TEST_EXPECT_RETURNS(test, a, -E2BIG);
	/* a's 2 paid the 2 of debt the shrink left: b still waits. */
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 0UL);
	KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(sem), 1U);
	KUNIT_EXPECT_FALSE(test, psem_test_done(b));
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);	/* the 2 still out */
	PSEM_TEST_EXPECT_RETURNS(test, b, 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);	/* b's */
	PSEM_TEST_EXPECT_IDLE(test, sem, 2);
}

/*
 * A capped psem's word keeps PSEM_EXT through a waiter's drain and its
 * hand-off: a release within the capacity is still lock-free, and one
 * above it is still refused.
 */
static void psem_test_capacity_after_waiter(struct kunit *test)
{
	struct psem *sem = psem_test_capped_sem(test, 2);
	struct psem_test_thread *a;

	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 2));
	a = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 1, 1);
	KUNIT_EXPECT_EQ(test, psem_test_flags(sem), PSEM_WAITERS);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_RETURNS(test, a, 0);
	/* Both out again, one of them @a's. */
	psem_set_quiet_warnings(true);
	PSEM_TEST_EXPECT_REFUSED(test, sem, psem_release(sem, 3), -EOVERFLOW);
	psem_set_quiet_warnings(false);
	psem_test_stats_start();
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	PSEM_TEST_EXPECT_RELEASE_STATS(test, 1, 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 2);
	KUNIT_EXPECT_EQ(test, psem_capacity(sem), 2L);
}

/* Close fails waiters and every later take; releases still come home. */
static void psem_test_close(struct kunit *test)
{
	struct psem *sem = psem_test_capped_sem(test, 4);
	struct psem_test_thread *a, *b;

	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 3));
	a = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 3, 1);	/* gets 1 */
	b = psem_test_linked_waiter(test, sem, PSEM_TEST_KILLABLE, 1, 2);
	KUNIT_EXPECT_EQ(test, psem_close(sem), 0);
	PSEM_TEST_EXPECT_RETURNS(test, a, -ESHUTDOWN);
	PSEM_TEST_EXPECT_RETURNS(test, b, -ESHUTDOWN);
	KUNIT_EXPECT_TRUE(test, psem_is_closed(sem));
	/* a's partial grant is back: 1 available, yet nothing can be taken. */
	KUNIT_EXPECT_EQ(test, psem_available(sem), 1L);
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(sem, 1));
	KUNIT_EXPECT_EQ(test, psem_drain(sem, 1), 0L);
	KUNIT_EXPECT_EQ(test, psem_acquire(sem, 1), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, psem_acquire_interruptible(sem, 0), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, psem_acquire_timeout(sem, 1, 0), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, psem_close(sem), -EALREADY);
	/* Releases work while closed. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 4L);
	KUNIT_EXPECT_EQ(test, psem_reopen(sem), 0);
	KUNIT_EXPECT_EQ(test, psem_reopen(sem), -EALREADY);
	KUNIT_EXPECT_FALSE(test, psem_is_closed(sem));
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 4));
	KUNIT_EXPECT_EQ(test, psem_release(sem, 4), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 4);
}

/* Quiesce waits for every permit, is not failed by close, and returns. */
static void psem_test_quiesce(struct kunit *test)
{
	struct psem *sem = psem_test_capped_sem(test, 3);
	struct psem_test_thread *q;

	KUNIT_EXPECT_EQ(test, psem_quiesce(sem, 0), 0);	/* all home */
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 2));
	KUNIT_EXPECT_EQ(test, psem_quiesce(sem, 0), -ETIME);
	KUNIT_EXPECT_EQ(test, psem_quiesce(sem, 1), -ETIME);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 1L);
	KUNIT_EXPECT_EQ(test, psem_test_flags(sem), 0L);

	q = psem_test_quiescer(test, sem, 1);
	KUNIT_EXPECT_EQ(test, psem_test_flags(sem), PSEM_WAITERS);
	KUNIT_EXPECT_EQ(test, psem_close(sem), 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	KUNIT_EXPECT_FALSE(test, psem_test_done(q));
	KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(sem), 1U);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_RETURNS(test, q, 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 3L);
	KUNIT_EXPECT_EQ(test, psem_reopen(sem), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 3);
}

/* A resize while quiescing: the quiesce waits for the new capacity. */
static void psem_test_quiesce_resize(struct kunit *test)
{
	struct psem *sem = psem_test_capped_sem(test, 3);
	struct psem_test_thread *q;

	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 3));
	q = psem_test_quiescer(test, sem, 1);
	KUNIT_EXPECT_EQ(test, psem_resize(sem, 1), 0);	/* debt 2 */
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 2UL);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);	/* pays it */
	KUNIT_EXPECT_FALSE(test, psem_test_done(q));
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_RETURNS(test, q, 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 1);

	/* Growing while quiescing raises its target. */
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 1));
	q = psem_test_quiescer(test, sem, 1);
	KUNIT_EXPECT_EQ(test, psem_resize(sem, 2), 0);
	KUNIT_EXPECT_FALSE(test, psem_test_done(q));
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_RETURNS(test, q, 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 2);
}

/* Prints the view of @sem into @buf, as reading its debugfs file would. */
static void lifecycle_read_view(struct psem *sem, char *buf, size_t len)
{
	struct seq_file m = { .buf = buf, .size = len - 1 };

	psem_debugfs_show(&m, sem);
	buf[min(m.count, len - 1)] = '\0';
}

/* The view shows the state and each waiter; refusals change nothing. */
static void psem_test_view(struct kunit *test)
{
	struct psem *sem = psem_test_capped_sem(test, 4);
	struct psem *other = psem_test_capped_sem(test, 1);
	char *buf = kunit_kzalloc(test, 2048, GFP_KERNEL);
	struct psem_test_thread *a;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, psem_debugfs_register(sem, "kunit_view"), 0);
	KUNIT_EXPECT_EQ(test, psem_debugfs_register(sem, "kunit_view2"), -EEXIST);
	KUNIT_EXPECT_EQ(test, psem_debugfs_register(other, "kunit_view"), -EEXIST);
	KUNIT_EXPECT_EQ(test, psem_debugfs_register(other, "a/b"), -EINVAL);
	KUNIT_EXPECT_EQ(test, psem_debugfs_register(other, ""), -EINVAL);
	KUNIT_EXPECT_EQ(test, psem_debugfs_unregister(other), -ENOENT);

	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 3));
	a = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 3, 1);	/* gets 1 */
	lifecycle_read_view(sem, buf, 2048);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "capacity 4\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "closed   no\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "acquire needs 2 of 3"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "total    1\n"));
	kunit_info(test, "view:\n%s", buf);

	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	PSEM_TEST_EXPECT_RETURNS(test, a, 0);
	KUNIT_EXPECT_EQ(test, psem_debugfs_unregister(sem), 0);
	KUNIT_EXPECT_EQ(test, psem_debugfs_unregister(sem), -ENOENT);
	/* The name is free again. */
	KUNIT_EXPECT_EQ(test, psem_debugfs_register(other, "kunit_view"), 0);
	KUNIT_EXPECT_EQ(test, psem_debugfs_unregister(other), 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 4), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 4);
}

PSEM_TEST_SUITE("psem_lifecycle", "KUnit tests for psem's lifecycle calls",
		psem_test_capacity, psem_test_resize, psem_test_resize_too_big,
		psem_test_capacity_after_waiter,
		psem_test_close, psem_test_quiesce, psem_test_quiesce_resize,
		psem_test_view);
