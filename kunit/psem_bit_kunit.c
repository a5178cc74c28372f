// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for psem's waiters bit (Documentation/design.rst, "The
 * invariant"): which release takes the lock, when PSEM_WAITERS is set and
 * cleared, and races that would lose a wake-up or a permit if the bit were
 * managed wrongly.
 *
 *   psem_bit  the bit's life cycle, single-threaded with helper waiters
 *   psem_bit_race  kthreads on every online CPU: a release at zero racing
 *                  an acquirer about to link, and a mixed stress under
 *                  each release rule, with exact final accounting
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

/* The word, whole: the balance times PSEM_ONE plus the flags. */
static long pbt_word(struct psem *sem)
{
	return atomic_long_read(&sem->count);
}

/* ==== psem_bit ==== */

/*
 * A release with nobody waiting is lock-free at any balance, zero
 * included. This CPU holds the queue lock, so a release that took it
 * would deadlock (and lockdep or DEBUG_SPINLOCK would report recursion).
 * Under the seed's rule the same release at zero takes the lock.
 */
static void psem_test_bit_zero_release(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 0);
	unsigned long flags;
	int ret;

	pkt_stats_start();
	spin_lock_irqsave(&sem->wq.lock, flags);
	ret = psem_release(sem, 2);
	spin_unlock_irqrestore(&sem->wq.lock, flags);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, pbt_word(sem), 2 * PSEM_ONE);
	PKT_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 1);
	PKT_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 0);

	/* A holder of everything returns it with one exchange from zero. */
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 2));
	KUNIT_EXPECT_EQ(test, pbt_word(sem), 0L);
	spin_lock_irqsave(&sem->wq.lock, flags);
	ret = psem_release_all_held(sem, 2);
	spin_unlock_irqrestore(&sem->wq.lock, flags);
	KUNIT_EXPECT_EQ(test, ret, 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 2);
	PKT_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 0);

	/* The seed's rule: zero means "maybe waiters", so lock. */
	psem_set_zero_release(false);
	KUNIT_EXPECT_EQ(test, psem_drain(sem, 5), 2L);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 1);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);	/* positive: fast */
	PKT_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 3);
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 2));
	KUNIT_EXPECT_EQ(test, psem_release_all_held(sem, 2), 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 2);
	PKT_EXPECT_IDLE(test, sem, 2);
}

/*
 * The bit is set when a waiter links, stays set (the word exactly
 * PSEM_WAITERS) while it waits, sends releases to the lock, and is
 * cleared by the release that serves the last waiter, in the same RMW
 * that adds what is left.
 */
static void psem_test_bit_waiters(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 1);
	struct pkt_thread *a, *b;

	pkt_stats_start();
	a = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 3, 1);
	KUNIT_EXPECT_EQ(test, pbt_word(sem), PSEM_WAITERS);
	b = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 1, 2);
	KUNIT_EXPECT_EQ(test, pbt_word(sem), PSEM_WAITERS);

	/* Partial: a still needs 1; the bit stays, the balance zero. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 1);
	KUNIT_EXPECT_EQ(test, pbt_word(sem), PSEM_WAITERS);
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(sem, 1));
	KUNIT_EXPECT_EQ(test, psem_drain(sem, 1), 0L);

	/* Serves a, leaves b: the bit stays. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PKT_EXPECT_RETURNS(test, a, 0);
	KUNIT_EXPECT_EQ(test, pbt_word(sem), PSEM_WAITERS);
	KUNIT_EXPECT_EQ(test, pkt_nr_waiters(sem), 1U);

	/* Serves b and adds the rest, clearing the bit in one RMW. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 4), 0);
	PKT_EXPECT_RETURNS(test, b, 0);
	KUNIT_EXPECT_EQ(test, pbt_word(sem), 3 * PSEM_ONE);
	PKT_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 3);
	PKT_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 2);

	/* Nobody waits again: lock-free. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 1);
	PKT_EXPECT_IDLE(test, sem, 4);
}

/* A debt sets the bit too, and the release that pays it off clears it. */
static void psem_test_bit_debt(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 1);

	pkt_stats_start();
	KUNIT_EXPECT_EQ(test, psem_reduce(sem, 3), 0);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 2UL);
	KUNIT_EXPECT_EQ(test, pbt_word(sem), PSEM_WAITERS);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 1UL);
	KUNIT_EXPECT_EQ(test, pbt_word(sem), PSEM_WAITERS);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 0UL);
	KUNIT_EXPECT_EQ(test, pbt_word(sem), 2 * PSEM_ONE);
	PKT_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 2);
	PKT_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 0);

	/* A reduce that the balance covers owes nothing: no bit. */
	KUNIT_EXPECT_EQ(test, psem_reduce(sem, 2), 0);
	KUNIT_EXPECT_EQ(test, pbt_word(sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 1);
	PKT_EXPECT_IDLE(test, sem, 1);
}

/*
 * A waiter that gives up returns its partial grant and, as the last one,
 * clears the bit; one that is not the last leaves it set.
 */
