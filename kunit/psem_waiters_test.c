// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite psem_waiters: the waiters of psem's core semaphore
 * (kmod/psem_core.c): FIFO order, partial assignment, signals and timeouts.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/module.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_test.h"

/* A large request at the head is not overtaken by a small one behind it. */
static void psem_test_fifo_mixed_sizes(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 0);
	struct psem_test_thread *a, *b;

	psem_test_stats_start();
	a = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 3, 1);
	b = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 1, 2);

	/* Enough for B, but A is at the head: A gets it and needs 2 more. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(sem), 2U);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 0);

	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	PSEM_TEST_EXPECT_RETURNS(test, a, 0);
	KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(sem), 1U);
	KUNIT_EXPECT_FALSE(test, psem_test_done(b));
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 1);

	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_RETURNS(test, b, 0);
	KUNIT_EXPECT_LT(test, a->rank, b->rank);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 2);
	PSEM_TEST_EXPECT_IDLE(test, sem, 0);
	psem_test_reap_all(test);
}

/* One release serves waiters in order until it runs out. */
static void psem_test_fifo_batch(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 0);
	struct psem_test_thread *w[10];
	unsigned int i;

	psem_test_stats_start();
	w[0] = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 3, 1);
	w[1] = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 1, 2);
	w[2] = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 2, 3);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 5), 0);
	PSEM_TEST_EXPECT_RETURNS(test, w[0], 0);
	PSEM_TEST_EXPECT_RETURNS(test, w[1], 0);
	/* The fifth permit is assigned to the third waiter, not the balance. */
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(sem), 1U);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	PSEM_TEST_EXPECT_RETURNS(test, w[2], 0);
	KUNIT_EXPECT_GT(test, w[2]->rank, w[0]->rank);
	KUNIT_EXPECT_GT(test, w[2]->rank, w[1]->rank);
	PSEM_TEST_EXPECT_IDLE(test, sem, 1);
	psem_test_reap_all(test);

	/* More waiters than psem defers wake-ups for; the last must wait. */
	KUNIT_EXPECT_EQ(test, psem_drain(sem, 1), 1L);
	psem_stats_reset();
	for (i = 0; i < ARRAY_SIZE(w); i++)
		w[i] = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 1, i + 1);
	KUNIT_EXPECT_EQ(test, psem_release(sem, ARRAY_SIZE(w) - 1), 0);
	for (i = 0; i < ARRAY_SIZE(w) - 1; i++)
		PSEM_TEST_EXPECT_RETURNS(test, w[i], 0);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_HANDOFF, ARRAY_SIZE(w) - 1);
	KUNIT_EXPECT_FALSE(test, psem_test_done(w[ARRAY_SIZE(w) - 1]));
	KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(sem), 1U);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_RETURNS(test, w[ARRAY_SIZE(w) - 1], 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 0);
	psem_test_reap_all(test);
}

/* Lock-free takers never take permits assigned to, or owed to, a waiter. */
static void psem_test_waiter_not_overtaken(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 0);
	struct psem_test_thread *a;

	a = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 2, 1);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(sem, 1));
	KUNIT_EXPECT_EQ(test, psem_drain(sem, 5), 0L);
	/* A zero request succeeds at once, even behind a waiter. */
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 0));
	KUNIT_EXPECT_EQ(test, psem_acquire_timeout(sem, 0, PSEM_TEST_HANG_GUARD), 0);
	KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(sem), 1U);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_RETURNS(test, a, 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 0);
	psem_test_reap_all(test);
}

/*
 * A waits for 3 and is assigned 2; B queues for 2 behind it; @sig ends A's
 * wait. A returns -EINTR holding nothing, and its 2 go to B.
 */
static void waiters_cancel_partial(struct kunit *test, enum psem_test_op op, int sig)
{
	struct psem *sem = psem_test_sem(test, 0);
	struct psem_test_thread *a, *b;

	psem_test_stats_start();
	a = psem_test_linked_waiter(test, sem, op, 3, 1);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	b = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 2, 2);

	send_sig(sig, a->task, 1);
	PSEM_TEST_EXPECT_RETURNS(test, a, -EINTR);
	PSEM_TEST_EXPECT_RETURNS(test, b, 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 0);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_CANCEL, 1);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 1);
	/* B holds exactly the 2 released: none lost, none made up. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 2);
	psem_test_reap_all(test);
}

static void psem_test_interruptible_partial(struct kunit *test)
{
	waiters_cancel_partial(test, PSEM_TEST_INTERRUPTIBLE, SIGUSR1);
}

static void psem_test_killable_partial(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 0);
	struct psem_test_thread *a;

	/*
	 * A signal that is not fatal leaves a killable waiter asleep. This
	 * only fails if it wakes within the pause: slower is not caught.
	 */
	a = psem_test_linked_waiter(test, sem, PSEM_TEST_KILLABLE, 1, 1);
	send_sig(SIGUSR1, a->task, 1);
	msleep(50);
	KUNIT_EXPECT_FALSE(test, psem_test_done(a));
	KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(sem), 1U);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_RETURNS(test, a, 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 0);
	psem_test_reap_all(test);

	waiters_cancel_partial(test, PSEM_TEST_KILLABLE, SIGKILL);
}

