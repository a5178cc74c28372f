// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for tearing psems down and withdrawing waits: the contracts
 * a driver relies on when it removes a device or cancels requests.
 *
 *   psem_teardown  close, quiesce and kfree racing waiters that a signal or
 *                  a timeout ends (KASAN sees a late access); a second
 *                  cancel and a cancel of a wait never queued; a withdrawal
 *                  that waits for a callback that re-armed, and for the
 *                  work of psem_acquire_async_work(), and for a run of
 *                  that work that queued its waiter again; a chain of thousands
 *                  of callbacks that release into their psem runs without
 *                  nesting (stack and lockdep depth); the overflowing
 *                  release of a closed psem; release_all_held() against
 *                  the capacity; quiesce's FIFO place; debugfs names; and
 *                  each documented return value of the core calls
 */

#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/debug_locks.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_test.h"

/* ==== close, quiesce, free ==== */

#define TEARDOWN_ROUNDS	24

/*
 * The device-removal pattern with waiters leaving on their own: each round
 * a psem in kmalloc'ed memory, all its permits held by the owner, an
 * interruptible waiter and a timed one. The owner signals the first and
 * lets the second's short timeout run, and at the same moment closes,
 * gives its permits back, quiesces and frees the psem. Whichever way each
 * wait ends (-EINTR, -ETIME, -ESHUTDOWN), nothing may touch the psem after
 * the quiesce: KASAN reports a late access as a use-after-free.
 */
static void psem_test_close_quiesce_free(struct kunit *test)
{
	unsigned int round;

	for (round = 0; round < TEARDOWN_ROUNDS; round++) {
		struct psem_ext *cs = kmalloc(sizeof(*cs), GFP_KERNEL);
		struct psem_test_thread *intr, *timed;
		struct psem *sem;

		KUNIT_ASSERT_NOT_NULL(test, cs);
		KUNIT_ASSERT_EQ(test, psem_init_capacity(cs, 2), 0);
		sem = &cs->sem;
		KUNIT_ASSERT_TRUE(test, psem_try_acquire(sem, 2));
		intr = psem_test_linked_waiter(test, sem, PSEM_TEST_INTERRUPTIBLE, 1, 1);
		timed = psem_test_waiter(test, sem, PSEM_TEST_TIMEOUT, 1, 1 + round % 3);
		/* Inside its wait, or through with it: never about to enter. */
		KUNIT_ASSERT_TRUE(test, psem_test_wait_for(psem_test_nr_waiters(sem) == 2 ||
							   psem_test_done(timed)));

		send_sig(SIGUSR1, intr->task, 1);
		if (round & 1)
			udelay(round * 10);	/* vary the overlap */
		KUNIT_EXPECT_EQ(test, psem_close(sem), 0);
		KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
		KUNIT_EXPECT_EQ(test, psem_quiesce(sem, PSEM_TEST_HANG_GUARD), 0);
		kfree(cs);

		/* psem_test_unstick() must not release into the freed psem. */
		KUNIT_ASSERT_TRUE(test, psem_test_wait_done(intr));
		KUNIT_ASSERT_TRUE(test, psem_test_wait_done(timed));
		intr->sem = NULL;
		timed->sem = NULL;
		KUNIT_EXPECT_TRUE_MSG(test, intr->ret == -EINTR ||
				      intr->ret == -ESHUTDOWN,
				      "round %u: %d", round, intr->ret);
		KUNIT_EXPECT_TRUE_MSG(test, timed->ret == -ETIME ||
				      timed->ret == -ESHUTDOWN,
				      "round %u: %d", round, timed->ret);
		psem_test_reap(test, intr);
		psem_test_reap(test, timed);
	}
}

/* ==== cancel ==== */

/*
 * A cancel is true once per queued wait: a second cancel, or a cancel of a
 * wait that psem_acquire_async() granted at once, returns false and
 * changes nothing (it used to unlink a poisoned entry and give the partial
 * grant back twice).
 */
