// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for psem's lifecycle calls (kmod/psem_lifecycle.c) and its
 * debugfs view (kmod/psem_view.c).
 *
 *   psem_lifecycle       capacity, resize, close, reopen, quiesce, the
 *                        debugfs view, and every refusal
 *   psem_lifecycle_race  kthreads on every online CPU: close racing
 *                        hand-offs, resize racing releases, exact final
 *                        accounting through quiesce
 */

#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/seq_file.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_test.h"

static unsigned int race_iters = 500;
module_param(race_iters, uint, 0444);
MODULE_PARM_DESC(race_iters, "iterations of each helper in the race tests");

static struct psem *plt_sem(struct kunit *test, long capacity)
{
	struct psem *sem = kunit_kzalloc(test, sizeof(*sem), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, sem);
	KUNIT_ASSERT_EQ(test, psem_init_capacity(sem, capacity), 0);
	return sem;
}

static int plt_quiesce_fn(struct pkt_thread *t)
{
	return psem_quiesce(t->sem, t->timeout);
}

/* Starts a quiesce and waits until it is linked as waiter number @nr. */
static struct pkt_thread *plt_quiescer(struct kunit *test, struct psem *sem,
				       unsigned int nr)
{
	const struct pkt_thread tmpl = {
		.fn = plt_quiesce_fn, .sem = sem, .n = psem_capacity(sem),
		.timeout = MAX_SCHEDULE_TIMEOUT,
	};
	struct pkt_thread *t = pkt_spawn(test, &tmpl, -1);

	KUNIT_ASSERT_TRUE_MSG(test, pkt_wait_for(pkt_nr_waiters(sem) == nr),
			      "quiesce not linked");
	return t;
}

/* ==== psem_lifecycle ==== */

/* A capacity bounds requests and releases; bad ones change nothing. */
static void psem_test_capacity(struct kunit *test)
{
	struct psem *sem = plt_sem(test, 4);
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
	PKT_EXPECT_REFUSED(test, sem, psem_release(sem, 2), -EOVERFLOW);
	PKT_EXPECT_REFUSED(test, sem, psem_reduce(sem, 1), -EINVAL);
	/* A capacity out of range leaves a psem of capacity zero. */
	KUNIT_EXPECT_EQ(test, psem_init_capacity(&plain, -1), -EINVAL);
	KUNIT_EXPECT_EQ(test, psem_capacity(&plain), 0L);
	KUNIT_EXPECT_EQ(test, psem_available(&plain), 0L);
	/* Without a capacity: unbounded, and no resize or quiesce. */
	psem_init(&plain, 2);
	KUNIT_EXPECT_EQ(test, psem_capacity(&plain), PSEM_MAX_PERMITS);
	PKT_EXPECT_REFUSED(test, &plain, psem_resize(&plain, 8), -EINVAL);
	PKT_EXPECT_REFUSED(test, &plain, psem_quiesce(&plain, 1), -EINVAL);
	PKT_EXPECT_REFUSED(test, sem, psem_resize(sem, -1), -EINVAL);
	PKT_EXPECT_REFUSED(test, sem, psem_resize(sem, PSEM_MAX_PERMITS + 1),
			   -EINVAL);
	psem_set_quiet_warnings(false);
	KUNIT_EXPECT_EQ(test, psem_capacity(sem), 4L);
	KUNIT_EXPECT_EQ(test, psem_capacity(&plain), PSEM_MAX_PERMITS);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PKT_EXPECT_IDLE(test, sem, 4);
}

/* Growing serves waiters in FIFO order; shrinking leaves a debt. */
static void psem_test_resize(struct kunit *test)
{
	struct psem *sem = plt_sem(test, 2);
	struct pkt_thread *a;

	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 2));
	a = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 2, 1);
	KUNIT_EXPECT_EQ(test, psem_resize(sem, 4), 0);
	PKT_EXPECT_RETURNS(test, a, 0);
	KUNIT_EXPECT_EQ(test, psem_capacity(sem), 4L);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_EQ(test, pkt_flags(sem), 0L);

	/* 4 out; give 1 back, then shrink by 2: 1 now, 1 as debt. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_resize(sem, 2), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 1UL);
	KUNIT_EXPECT_EQ(test, pkt_flags(sem), PSEM_WAITERS);
	/* The 3 still out come home: 1 pays the debt, 2 fill the capacity. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);
	PKT_EXPECT_IDLE(test, sem, 2);
	KUNIT_EXPECT_EQ(test, psem_capacity(sem), 2L);
	/* Same size: nothing changes. */
	KUNIT_EXPECT_EQ(test, psem_resize(sem, 2), 0);
	PKT_EXPECT_IDLE(test, sem, 2);
}

