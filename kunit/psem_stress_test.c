// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite psem_stress: kthreads on every online CPU race releases of
 * psem's core semaphore (kmod/psem_core.c) against acquisitions; the
 * retried release; the overflow race; release ordering.
 */

#include <kunit/test.h>
#include <linux/module.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_test.h"

static unsigned int stress_iters = 1000;
module_param(stress_iters, uint, 0444);
MODULE_PARM_DESC(stress_iters, "iterations of each helper in the race tests");

static unsigned int order_iters = 20000;
module_param(order_iters, uint, 0444);
MODULE_PARM_DESC(order_iters, "messages passed in each ordering test");

static void stress_info_stats(struct kunit *test)
{
	struct psem_stats s;

	psem_stats_snapshot(&s);
	kunit_info(test, "fast %llu locked %llu casfail %llu trip %llu honoured %llu sleep %llu handoff %llu cancel %llu\n",
		   s.count[PSEM_STAT_FAST_RELEASE],
		   s.count[PSEM_STAT_LOCKED_RELEASE],
		   s.count[PSEM_STAT_FAST_CAS_FAIL],
		   s.count[PSEM_STAT_FLAG_TRIP],
		   s.count[PSEM_STAT_FLAG_HONOURED],
		   s.count[PSEM_STAT_SLEEP], s.count[PSEM_STAT_HANDOFF],
		   s.count[PSEM_STAT_CANCEL]);
}

/* The first two online CPUs, for a race of two helpers; skips without. */
static void stress_two_cpus(struct kunit *test, unsigned int *cpu0,
			    unsigned int *cpu1)
{
	*cpu0 = cpumask_first(cpu_online_mask);
	*cpu1 = cpumask_next(*cpu0, cpu_online_mask);
	if (*cpu1 >= nr_cpu_ids)
		kunit_skip(test, "needs two online CPUs");
}

/* Takes @k permits one of five ways; returns how many it now holds. */
static long stress_race_take(struct psem *sem, long k, u32 how, int *err)
{
	int ret;

	switch (how % 5) {
	case 0:
		return psem_try_acquire(sem, k) ? k : 0;
	case 1:
		return psem_drain(sem, k);
	case 2:
		/* Often gives up with part assigned: that part must move on. */
		ret = psem_acquire_timeout(sem, k, 1);
		if (ret == -ETIME)
			return 0;
		break;
	case 3:
		ret = psem_acquire_interruptible(sem, k);
		break;
	default:
		ret = psem_acquire(sem, k);
		break;
	}
	psem_test_note(err, ret);
	return ret ? 0 : k;
}

/* Returns @held permits one of three ways. */
static void stress_race_give(struct psem *sem, long held, u32 how, int *err)
{
	if (!held)
		return;
	switch (how % 3) {
	case 0:
		psem_test_note(err, psem_release(sem, held));
		break;
	case 1:
		psem_test_note(err, psem_release_all_held(sem, held));
		break;
	default:
		/* Two releases: the second often finds a positive balance. */
		psem_test_note(err, psem_release(sem, 1));
		if (held > 1)
			psem_test_note(err, psem_release(sem, held - 1));
		break;
	}
}

static int stress_race_round(struct psem_test_thread *t, unsigned int i)
{
	long k = 1 + psem_test_rand(&t->seed) % PSEM_TEST_MAX_TAKE;
	int err = 0;
	long held = stress_race_take(t->sem, k, psem_test_rand(&t->seed), &err);

	stress_race_give(t->sem, held, psem_test_rand(&t->seed), &err);
	return err;
}

/*
 * Three helpers per online CPU take 1 to 4 permits every way psem offers,
 * sleeping and timing out often on a balance of 6, and give them back every
 * way too. Whatever interleaving happened, the end state is exact.
 */
static void stress_race_mixed(struct kunit *test, bool fast)
{
	const long initial = PSEM_TEST_MAX_TAKE + 2;
	struct psem_test_thread tmpl = {
		.round = stress_race_round, .n = PSEM_TEST_MAX_TAKE,
		.iters = stress_iters,
	};

	tmpl.sem = psem_test_sem(test, initial);
	psem_set_fast_release(fast);
	psem_test_stats_start();
	psem_test_spawn_per_cpu(test, &tmpl, 3, PSEM_TEST_MAX_THREADS);
	psem_test_post_step(test->priv, 1);
	psem_test_reap_all(test);

	psem_test_expect_all_ok(test);
	PSEM_TEST_EXPECT_IDLE(test, tmpl.sem, initial);
	if (!fast)
		PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 0);
	stress_info_stats(test);
}