static void psem_test_cancel_once(struct kunit *test)
{
	struct psem *sem = psem_test_capped_sem(test, 4);
	struct psem_test_req *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_TRUE(test, psem_try_acquire(sem, 3));
	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 3, &r->aw, psem_test_req_fn),
			-EINPROGRESS);	/* took the 1 left */
	KUNIT_EXPECT_TRUE(test, psem_cancel_async(sem, &r->aw));
	KUNIT_EXPECT_EQ(test, psem_available(sem), 1L);
	KUNIT_EXPECT_FALSE(test, psem_cancel_async(sem, &r->aw));
	KUNIT_EXPECT_EQ(test, psem_available(sem), 1L);
	KUNIT_EXPECT_FALSE(test, psem_cancel_async_sync(sem, &r->aw));
	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 4);

	/* Granted at once: never queued, nothing to cancel. */
	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 2, &r->aw, psem_test_req_fn), 0);
	KUNIT_EXPECT_FALSE(test, psem_cancel_async(sem, &r->aw));
	KUNIT_EXPECT_FALSE(test, psem_cancel_async_sync(sem, &r->aw));
	KUNIT_EXPECT_EQ(test, psem_available(sem), 2L);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);

	/* Called back already: a cancel is a no-op too. */
	KUNIT_ASSERT_TRUE(test, psem_try_acquire(sem, 4));
	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 1, &r->aw, psem_test_req_fn),
			-EINPROGRESS);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_test_calls(r), 1);
	KUNIT_EXPECT_FALSE(test, psem_cancel_async(sem, &r->aw));
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 4), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 4);
	KUNIT_EXPECT_EQ(test, psem_test_calls(r), 1);
}

/*
 * A callback that blocks until the test lets it go, optionally queueing its
 * own waiter again first: it stands for a slow completion.
 */
struct teardown_slow {
	struct psem_async	aw;
	struct psem		*sem;
	bool			rearm;
	bool			entered;	/* release-published */
	bool			go;		/* release-published */
	bool			left;		/* release-published */
	int			rearmed;	/* psem_acquire_async()'s result */
};

static void teardown_slow_fn(struct psem_async *aw, int result)
{
	struct teardown_slow *s = container_of(aw, struct teardown_slow, aw);
	unsigned long end = jiffies + PSEM_TEST_HANG_GUARD;

	if (s->rearm)
		s->rearmed = psem_acquire_async(s->sem, 1, aw, teardown_slow_fn);
	s->rearm = false;	/* the re-armed wait, if served, just returns */
	smp_store_release(&s->entered, true);	/* pairs with the test */
	/* Never sleeps: a callback may run in hard IRQ. */
	/* Pairs with the store in the test. */
	while (!smp_load_acquire(&s->go) && time_before(jiffies, end))
		cpu_relax();
	smp_store_release(&s->left, true);	/* pairs with the test */
}

/* Releases @t->n into @t->sem: the release runs the callbacks it serves. */
static int teardown_release_fn(struct psem_test_thread *t)
{
	return psem_release(t->sem, t->n);
}

/*
 * The test must run while a slow callback spins, which on a lone CPU
 * needs preemption where the callback runs: not on User-mode Linux, which
 * never preempts kernel code on an interrupt's return.
 */
static void teardown_two_cpus(struct kunit *test)
{
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs: the slow callback never sleeps");
}

/* Queues a slow asynchronous waiter for 1 of @sem; @rearm: see above. */
static struct teardown_slow *teardown_slow_queue(struct kunit *test,
						 struct psem *sem, bool rearm)
{
	struct teardown_slow *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->sem = sem;
	s->rearm = rearm;
	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 1, &s->aw, teardown_slow_fn),
			-EINPROGRESS);
	return s;
}

/*
 * Spawns a thread that releases @n into @s->sem, and waits until that
 * release is in @s's slow callback. Returns the thread.
 */
static struct psem_test_thread *teardown_release_slow(struct kunit *test,
						      struct teardown_slow *s,
						      long n)
{
	const struct psem_test_thread tmpl = {
		.fn = teardown_release_fn, .sem = s->sem, .n = n,
	};
	struct psem_test_thread *rel = psem_test_spawn(test, &tmpl, -1);

	/* Pairs with the store in teardown_slow_fn(). */
	KUNIT_ASSERT_TRUE(test, psem_test_wait_for(smp_load_acquire(&s->entered)));
	return rel;
}

static int teardown_cancel_sync_fn(struct psem_test_thread *t)
{
	struct teardown_slow *s = t->arg;

	return psem_cancel_async_sync(s->sem, &s->aw);
}

/*
 * psem_cancel_async_sync() on a waiter whose callback queued it again and
 * still runs: it withdraws the new wait and returns only once the old
 * callback has returned (it used to return true at once).
 */
