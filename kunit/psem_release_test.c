// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite psem_release: which path a release of psem's core semaphore
 * (kmod/psem_core.c) takes: lock-free, locked, hand-off, the contention
 * flag, releases from interrupt context (hard IRQ where the kernel allows
 * a locked one; the lock-free paths from hard IRQ on every kernel).
 */

#include <kunit/test.h>
#include <linux/module.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_test.h"

static void psem_test_release_lock_free(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 1);
	unsigned long flags;
	long drained, avail;
	bool took;
	int ret;

	psem_test_stats_start();
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 5), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 7L);
	PSEM_TEST_EXPECT_RELEASE_STATS(test, 2, 0);

	/*
	 * With this CPU holding the queue lock, a release that took it would
	 * deadlock, and lockdep would report recursive locking: on a positive
	 * balance psem_release() must not touch the lock. Neither may
	 * psem_try_acquire() nor psem_drain(), which are lock-free always.
	 */
	spin_lock_irqsave(&sem->lock, flags);
	ret = psem_release(sem, 1);
	took = psem_try_acquire(sem, 2);
	drained = psem_drain(sem, 3);
	avail = psem_available(sem);
	spin_unlock_irqrestore(&sem->lock, flags);

	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_TRUE(test, took);
	KUNIT_EXPECT_EQ(test, drained, 3L);
	KUNIT_EXPECT_EQ(test, avail, 3L);
	PSEM_TEST_EXPECT_RELEASE_STATS(test, 3, 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 3);
}

static void psem_test_handoff(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 0);
	struct psem_test_thread *w;

	psem_test_stats_start();
	w = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 1, 1);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_SLEEP, 1);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_RETURNS(test, w, 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 0);
	PSEM_TEST_EXPECT_RELEASE_STATS(test, 0, 1);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 1);

	/* More than the waiter needs: the rest reaches the balance. */
	w = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 3, 1);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 5), 0);
	PSEM_TEST_EXPECT_RETURNS(test, w, 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 2);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 2);
	psem_test_reap_all(test);
}

/* Turns the fast_release switch to @on and sees that it took. */
static void psem_test_fast_release(struct kunit *test, bool on)
{
	psem_set_fast_release(on);
	KUNIT_EXPECT_EQ(test, psem_fast_release_enabled(), on);
}

static void psem_test_locked_on_positive(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 2);

	psem_test_stats_start();
	KUNIT_EXPECT_EQ(test, psem_release_all_held(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 3L);
	PSEM_TEST_EXPECT_RELEASE_STATS(test, 0, 1);

	psem_test_fast_release(test, false);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 7L);
	PSEM_TEST_EXPECT_RELEASE_STATS(test, 0, 3);

	psem_test_fast_release(test, true);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_RELEASE_STATS(test, 1, 3);
	PSEM_TEST_EXPECT_IDLE(test, sem, 8);
}

/*
 * White box: the flag is set only when a locked release loses a race, which
 * no single thread can arrange; set it by hand to see it honoured, and see
 * the locked release that honoured it clear it in the exchange that adds
 * its permits. psem_test_flag_race sees it tripped, and the switch keep it
 * from being set.
 */
static void psem_test_flag_honoured(struct kunit *test)
{
	const long big = PSEM_ADD_MAX + 1;	/* reads first: sees the flag */
	struct psem *sem = psem_test_sem(test, 1);

	psem_test_stats_start();
	atomic_long_or(PSEM_CONTENDED, &sem->count);
	KUNIT_EXPECT_EQ(test, psem_release(sem, big), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), big + 1);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_FLAG_HONOURED, 1);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 1);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 0);
	/* Cleared by the locked release: the next one is lock-free. */
	KUNIT_EXPECT_EQ(test, atomic_long_read(&sem->count) & PSEM_FLAGS, 0L);
	KUNIT_EXPECT_EQ(test, psem_release(sem, big), 0);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 1);

	/* A try leaves the flag alone; it rides in the low bits. */
	atomic_long_or(PSEM_CONTENDED, &sem->count);
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 2 * big + 1));
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(sem, 1));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&sem->count), PSEM_CONTENDED);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2 * big + 1), 0);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_FLAG_HONOURED, 2);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 2);
	PSEM_TEST_EXPECT_IDLE(test, sem, 2 * big + 1);

	/* A release that adds first does not read the word: it lands. */
	atomic_long_or(PSEM_CONTENDED, &sem->count);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 2);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_FLAG_HONOURED, 2);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&sem->count),
			(2 * big + 2) * PSEM_ONE | PSEM_CONTENDED);
	atomic_long_andnot(PSEM_CONTENDED, &sem->count);
}