static void psem_test_race_mixed_fast(struct kunit *test)
{
	stress_race_mixed(test, true);
}

static void psem_test_race_mixed_locked(struct kunit *test)
{
	stress_race_mixed(test, false);
}

/* At least @iters rounds, then on until the test posts step 2. */
static int stress_flag_round(struct psem_test_thread *t, unsigned int i)
{
	int err = 0;

	if (!psem_try_acquire(t->sem, 2))
		return 0;
	psem_test_note(&err, psem_release(t->sem, 1));
	/* Half the time a locked release on a positive balance. */
	if (i & 1)
		psem_test_note(&err, psem_release_all_held(t->sem, 1));
	else
		psem_test_note(&err, psem_release(t->sem, 1));
	return err;
}

/* The balance of the psems stress_race_until() runs on. */
#define STRESS_RACE_PERMITS	64

/*
 * Runs @round on @sem, a psem of STRESS_RACE_PERMITS, from two helpers per
 * CPU, with statistics on, until @evidence was counted (the race happened)
 * or the search ends; then checks that every helper succeeded and the psem
 * is idle and whole. Returns whether the race happened.
 */
static bool stress_race_until(struct kunit *test, struct psem *sem,
			      int (*round)(struct psem_test_thread *,
					   unsigned int),
			      enum psem_stat evidence)
{
	const long initial = STRESS_RACE_PERMITS;
	struct psem_test_thread tmpl = {
		.sem = sem, .round = round, .iters = 4 * stress_iters,
		.until = 2,
	};
	bool raced;

	psem_test_stats_start();
	psem_test_spawn_per_cpu(test, &tmpl, 2, PSEM_TEST_MAX_THREADS);
	psem_test_post_step(test->priv, 1);
	raced = psem_test_wait_until(psem_test_stat(evidence) > 0,
				     PSEM_TEST_RACE_SEARCH);
	psem_test_post_step(test->priv, 2);
	psem_test_reap_all(test);

	psem_test_expect_all_ok(test);
	PSEM_TEST_EXPECT_IDLE(test, tmpl.sem, initial);
	return raced;
}

/*
 * Logs the counters; skips if the race never happened, since then nothing
 * was shown, but never over a failure.
 */
static void stress_race_end(struct kunit *test, bool raced,
			    enum psem_stat evidence)
{
	stress_info_stats(test);
	if (!raced && test->status != KUNIT_FAILURE)
		kunit_skip(test, "no %s within the search: no race to check",
			   psem_stat_names[evidence]);
}

/*
 * Releases and try-acquires on a balance that stays positive, from every
 * CPU, so that locked releases lose races to fast ones and trip the flag.
 * The helpers go on until the race happened (a trip with the flag on, a
 * lost fast-path exchange with it off) or the search ends. Afterwards the
 * flag must be clear and the balance exact; with the switch off the flag
 * is never set nor honoured.
 */
static void stress_flag_race(struct kunit *test, bool flag)
{
	enum psem_stat evidence = flag ? PSEM_STAT_FLAG_TRIP :
					 PSEM_STAT_FAST_CAS_FAIL;
	bool raced;

	psem_set_contention_flag(flag);
	raced = stress_race_until(test, psem_test_sem(test, STRESS_RACE_PERMITS),
				  stress_flag_round, evidence);
	if (!flag) {
		PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_FLAG_TRIP, 0);
		PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_FLAG_HONOURED, 0);
	}
	stress_race_end(test, raced, evidence);
}

static void psem_test_flag_race_on(struct kunit *test)
{
	stress_flag_race(test, true);
}

static void psem_test_flag_race_off(struct kunit *test)
{
	stress_flag_race(test, false);
}

/* A take and a release of one, on a balance that never runs out. */
static int stress_retry_round(struct psem_test_thread *t, unsigned int i)
{
	int err = 0;

	if (psem_try_acquire(t->sem, 1))
		psem_test_note(&err, psem_release(t->sem, 1));
	return err;
}

/*
 * Takes and releases of one permit from every CPU, on @sem, whose balance
 * stays positive and that nobody waits on: the releases' exchanges lose
 * races to each other and to the takes, and retry on the word they read
 * back. None may take the lock (before the retry each lost exchange did,
 * and the flag sent others after it). The helpers go on until an exchange
 * was lost or the search ends.
 */
static void stress_retry_race(struct kunit *test, struct psem *sem)
{
	bool raced = stress_race_until(test, sem, stress_retry_round,
				       PSEM_STAT_FAST_CAS_FAIL);

	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 0);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_FLAG_TRIP, 0);
	stress_race_end(test, raced, PSEM_STAT_FAST_CAS_FAIL);
}

