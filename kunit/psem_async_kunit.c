// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for psem's asynchronous waiters (kmod/psem_async.c).
 *
 *   psem_async       FIFO with sleeping waiters and partial grants, grants
 *                    from hard IRQ, close and resize, a callback that
 *                    releases into its own psem, cancel, the work variant
 *   psem_async_race  cancel racing grant from kthreads on every CPU: each
 *                    wait ends exactly once, with exact accounting
 */

#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/workqueue.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_test.h"

static unsigned int race_iters = 1000;
/*
 * How long the race's sleepers hold their permits, busy: udelay(), not
 * usleep_range(), whose hrtimer sleep has a benign data race that KCSAN
 * reports on 6.1 (see psem_test.h).
 */
#define PAT_HOLD_US	50
module_param(race_iters, uint, 0444);
MODULE_PARM_DESC(race_iters, "iterations of each helper in the race tests");

/**
 * struct pat_req - a request waiting asynchronously, as a driver embeds it
 * @aw:        the waiter
 * @sem:       its psem, for callbacks that release into it
 * @calls:     how many times the callback ran; published with release
 * @result:    the callback's result
 * @in_hardirq: whether the callback ran in hard IRQ
 * @give_back: the callback releases what it was granted, at once
 * @order:     the callback's rank among all callbacks of the test
 * @rank:      the counter that @order is taken from
 */
struct pat_req {
	struct psem_async	aw;
	struct psem		*sem;
	int			calls;
	int			result;
	bool			in_hardirq;
	bool			give_back;
	int			order;
	atomic_t		*rank;
};

static void pat_fn(struct psem_async *aw, int result)
{
	struct pat_req *r = container_of(aw, struct pat_req, aw);

	r->result = result;
	r->in_hardirq = in_hardirq();
	if (r->rank)
		r->order = atomic_inc_return(r->rank);
	if (r->give_back && !result)
		psem_release(r->sem, r->aw.w.n);
	/* Publishes the fields above; pairs with pat_calls(). */
	smp_store_release(&r->calls, r->calls + 1);
}

static int pat_calls(struct pat_req *r)
{
	return smp_load_acquire(&r->calls);	/* pairs with pat_fn() */
}

static struct pat_req *pat_req(struct kunit *test, struct psem *sem)
{
	struct pat_req *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->sem = sem;
	return r;
}

/* ==== psem_async ==== */

static void psem_test_async_immediate(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 3);
	struct pat_req *r = pat_req(test, sem);

	KUNIT_EXPECT_EQ(test, psem_acquire_async(sem, 2, &r->aw, pat_fn), 0);
	KUNIT_EXPECT_EQ(test, psem_acquire_async(sem, 0, &r->aw, pat_fn), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 1L);
	KUNIT_EXPECT_EQ(test, pat_calls(r), 0);
	psem_set_quiet_warnings(true);
	PKT_EXPECT_REFUSED(test, sem, psem_acquire_async(sem, -1, &r->aw, pat_fn),
			   -EINVAL);
	psem_set_quiet_warnings(false);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	PKT_EXPECT_IDLE(test, sem, 3);
}

/*
 * Sleeping A(2), async B(3), sleeping C(1): releases serve them in that
 * order, with partial grants, and B's callback runs in the releaser's
 * context once its third permit arrives.
 */
static void psem_test_async_fifo(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 0);
	struct pat_req *b = pat_req(test, sem);
	struct pkt_thread *a, *c;

	a = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 2, 1);
	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 3, &b->aw, pat_fn),
			-EINPROGRESS);
	KUNIT_EXPECT_EQ(test, pkt_nr_waiters(sem), 2U);
	c = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 1, 3);

	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);	/* A 2, B 1 */
	PKT_EXPECT_RETURNS(test, a, 0);
	KUNIT_EXPECT_EQ(test, pat_calls(b), 0);
	KUNIT_EXPECT_EQ(test, b->aw.w.needed, 2L);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);	/* B done */
	KUNIT_EXPECT_EQ(test, pat_calls(b), 1);
	KUNIT_EXPECT_EQ(test, b->result, 0);
	KUNIT_EXPECT_FALSE(test, pkt_done(c));
	KUNIT_EXPECT_EQ(test, pkt_flags(sem), PSEM_WAITERS);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);	/* C */
	PKT_EXPECT_RETURNS(test, c, 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 6), 0);	/* all three */
	PKT_EXPECT_IDLE(test, sem, 6);
}

struct pat_irq {
	struct hrtimer	timer;
	struct psem	*sem;
	long		n;
	bool		fired;
};

