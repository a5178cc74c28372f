// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite psem_async: psem's asynchronous waiters (kmod/psem_async.c):
 * FIFO with sleeping waiters and partial grants, grants from hard IRQ,
 * close and resize, a callback that releases into its own psem, cancel,
 * the work variant. Their races are in psem_async_race_test.c.
 */

#include <kunit/test.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/workqueue.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_test.h"

static void psem_test_async_immediate(struct kunit *test)
{
	struct psem *sem = psem_test_ext_sem(test, 3);
	struct psem_test_req *r = psem_test_req_new(test, sem);

	KUNIT_EXPECT_EQ(test, psem_acquire_async(sem, 2, &r->aw, psem_test_req_fn), 0);
	KUNIT_EXPECT_EQ(test, psem_acquire_async(sem, 0, &r->aw, psem_test_req_fn), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 1L);
	KUNIT_EXPECT_EQ(test, psem_test_calls(r), 0);
	psem_set_quiet_warnings(true);
	PSEM_TEST_EXPECT_REFUSED(test, sem, psem_acquire_async(sem, -1, &r->aw, psem_test_req_fn),
				 -EINVAL);
	psem_set_quiet_warnings(false);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 3);
}

/*
 * A plain psem has no room for the path that calls back: every
 * asynchronous acquire on it is refused, even one that could be granted
 * at once, and changes nothing; the cancels find nothing queued, whatever
 * the waiter's memory held before (a refusal that left it as it was had
 * psem_cancel_async_sync() spin on garbage).
 */
static void psem_test_async_plain_refused(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 3);
	struct psem_test_req *r = psem_test_req_new(test, sem);

	/* As kmalloc() may hand it over: a refusal still leaves it idle. */
	memset(&r->aw, 0x6b, sizeof(r->aw));
	psem_set_quiet_warnings(true);
	PSEM_TEST_EXPECT_REFUSED(test, sem, psem_acquire_async(sem, 2, &r->aw, psem_test_req_fn),
				 -EINVAL);
	PSEM_TEST_EXPECT_REFUSED(test, sem, psem_acquire_async(sem, 4, &r->aw, psem_test_req_fn),
				 -EINVAL);
	psem_set_quiet_warnings(false);
	KUNIT_EXPECT_FALSE(test, psem_cancel_async(sem, &r->aw));
	KUNIT_EXPECT_FALSE(test, psem_cancel_async_sync(sem, &r->aw));
	KUNIT_EXPECT_EQ(test, psem_test_calls(r), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 3);
}

/*
 * Sleeping A(2), async B(3), sleeping C(1): releases serve them in that
 * order, with partial grants, and B's callback runs in the releaser's
 * context once its third permit arrives.
 */
static void psem_test_async_fifo(struct kunit *test)
{
	struct psem *sem = psem_test_ext_sem(test, 0);
	struct psem_test_req *b = psem_test_req_new(test, sem);
	struct psem_test_thread *a, *c;

	a = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 2, 1);
	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 3, &b->aw, psem_test_req_fn),
			-EINPROGRESS);
	KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(sem), 2U);
	c = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 1, 3);

	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);	/* A 2, B 1 */
	PSEM_TEST_EXPECT_RETURNS(test, a, 0);
	KUNIT_EXPECT_EQ(test, psem_test_calls(b), 0);
	KUNIT_EXPECT_EQ(test, b->aw.w.needed, 2L);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);	/* B done */
	KUNIT_EXPECT_EQ(test, psem_test_calls(b), 1);
	KUNIT_EXPECT_EQ(test, b->result, 0);
	KUNIT_EXPECT_FALSE(test, psem_test_done(c));
	KUNIT_EXPECT_EQ(test, psem_test_flags(sem), PSEM_WAITERS);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);	/* C */
	PSEM_TEST_EXPECT_RETURNS(test, c, 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 6), 0);	/* all three */
	PSEM_TEST_EXPECT_IDLE(test, sem, 6);
}

struct async_irq {
	struct hrtimer	timer;
	struct psem	*sem;
	long		n;
	bool		fired;
};

static enum hrtimer_restart async_irq_release(struct hrtimer *timer)
{
	struct async_irq *p = container_of(timer, struct async_irq, timer);

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
	struct psem *sem = psem_test_ext_sem(test, 0);
	struct psem_test_req *r = psem_test_req_new(test, sem);
	struct async_irq *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 2, &r->aw, psem_test_req_fn),
			-EINPROGRESS);
	p->sem = sem;
	p->n = 2;
	hrtimer_setup(&p->timer, async_irq_release, CLOCK_MONOTONIC, mode);
	hrtimer_start(&p->timer, ns_to_ktime(1000), mode);
	/* Pairs with the store in async_irq_release(). */
	KUNIT_EXPECT_TRUE(test, psem_test_wait_for(smp_load_acquire(&p->fired)));
	hrtimer_cancel(&p->timer);
	KUNIT_EXPECT_EQ(test, psem_test_calls(r), 1);
	KUNIT_EXPECT_EQ(test, r->result, 0);
	KUNIT_EXPECT_EQ(test, r->in_hardirq, hard);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 2);
}