/* Waiters that no longer fit fail with -E2BIG and give their grant back. */
static void psem_test_resize_too_big(struct kunit *test)
{
	struct psem *sem = plt_sem(test, 4);
	struct pkt_thread *a, *b;

	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 4));
	a = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 3, 1);
	b = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 1, 2);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);	/* a has 2 of 3 */
	KUNIT_EXPECT_EQ(test, psem_resize(sem, 2), 0);
	PKT_EXPECT_RETURNS(test, a, -E2BIG);
	/* a's 2 paid the 2 of debt the shrink left: b still waits. */
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 0UL);
	KUNIT_EXPECT_EQ(test, pkt_nr_waiters(sem), 1U);
	KUNIT_EXPECT_FALSE(test, pkt_done(b));
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);	/* the 2 still out */
	PKT_EXPECT_RETURNS(test, b, 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);	/* b's */
	PKT_EXPECT_IDLE(test, sem, 2);
}

/* Close fails waiters and every later take; releases still come home. */
static void psem_test_close(struct kunit *test)
{
	struct psem *sem = plt_sem(test, 4);
	struct pkt_thread *a, *b;

	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 3));
	a = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 3, 1);	/* gets 1 */
	b = pkt_linked_waiter(test, sem, PKT_KILLABLE, 1, 2);
	KUNIT_EXPECT_EQ(test, psem_close(sem), 0);
	PKT_EXPECT_RETURNS(test, a, -ESHUTDOWN);
	PKT_EXPECT_RETURNS(test, b, -ESHUTDOWN);
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
	PKT_EXPECT_IDLE(test, sem, 4);
}

/* Quiesce waits for every permit, is not failed by close, and returns. */
static void psem_test_quiesce(struct kunit *test)
{
	struct psem *sem = plt_sem(test, 3);
	struct pkt_thread *q;

	KUNIT_EXPECT_EQ(test, psem_quiesce(sem, 0), 0);	/* all home */
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 2));
	KUNIT_EXPECT_EQ(test, psem_quiesce(sem, 0), -ETIME);
	KUNIT_EXPECT_EQ(test, psem_quiesce(sem, 1), -ETIME);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 1L);
	KUNIT_EXPECT_EQ(test, pkt_flags(sem), 0L);

	q = plt_quiescer(test, sem, 1);
	KUNIT_EXPECT_EQ(test, pkt_flags(sem), PSEM_WAITERS);
	KUNIT_EXPECT_EQ(test, psem_close(sem), 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	KUNIT_EXPECT_FALSE(test, pkt_done(q));
	KUNIT_EXPECT_EQ(test, pkt_nr_waiters(sem), 1U);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PKT_EXPECT_RETURNS(test, q, 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 3L);
	KUNIT_EXPECT_EQ(test, psem_reopen(sem), 0);
	PKT_EXPECT_IDLE(test, sem, 3);
}

/* A resize while quiescing: the quiesce waits for the new capacity. */
static void psem_test_quiesce_resize(struct kunit *test)
{
	struct psem *sem = plt_sem(test, 3);
	struct pkt_thread *q;

	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 3));
	q = plt_quiescer(test, sem, 1);
	KUNIT_EXPECT_EQ(test, psem_resize(sem, 1), 0);	/* debt 2 */
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 2UL);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);	/* pays it */
	KUNIT_EXPECT_FALSE(test, pkt_done(q));
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PKT_EXPECT_RETURNS(test, q, 0);
	PKT_EXPECT_IDLE(test, sem, 1);

	/* Growing while quiescing raises its target. */
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 1));
	q = plt_quiescer(test, sem, 1);
	KUNIT_EXPECT_EQ(test, psem_resize(sem, 2), 0);
	KUNIT_EXPECT_FALSE(test, pkt_done(q));
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PKT_EXPECT_RETURNS(test, q, 0);
	PKT_EXPECT_IDLE(test, sem, 2);
}