static enum hrtimer_restart pat_irq_release(struct hrtimer *timer)
{
	struct pat_irq *p = container_of(timer, struct pat_irq, timer);

	psem_release(p->sem, p->n);
	smp_store_release(&p->fired, true);	/* pairs with the poll */
	return HRTIMER_NORESTART;
}

/*
 * A grant completed by a release in hard IRQ calls the callback there. The
 * timer is a plain (not _HARD) hrtimer: it expires in hard IRQ, except on
 * PREEMPT_RT, where the queue lock sleeps and such a timer runs in softirq
 * instead, and the callback must see !in_hardirq(). Lockdep's
 * PROVE_RAW_LOCK_NESTING accepts a spinlock_t there on any kernel.
 */
static void psem_test_async_hardirq(struct kunit *test)
{
	const bool hard = !IS_ENABLED(CONFIG_PREEMPT_RT);
	const enum hrtimer_mode mode = HRTIMER_MODE_REL;
	struct psem *sem = pkt_sem(test, 0);
	struct pat_req *r = pat_req(test, sem);
	struct pat_irq *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 2, &r->aw, pat_fn),
			-EINPROGRESS);
	p->sem = sem;
	p->n = 2;
	hrtimer_setup(&p->timer, pat_irq_release, CLOCK_MONOTONIC, mode);
	hrtimer_start(&p->timer, ns_to_ktime(1000), mode);
	/* Pairs with the store in pat_irq_release(). */
	KUNIT_EXPECT_TRUE(test, pkt_wait_for(smp_load_acquire(&p->fired)));
	hrtimer_cancel(&p->timer);
	KUNIT_EXPECT_EQ(test, pat_calls(r), 1);
	KUNIT_EXPECT_EQ(test, r->result, 0);
	KUNIT_EXPECT_EQ(test, r->in_hardirq, hard);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	PKT_EXPECT_IDLE(test, sem, 2);
}

/* Close and resize end asynchronous waits too, giving grants back. */
static void psem_test_async_close_resize(struct kunit *test)
{
	struct psem *sem = kunit_kzalloc(test, sizeof(*sem), GFP_KERNEL);
	struct pat_req *a, *b;

	KUNIT_ASSERT_NOT_NULL(test, sem);
	KUNIT_ASSERT_EQ(test, psem_init_capacity(sem, 4), 0);
	a = pat_req(test, sem);
	b = pat_req(test, sem);
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 3));
	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 4, &a->aw, pat_fn),
			-EINPROGRESS);	/* holds 1 */
	KUNIT_EXPECT_EQ(test, psem_acquire_async(sem, 5, &b->aw, pat_fn), -E2BIG);
	KUNIT_EXPECT_EQ(test, psem_resize(sem, 3), 0);
	KUNIT_EXPECT_EQ(test, pat_calls(a), 1);
	KUNIT_EXPECT_EQ(test, a->result, -E2BIG);
	/* Its 1 paid the debt of 1: 3 out of a capacity of 3. */
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 0UL);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);

	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 2, &b->aw, pat_fn),
			-EINPROGRESS);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);	/* b holds 1 */
	KUNIT_EXPECT_EQ(test, psem_close(sem), 0);
	KUNIT_EXPECT_EQ(test, pat_calls(b), 1);
	KUNIT_EXPECT_EQ(test, b->result, -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 1L);
	KUNIT_EXPECT_EQ(test, psem_acquire_async(sem, 1, &b->aw, pat_fn),
			-ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	KUNIT_EXPECT_EQ(test, psem_reopen(sem), 0);
	PKT_EXPECT_IDLE(test, sem, 3);
}

/* A callback that releases into the same psem: no recursion on the lock. */
static void psem_test_async_callback_releases(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 0);
	struct pat_req *a = pat_req(test, sem), *b = pat_req(test, sem);

	a->give_back = true;
	b->give_back = true;
	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 2, &a->aw, pat_fn),
			-EINPROGRESS);
	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 2, &b->aw, pat_fn),
			-EINPROGRESS);
	/* Serves a, whose release in its callback serves b, whose ... */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	KUNIT_EXPECT_EQ(test, pat_calls(a), 1);
	KUNIT_EXPECT_EQ(test, pat_calls(b), 1);
	PKT_EXPECT_IDLE(test, sem, 2);
}