/*
 * Releases from interrupt context, as Documentation/api.rst ("Contexts")
 * allows them on each kernel. A locked release takes the wait queue's
 * spinlock_t, so it runs from:
 *  - a hard hrtimer (HRTIMER_MODE_REL_HARD, hard IRQ) on !PREEMPT_RT
 *    without PROVE_RAW_LOCK_NESTING (the kcsan kernel);
 *  - an irq_work on !PREEMPT_RT with PROVE_RAW_LOCK_NESTING (the debug
 *    kernel): lockdep then applies PREEMPT_RT's rule everywhere and would
 *    report a spinlock_t in a hard hrtimer as an invalid wait context; an
 *    irq_work runs in hard IRQ here but in a thread on PREEMPT_RT, like a
 *    request_irq() handler, so lockdep allows it;
 *  - a soft hrtimer (HRTIMER_MODE_REL_SOFT) on PREEMPT_RT, where hard IRQ
 *    may not take a spinlock_t: its callback runs in softirq context, a
 *    thread there.
 * The lock-free paths take no lock and run from a hard hrtimer everywhere.
 */
enum irq_how { RELEASE_HARD_HRTIMER, RELEASE_SOFT_HRTIMER, RELEASE_IRQ_WORK };

static const char * const irq_how_names[] = {
	[RELEASE_HARD_HRTIMER]	= "a hard hrtimer (hard IRQ)",
	[RELEASE_SOFT_HRTIMER]	= "a soft hrtimer (softirq, a thread on PREEMPT_RT)",
	[RELEASE_IRQ_WORK]		= "an irq_work (hard IRQ; a thread on PREEMPT_RT)",
};

static enum irq_how locked_release_how(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return RELEASE_SOFT_HRTIMER;
	if (IS_ENABLED(CONFIG_PROVE_RAW_LOCK_NESTING))
		return RELEASE_IRQ_WORK;
	return RELEASE_HARD_HRTIMER;
}

struct release_irq {
	struct hrtimer	timer;
	struct irq_work	work;
	void		(*fn)(struct release_irq *p);
	struct psem	*sem;
	long		n;
	int		ret;
	bool		taken;
	long		drained;
	bool		in_hardirq;
	bool		in_softirq;
	bool		fired;
};

static void irq_run(struct release_irq *p)
{
	p->in_hardirq = in_hardirq();
	p->in_softirq = in_serving_softirq();
	p->fn(p);
	/* Publishes the results to run_in_irq(). */
	smp_store_release(&p->fired, true);
}

static enum hrtimer_restart irq_timer_fn(struct hrtimer *timer)
{
	irq_run(container_of(timer, struct release_irq, timer));
	return HRTIMER_NORESTART;
}

static void irq_work_cb(struct irq_work *work)
{
	irq_run(container_of(work, struct release_irq, work));
}

/* Run @fn(@p) from the context @how; false if it never ran. */
static bool run_in_irq(struct kunit *test, struct release_irq *p,
		       enum irq_how how)
{
	enum hrtimer_mode mode = how == RELEASE_SOFT_HRTIMER ?
		HRTIMER_MODE_REL_SOFT : HRTIMER_MODE_REL_HARD;
	bool fired;