static void psem_test_cancel_sync_rearm(struct kunit *test)
{
	struct psem *sem = psem_test_ext_sem(test, 0);
	struct psem_test_thread tmpl = { .sem = sem, .n = 1 };
	struct teardown_slow *s;
	struct psem_test_thread *rel, *can;

	teardown_two_cpus(test);
	s = teardown_slow_queue(test, sem, true);
	rel = teardown_release_slow(test, s, 1);
	KUNIT_EXPECT_EQ(test, s->rearmed, -EINPROGRESS);

	tmpl.fn = teardown_cancel_sync_fn;
	tmpl.arg = s;
	can = psem_test_spawn(test, &tmpl, -1);
	/* Never done while the callback runs, however long we look. */
	KUNIT_EXPECT_FALSE(test, psem_test_wait_until(psem_test_done(can), HZ / 10));
	smp_store_release(&s->go, true);	/* pairs with teardown_slow_fn() */
	PSEM_TEST_EXPECT_RETURNS(test, can, true);
	/* Pairs with the store in teardown_slow_fn(). */
	KUNIT_EXPECT_TRUE(test, smp_load_acquire(&s->left));
	PSEM_TEST_EXPECT_RETURNS(test, rel, 0);
	/* The first grant is the callback's to give back; the second never came. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 1);
}

struct teardown_work {
	struct psem_async_work	aww;
	bool			ran;	/* release-published */
	int			result;
};

static void teardown_work_fn(struct work_struct *work)
{
	struct teardown_work *w = container_of(work, struct teardown_work, aww.work);

	w->result = w->aww.result;
	smp_store_release(&w->ran, true);	/* pairs with the test */
}

static int teardown_cancel_work_fn(struct psem_test_thread *t)
{
	struct teardown_work *w = t->arg;

	return psem_cancel_async_work_sync(t->sem, &w->aww);
}

/*
 * A work waiter B served behind an asynchronous waiter A whose callback is
 * slow: B's callback, which queues its work, waits on the path calling A
 * back. psem_cancel_async_work_sync(B) must wait for B's work to run; the
 * protocol it replaces (psem_cancel_async() false, then flush_work())
 * returned with the work not even queued.
 */
static void psem_test_cancel_work_sync(struct kunit *test)
{
	struct psem *sem = psem_test_ext_sem(test, 0);
	struct teardown_work *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct psem_test_thread tmpl = { .sem = sem };
	struct psem_test_thread *rel, *can;
	struct teardown_slow *a;

	KUNIT_ASSERT_NOT_NULL(test, b);
	teardown_two_cpus(test);
	a = teardown_slow_queue(test, sem, false);
	psem_init_async_work(&b->aww, teardown_work_fn);
	KUNIT_ASSERT_EQ(test, psem_acquire_async_work(sem, 1, &b->aww),
			-EINPROGRESS);
	rel = teardown_release_slow(test, a, 2);
	/* B is served (off the queue) but its callback has not run. */
	KUNIT_EXPECT_FALSE(test, psem_cancel_async(sem, &b->aww.aw));
	/* Pairs with the store in teardown_work_fn(). */
	KUNIT_EXPECT_FALSE(test, smp_load_acquire(&b->ran));

	tmpl.fn = teardown_cancel_work_fn;
	tmpl.arg = b;
	tmpl.n = 0;
	can = psem_test_spawn(test, &tmpl, -1);
	KUNIT_EXPECT_FALSE(test, psem_test_wait_until(psem_test_done(can), HZ / 10));
	/* Pairs with the load in teardown_slow_fn(). */
	smp_store_release(&a->go, true);
	PSEM_TEST_EXPECT_RETURNS(test, can, false);
	/* Pairs with the store in teardown_work_fn(). */
	KUNIT_EXPECT_TRUE(test, smp_load_acquire(&b->ran));
	KUNIT_EXPECT_EQ(test, b->result, 0);
	PSEM_TEST_EXPECT_RETURNS(test, rel, 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);	/* A's and B's */
	PSEM_TEST_EXPECT_IDLE(test, sem, 2);

	/* Still queued: withdrawn, and the work never runs. */
	b->ran = false;
	KUNIT_ASSERT_TRUE(test, psem_try_acquire(sem, 2));
	KUNIT_ASSERT_EQ(test, psem_acquire_async_work(sem, 1, &b->aww),
			-EINPROGRESS);
	KUNIT_EXPECT_TRUE(test, psem_cancel_async_work_sync(sem, &b->aww));
	flush_work(&b->aww.work);
	/* Pairs with the store in teardown_work_fn(). */
	KUNIT_EXPECT_FALSE(test, smp_load_acquire(&b->ran));
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 2);
}

