// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite psem_bit_race: kthreads on every online CPU race psem's
 * waiters bit (Documentation/design.rst, "The invariant"): a release at
 * zero racing an acquirer about to link, and a mixed stress under each
 * release rule, with exact final accounting: races that would lose a
 * wake-up or a permit if the bit were managed wrongly.
 */

#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/module.h>
#include <linux/sched/signal.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_test.h"

static unsigned int race_iters = 2000;
module_param(race_iters, uint, 0444);
MODULE_PARM_DESC(race_iters, "iterations of each helper in the race tests");

/*
 * The lost-wake-up window: a release that finds the word zero without the
 * bit adds lock-free, while an acquirer that found nothing to take is
 * about to set the bit and link. One of the two exchanges wins; either the
 * acquirer takes what the release added, or the release sees the bit and
 * hands the permits over under the lock. A wrong bit leaves the acquirer
 * asleep on permits sitting in the balance: its hang guard fails the test.
 *
 * Pairs of helpers, an acquirer and a releaser on two CPUs, per psem. In
 * each round the balance starts at zero; the acquirer announces the round
 * and asks for k permits, and the releaser, once it sees the announcement,
 * releases exactly k in one call, so that the release lands somewhere in
 * the acquirer's path from its failed lock-free take to its sleep.
 */
struct bit_pair {
	struct psem	*sem;
	unsigned int	round;	/* announced by the acquirer */
	long		k;	/* what it asks for in that round */
	long		moved;
};

/* Round @i: announces it, asks for k permits and sleeps until served. */
static int bit_acquirer_round(struct psem_test_thread *t, unsigned int i)
{
	struct bit_pair *p = t->arg;
	long k = 1 + (psem_test_rand(&t->seed) & 1);
	int ret;

	WRITE_ONCE(p->k, k);
	/* Publishes @k; pairs with the acquire in the releaser. */
	smp_store_release(&p->round, i);
	ret = psem_acquire(p->sem, k);
	WRITE_ONCE(p->moved, p->moved + k);	/* only this helper */
	return ret;
}

/* Round @i: once the acquirer announced it, releases its k in one call. */
static int bit_releaser_round(struct psem_test_thread *t, unsigned int i)
{
	struct bit_pair *p = t->arg;
	unsigned int spins = 0;

	/* Pairs with the release in the acquirer. */
	while (smp_load_acquire(&p->round) < i && !psem_test_aborted(t))
		if (++spins % 1024 == 0)
			schedule_timeout_uninterruptible(1);
	return psem_release(p->sem, READ_ONCE(p->k));
}

static void psem_test_bit_lost_wakeup(struct kunit *test)
{
	const unsigned int max_pairs = PSEM_TEST_MAX_THREADS / 2;
	struct psem_test_thread tmpl = { .iters = race_iters };
	unsigned int cpus = num_online_cpus(), nr, i;
	struct psem_test_thread **acq;
	struct bit_pair **pairs;
	int cpu, c = 0;

	/* On the heap: two arrays of pointers are too big a frame. */
	pairs = kunit_kcalloc(test, max_pairs, sizeof(*pairs), GFP_KERNEL);
	acq = kunit_kcalloc(test, max_pairs, sizeof(*acq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pairs);
	KUNIT_ASSERT_NOT_NULL(test, acq);
	nr = max(cpus / 2, 1U);
	nr = min(nr, max_pairs);
	psem_test_stats_start();
	for (i = 0; i < nr; i++) {
		pairs[i] = kunit_kzalloc(test, sizeof(*pairs[i]), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, pairs[i]);
		pairs[i]->sem = psem_test_sem(test, 0);
	}
	/* Acquirer i and releaser i on different CPUs where there are two. */
	for_each_online_cpu(cpu) {
		if (c >= 2 * nr)
			break;
		tmpl.arg = pairs[c / 2];
		tmpl.sem = pairs[c / 2]->sem;
		tmpl.n = 2;	/* psem_test_unstick() frees a hung acquirer */
		tmpl.round = c % 2 ? bit_releaser_round : bit_acquirer_round;
		if (c % 2 == 0)
			acq[c / 2] = psem_test_spawn(test, &tmpl, cpu);
		else
			psem_test_spawn(test, &tmpl, cpu);
		c++;
	}
	/* One CPU: both helpers of the only pair share it. */
	if (c < 2) {
		tmpl.round = bit_releaser_round;
		psem_test_spawn(test, &tmpl, -1);
	}
	psem_test_post_step(test->priv, 1);
	psem_test_reap_all(test);

	for (i = 0; i < nr; i++) {
		struct psem *sem = pairs[i]->sem;

		KUNIT_EXPECT_EQ(test, acq[i]->ret, 0);
		/* Every round moved its k from the releaser to the acquirer. */
		KUNIT_EXPECT_EQ_MSG(test, psem_available(sem), 0L, "pair %u", i);
		KUNIT_EXPECT_EQ(test, psem_test_flags(sem), 0L);
		KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(sem), 0U);
	}
	/*
	 * Which side won each round is up to the CPUs: no assertion on it,
	 * only a report. A lost wake-up fails the hang guard above.
	 */
	kunit_info(test, "pairs %u: fast %llu locked %llu linked %llu hand-offs %llu\n",
		   nr, psem_test_stat(PSEM_STAT_FAST_RELEASE),
		   psem_test_stat(PSEM_STAT_LOCKED_RELEASE), psem_test_stat(PSEM_STAT_SLEEP),
		   psem_test_stat(PSEM_STAT_HANDOFF));
}