static void psem_test_bit_cancel(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 0);
	struct pkt_thread *a, *b;

	a = pkt_linked_waiter(test, sem, PKT_INTERRUPTIBLE, 3, 1);
	b = pkt_linked_waiter(test, sem, PKT_INTERRUPTIBLE, 1, 2);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);	/* a needs 1 */
	KUNIT_EXPECT_EQ(test, pbt_word(sem), PSEM_WAITERS);

	/* b is not the head and holds nothing: the bit stays for a. */
	send_sig(SIGUSR1, b->task, 1);
	PKT_EXPECT_RETURNS(test, b, -EINTR);
	KUNIT_EXPECT_EQ(test, pbt_word(sem), PSEM_WAITERS);

	/* a gives its 2 back; nobody is left: bit cleared, 2 on the word. */
	send_sig(SIGUSR1, a->task, 1);
	PKT_EXPECT_RETURNS(test, a, -EINTR);
	KUNIT_EXPECT_EQ(test, pbt_word(sem), 2 * PSEM_ONE);
	PKT_EXPECT_IDLE(test, sem, 2);
}

/* Per-caller warnings: a bad count in one place does not silence another. */
static void psem_test_bit_warn_per_caller(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 1);
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
	PKT_EXPECT_IDLE(test, sem, 1);
}

static struct kunit_case pbt_cases[] = {
	KUNIT_CASE(psem_test_bit_zero_release),
	KUNIT_CASE(psem_test_bit_waiters),
	KUNIT_CASE(psem_test_bit_debt),
	KUNIT_CASE(psem_test_bit_cancel),
	KUNIT_CASE(psem_test_bit_warn_per_caller),
	{}
};

static struct kunit_suite pbt_suite = {
	.name		= "psem_bit",
	.init		= pkt_init,
	.exit		= pkt_exit,
	.test_cases	= pbt_cases,
};

/* ==== psem_bit_race ==== */

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
struct pbt_pair {
	struct psem	*sem;
	unsigned int	round;	/* announced by the acquirer */
	long		k;	/* what it asks for in that round */
	long		moved;
};

static int pbt_acquirer_fn(struct pkt_thread *t)
{
	struct pbt_pair *p = t->arg;
	unsigned int i;
	int err = 0;

	if (!pkt_wait_step(t, 1))
		return -EINTR;
	for (i = 1; i <= t->iters && !pkt_aborted(t); i++) {
		long k = 1 + (pkt_rand(&t->seed) & 1);

		WRITE_ONCE(p->k, k);
		/* Publishes @k; pairs with the acquire in the releaser. */
		smp_store_release(&p->round, i);
		pkt_note(&err, psem_acquire(p->sem, k));
		WRITE_ONCE(p->moved, p->moved + k);	/* only this helper */
		pkt_progress(t);
	}
	return err;
}

static int pbt_releaser_fn(struct pkt_thread *t)
{
	struct pbt_pair *p = t->arg;
	unsigned int i;
	int err = 0;

	if (!pkt_wait_step(t, 1))
		return -EINTR;
	for (i = 1; i <= t->iters && !pkt_aborted(t); i++) {
		unsigned int spins = 0;

		/* Pairs with the release in the acquirer. */
		while (smp_load_acquire(&p->round) < i && !pkt_aborted(t))
			if (++spins % 1024 == 0)
				schedule_timeout_uninterruptible(1);
		pkt_note(&err, psem_release(p->sem, READ_ONCE(p->k)));
		pkt_progress(t);
	}
	return err;
}

