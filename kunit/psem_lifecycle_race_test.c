// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite psem_lifecycle_race: kthreads on every online CPU race
 * psem's lifecycle calls (kmod/psem_lifecycle.c): close racing hand-offs,
 * resize racing releases, exact final accounting through quiesce.
 */

#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/module.h>
#include <linux/sched/signal.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_test.h"

static unsigned int race_iters = 500;
module_param(race_iters, uint, 0444);
MODULE_PARM_DESC(race_iters, "iterations of each helper in the race tests");

#define LIFECYCLE_CAPACITY	8

/* Counts of how the helpers' waits ended. */
struct lifecycle_tally {
	atomic_t	served;
	atomic_t	shut;
	atomic_t	too_big;
};

/*
 * Acquires and releases a random amount (at least @iters rounds, then on
 * until the test posts step 2); every wait ends in exactly one way, served
 * (then it holds the permits and gives them back) or refused (holding
 * nothing).
 */
static int lifecycle_worker_round(struct psem_test_thread *t, unsigned int i)
{
	struct lifecycle_tally *tally = t->arg;
	u32 r = psem_test_rand(&t->seed);
	long k = 1 + r % LIFECYCLE_CAPACITY;
	int ret = r & 256 ? psem_acquire(t->sem, k) :
			    psem_acquire_killable(t->sem, k);

	if (!ret) {
		atomic_inc(&tally->served);
		return psem_release(t->sem, k);
	}
	if (ret == -ESHUTDOWN)
		atomic_inc(&tally->shut);
	else if (ret == -E2BIG)
		atomic_inc(&tally->too_big);
	else
		return ret;	/* neither served nor refused */
	return 0;
}

/* Closes and reopens, or resizes, while the workers run. */
static int lifecycle_churn_round(struct psem_test_thread *t, unsigned int i)
{
	u32 r = psem_test_rand(&t->seed);
	int err = 0;

	if (t->op == PSEM_TEST_ACQUIRE) {	/* close, then reopen */
		psem_test_note(&err, psem_close(t->sem));
		schedule_timeout_uninterruptible(r % 2);
		psem_test_note(&err, psem_reopen(t->sem));
	} else {
		psem_test_note(&err, psem_resize(t->sem,
						 1 + r % (2 * LIFECYCLE_CAPACITY)));
	}
	schedule_timeout_uninterruptible(1);
	return err;
}

static void lifecycle_race(struct kunit *test, enum psem_test_op churn)
{
	struct psem_test_thread tmpl = { .iters = race_iters };
	struct psem_test_ctx *ctx = test->priv;
	struct psem *sem = psem_test_capped_sem(test, LIFECYCLE_CAPACITY);
	struct psem_test_thread *churner;
	struct lifecycle_tally *tally;

	tally = kunit_kzalloc(test, sizeof(*tally), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tally);
	tmpl.sem = sem;
	tmpl.arg = tally;
	tmpl.round = lifecycle_worker_round;
	tmpl.until = 2;
	tmpl.n = LIFECYCLE_CAPACITY;
	/* Room for the churner. */
	psem_test_spawn_per_cpu(test, &tmpl, 2, PSEM_TEST_MAX_THREADS - 1);
	tmpl.round = lifecycle_churn_round;
	tmpl.until = 0;
	tmpl.op = churn;
	tmpl.iters = race_iters / 10;
	churner = psem_test_spawn(test, &tmpl, -1);
	psem_test_post_step(ctx, 1);
	/*
	 * The workers go on past the churn: a churner that closed first could
	 * see every worker's rounds refused while it slept (served 0 of 2000,
	 * debug-6.1). With the churn over the psem is open and large enough
	 * for some of the requests, so the workers must be served soon.
	 */
	psem_test_wait_done(churner);
	psem_test_wait_until(atomic_read(&tally->served) > 0, PSEM_TEST_RACE_SEARCH);
	psem_test_post_step(ctx, 2);
	psem_test_reap_all(test);

	psem_test_expect_all_ok(test);
	/* Every permit is home: a quiesce completes, then the exact state. */
	KUNIT_EXPECT_EQ(test, psem_resize(sem, LIFECYCLE_CAPACITY), 0);
	KUNIT_EXPECT_EQ(test, psem_quiesce(sem, 10 * HZ), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, LIFECYCLE_CAPACITY);
	KUNIT_EXPECT_FALSE(test, psem_is_closed(sem));
	/* Open, and asked for what fits, for PSEM_TEST_RACE_SEARCH: some were served. */
	KUNIT_EXPECT_GT(test, atomic_read(&tally->served), 0);
	kunit_info(test, "served %d, shut down %d, too big %d\n",
		   atomic_read(&tally->served), atomic_read(&tally->shut),
		   atomic_read(&tally->too_big));
}

static void psem_test_close_race(struct kunit *test)
{
	lifecycle_race(test, PSEM_TEST_ACQUIRE);
}

static void psem_test_resize_race(struct kunit *test)
{
	lifecycle_race(test, PSEM_TEST_TIMEOUT);
}

PSEM_TEST_SUITE("psem_lifecycle_race",
		"KUnit race tests for psem's lifecycle calls",
		psem_test_close_race, psem_test_resize_race);