/*
 * Every CPU runs two helpers that mix every way of taking and returning
 * permits on one shared psem, each returning exactly what it took: the
 * final word must be the initial balance with no flag, no debt and
 * nobody linked. Run once per release rule.
 */
/* Covers the largest request, so that every acquire can be met. */
#define BIT_BALANCE	(PSEM_TEST_MAX_TAKE + 2)

static int bit_mixed_round(struct psem_test_thread *t, unsigned int i)
{
	struct psem *sem = t->sem;
	u32 r = psem_test_rand(&t->seed);
	long k = 1 + (r >> 8) % PSEM_TEST_MAX_TAKE, got;
	int ret, err = 0;

	switch (r % 6) {
	case 0:
		psem_test_note(&err, psem_acquire(sem, k));
		break;
	case 1:
		ret = psem_acquire_timeout(sem, k, 1 + (r >> 16) % 2);
		if (ret == -ETIME)
			k = 0;
		else
			psem_test_note(&err, ret);
		break;
	case 2:
		if (!psem_try_acquire(sem, k))
			k = 0;
		break;
	case 3:
		k = psem_drain(sem, k);
		break;
	case 4:
		/* Owe k, then pay it: the debt path and the bit. */
		psem_test_note(&err, psem_reduce(sem, k));
		psem_test_note(&err, psem_release(sem, k));
		k = 0;
		break;
	default:
		got = psem_try_acquire(sem, 1);
		if (got)
			psem_test_note(&err, psem_release_all_held(sem, 1));
		k = 0;
		break;
	}
	if (k)
		psem_test_note(&err, psem_release(sem, k));
	return err;
}

static void bit_mixed(struct kunit *test, bool fast, bool zero)
{
	struct psem_test_thread tmpl = {
		.round = bit_mixed_round, .iters = race_iters,
		.n = PSEM_TEST_MAX_TAKE,
	};
	struct psem *sem = psem_test_sem(test, BIT_BALANCE);
	unsigned int per_cpu = 2;
	struct psem_test_ctx *ctx = test->priv;

	psem_set_fast_release(fast);
	psem_set_zero_release(zero);
	tmpl.sem = sem;
	psem_test_spawn_per_cpu(test, &tmpl, per_cpu, PSEM_TEST_MAX_THREADS);
	psem_test_post_step(ctx, 1);
	psem_test_reap_all(test);
	psem_test_expect_all_ok(test);
	PSEM_TEST_EXPECT_IDLE(test, sem, BIT_BALANCE);
}

PSEM_TEST_RELEASE_RULE_CASES(psem_test_bit_mixed, bit_mixed);

PSEM_TEST_SUITE("psem_bit_race", "KUnit race tests for psem's waiters bit",
		psem_test_bit_lost_wakeup, psem_test_bit_mixed_waiters_bit,
		psem_test_bit_mixed_positive_balance,
		psem_test_bit_mixed_locked);
