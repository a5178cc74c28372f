// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite psem_bit: psem's waiters bit (Documentation/design.rst, "The
 * invariant"), single-threaded with helper waiters: which release takes
 * the lock, when PSEM_WAITERS is set and cleared. Its races are in
 * psem_bit_race_test.c.
 */

#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/module.h>
#include <linux/sched/signal.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_test.h"

/* The word of a psem that waits (psem.h, PSEM_BIAS), and of a closed one. */
#define WAITING		((long)(PSEM_BIAS | PSEM_WAITERS))
#define CLOSED		((long)PSEM_BIAS)
#define CLOSED_WAITING	((long)(PSEM_BIAS + PSEM_BIAS) + PSEM_WAITERS)

/*
 * A release with nobody waiting is lock-free at any balance, zero
 * included. This CPU holds the queue lock, so a release that took it
 * would deadlock (and lockdep or DEBUG_SPINLOCK would report recursion).
 * Under the positive-balance rule the same release at zero takes the lock.
 */
static void psem_test_bit_zero_release(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 0);
	unsigned long flags;
	int ret;

	psem_test_stats_start();
	spin_lock_irqsave(&sem->lock, flags);
	ret = psem_release(sem, 2);
	spin_unlock_irqrestore(&sem->lock, flags);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), 2 * PSEM_ONE);
	PSEM_TEST_EXPECT_RELEASE_STATS(test, 1, 0);

	/* A holder of everything returns it with one exchange from zero. */
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 2));
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), 0L);
	spin_lock_irqsave(&sem->lock, flags);
	ret = psem_release_all_held(sem, 2);
	spin_unlock_irqrestore(&sem->lock, flags);
	KUNIT_EXPECT_EQ(test, ret, 0);
	PSEM_TEST_EXPECT_RELEASE_STATS(test, 2, 0);

	/* The positive-balance rule: zero means "maybe waiters", so lock. */
	psem_set_zero_release(false);
	KUNIT_EXPECT_EQ(test, psem_drain(sem, 5), 2L);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 1);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);	/* positive: fast */
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 3);
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 2));
	KUNIT_EXPECT_EQ(test, psem_release_all_held(sem, 2), 0);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 2);
	PSEM_TEST_EXPECT_IDLE(test, sem, 2);
}

/*
 * The bit is set when a waiter links, stays set (the word exactly
 * WAITING: the field empty again once each add was taken back) while it
 * waits, sends releases to the lock, and is cleared by the release that
 * serves the last waiter, in the same RMW that adds what is left.
 */
static void psem_test_bit_waiters(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 1);
	struct psem_test_thread *a, *b;

	psem_test_stats_start();
	a = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 3, 1);
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), WAITING);
	b = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 1, 2);
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), WAITING);

	/* Partial: a still needs 1; the bit stays, the balance zero. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_RELEASE_STATS(test, 0, 1);
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), WAITING);
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(sem, 1));
	KUNIT_EXPECT_EQ(test, psem_drain(sem, 1), 0L);

	/* Serves a, leaves b: the bit stays. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_RETURNS(test, a, 0);
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), WAITING);
	KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(sem), 1U);

	/* Serves b and adds the rest, clearing the bit in one RMW. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 4), 0);
	PSEM_TEST_EXPECT_RETURNS(test, b, 0);
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), 3 * PSEM_ONE);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 3);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 2);

	/* Nobody waits again: lock-free. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 1);
	PSEM_TEST_EXPECT_IDLE(test, sem, 4);
}

/*
 * A debt sets the bit too, and the release that pays it off clears it. The
 * debt is in the word, above the field of the adds in flight, and the
 * word is negative (PSEM_BIAS), so that no take reads it as permits.
 */
static void psem_test_bit_debt(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 1);

	psem_test_stats_start();
	KUNIT_EXPECT_EQ(test, psem_reduce(sem, 3), 0);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 2UL);
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), WAITING + 2 * PSEM_HIGH_ONE);
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(sem, 1));
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 1UL);
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), WAITING + PSEM_HIGH_ONE);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 0UL);
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), 2 * PSEM_ONE);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 2);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 0);

	/* A reduce that the balance covers owes nothing: no bit. */
	KUNIT_EXPECT_EQ(test, psem_reduce(sem, 2), 0);
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 1);
	PSEM_TEST_EXPECT_IDLE(test, sem, 1);
}