	if (how == RELEASE_IRQ_WORK) {
		init_irq_work(&p->work, irq_work_cb);
		irq_work_queue(&p->work);
	} else {
		hrtimer_setup(&p->timer, irq_timer_fn, CLOCK_MONOTONIC, mode);
		hrtimer_start(&p->timer, ns_to_ktime(100 * NSEC_PER_USEC), mode);
	}
	/* Pairs with irq_run(). */
	fired = psem_test_wait_for(smp_load_acquire(&p->fired));
	/* No-ops once it ran; keep @p alive for kunit if it never did. */
	if (how == RELEASE_IRQ_WORK)
		irq_work_sync(&p->work);
	else
		hrtimer_cancel(&p->timer);
	KUNIT_EXPECT_TRUE(test, fired);
	if (how == RELEASE_SOFT_HRTIMER)
		KUNIT_EXPECT_TRUE(test, p->in_softirq);
	else if (how == RELEASE_HARD_HRTIMER || !IS_ENABLED(CONFIG_PREEMPT_RT))
		KUNIT_EXPECT_TRUE(test, p->in_hardirq);
	return fired;
}

static void irq_release_fn(struct release_irq *p)
{
	p->ret = psem_release(p->sem, p->n);
}

/* psem_release(@sem, @n) from context @how; its result. */
static int release_from_irq(struct kunit *test, struct psem *sem, long n,
			    enum irq_how how)
{
	struct release_irq *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->fn = irq_release_fn;
	p->sem = sem;
	p->n = n;
	return run_in_irq(test, p, how) ? p->ret : -ETIMEDOUT;
}

/*
 * Both release paths from interrupt context, in the strictest context the
 * kernel allows a locked release (above); lockdep checks the queue lock's
 * IRQ safety and, with PROVE_RAW_LOCK_NESTING, its wait context.
 */
static void psem_test_release_in_hardirq(struct kunit *test)
{
	enum irq_how how = locked_release_how();
	struct psem *sem = psem_test_sem(test, 0);
	struct psem_test_thread *w;

	kunit_info(test, "locked release from %s\n", irq_how_names[how]);
	psem_test_stats_start();
	w = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 2, 1);
	KUNIT_EXPECT_EQ(test, release_from_irq(test, sem, 2, how), 0);
	PSEM_TEST_EXPECT_RETURNS(test, w, 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 0);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 1);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 1);

	/* Nobody waits: both lock-free, onto zero and onto one. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, release_from_irq(test, sem, 1, how), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 2);
	PSEM_TEST_EXPECT_RELEASE_STATS(test, 2, 1);
	psem_test_reap_all(test);
}

static void irq_lock_free_fn(struct release_irq *p)
{
	p->taken = psem_try_acquire(p->sem, 1);
	p->ret = psem_release(p->sem, 1);	/* nobody waits: lock-free */
	p->drained = psem_drain(p->sem, 10);
	p->ret |= psem_release(p->sem, 1);	/* onto zero, nobody waits */
}

/*
 * The lock-free paths from a hard hrtimer on every kernel, PREEMPT_RT
 * included: try, a release that finds nobody waiting (at a positive
 * balance and at zero), drain. They take no lock, so lockdep (with
 * PROVE_RAW_LOCK_NESTING on the debug and rt kernels) has nothing to report.
 */
static void psem_test_lock_free_in_hardirq(struct kunit *test)
{
	struct release_irq *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct psem *sem = psem_test_sem(test, 3);

	KUNIT_ASSERT_NOT_NULL(test, p);
	psem_test_stats_start();
	p->fn = irq_lock_free_fn;
	p->sem = sem;
	KUNIT_ASSERT_TRUE(test, run_in_irq(test, p, RELEASE_HARD_HRTIMER));
	KUNIT_EXPECT_TRUE(test, p->taken);
	KUNIT_EXPECT_EQ(test, p->ret, 0);
	KUNIT_EXPECT_EQ(test, p->drained, 3L);
	PSEM_TEST_EXPECT_RELEASE_STATS(test, 2, 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 3);
}

PSEM_TEST_SUITE("psem_release", "KUnit tests for psem's release paths",
		psem_test_release_lock_free, psem_test_handoff,
		psem_test_locked_on_positive, psem_test_flag_honoured,
		psem_test_release_in_hardirq, psem_test_lock_free_in_hardirq);