/* A work that, on its first run, queues its own waiter again, then naps. */
struct teardown_requeue {
	struct psem_async_work	aww;
	struct psem		*sem;
	int			requeued;	/* psem_acquire_async_work()'s */
	bool			running;	/* release-published */
	bool			again;
};

static void teardown_requeue_fn(struct work_struct *work)
{
	struct teardown_requeue *r = container_of(work, struct teardown_requeue, aww.work);

	smp_store_release(&r->running, true);	/* pairs with the test */
	if (!r->again) {
		r->again = true;
		r->requeued = psem_acquire_async_work(r->sem, 1, &r->aww);
		msleep(100);	/* widens the window; asserts nothing */
	}
	smp_store_release(&r->running, false);	/* pairs with the test */
}

/*
 * The work of a served wait queues its waiter again and is still running
 * when the owner cancels: the cancel withdraws the new wait and must also
 * wait for the run under way, after which the work no longer runs. It
 * used to return true at once, with the work still running.
 */
static void psem_test_cancel_work_requeue(struct kunit *test)
{
	struct psem *sem = psem_test_ext_sem(test, 0);
	struct teardown_requeue *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->sem = sem;
	psem_init_async_work(&r->aww, teardown_requeue_fn);
	KUNIT_ASSERT_EQ(test, psem_acquire_async_work(sem, 1, &r->aww),
			-EINPROGRESS);
	KUNIT_ASSERT_EQ(test, psem_release(sem, 1), 0);
	/* Pairs with the store in teardown_requeue_fn(). */
	KUNIT_ASSERT_TRUE(test, psem_test_wait_for(smp_load_acquire(&r->running)));
	KUNIT_ASSERT_TRUE(test, psem_test_wait_for(psem_test_nr_waiters(sem) == 1));
	KUNIT_EXPECT_TRUE(test, psem_cancel_async_work_sync(sem, &r->aww));
	/* Pairs with the store in teardown_requeue_fn(). */
	KUNIT_EXPECT_FALSE(test, smp_load_acquire(&r->running));
	KUNIT_EXPECT_EQ(test, r->requeued, -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);	/* the first grant */
	PSEM_TEST_EXPECT_IDLE(test, sem, 1);
}

/* ==== callbacks that release into their psem ==== */

#define TEARDOWN_CHAIN	2000

/*
 * TEARDOWN_CHAIN waiters for one permit each, whose callbacks each release their
 * permit into the same psem: one release starts a chain through all of
 * them. They run one after another on the path that started it, not one
 * inside another: the stack stays within a frame or two of the first
 * callback's (it grew by about 300 bytes a waiter, and a thousand
 * overflowed it), and lockdep does not run out of depth (one RCU lockdep
 * entry a waiter used to switch it off).
 */
static void psem_test_callback_chain(struct kunit *test)
{
	struct psem *sem = psem_test_ext_sem(test, 0);
	struct psem_test_req *r = kunit_kcalloc(test, TEARDOWN_CHAIN, sizeof(*r), GFP_KERNEL);
	unsigned long lo = ULONG_MAX, hi = 0;
	int i, once = 0;

	KUNIT_ASSERT_NOT_NULL(test, r);
	for (i = 0; i < TEARDOWN_CHAIN; i++) {
		r[i].sem = sem;
		r[i].give_back = true;
		KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 1, &r[i].aw, psem_test_req_fn),
				-EINPROGRESS);
	}
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	for (i = 0; i < TEARDOWN_CHAIN; i++) {
		once += psem_test_calls(&r[i]) == 1;
		lo = min(lo, r[i].sp);
		hi = max(hi, r[i].sp);
	}
	KUNIT_EXPECT_EQ(test, once, TEARDOWN_CHAIN);
	KUNIT_EXPECT_LT_MSG(test, hi - lo, 512UL, "stack spread %lu bytes",
			    hi - lo);
	if (IS_ENABLED(CONFIG_LOCKDEP))
		KUNIT_EXPECT_TRUE(test, debug_locks);
	PSEM_TEST_EXPECT_IDLE(test, sem, 1);
}