/* Cancel returns the partial grant to the next waiter; fn never runs. */
static void psem_test_async_cancel(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 1);
	struct pat_req *a = pat_req(test, sem), *b = pat_req(test, sem);

	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 3, &a->aw, pat_fn),
			-EINPROGRESS);	/* holds 1 */
	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 1, &b->aw, pat_fn),
			-EINPROGRESS);
	KUNIT_EXPECT_TRUE(test, psem_cancel_async(sem, &a->aw));
	KUNIT_EXPECT_EQ(test, pat_calls(a), 0);
	KUNIT_EXPECT_EQ(test, pat_calls(b), 1);	/* got a's permit */
	KUNIT_EXPECT_FALSE(test, psem_cancel_async(sem, &b->aw));
	KUNIT_EXPECT_FALSE(test, psem_cancel_async_sync(sem, &b->aw));
	KUNIT_EXPECT_EQ(test, pkt_flags(sem), 0L);

	/* A queued one, cancelled synchronously: a module may now unload. */
	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 1, &a->aw, pat_fn),
			-EINPROGRESS);
	KUNIT_EXPECT_TRUE(test, psem_cancel_async_sync(sem, &a->aw));
	KUNIT_EXPECT_EQ(test, pat_calls(a), 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PKT_EXPECT_IDLE(test, sem, 1);
}

struct pat_work {
	struct psem_async_work	aww;
	bool			in_task;
	bool			ran;
};

static void pat_work_fn(struct work_struct *work)
{
	struct pat_work *w = container_of(work, struct pat_work, aww.work);

	w->in_task = in_task();
	smp_store_release(&w->ran, true);	/* pairs with the poll */
}

/* The work variant completes in process context. */
static void psem_test_async_work(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 0);
	struct pat_work *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	psem_init_async_work(&w->aww, pat_work_fn);
	KUNIT_ASSERT_EQ(test, psem_acquire_async_work(sem, 1, &w->aww),
			-EINPROGRESS);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	/* Pairs with the store in pat_work_fn(). */
	KUNIT_EXPECT_TRUE(test, pkt_wait_for(smp_load_acquire(&w->ran)));
	flush_work(&w->aww.work);
	KUNIT_EXPECT_TRUE(test, w->in_task);
	KUNIT_EXPECT_EQ(test, w->aww.result, 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PKT_EXPECT_IDLE(test, sem, 1);
}

static struct kunit_case pat_cases[] = {
	KUNIT_CASE(psem_test_async_immediate),
	KUNIT_CASE(psem_test_async_fifo),
	KUNIT_CASE(psem_test_async_hardirq),
	KUNIT_CASE(psem_test_async_close_resize),
	KUNIT_CASE(psem_test_async_callback_releases),
	KUNIT_CASE(psem_test_async_cancel),
	KUNIT_CASE(psem_test_async_work),
	{}
};

static struct kunit_suite pat_suite = {
	.name		= "psem_async",
	.init		= pkt_init,
	.exit		= pkt_exit,
	.test_cases	= pat_cases,
};

/* ==== psem_async_race ==== */

/*
 * What one async helper saw: each of its waits ends in exactly one way.
 * The test reads @cancelled and @called while the helper runs, to know
 * when both outcomes of the race have happened: marked accesses.
 */
struct pat_tally {
	struct pat_req	req;
	unsigned int	rounds;
	unsigned int	immediate;
	unsigned int	cancelled;
	unsigned int	called;
	unsigned int	wrong;
};

/* Counts one outcome where the test may be reading it. */
static void pat_count(unsigned int *outcome)
{
	WRITE_ONCE(*outcome, *outcome + 1);
}

/*
 * Queues an asynchronous acquire, then races a cancel against the grants
 * that the sleeping helpers' releases make; holds what it gets briefly.
 * At least @iters rounds, then on until the test posts step 2.
 */