static void psem_test_retry_race(struct kunit *test)
{
	stress_retry_race(test, psem_test_sem(test, STRESS_RACE_PERMITS));
}

/* The same on a psem with a capacity: the retry checks the limit. */
static void psem_test_retry_race_capped(struct kunit *test)
{
	stress_retry_race(test, psem_test_capped_sem(test,
						     STRESS_RACE_PERMITS));
}

/**
 * struct stress_ovf - two releases of 1 racing on a balance of MAX - 1
 * @sem:      the psem
 * @arrived:  helpers at this round's start line, 2 per round
 * @finished: helpers past this round's release, 2 per round
 * @done_wq:  where the test waits for @finished
 * @ret:      this round's results, by helper
 */
struct stress_ovf {
	struct psem		*sem;
	atomic_t		arrived;
	atomic_t		finished;
	wait_queue_head_t	done_wq;
	int			ret[2];
};

static int stress_ovf_fn(struct psem_test_thread *t)
{
	struct stress_ovf *o = t->arg;
	unsigned int r;

	for (r = 1; r <= t->iters; r++) {
		if (!psem_test_wait_step(t, r))
			return -EINTR;
		/* Spin until both arrived, so that the releases overlap. */
		atomic_inc(&o->arrived);
		while (atomic_read(&o->arrived) < 2 * r && !psem_test_aborted(t))
			cpu_relax();
		o->ret[t->id] = psem_release(o->sem, 1);
		if (atomic_inc_return(&o->finished) == 2 * r)
			wake_up(&o->done_wq);
		psem_test_progress(t);
	}
	return 0;
}

static void psem_test_overflow_race(struct kunit *test)
{
	const unsigned int rounds = 100;
	struct psem_test_ctx *ctx = test->priv;
	unsigned int cpu0, cpu1, r, bad = 0;
	struct psem_test_thread tmpl = { .fn = stress_ovf_fn, .iters = rounds };
	struct stress_ovf *o;
	u64 warned;

	stress_two_cpus(test, &cpu0, &cpu1);

	o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	init_waitqueue_head(&o->done_wq);
	o->sem = psem_test_sem(test, 0);
	tmpl.arg = o;
	psem_test_stats_start();
	psem_test_spawn(test, &tmpl, cpu0);
	psem_test_spawn(test, &tmpl, cpu1);

	psem_set_quiet_warnings(true);
	warned = psem_warn_count();
	for (r = 1; r <= rounds; r++) {
		psem_drain(o->sem, PSEM_MAX_PERMITS);
		KUNIT_ASSERT_EQ(test, psem_release(o->sem, PSEM_MAX_PERMITS - 1), 0);
		psem_test_post_step(ctx, r);
		if (!wait_event_timeout(o->done_wq,
					atomic_read_acquire(&o->finished) == 2 * r,
					PSEM_TEST_HANG_GUARD)) {
			KUNIT_FAIL(test, "round %u hung", r);
			break;
		}
		/* Exactly one fits; the other is refused and adds nothing. */
		if (min(o->ret[0], o->ret[1]) != -EOVERFLOW ||
		    max(o->ret[0], o->ret[1]) != 0 ||
		    psem_available(o->sem) != PSEM_MAX_PERMITS)
			bad++;
	}
	KUNIT_EXPECT_EQ(test, psem_warn_count() - warned, (u64)rounds);
	psem_set_quiet_warnings(false);
	psem_test_reap_all(test);

	KUNIT_EXPECT_EQ(test, bad, 0U);
	psem_test_expect_all_ok(test);
	PSEM_TEST_EXPECT_IDLE(test, o->sem, PSEM_MAX_PERMITS);
	stress_info_stats(test);
}

#define STRESS_SLOTS	4

struct stress_slot {
	unsigned long	seq;
	unsigned long	val[3];
};

/**
 * struct stress_ring - a ring of messages passed between two CPUs
 * @full:       slots written and not yet read
 * @empty:      slots free for the writer
 * @slot:       the messages, accessed with plain loads and stores only
 * @mismatches: messages the reader found torn or stale (reader-owned)
 */
struct stress_ring {
	struct psem	*full;
	struct psem	*empty;
	struct stress_slot	slot[STRESS_SLOTS];
	unsigned long	mismatches;
};

/* Message @i: waits for an empty slot, fills it, and marks it full. */
static int stress_writer_round(struct psem_test_thread *t, unsigned int i)
{
	struct stress_ring *ring = t->arg;
	struct stress_slot *s = &ring->slot[i % STRESS_SLOTS];
	int err = 0;

	psem_test_note(&err, psem_acquire(ring->empty, 1));
	s->seq = i;
	s->val[0] = i * 3UL;
	s->val[1] = ~(unsigned long)i;
	s->val[2] = i ^ 0xa5a5UL;
	psem_test_note(&err, psem_release(ring->full, 1));
	return err;
}