/*
 * A closed psem that owes: PSEM_BIAS twice, whichever came first, and once
 * again once the debt is paid; reopening then takes it away.
 */
static void psem_test_bit_debt_closed(struct kunit *test)
{
	const long owing = CLOSED_WAITING + 2 * PSEM_HIGH_ONE;
	struct psem *sem = psem_test_sem(test, 1);
	struct psem *first = psem_test_sem(test, 1);

	KUNIT_EXPECT_EQ(test, psem_reduce(sem, 3), 0);
	KUNIT_EXPECT_EQ(test, psem_close(sem), 0);
	KUNIT_EXPECT_EQ(test, psem_close(first), 0);
	KUNIT_EXPECT_EQ(test, psem_test_word(first), CLOSED + PSEM_ONE);
	KUNIT_EXPECT_EQ(test, psem_reduce(first, 3), 0);
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), owing);
	KUNIT_EXPECT_EQ(test, psem_test_word(first), owing);
	KUNIT_EXPECT_TRUE(test, psem_is_closed(sem));
	KUNIT_EXPECT_EQ(test, psem_close(sem), -EALREADY);

	/* Pays the debt, 1 to spare: closed still, no take. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 0UL);
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), CLOSED + PSEM_ONE);
	KUNIT_EXPECT_TRUE(test, psem_is_closed(sem));
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(sem, 1));
	KUNIT_EXPECT_EQ(test, psem_available(sem), 1L);

	/* Reopened while owing: open, and still no take of the debt. */
	KUNIT_EXPECT_EQ(test, psem_reopen(first), 0);
	KUNIT_EXPECT_EQ(test, psem_test_word(first),
			WAITING + 2 * PSEM_HIGH_ONE);
	KUNIT_EXPECT_FALSE(test, psem_is_closed(first));
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(first, 1));
	KUNIT_EXPECT_EQ(test, psem_release(first, 3), 0);
	PSEM_TEST_EXPECT_IDLE(test, first, 1);

	KUNIT_EXPECT_EQ(test, psem_reopen(sem), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 1);
}

/*
 * A waiter that gives up returns its partial grant and, as the last one,
 * clears the bit; one that is not the last leaves it set.
 */
static void psem_test_bit_cancel(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 0);
	struct psem_test_thread *a, *b;

	a = psem_test_linked_waiter(test, sem, PSEM_TEST_INTERRUPTIBLE, 3, 1);
	b = psem_test_linked_waiter(test, sem, PSEM_TEST_INTERRUPTIBLE, 1, 2);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);	/* a needs 1 */
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), WAITING);

	/* b is not the head and holds nothing: the bit stays for a. */
	send_sig(SIGUSR1, b->task, 1);
	PSEM_TEST_EXPECT_RETURNS(test, b, -EINTR);
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), WAITING);

	/* a gives its 2 back; nobody is left: bit cleared, 2 on the word. */
	send_sig(SIGUSR1, a->task, 1);
	PSEM_TEST_EXPECT_RETURNS(test, a, -EINTR);
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), 2 * PSEM_ONE);
	PSEM_TEST_EXPECT_IDLE(test, sem, 2);
}

/*
 * A release of up to PSEM_ADD_MAX adds first: onto a clean word, flagged
 * or closed, it lands as it is, lock-free; one above it reads first, and
 * the flag sends it to the lock.
 */
