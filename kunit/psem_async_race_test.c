// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite psem_async_race: cancel racing grant, from kthreads on every
 * CPU, for psem's asynchronous waiters (kmod/psem_async.c): each wait ends
 * exactly once, with exact accounting.
 */

#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/module.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_test.h"

static unsigned int race_iters = 1000;
module_param(race_iters, uint, 0444);
MODULE_PARM_DESC(race_iters, "iterations of each helper in the race tests");

/*
 * How long the race's sleepers hold their permits, busy: udelay(), not
 * usleep_range(), whose hrtimer sleep has a benign data race that KCSAN
 * reports on 6.1 (see psem_test_nap()).
 */
#define ASYNC_HOLD_US	50

/*
 * What one async helper saw: each of its waits ends in exactly one way.
 * The test reads @cancelled and @called while the helper runs, to know
 * when both outcomes of the race have happened: marked accesses.
 */
struct async_tally {
	struct psem_test_req	req;
	unsigned int	rounds;
	unsigned int	immediate;
	unsigned int	cancelled;
	unsigned int	called;
	unsigned int	wrong;
};

/* Counts one outcome where the test may be reading it. */
static void async_count(unsigned int *outcome)
{
	WRITE_ONCE(*outcome, *outcome + 1);
}

/*
 * Queues an asynchronous acquire, then races a cancel against the grants
 * that the sleeping helpers' releases make; holds what it gets briefly.
 * At least @iters rounds, then on until the test posts step 2.
 */
static int async_waiter_fn(struct psem_test_thread *t)
{
	struct async_tally *y = t->arg;
	struct psem_test_req *r = &y->req;
	unsigned int i;
	int err = 0;

	if (!psem_test_wait_step(t, 1))
		return -EINTR;
	for (i = 0; i < t->iters || !psem_test_step_posted(t, 2); i++) {
		u32 rnd = psem_test_rand(&t->seed);
		long k = 1 + rnd % 2;
		int calls = psem_test_calls(r), ret;

		if (psem_test_aborted(t))
			break;
		y->rounds++;
		ret = psem_acquire_async(t->sem, k, &r->aw, psem_test_req_fn);
		if (!ret) {
			y->immediate++;
		} else if (ret != -EINPROGRESS) {
			psem_test_note(&err, ret);
			continue;
		} else {
			/* Sometimes give the sleepers' releases time to land. */
			if (rnd & 4)
				udelay(rnd & 8 ? 200 : 5);
			if (psem_cancel_async(t->sem, &r->aw)) {
				async_count(&y->cancelled);
				/* Never called back, then or later. */
				if (psem_test_calls(r) != calls)
					y->wrong++;
				psem_test_progress(t);
				continue;
			}
			/*
			 * Completed: the callback runs exactly once, maybe
			 * in a helper on this CPU: let it run.
			 */
			while (psem_test_calls(r) == calls && !psem_test_aborted(t))
				schedule_timeout_uninterruptible(1);
			if (psem_test_calls(r) != calls + 1 || r->result)
				y->wrong++;
			async_count(&y->called);
		}
		psem_test_note(&err, psem_release(t->sem, k));
		psem_test_progress(t);
		/*
		 * Granted at once: sleep a jiffy, so that the sleeper bound to
		 * this CPU runs and takes the permits; without it,
		 * on an idle machine every round is granted at once and the
		 * race never happens.
		 */
		if (!ret)
			schedule_timeout_uninterruptible(1);
	}
	/* A late second call would show here. */
	if (psem_test_calls(r) != y->called)
		y->wrong++;
	return err;
}

/* As long as the async helpers run: their race needs the sleepers. */
static int async_sleeper_round(struct psem_test_thread *t, unsigned int i)
{
	long k = 1 + psem_test_rand(&t->seed) % 2;
	int err = 0;

	psem_test_note(&err, psem_acquire(t->sem, k));
	udelay(ASYNC_HOLD_US);	/* hold: the async helper must queue */
	psem_test_note(&err, psem_release(t->sem, k));
	return err;
}

/* Whether both outcomes of the race have happened, in any helpers. */
static bool async_raced(struct async_tally **tallies, unsigned int nr)
{
	bool cancelled = false, called = false;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		cancelled |= READ_ONCE(tallies[i]->cancelled) > 0;
		called |= READ_ONCE(tallies[i]->called) > 0;
	}
	return cancelled && called;
}

/*
 * The helpers run until both outcomes of the race have happened (a cancel
 * that won, a grant that did) or the search ends: on an idle host nearly
 * every round may end one way.
 */
static void psem_test_async_cancel_race(struct kunit *test)
{
	struct psem_test_thread tmpl = {
		.round = async_sleeper_round, .until = 2, .iters = race_iters,
		.n = 2,
	};
	struct psem *sem = psem_test_ext_sem(test, 2);	/* one sleeper can hold all */
	struct psem_test_ctx *ctx = test->priv;
	unsigned int i, nr = 0, called = 0, cancelled = 0;
	struct async_tally **tallies;
	bool raced;
	int cpu;

	/* On the heap: an array of pointers is too big a frame. */
	tallies = kunit_kcalloc(test, PSEM_TEST_MAX_THREADS, sizeof(*tallies),
				GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tallies);
	tmpl.sem = sem;
	for_each_online_cpu(cpu) {
		if (ctx->nr + 2 > PSEM_TEST_MAX_THREADS)
			break;
		tallies[nr] = kunit_kzalloc(test, sizeof(*tallies[nr]), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, tallies[nr]);
		tallies[nr]->req.sem = sem;
		tmpl.arg = tallies[nr++];
		tmpl.fn = async_waiter_fn;
		psem_test_spawn(test, &tmpl, cpu);
		tmpl.fn = NULL;		/* a sleeper: loops on @round */
		psem_test_spawn(test, &tmpl, cpu);
	}
	psem_test_post_step(ctx, 1);
	raced = psem_test_wait_until(async_raced(tallies, nr), PSEM_TEST_RACE_SEARCH);
	psem_test_post_step(ctx, 2);
	psem_test_reap_all(test);

	psem_test_expect_all_ok(test);
	for (i = 0; i < nr; i++) {
		struct async_tally *y = tallies[i];

		KUNIT_EXPECT_EQ_MSG(test, y->wrong, 0U, "async helper %u", i);
		KUNIT_EXPECT_GE_MSG(test, y->rounds, race_iters, "async helper %u", i);
		KUNIT_EXPECT_EQ_MSG(test, y->immediate + y->cancelled + y->called,
				    y->rounds, "async helper %u", i);
		called += y->called;
		cancelled += y->cancelled;
		kunit_info(test, "helper %u: immediate %u cancelled %u called back %u\n",
			   i, y->immediate, y->cancelled, y->called);
	}
	PSEM_TEST_EXPECT_IDLE(test, sem, 2);
	/* Nothing raced, so nothing was shown; a skip must not hide a failure. */
	if (!raced && test->status != KUNIT_FAILURE)
		kunit_skip(test, "in the search: %u cancelled, %u called back: no race",
			   cancelled, called);
}

PSEM_TEST_SUITE("psem_async_race",
		"KUnit race tests for psem's asynchronous waiters",
		psem_test_async_cancel_race);