static int pat_async_fn(struct pkt_thread *t)
{
	struct pat_tally *y = t->arg;
	struct pat_req *r = &y->req;
	unsigned int i;
	int err = 0;

	if (!pkt_wait_step(t, 1))
		return -EINTR;
	for (i = 0; i < t->iters || !pkt_step_posted(t, 2); i++) {
		u32 rnd = pkt_rand(&t->seed);
		long k = 1 + rnd % 2;
		int calls = pat_calls(r), ret;

		if (pkt_aborted(t))
			break;
		y->rounds++;
		ret = psem_acquire_async(t->sem, k, &r->aw, pat_fn);
		if (!ret) {
			y->immediate++;
		} else if (ret != -EINPROGRESS) {
			pkt_note(&err, ret);
			continue;
		} else {
			/* Sometimes give the sleepers' releases time to land. */
			if (rnd & 4)
				udelay(rnd & 8 ? 200 : 5);
			if (psem_cancel_async(t->sem, &r->aw)) {
				pat_count(&y->cancelled);
				/* Never called back, then or later. */
				if (pat_calls(r) != calls)
					y->wrong++;
				pkt_progress(t);
				continue;
			}
			/*
			 * Completed: the callback runs exactly once, maybe
			 * in a helper on this CPU: let it run.
			 */
			while (pat_calls(r) == calls && !pkt_aborted(t))
				schedule_timeout_uninterruptible(1);
			if (pat_calls(r) != calls + 1 || r->result)
				y->wrong++;
			pat_count(&y->called);
		}
		pkt_note(&err, psem_release(t->sem, k));
		pkt_progress(t);
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
	if (pat_calls(r) != y->called)
		y->wrong++;
	return err;
}

static int pat_sleeper_fn(struct pkt_thread *t)
{
	unsigned int i;
	int err = 0;

	if (!pkt_wait_step(t, 1))
		return -EINTR;
	/* As long as the async helpers run: their race needs the sleepers. */
	for (i = 0; i < t->iters || !pkt_step_posted(t, 2); i++) {
		long k = 1 + pkt_rand(&t->seed) % 2;

		if (pkt_aborted(t))
			break;
		pkt_note(&err, psem_acquire(t->sem, k));
		udelay(PAT_HOLD_US);	/* hold: the async helper must queue */
		pkt_note(&err, psem_release(t->sem, k));
		pkt_progress(t);
	}
	return err;
}

/* Whether both outcomes of the race have happened, in any helpers. */
static bool pat_raced(struct pat_tally **tallies, unsigned int nr)
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
	struct pkt_thread tmpl = { .iters = race_iters, .n = 2 };
	struct psem *sem = pkt_sem(test, 2);	/* one sleeper can hold all */
	struct pkt_ctx *ctx = test->priv;
	unsigned int i, nr = 0, called = 0, cancelled = 0;
	struct pat_tally **tallies;
	bool raced;
	int cpu;

	/* On the heap: an array of pointers is too big a frame. */
	tallies = kunit_kcalloc(test, PKT_MAX_THREADS, sizeof(*tallies),
				GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tallies);
	tmpl.sem = sem;
	for_each_online_cpu(cpu) {
		if (ctx->nr + 2 > PKT_MAX_THREADS)
			break;
		tallies[nr] = kunit_kzalloc(test, sizeof(*tallies[nr]), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, tallies[nr]);
		tallies[nr]->req.sem = sem;
		tmpl.arg = tallies[nr++];
		tmpl.fn = pat_async_fn;
		pkt_spawn(test, &tmpl, cpu);
		tmpl.fn = pat_sleeper_fn;
		pkt_spawn(test, &tmpl, cpu);
	}
	pkt_post_step(ctx, 1);
	raced = pkt_wait_until(pat_raced(tallies, nr), PKT_RACE_SEARCH);
	pkt_post_step(ctx, 2);
	pkt_reap_all(test);

	for (i = 0; i < ctx->nr; i++)
		KUNIT_EXPECT_EQ_MSG(test, ctx->thread[i]->ret, 0, "helper %u", i);
	for (i = 0; i < nr; i++) {
		struct pat_tally *y = tallies[i];

		KUNIT_EXPECT_EQ_MSG(test, y->wrong, 0U, "async helper %u", i);
		KUNIT_EXPECT_GE_MSG(test, y->rounds, race_iters, "async helper %u", i);
		KUNIT_EXPECT_EQ_MSG(test, y->immediate + y->cancelled + y->called,
				    y->rounds, "async helper %u", i);
		called += y->called;
		cancelled += y->cancelled;
		kunit_info(test, "helper %u: immediate %u cancelled %u called back %u\n",
			   i, y->immediate, y->cancelled, y->called);
	}
	PKT_EXPECT_IDLE(test, sem, 2);
	/* Nothing raced, so nothing was shown; a skip must not hide a failure. */
	if (!raced && test->status != KUNIT_FAILURE)
		kunit_skip(test, "in the search: %u cancelled, %u called back: no race",
			   cancelled, called);
}

static struct kunit_case pat_race_cases[] = {
	KUNIT_CASE(psem_test_async_cancel_race),
	{}
};

static struct kunit_suite pat_race_suite = {
	.name		= "psem_async_race",
	.init		= pkt_init,
	.exit		= pkt_exit,
	.test_cases	= pat_race_cases,
};

kunit_test_suites(&pat_suite, &pat_race_suite);

MODULE_IMPORT_NS(PSEM_NS);
MODULE_IMPORT_NS(PSEM_KNOBS_NS);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for psem's asynchronous waiters");
