// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite psem_basic: psem's core semaphore (kmod/psem_core.c) on one
 * thread: initialisation, counts, bad arguments, drain, reduce.
 */

#include <kunit/test.h>
#include <linux/module.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_test.h"

static DEFINE_PSEM(basic_static_sem, 3);

static void psem_test_define_psem(struct kunit *test)
{
	struct psem *sem = &basic_static_sem;

	PSEM_TEST_EXPECT_IDLE(test, sem, 3);
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 3));
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	/* The slow path takes the statically initialised queue lock. */
	KUNIT_EXPECT_EQ(test, psem_acquire_timeout(sem, 1, 1), -ETIME);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 3);
}

static void psem_test_init_available(struct kunit *test)
{
	static const long counts[] = { 0, 1, 5, PSEM_MAX_PERMITS };
	struct psem *sem;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		sem = psem_test_sem(test, counts[i]);
		PSEM_TEST_EXPECT_IDLE(test, sem, counts[i]);
	}

	sem = psem_test_sem(test, 5);
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 2));
	KUNIT_EXPECT_EQ(test, psem_available(sem), 3L);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 4), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 7L);

	/* Re-initialising an idle psem forgets its balance and its debt. */
	KUNIT_EXPECT_EQ(test, psem_reduce(sem, 10), 0);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 3UL);
	psem_init(sem, 2);
	PSEM_TEST_EXPECT_IDLE(test, sem, 2);
}

static void psem_test_try_acquire(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 5);

	psem_test_stats_start();
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 3));
	/* All or nothing: 3 of 2 takes none. */
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(sem, 3));
	KUNIT_EXPECT_EQ(test, psem_available(sem), 2L);
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(sem, PSEM_MAX_PERMITS));
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 2));
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(sem, 1));
	PSEM_TEST_EXPECT_IDLE(test, sem, 0);
	/* It neither slept nor linked. */
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_SLEEP, 0);

	sem = psem_test_sem(test, PSEM_MAX_PERMITS);
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, PSEM_MAX_PERMITS));
	PSEM_TEST_EXPECT_IDLE(test, sem, 0);
}

/* Calls every function with a count of zero: each succeeds, none changes a thing. */
static void basic_zero_calls(struct kunit *test, struct psem *sem)
{
	long avail = psem_available(sem);
	unsigned long debt = psem_debt(sem);
	u64 warned = psem_warn_count();
	struct psem_stats s;
	int i;

	psem_stats_reset();
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 0));
	/* Bounded first: a zero request that waited would fail, not hang. */
	KUNIT_ASSERT_EQ(test, psem_acquire_timeout(sem, 0, PSEM_TEST_HANG_GUARD), 0);
	KUNIT_EXPECT_EQ(test, psem_acquire_timeout(sem, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, psem_acquire(sem, 0), 0);
	KUNIT_EXPECT_EQ(test, psem_acquire_interruptible(sem, 0), 0);
	KUNIT_EXPECT_EQ(test, psem_acquire_killable(sem, 0), 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 0), 0);
	KUNIT_EXPECT_EQ(test, psem_release_all_held(sem, 0), 0);
	KUNIT_EXPECT_EQ(test, psem_drain(sem, 0), 0L);
	KUNIT_EXPECT_EQ(test, psem_reduce(sem, 0), 0);

	KUNIT_EXPECT_EQ(test, psem_available(sem), avail);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), debt);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warned);
	/*
	 * A zero release takes a release's path (an exchange of the word
	 * with itself, or the lock; release_all_held()'s exchange from an
	 * empty word fails on a balance) and changes nothing; nothing else
	 * may have happened.
	 */
	psem_stats_snapshot(&s);
	for (i = 0; i < PSEM_STAT_WARN; i++) {
		if (i == PSEM_STAT_FAST_RELEASE ||
		    i == PSEM_STAT_LOCKED_RELEASE ||
		    i == PSEM_STAT_FAST_CAS_FAIL)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, s.count[i], 0ULL, "stat %s",
				    psem_stat_names[i]);
	}
	KUNIT_EXPECT_EQ(test, s.count[PSEM_STAT_FAST_RELEASE] +
			s.count[PSEM_STAT_LOCKED_RELEASE], 2ULL);
}

static void psem_test_zero_counts(struct kunit *test)
{
	struct psem *sem;

	psem_test_stats_start();
	basic_zero_calls(test, psem_test_sem(test, 0));
	basic_zero_calls(test, psem_test_sem(test, 2));

	sem = psem_test_sem(test, 0);
	KUNIT_ASSERT_EQ(test, psem_reduce(sem, 3), 0);
	basic_zero_calls(test, sem);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 3UL);
}