/* One close that ends a hundred asynchronous waits leaves lockdep on. */
static void psem_test_close_many_async(struct kunit *test)
{
	struct psem *sem = psem_test_ext_sem(test, 0);
	struct psem_test_req *r = kunit_kcalloc(test, 100, sizeof(*r), GFP_KERNEL);
	int i, shut = 0;

	KUNIT_ASSERT_NOT_NULL(test, r);
	for (i = 0; i < 100; i++)
		KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 1, &r[i].aw, psem_test_req_fn),
				-EINPROGRESS);
	KUNIT_EXPECT_EQ(test, psem_close(sem), 0);
	for (i = 0; i < 100; i++)
		shut += psem_test_calls(&r[i]) == 1 && r[i].result == -ESHUTDOWN;
	KUNIT_EXPECT_EQ(test, shut, 100);
	if (IS_ENABLED(CONFIG_LOCKDEP))
		KUNIT_EXPECT_TRUE(test, debug_locks);
	KUNIT_EXPECT_EQ(test, psem_reopen(sem), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 0);
}

/* ==== refusals that must change nothing ==== */

/*
 * A lock-free release into a closed word whose sum wraps used to land and
 * reopen the psem: closed, balance 1, a release of PSEM_MAX_PERMITS.
 */
static void psem_test_closed_release_overflow(struct kunit *test)
{
	struct psem *open = psem_test_sem(test, 1);
	struct psem *capped = psem_test_capped_sem(test, 10);

	KUNIT_ASSERT_TRUE(test, psem_try_acquire(capped, 5));
	KUNIT_ASSERT_EQ(test, psem_close(open), 0);
	KUNIT_ASSERT_EQ(test, psem_close(capped), 0);
	psem_set_quiet_warnings(true);
	PSEM_TEST_EXPECT_REFUSED(test, open, psem_release(open, PSEM_MAX_PERMITS),
				 -EOVERFLOW);
	PSEM_TEST_EXPECT_REFUSED(test, capped, psem_release(capped, PSEM_MAX_PERMITS),
				 -EOVERFLOW);
	PSEM_TEST_EXPECT_REFUSED(test, capped, psem_release(capped, 6), -EOVERFLOW);
	psem_set_quiet_warnings(false);
	KUNIT_EXPECT_TRUE(test, psem_is_closed(open));
	KUNIT_EXPECT_TRUE(test, psem_is_closed(capped));
	KUNIT_EXPECT_EQ(test, psem_available(open), 1L);
	KUNIT_EXPECT_EQ(test, psem_available(capped), 5L);
	/* Releases that fit still work on a closed psem. */
	KUNIT_EXPECT_EQ(test, psem_release(capped, 5), 0);
	KUNIT_EXPECT_EQ(test, psem_available(capped), 10L);
}

/* psem_release_all_held() is held to the capacity as psem_release() is. */
static void psem_test_release_all_held_capacity(struct kunit *test)
{
	struct psem *sem = psem_test_capped_sem(test, 5);

	KUNIT_ASSERT_TRUE(test, psem_try_acquire(sem, 5));
	psem_set_quiet_warnings(true);
	PSEM_TEST_EXPECT_REFUSED(test, sem, psem_release_all_held(sem, 10), -EOVERFLOW);
	PSEM_TEST_EXPECT_REFUSED(test, sem, psem_release_all_held(sem, 6), -EOVERFLOW);
	psem_set_quiet_warnings(false);
	KUNIT_EXPECT_EQ(test, psem_release_all_held(sem, 5), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 5);
}

/*
 * An acquirer queued behind a quiesce is served after it: a release that
 * cannot complete the quiesce serves nobody behind it.
 */
static void psem_test_quiesce_fifo(struct kunit *test)
{
	struct psem *sem = psem_test_capped_sem(test, 2);
	struct psem_test_thread *q, *b;

	KUNIT_ASSERT_TRUE(test, psem_try_acquire(sem, 2));
	q = psem_test_quiescer(test, sem, 1);
	b = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 1, 2);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	KUNIT_EXPECT_FALSE(test, psem_test_wait_until(psem_test_done(b), HZ / 20));
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_RETURNS(test, q, 0);
	PSEM_TEST_EXPECT_RETURNS(test, b, 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 2);
}

/* "." and ".." are refused as names, as the kernel-doc says (-EINVAL). */
static void psem_test_debugfs_dot_names(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 0);

	KUNIT_EXPECT_EQ(test, psem_debugfs_register(sem, "."), -EINVAL);
	KUNIT_EXPECT_EQ(test, psem_debugfs_register(sem, ".."), -EINVAL);
	KUNIT_EXPECT_EQ(test, psem_debugfs_register(sem, ""), -EINVAL);
	KUNIT_EXPECT_EQ(test, psem_debugfs_register(sem, "a/b"), -EINVAL);
	KUNIT_EXPECT_EQ(test, psem_debugfs_unregister(sem), -ENOENT);
}