/*
 * The timeout counterpart of waiters_cancel_partial(). A's timeout must be long
 * enough for the test to assign it 2 and start B; if it fires earlier, the
 * round still must lose nothing, but proves less: retry with a longer one.
 */
static bool waiters_timeout_round(struct kunit *test, long timeout)
{
	struct psem *sem = psem_test_sem(test, 0);
	struct psem_test_thread *a, *b;
	bool assigned;

	psem_stats_reset();
	a = psem_test_waiter(test, sem, PSEM_TEST_TIMEOUT, 3, timeout);
	KUNIT_ASSERT_TRUE(test, psem_test_wait_for(psem_test_nr_waiters(sem) == 1 ||
						   psem_test_done(a)));
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	/* 0: the 2 went to A, still linked; 2: A had already timed out. */
	assigned = psem_available(sem) == 0;
	b = psem_test_waiter(test, sem, PSEM_TEST_ACQUIRE, 2, 0);

	PSEM_TEST_EXPECT_RETURNS(test, a, -ETIME);
	PSEM_TEST_EXPECT_RETURNS(test, b, 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 0);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_CANCEL, 1);
	psem_test_reap_all(test);
	/* A's cancel served B only if B slept and got a hand-off. */
	return assigned && psem_test_stat(PSEM_STAT_HANDOFF) == 1;
}

static void psem_test_timeout_partial(struct kunit *test)
{
	long timeout = HZ / 4;
	bool proved = false;
	int round;

	psem_test_stats_start();
	for (round = 0; round < 5 && !proved; round++, timeout *= 2)
		proved = waiters_timeout_round(test, timeout);
	KUNIT_EXPECT_TRUE_MSG(test, proved,
			      "A always timed out before B could queue");
}

static void psem_test_timeout_nothing_assigned(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 0);
	struct psem_test_thread *a, *t;

	psem_test_stats_start();
	KUNIT_EXPECT_EQ(test, psem_acquire_timeout(sem, 1, 2), -ETIME);
	PSEM_TEST_EXPECT_IDLE(test, sem, 0);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_CANCEL, 1);

	/* Took 1 of 3 from the balance, then timed out: the 1 goes back. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_acquire_timeout(sem, 3, 2), -ETIME);
	PSEM_TEST_EXPECT_IDLE(test, sem, 1);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_CANCEL, 2);

	/* A timeout of zero or less only tries. */
	KUNIT_EXPECT_EQ(test, psem_acquire_timeout(sem, 3, 0), -ETIME);
	KUNIT_EXPECT_EQ(test, psem_acquire_timeout(sem, 3, -1), -ETIME);
	PSEM_TEST_EXPECT_IDLE(test, sem, 1);
	KUNIT_EXPECT_EQ(test, psem_acquire_timeout(sem, 1, 0), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 0);

	/* Timing out behind another waiter leaves that one at the head. */
	a = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 3, 1);
	t = psem_test_waiter(test, sem, PSEM_TEST_TIMEOUT, 1, 2);
	PSEM_TEST_EXPECT_RETURNS(test, t, -ETIME);
	KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(sem), 1U);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);
	PSEM_TEST_EXPECT_RETURNS(test, a, 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 0);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 1);
	psem_test_reap_all(test);
}

/* Served under the queue lock before the signal: the wait succeeded. */
static void waiters_served_then_signalled(struct kunit *test, enum psem_test_op op,
					  int sig)
{
	struct psem *sem = psem_test_sem(test, 0);
	struct psem_test_thread *a;

	a = psem_test_linked_waiter(test, sem, op, 2, 1);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	send_sig(sig, a->task, 1);
	PSEM_TEST_EXPECT_RETURNS(test, a, 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 0);
	psem_test_reap_all(test);
}

static void psem_test_served_then_signalled(struct kunit *test)
{
	waiters_served_then_signalled(test, PSEM_TEST_INTERRUPTIBLE, SIGUSR1);
	waiters_served_then_signalled(test, PSEM_TEST_KILLABLE, SIGKILL);
}

/* A debt is queued ahead of every waiter, whenever it was recorded. */
static void psem_test_debt_before_waiters(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 0);
	struct psem_test_thread *a, *b;

	psem_test_stats_start();
	KUNIT_EXPECT_EQ(test, psem_reduce(sem, 2), 0);
	a = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 1, 1);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 0UL);
	KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(sem), 1U);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_RETURNS(test, a, 0);

	b = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 1, 1);
	KUNIT_EXPECT_EQ(test, psem_reduce(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 1UL);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 0UL);
	KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(sem), 1U);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 1);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_RETURNS(test, b, 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 0);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 2);
	psem_test_reap_all(test);
}

PSEM_TEST_SUITE("psem_waiters", "KUnit tests for psem's waiters",
		psem_test_fifo_mixed_sizes, psem_test_fifo_batch,
		psem_test_waiter_not_overtaken, psem_test_interruptible_partial,
		psem_test_killable_partial, psem_test_timeout_partial,
		psem_test_timeout_nothing_assigned,
		psem_test_served_then_signalled, psem_test_debt_before_waiters);