static void psem_test_bad_counts(struct kunit *test)
{
	static const long bad[] = { -1, LONG_MIN };
	struct psem *sem = psem_test_sem(test, 2);
	u64 warned;
	unsigned int i;

	psem_test_stats_start();
	psem_set_quiet_warnings(true);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		long n = bad[i];

		PSEM_TEST_EXPECT_REFUSED(test, sem, psem_try_acquire(sem, n), false);
		PSEM_TEST_EXPECT_REFUSED(test, sem, psem_acquire(sem, n), -EINVAL);
		PSEM_TEST_EXPECT_REFUSED(test, sem,
					 psem_acquire_interruptible(sem, n), -EINVAL);
		PSEM_TEST_EXPECT_REFUSED(test, sem, psem_acquire_killable(sem, n),
					 -EINVAL);
		PSEM_TEST_EXPECT_REFUSED(test, sem, psem_acquire_timeout(sem, n, 1),
					 -EINVAL);
		PSEM_TEST_EXPECT_REFUSED(test, sem, psem_release(sem, n), -EINVAL);
		PSEM_TEST_EXPECT_REFUSED(test, sem, psem_release_all_held(sem, n),
					 -EINVAL);
		PSEM_TEST_EXPECT_REFUSED(test, sem, psem_drain(sem, n), 0L);
		PSEM_TEST_EXPECT_REFUSED(test, sem, psem_reduce(sem, n), -EINVAL);
	}
	PSEM_TEST_EXPECT_IDLE(test, sem, 2);
	/* Refused before doing anything: no release or wait was counted. */
	PSEM_TEST_EXPECT_RELEASE_STATS(test, 0, 0);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_SLEEP, 0);

	/* A negative initial balance is refused and leaves zero. */
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		warned = psem_warn_count();
		psem_init(sem, bad[i]);
		KUNIT_EXPECT_EQ(test, psem_warn_count() - warned, 1ULL);
		PSEM_TEST_EXPECT_IDLE(test, sem, 0);
	}
	psem_set_quiet_warnings(false);
}

static void psem_test_overflow(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, PSEM_MAX_PERMITS);

	psem_set_quiet_warnings(true);
	PSEM_TEST_EXPECT_REFUSED(test, sem, psem_release(sem, 1), -EOVERFLOW);
	PSEM_TEST_EXPECT_REFUSED(test, sem, psem_release_all_held(sem, 1),
				 -EOVERFLOW);
	PSEM_TEST_EXPECT_REFUSED(test, sem, psem_release(sem, PSEM_MAX_PERMITS),
				 -EOVERFLOW);
	PSEM_TEST_EXPECT_IDLE(test, sem, PSEM_MAX_PERMITS);

	/* The fast path's own overflow check sends it to the lock, which refuses. */
	sem = psem_test_sem(test, 1);
	PSEM_TEST_EXPECT_REFUSED(test, sem, psem_release(sem, PSEM_MAX_PERMITS),
				 -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, psem_release(sem, PSEM_MAX_PERMITS - 1), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, PSEM_MAX_PERMITS);

	/* The same on the locked path. */
	psem_set_fast_release(false);
	sem = psem_test_sem(test, PSEM_MAX_PERMITS - 1);
	PSEM_TEST_EXPECT_REFUSED(test, sem, psem_release(sem, 2), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, PSEM_MAX_PERMITS);
	psem_set_fast_release(true);

	/* The debt is bounded too; releases pay all of it. */
	sem = psem_test_sem(test, 0);
	KUNIT_EXPECT_EQ(test, psem_reduce(sem, PSEM_MAX_PERMITS), 0);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), (unsigned long)PSEM_MAX_PERMITS);
	PSEM_TEST_EXPECT_REFUSED(test, sem, psem_reduce(sem, 1), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), (unsigned long)PSEM_MAX_PERMITS);
	KUNIT_EXPECT_EQ(test, psem_release(sem, PSEM_MAX_PERMITS), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 0);
	psem_set_quiet_warnings(false);
}

static void psem_test_drain(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 5);

	KUNIT_EXPECT_EQ(test, psem_drain(sem, 3), 3L);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 2L);
	KUNIT_EXPECT_EQ(test, psem_drain(sem, 10), 2L);
	KUNIT_EXPECT_EQ(test, psem_drain(sem, 1), 0L);
	KUNIT_EXPECT_EQ(test, psem_drain(sem, PSEM_MAX_PERMITS), 0L);
	PSEM_TEST_EXPECT_IDLE(test, sem, 0);
	/* The drained permits are held: returning them restores the balance. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 5), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 5);

	sem = psem_test_sem(test, PSEM_MAX_PERMITS);
	KUNIT_EXPECT_EQ(test, psem_drain(sem, PSEM_MAX_PERMITS),
			PSEM_MAX_PERMITS);
	PSEM_TEST_EXPECT_IDLE(test, sem, 0);
}

static void psem_test_reduce_debt(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 5);

	psem_test_stats_start();
	/* Covered by the balance: no debt. */
	KUNIT_EXPECT_EQ(test, psem_reduce(sem, 3), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 2);

	/* 2 of 5 available: the missing 3 become a debt. */
	KUNIT_EXPECT_EQ(test, psem_reduce(sem, 5), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 3UL);
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(sem, 1));
	KUNIT_EXPECT_EQ(test, psem_drain(sem, 1), 0L);

	/* Releases pay the debt before anything reaches the balance. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 1UL);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 2);
	PSEM_TEST_EXPECT_RELEASE_STATS(test, 0, 2);

	/* Debts add up. */
	KUNIT_EXPECT_EQ(test, psem_drain(sem, 2), 2L);
	KUNIT_EXPECT_EQ(test, psem_reduce(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_reduce(sem, 2), 0);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 3UL);
	KUNIT_EXPECT_EQ(test, psem_release_all_held(sem, 3), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 0);
}

PSEM_TEST_SUITE("psem_basic",
		"KUnit tests for psem's core semaphore: the basics",
		psem_test_define_psem, psem_test_init_available,
		psem_test_try_acquire, psem_test_zero_counts,
		psem_test_bad_counts, psem_test_overflow, psem_test_drain,
		psem_test_reduce_debt);