/*
 * The documented return values of the core calls that no other suite
 * asserts: on a closed psem, over the capacity, and the snapshots.
 */
static void psem_test_return_values(struct kunit *test)
{
	struct psem *sem = psem_test_capped_sem(test, 3);
	struct psem *open = psem_test_ext_sem(test, 2);
	struct psem_test_req *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);

	/* Over the capacity: -E2BIG at once, for every acquire. */
	KUNIT_EXPECT_EQ(test, psem_acquire(sem, 4), -E2BIG);
	KUNIT_EXPECT_EQ(test, psem_acquire_interruptible(sem, 4), -E2BIG);
	KUNIT_EXPECT_EQ(test, psem_acquire_killable(sem, 4), -E2BIG);
	KUNIT_EXPECT_EQ(test, psem_acquire_timeout(sem, 4, HZ), -E2BIG);
	KUNIT_EXPECT_EQ(test, psem_acquire_timeout(sem, 4, 0), -E2BIG);
	KUNIT_EXPECT_EQ(test, psem_acquire_async(sem, 4, &r->aw, psem_test_req_fn), -E2BIG);
	/* A zero timeout only tries. */
	KUNIT_ASSERT_TRUE(test, psem_try_acquire(sem, 3));
	KUNIT_EXPECT_EQ(test, psem_acquire_timeout(sem, 1, 0), -ETIME);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);
	/* A capped psem refuses psem_reduce(). */
	psem_set_quiet_warnings(true);
	PSEM_TEST_EXPECT_REFUSED(test, sem, psem_reduce(sem, 1), -EINVAL);
	psem_set_quiet_warnings(false);

	/* Closed: -ESHUTDOWN, oversized or not; tries and drains get nothing. */
	KUNIT_ASSERT_EQ(test, psem_close(sem), 0);
	KUNIT_EXPECT_EQ(test, psem_close(sem), -EALREADY);
	KUNIT_EXPECT_EQ(test, psem_acquire(sem, 1), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, psem_acquire(sem, 4), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, psem_acquire_interruptible(sem, 1), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, psem_acquire_killable(sem, 1), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, psem_acquire_timeout(sem, 1, HZ), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, psem_acquire_timeout(sem, 1, 0), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, psem_acquire_async(sem, 1, &r->aw, psem_test_req_fn),
			-ESHUTDOWN);
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(sem, 1));
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(sem, 0));
	KUNIT_EXPECT_EQ(test, psem_drain(sem, 3), 0L);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 3L);
	KUNIT_EXPECT_EQ(test, psem_reopen(sem), 0);
	KUNIT_EXPECT_EQ(test, psem_reopen(sem), -EALREADY);
	KUNIT_EXPECT_EQ(test, psem_quiesce(sem, 0), 0);

	/*
	 * With a waiter queued, a release of more than debt + capacity is
	 * refused (the waiter would be handed permits nobody held).
	 */
	KUNIT_ASSERT_TRUE(test, psem_try_acquire(sem, 3));
	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 1, &r->aw, psem_test_req_fn),
			-EINPROGRESS);
	psem_set_quiet_warnings(true);
	PSEM_TEST_EXPECT_REFUSED(test, sem, psem_release(sem, 4), -EOVERFLOW);
	psem_set_quiet_warnings(false);
	KUNIT_EXPECT_EQ(test, psem_test_calls(r), 0);
	KUNIT_EXPECT_TRUE(test, psem_cancel_async(sem, &r->aw));
	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 3);

	/* Without a capacity: psem_capacity() and the quiesce refusal. */
	KUNIT_EXPECT_EQ(test, psem_capacity(open), PSEM_MAX_PERMITS);
	psem_set_quiet_warnings(true);
	KUNIT_EXPECT_EQ(test, psem_quiesce(open, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, psem_resize(open, 1), -EINVAL);
	psem_set_quiet_warnings(false);
}

PSEM_TEST_SUITE("psem_teardown", "KUnit tests for psem teardown and withdrawal",
		psem_test_close_quiesce_free, psem_test_cancel_once,
		psem_test_cancel_sync_rearm, psem_test_cancel_work_sync,
		psem_test_cancel_work_requeue, psem_test_callback_chain,
		psem_test_close_many_async, psem_test_closed_release_overflow,
		psem_test_release_all_held_capacity, psem_test_quiesce_fifo,
		psem_test_debugfs_dot_names, psem_test_return_values);