/* Close and resize end asynchronous waits too, giving grants back. */
static void psem_test_async_close_resize(struct kunit *test)
{
	struct psem *sem = psem_test_capped_sem(test, 4);
	struct psem_test_req *a, *b;

	a = psem_test_req_new(test, sem);
	b = psem_test_req_new(test, sem);
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 3));
	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 4, &a->aw, psem_test_req_fn),
			-EINPROGRESS);	/* holds 1 */
	KUNIT_EXPECT_EQ(test, psem_acquire_async(sem, 5, &b->aw, psem_test_req_fn), -E2BIG);
	KUNIT_EXPECT_EQ(test, psem_resize(sem, 3), 0);
	KUNIT_EXPECT_EQ(test, psem_test_calls(a), 1);
	KUNIT_EXPECT_EQ(test, a->result, -E2BIG);
	/* Its 1 paid the debt of 1: 3 out of a capacity of 3. */
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 0UL);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);

	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 2, &b->aw, psem_test_req_fn),
			-EINPROGRESS);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);	/* b holds 1 */
	KUNIT_EXPECT_EQ(test, psem_close(sem), 0);
	KUNIT_EXPECT_EQ(test, psem_test_calls(b), 1);
	KUNIT_EXPECT_EQ(test, b->result, -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 1L);
	KUNIT_EXPECT_EQ(test, psem_acquire_async(sem, 1, &b->aw, psem_test_req_fn),
			-ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	KUNIT_EXPECT_EQ(test, psem_reopen(sem), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 3);
}

/* A callback that releases into the same psem: no recursion on the lock. */
static void psem_test_async_callback_releases(struct kunit *test)
{
	struct psem *sem = psem_test_ext_sem(test, 0);
	struct psem_test_req *a = psem_test_req_new(test, sem), *b = psem_test_req_new(test, sem);

	a->give_back = true;
	b->give_back = true;
	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 2, &a->aw, psem_test_req_fn),
			-EINPROGRESS);
	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 2, &b->aw, psem_test_req_fn),
			-EINPROGRESS);
	/* Serves a, whose release in its callback serves b, whose ... */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	KUNIT_EXPECT_EQ(test, psem_test_calls(a), 1);
	KUNIT_EXPECT_EQ(test, psem_test_calls(b), 1);
	PSEM_TEST_EXPECT_IDLE(test, sem, 2);
}

/* Cancel returns the partial grant to the next waiter; fn never runs. */
static void psem_test_async_cancel(struct kunit *test)
{
	struct psem *sem = psem_test_ext_sem(test, 1);
	struct psem_test_req *a = psem_test_req_new(test, sem), *b = psem_test_req_new(test, sem);

	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 3, &a->aw, psem_test_req_fn),
			-EINPROGRESS);	/* holds 1 */
	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 1, &b->aw, psem_test_req_fn),
			-EINPROGRESS);
	KUNIT_EXPECT_TRUE(test, psem_cancel_async(sem, &a->aw));
	KUNIT_EXPECT_EQ(test, psem_test_calls(a), 0);
	KUNIT_EXPECT_EQ(test, psem_test_calls(b), 1);	/* got a's permit */
	KUNIT_EXPECT_FALSE(test, psem_cancel_async(sem, &b->aw));
	KUNIT_EXPECT_FALSE(test, psem_cancel_async_sync(sem, &b->aw));
	KUNIT_EXPECT_EQ(test, psem_test_flags(sem), 0L);

	/* A queued one, cancelled synchronously: a module may now unload. */
	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 1, &a->aw, psem_test_req_fn),
			-EINPROGRESS);
	KUNIT_EXPECT_TRUE(test, psem_cancel_async_sync(sem, &a->aw));
	KUNIT_EXPECT_EQ(test, psem_test_calls(a), 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 1);
}

struct async_work {
	struct psem_async_work	aww;
	bool			in_task;
	bool			ran;
};

static void async_work_fn(struct work_struct *work)
{
	struct async_work *w = container_of(work, struct async_work, aww.work);

	w->in_task = in_task();
	smp_store_release(&w->ran, true);	/* pairs with the poll */
}

/* The work variant completes in process context. */
static void psem_test_async_work(struct kunit *test)
{
	struct psem *sem = psem_test_ext_sem(test, 0);
	struct async_work *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	psem_init_async_work(&w->aww, async_work_fn);
	KUNIT_ASSERT_EQ(test, psem_acquire_async_work(sem, 1, &w->aww),
			-EINPROGRESS);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	/* Pairs with the store in async_work_fn(). */
	KUNIT_EXPECT_TRUE(test, psem_test_wait_for(smp_load_acquire(&w->ran)));
	flush_work(&w->aww.work);
	KUNIT_EXPECT_TRUE(test, w->in_task);
	KUNIT_EXPECT_EQ(test, w->aww.result, 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 1);
}

PSEM_TEST_SUITE("psem_async", "KUnit tests for psem's asynchronous waiters",
		psem_test_async_immediate, psem_test_async_plain_refused,
		psem_test_async_fifo,
		psem_test_async_hardirq, psem_test_async_close_resize,
		psem_test_async_callback_releases, psem_test_async_cancel,
		psem_test_async_work);