/* Prints the view of @sem into @buf, as reading its debugfs file would. */
static void plt_read_view(struct psem *sem, char *buf, size_t len)
{
	struct seq_file m = { .buf = buf, .size = len - 1 };

	psem_debugfs_show(&m, sem);
	buf[min(m.count, len - 1)] = '\0';
}

/* The view shows the state and each waiter; refusals change nothing. */
static void psem_test_view(struct kunit *test)
{
	struct psem *sem = plt_sem(test, 4);
	struct psem *other = plt_sem(test, 1);
	char *buf = kunit_kzalloc(test, 2048, GFP_KERNEL);
	struct pkt_thread *a;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, psem_debugfs_register(sem, "kunit_view"), 0);
	KUNIT_EXPECT_EQ(test, psem_debugfs_register(sem, "kunit_view2"), -EEXIST);
	KUNIT_EXPECT_EQ(test, psem_debugfs_register(other, "kunit_view"), -EEXIST);
	KUNIT_EXPECT_EQ(test, psem_debugfs_register(other, "a/b"), -EINVAL);
	KUNIT_EXPECT_EQ(test, psem_debugfs_register(other, ""), -EINVAL);
	KUNIT_EXPECT_EQ(test, psem_debugfs_unregister(other), -ENOENT);

	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 3));
	a = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 3, 1);	/* gets 1 */
	plt_read_view(sem, buf, 2048);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "capacity 4\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "closed   no\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "acquire needs 2 of 3"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "total    1\n"));
	kunit_info(test, "view:\n%s", buf);

	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	PKT_EXPECT_RETURNS(test, a, 0);
	KUNIT_EXPECT_EQ(test, psem_debugfs_unregister(sem), 0);
	KUNIT_EXPECT_EQ(test, psem_debugfs_unregister(sem), -ENOENT);
	/* The name is free again. */
	KUNIT_EXPECT_EQ(test, psem_debugfs_register(other, "kunit_view"), 0);
	KUNIT_EXPECT_EQ(test, psem_debugfs_unregister(other), 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 4), 0);
	PKT_EXPECT_IDLE(test, sem, 4);
}

static struct kunit_case plt_cases[] = {
	KUNIT_CASE(psem_test_capacity),
	KUNIT_CASE(psem_test_resize),
	KUNIT_CASE(psem_test_resize_too_big),
	KUNIT_CASE(psem_test_close),
	KUNIT_CASE(psem_test_quiesce),
	KUNIT_CASE(psem_test_quiesce_resize),
	KUNIT_CASE(psem_test_view),
	{}
};

static struct kunit_suite plt_suite = {
	.name		= "psem_lifecycle",
	.init		= pkt_init,
	.exit		= pkt_exit,
	.test_cases	= plt_cases,
};

/* ==== psem_lifecycle_race ==== */

#define PLT_CAPACITY	8

/* Counts of how the helpers' waits ended. */
struct plt_tally {
	atomic_t	served;
	atomic_t	shut;
	atomic_t	too_big;
};

/*
 * Acquires and releases random amounts until the test ends (at least
 * @iters, then on until the test posts step 2); every wait ends in exactly
 * one way, served (then it holds the permits and gives them back) or
 * refused (holding nothing).
 */
static int plt_worker_fn(struct pkt_thread *t)
{
	struct plt_tally *tally = t->arg;
	unsigned int i;
	int err = 0;

	if (!pkt_wait_step(t, 1))
		return -EINTR;
	for (i = 0; (i < t->iters || !pkt_step_posted(t, 2)) && !pkt_aborted(t); i++) {
		u32 r = pkt_rand(&t->seed);
		long k = 1 + r % PLT_CAPACITY;
		int ret = r & 256 ? psem_acquire(t->sem, k) :
				    psem_acquire_killable(t->sem, k);

		if (!ret) {
			atomic_inc(&tally->served);
			pkt_note(&err, psem_release(t->sem, k));
		} else if (ret == -ESHUTDOWN) {
			atomic_inc(&tally->shut);
		} else if (ret == -E2BIG) {
			atomic_inc(&tally->too_big);
		} else {
			pkt_note(&err, ret);
		}
		pkt_progress(t);
	}
	return err;
}