static void psem_test_bit_lost_wakeup(struct kunit *test)
{
	const unsigned int max_pairs = PKT_MAX_THREADS / 2;
	struct pkt_thread tmpl = { .iters = race_iters };
	unsigned int cpus = num_online_cpus(), nr, i;
	struct pkt_thread **acq;
	struct pbt_pair **pairs;
	int cpu, c = 0;

	/* On the heap: two arrays of pointers are too big a frame. */
	pairs = kunit_kcalloc(test, max_pairs, sizeof(*pairs), GFP_KERNEL);
	acq = kunit_kcalloc(test, max_pairs, sizeof(*acq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pairs);
	KUNIT_ASSERT_NOT_NULL(test, acq);
	nr = max(cpus / 2, 1U);
	nr = min(nr, max_pairs);
	pkt_stats_start();
	for (i = 0; i < nr; i++) {
		pairs[i] = kunit_kzalloc(test, sizeof(*pairs[i]), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, pairs[i]);
		pairs[i]->sem = pkt_sem(test, 0);
	}
	/* Acquirer i and releaser i on different CPUs where there are two. */
	for_each_online_cpu(cpu) {
		if (c >= 2 * nr)
			break;
		tmpl.arg = pairs[c / 2];
		tmpl.sem = pairs[c / 2]->sem;
		tmpl.n = 2;	/* pkt_unstick() frees a hung acquirer */
		tmpl.fn = c % 2 ? pbt_releaser_fn : pbt_acquirer_fn;
		if (c % 2 == 0)
			acq[c / 2] = pkt_spawn(test, &tmpl, cpu);
		else
			pkt_spawn(test, &tmpl, cpu);
		c++;
	}
	/* One CPU: both helpers of the only pair share it. */
	if (c < 2) {
		tmpl.fn = pbt_releaser_fn;
		pkt_spawn(test, &tmpl, -1);
	}
	pkt_post_step(test->priv, 1);
	pkt_reap_all(test);

	for (i = 0; i < nr; i++) {
		struct psem *sem = pairs[i]->sem;

		KUNIT_EXPECT_EQ(test, acq[i]->ret, 0);
		/* Every round moved its k from the releaser to the acquirer. */
		KUNIT_EXPECT_EQ_MSG(test, psem_available(sem), 0L, "pair %u", i);
		KUNIT_EXPECT_EQ(test, pkt_flags(sem), 0L);
		KUNIT_EXPECT_EQ(test, pkt_nr_waiters(sem), 0U);
	}
	/*
	 * Which side won each round is up to the CPUs: no assertion on it,
	 * only a report. A lost wake-up fails the hang guard above.
	 */
	kunit_info(test, "pairs %u: fast %llu locked %llu linked %llu hand-offs %llu\n",
		   nr, pkt_stat(PSEM_STAT_FAST_RELEASE),
		   pkt_stat(PSEM_STAT_LOCKED_RELEASE), pkt_stat(PSEM_STAT_SLEEP),
		   pkt_stat(PSEM_STAT_HANDOFF));
}

/*
 * Every CPU runs two helpers that mix every way of taking and returning
 * permits on one shared psem, each returning exactly what it took: the
 * final word must be the initial balance with no flag, no debt and
 * nobody linked. Run once per release rule.
 */
/* Covers the largest request, so that every acquire can be met. */
#define PBT_BALANCE	(PKT_MAX_TAKE + 2)

static int pbt_mixed_fn(struct pkt_thread *t)
{
	struct psem *sem = t->sem;
	unsigned int i;
	int err = 0;

	if (!pkt_wait_step(t, 1))
		return -EINTR;
	for (i = 0; i < t->iters && !pkt_aborted(t); i++) {
		u32 r = pkt_rand(&t->seed);
		long k = 1 + (r >> 8) % PKT_MAX_TAKE, got;
		int ret;

		switch (r % 6) {
		case 0:
			pkt_note(&err, psem_acquire(sem, k));
			break;
		case 1:
			ret = psem_acquire_timeout(sem, k, 1 + (r >> 16) % 2);
			if (ret == -ETIME)
				k = 0;
			else
				pkt_note(&err, ret);
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
			pkt_note(&err, psem_reduce(sem, k));
			pkt_note(&err, psem_release(sem, k));
			k = 0;
			break;
		default:
			got = psem_try_acquire(sem, 1);
			if (got)
				pkt_note(&err, psem_release_all_held(sem, 1));
			k = 0;
			break;
		}
		if (k)
			pkt_note(&err, psem_release(sem, k));
		pkt_progress(t);
	}
	return err;
}

static void pbt_mixed(struct kunit *test, bool fast, bool zero)
{
	struct pkt_thread tmpl = {
		.fn = pbt_mixed_fn, .iters = race_iters, .n = PKT_MAX_TAKE,
	};
	struct psem *sem = pkt_sem(test, PBT_BALANCE);
	unsigned int i, per_cpu = 2;
	struct pkt_ctx *ctx = test->priv;
	int cpu;

	psem_set_fast_release(fast);
	psem_set_zero_release(zero);
	tmpl.sem = sem;
	for_each_online_cpu(cpu)
		for (i = 0; i < per_cpu && ctx->nr < PKT_MAX_THREADS; i++)
			pkt_spawn(test, &tmpl, cpu);
	pkt_post_step(ctx, 1);
	pkt_reap_all(test);
	for (i = 0; i < ctx->nr; i++)
		KUNIT_EXPECT_EQ_MSG(test, ctx->thread[i]->ret, 0, "helper %u", i);
	PKT_EXPECT_IDLE(test, sem, PBT_BALANCE);
}

static void psem_test_bit_mixed_psem(struct kunit *test)
{
	pbt_mixed(test, true, true);
}

static void psem_test_bit_mixed_seed(struct kunit *test)
{
	pbt_mixed(test, true, false);
}

static void psem_test_bit_mixed_locked(struct kunit *test)
{
	pbt_mixed(test, false, true);
}

static struct kunit_case pbt_race_cases[] = {
	KUNIT_CASE(psem_test_bit_lost_wakeup),
	KUNIT_CASE(psem_test_bit_mixed_psem),
	KUNIT_CASE(psem_test_bit_mixed_seed),
	KUNIT_CASE(psem_test_bit_mixed_locked),
	{}
};

static struct kunit_suite pbt_race_suite = {
	.name		= "psem_bit_race",
	.init		= pkt_init,
	.exit		= pkt_exit,
	.test_cases	= pbt_race_cases,
};

kunit_test_suites(&pbt_suite, &pbt_race_suite);

MODULE_IMPORT_NS(PSEM_NS);
MODULE_IMPORT_NS(PSEM_KNOBS_NS);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for psem's waiters bit");