/* Message @i: waits for a full slot, checks it, and frees it. */
static int stress_reader_round(struct psem_test_thread *t, unsigned int i)
{
	struct stress_ring *ring = t->arg;
	struct stress_slot *s = &ring->slot[i % STRESS_SLOTS];
	int err = 0;

	psem_test_note(&err, psem_acquire(ring->full, 1));
	if (s->seq != i || s->val[0] != i * 3UL ||
	    s->val[1] != ~(unsigned long)i || s->val[2] != (i ^ 0xa5a5UL))
		ring->mismatches++;
	psem_test_note(&err, psem_release(ring->empty, 1));
	return err;
}

/*
 * Message passing through two psems, writer and reader on two CPUs, the
 * messages in plain memory. Under the waiters-bit rule every release that
 * finds nobody waiting is lock-free, the writer's releases of an empty
 * "full" included; under the positive-balance rule only those on a
 * positive balance are, about half; the always-locked rule (_locked) sends
 * all of them to the lock.
 *
 * What it shows: the reader finds every message whole, and on a kernel
 * with CONFIG_KCSAN_WEAK_MEMORY, KCSAN reports a data race on the slots if
 * the fast path's exchange lacked its release ordering: it models a plain
 * access as delayed until the next release barrier, so the writer's stores
 * (or the reader's loads, before it frees the slot) overlap the other
 * side's accesses. KCSAN only delays accesses it samples, one in
 * kcsan.skip_watch (4000 by default); lower it (e.g. to 50 through
 * /sys/module/kcsan/parameters/skip_watch) for this test to catch a
 * relaxed fast path in most runs.
 *
 * What it does not show: KCSAN does not model a missing acquire (loads
 * hoisted above psem_take()), nor a missing release on the locked path's
 * balance update, which the spin_unlock() that follows within a few
 * instructions covers in KCSAN's model. x86 itself never reorders stores
 * with stores or loads with loads, so without KCSAN a missing barrier only
 * shows as a mismatch on weaker hardware.
 */
static void stress_release_ordering(struct kunit *test, bool fast, bool zero)
{
	struct psem_test_thread tmpl = { .iters = order_iters };
	struct psem_test_thread *w, *r;
	unsigned int cpu0, cpu1;
	struct stress_ring *ring;

	stress_two_cpus(test, &cpu0, &cpu1);

	ring = kunit_kzalloc(test, sizeof(*ring), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ring);
	ring->full = psem_test_sem(test, 0);
	ring->empty = psem_test_sem(test, STRESS_SLOTS);
	tmpl.arg = ring;
	tmpl.n = 1;
	psem_set_fast_release(fast);
	psem_set_zero_release(zero);
	psem_test_stats_start();

	tmpl.round = stress_writer_round;
	tmpl.sem = ring->empty;
	w = psem_test_spawn(test, &tmpl, cpu0);
	tmpl.round = stress_reader_round;
	tmpl.sem = ring->full;
	r = psem_test_spawn(test, &tmpl, cpu1);
	psem_test_post_step(test->priv, 1);
	psem_test_reap_all(test);

	KUNIT_EXPECT_EQ(test, w->ret, 0);
	KUNIT_EXPECT_EQ(test, r->ret, 0);
	KUNIT_EXPECT_EQ(test, ring->mismatches, 0UL);
	PSEM_TEST_EXPECT_IDLE(test, ring->full, 0);
	PSEM_TEST_EXPECT_IDLE(test, ring->empty, STRESS_SLOTS);
	/* Each path under test carried messages. */
	if (fast)
		KUNIT_EXPECT_GT(test, psem_test_stat(PSEM_STAT_FAST_RELEASE), 0ULL);
	else
		PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 0);
	KUNIT_EXPECT_GT(test, psem_test_stat(PSEM_STAT_LOCKED_RELEASE), 0ULL);
	stress_info_stats(test);
}

PSEM_TEST_RELEASE_RULE_CASES(psem_test_release_ordering,
			     stress_release_ordering);

PSEM_TEST_SUITE("psem_stress", "KUnit stress tests for psem's core semaphore",
		psem_test_race_mixed_fast, psem_test_race_mixed_locked,
		psem_test_flag_race_on, psem_test_flag_race_off,
		psem_test_retry_race, psem_test_retry_race_capped,
		psem_test_overflow_race,
		psem_test_release_ordering_waiters_bit,
		psem_test_release_ordering_positive_balance,
		psem_test_release_ordering_locked);