static void psem_test_bit_add(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 1);

	psem_test_stats_start();
	KUNIT_EXPECT_EQ(test, psem_release(sem, PSEM_ADD_MAX), 0);
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), (PSEM_ADD_MAX + 1) * PSEM_ONE);
	KUNIT_EXPECT_EQ(test, psem_drain(sem, PSEM_MAX_PERMITS), PSEM_ADD_MAX + 1);

	/* The flag, a hint for the read-first releases, stays. */
	atomic_long_or(PSEM_CONTENDED, &sem->count);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), PSEM_ONE | PSEM_CONTENDED);
	PSEM_TEST_EXPECT_RELEASE_STATS(test, 2, 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, PSEM_ADD_MAX + 1), 0);
	PSEM_TEST_EXPECT_RELEASE_STATS(test, 2, 1);
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), (PSEM_ADD_MAX + 2) * PSEM_ONE);

	/* Closed: the add lands in the balance, which no take reaches. */
	KUNIT_EXPECT_EQ(test, psem_close(sem), 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_RELEASE_STATS(test, 3, 1);
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), CLOSED + (PSEM_ADD_MAX + 3) * PSEM_ONE);
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(sem, 1));
	KUNIT_EXPECT_EQ(test, psem_reopen(sem), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, PSEM_ADD_MAX + 3);
}

/*
 * An add that crosses PSEM_MAX_PERMITS is refused and taken back exactly;
 * one onto a balance that holds PSEM_MAX_PERMITS less its count lands.
 */
static void psem_test_bit_add_over(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, PSEM_MAX_PERMITS - 1);

	psem_set_quiet_warnings(true);
	PSEM_TEST_EXPECT_REFUSED(test, sem, psem_release(sem, 2), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), (PSEM_MAX_PERMITS - 1) * PSEM_ONE);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, PSEM_MAX_PERMITS);
	PSEM_TEST_EXPECT_REFUSED(test, sem, psem_release(sem, PSEM_ADD_MAX),
				 -EOVERFLOW);
	psem_set_quiet_warnings(false);
	PSEM_TEST_EXPECT_IDLE(test, sem, PSEM_MAX_PERMITS);
}

/*
 * A psem_ext's word always waits, its balance a credit above the field
 * (psem.h, PSEM_EXT): a try and a drain take it, and a release adds to it,
 * lock-free, within the capacity; a waiter drains it first.
 */
static void psem_test_bit_credit(struct kunit *test)
{
	const long ext = (long)(PSEM_BIAS | PSEM_WAITERS | PSEM_CREDIT |
				PSEM_EXT);
	struct psem *sem = psem_test_capped_sem(test, 3);
	struct psem_test_thread *a;

	psem_test_stats_start();
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), ext + 3 * PSEM_HIGH_ONE);
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 2));
	KUNIT_EXPECT_EQ(test, psem_drain(sem, 5), 1L);
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(sem, 1));
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), ext + 2 * PSEM_HIGH_ONE);
	PSEM_TEST_EXPECT_RELEASE_STATS(test, 1, 0);
	psem_set_quiet_warnings(true);
	PSEM_TEST_EXPECT_REFUSED(test, sem, psem_release(sem, 2), -EOVERFLOW);
	psem_set_quiet_warnings(false);
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), ext + 2 * PSEM_HIGH_ONE);

	/* A waiter for 3 takes the 2 and drains the credit. */
	a = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 3, 1);
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), ext - PSEM_CREDIT);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_RETURNS(test, a, 0);
	KUNIT_EXPECT_EQ(test, psem_test_word(sem), ext);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 3);
}

/* Per-caller warnings: a bad count in one place does not silence another. */
static void psem_test_bit_warn_per_caller(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 1);
	u64 sites = psem_warn_site_count();
	u64 refused = psem_warn_count();
	int i;

	psem_set_quiet_warnings(true);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, psem_release(sem, -1), -EINVAL);
	KUNIT_EXPECT_EQ(test, psem_warn_site_count() - sites, 1ULL);
	KUNIT_EXPECT_EQ(test, psem_reduce(sem, -1), -EINVAL);
	KUNIT_EXPECT_EQ(test, psem_warn_site_count() - sites, 2ULL);
	KUNIT_EXPECT_EQ(test, psem_warn_count() - refused, 4ULL);
	psem_set_quiet_warnings(false);
	PSEM_TEST_EXPECT_IDLE(test, sem, 1);
}

PSEM_TEST_SUITE("psem_bit", "KUnit tests for psem's waiters bit",
		psem_test_bit_zero_release, psem_test_bit_waiters,
		psem_test_bit_debt, psem_test_bit_debt_closed,
		psem_test_bit_cancel, psem_test_bit_add,
		psem_test_bit_add_over, psem_test_bit_credit,
		psem_test_bit_warn_per_caller);