/* Closes and reopens, or resizes, while the workers run. */
static int plt_churn_fn(struct pkt_thread *t)
{
	unsigned int i;
	int err = 0;

	if (!pkt_wait_step(t, 1))
		return -EINTR;
	for (i = 0; i < t->iters && !pkt_aborted(t); i++) {
		u32 r = pkt_rand(&t->seed);

		if (t->op == PKT_ACQUIRE) {	/* close, then reopen */
			pkt_note(&err, psem_close(t->sem));
			schedule_timeout_uninterruptible(r % 2);
			pkt_note(&err, psem_reopen(t->sem));
		} else {
			pkt_note(&err, psem_resize(t->sem,
						   1 + r % (2 * PLT_CAPACITY)));
		}
		schedule_timeout_uninterruptible(1);
		pkt_progress(t);
	}
	return err;
}

static void plt_race(struct kunit *test, enum pkt_op churn)
{
	struct pkt_thread tmpl = { .iters = race_iters };
	struct pkt_ctx *ctx = test->priv;
	struct psem *sem = plt_sem(test, PLT_CAPACITY);
	struct pkt_thread *churner;
	struct plt_tally *tally;
	unsigned int i;
	int cpu;

	tally = kunit_kzalloc(test, sizeof(*tally), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tally);
	tmpl.sem = sem;
	tmpl.arg = tally;
	tmpl.fn = plt_worker_fn;
	tmpl.n = PLT_CAPACITY;
	for_each_online_cpu(cpu)
		for (i = 0; i < 2 && ctx->nr < PKT_MAX_THREADS - 1; i++)
			pkt_spawn(test, &tmpl, cpu);
	tmpl.fn = plt_churn_fn;
	tmpl.op = churn;
	tmpl.iters = race_iters / 10;
	churner = pkt_spawn(test, &tmpl, -1);
	pkt_post_step(ctx, 1);
	/*
	 * The workers go on past the churn: a churner that closed first could
	 * see every worker's rounds refused while it slept (served 0 of 2000,
	 * debug-6.1). With the churn over the psem is open and large enough
	 * for some of the requests, so the workers must be served soon.
	 */
	pkt_wait_done(churner);
	pkt_wait_until(atomic_read(&tally->served) > 0, PKT_RACE_SEARCH);
	pkt_post_step(ctx, 2);
	pkt_reap_all(test);

	for (i = 0; i < ctx->nr; i++)
		KUNIT_EXPECT_EQ_MSG(test, ctx->thread[i]->ret, 0, "helper %u", i);
	/* Every permit is home: a quiesce completes, then the exact state. */
	KUNIT_EXPECT_EQ(test, psem_resize(sem, PLT_CAPACITY), 0);
	KUNIT_EXPECT_EQ(test, psem_quiesce(sem, 10 * HZ), 0);
	PKT_EXPECT_IDLE(test, sem, PLT_CAPACITY);
	KUNIT_EXPECT_FALSE(test, psem_is_closed(sem));
	/* Open, and asked for what fits, for PKT_RACE_SEARCH: some were served. */
	KUNIT_EXPECT_GT(test, atomic_read(&tally->served), 0);
	kunit_info(test, "served %d, shut down %d, too big %d\n",
		   atomic_read(&tally->served), atomic_read(&tally->shut),
		   atomic_read(&tally->too_big));
}

static void psem_test_close_race(struct kunit *test)
{
	plt_race(test, PKT_ACQUIRE);
}

static void psem_test_resize_race(struct kunit *test)
{
	plt_race(test, PKT_TIMEOUT);
}

static struct kunit_case plt_race_cases[] = {
	KUNIT_CASE(psem_test_close_race),
	KUNIT_CASE(psem_test_resize_race),
	{}
};

static struct kunit_suite plt_race_suite = {
	.name		= "psem_lifecycle_race",
	.init		= pkt_init,
	.exit		= pkt_exit,
	.test_cases	= plt_race_cases,
};

kunit_test_suites(&plt_suite, &plt_race_suite);

MODULE_IMPORT_NS(PSEM_NS);
MODULE_IMPORT_NS(PSEM_KNOBS_NS);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for psem's lifecycle calls");
