// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for psem's core semaphore (kmod/psem_core.c).
 *
 *   psem_basic    initialisation, counts, bad arguments, drain, reduce
 *   psem_release  which path a release takes: lock-free, locked, hand-off,
 *                 the contention flag, releases from interrupt context
 *                 (hard IRQ where the kernel allows a locked one; the
 *                 lock-free paths from hard IRQ on every kernel)
 *   psem_waiters  FIFO order, partial assignment, signals and timeouts
 *   psem_stress   kthreads on every online CPU racing releases against
 *                 acquisitions, the overflow race, release ordering
 *
 * The kthread helpers, the test context and the expectations on a psem's
 * state live in psem_test.h, shared with the other suites.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/signal.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_test.h"

static unsigned int stress_iters = 1000;
module_param(stress_iters, uint, 0444);
MODULE_PARM_DESC(stress_iters, "iterations of each helper in the race tests");

static unsigned int order_iters = 20000;
module_param(order_iters, uint, 0444);
MODULE_PARM_DESC(order_iters, "messages passed in each ordering test");

/* ==== psem_basic ==== */

static DEFINE_PSEM(pkt_static_sem, 3);

static void psem_test_define_psem(struct kunit *test)
{
	struct psem *sem = &pkt_static_sem;

	PKT_EXPECT_IDLE(test, sem, 3);
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 3));
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	/* The slow path takes the statically initialised queue lock. */
	KUNIT_EXPECT_EQ(test, psem_acquire_timeout(sem, 1, 1), -ETIME);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);
	PKT_EXPECT_IDLE(test, sem, 3);
}

static void psem_test_init_available(struct kunit *test)
{
	static const long counts[] = { 0, 1, 5, PSEM_MAX_PERMITS };
	struct psem *sem;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		sem = pkt_sem(test, counts[i]);
		PKT_EXPECT_IDLE(test, sem, counts[i]);
	}

	sem = pkt_sem(test, 5);
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 2));
	KUNIT_EXPECT_EQ(test, psem_available(sem), 3L);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 4), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 7L);

	/* Re-initialising an idle psem forgets its balance and its debt. */
	KUNIT_EXPECT_EQ(test, psem_reduce(sem, 10), 0);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 3UL);
	psem_init(sem, 2);
	PKT_EXPECT_IDLE(test, sem, 2);
}

static void psem_test_try_acquire(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 5);

	pkt_stats_start();
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 3));
	/* All or nothing: 3 of 2 takes none. */
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(sem, 3));
	KUNIT_EXPECT_EQ(test, psem_available(sem), 2L);
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(sem, PSEM_MAX_PERMITS));
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 2));
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(sem, 1));
	PKT_EXPECT_IDLE(test, sem, 0);
	/* It neither slept nor linked. */
	PKT_EXPECT_STAT(test, PSEM_STAT_SLEEP, 0);

	sem = pkt_sem(test, PSEM_MAX_PERMITS);
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, PSEM_MAX_PERMITS));
	PKT_EXPECT_IDLE(test, sem, 0);
}

/* Calls every function with a count of zero: each succeeds, none changes a thing. */
static void pkt_zero_calls(struct kunit *test, struct psem *sem)
{
	long avail = psem_available(sem);
	unsigned long debt = psem_debt(sem);
	u64 warned = psem_warn_count();
	struct psem_stats s;
	int i;

	psem_stats_reset();
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 0));
	/* Bounded first: a zero request that waited would fail, not hang. */
	KUNIT_ASSERT_EQ(test, psem_acquire_timeout(sem, 0, PKT_HANG_GUARD), 0);
	KUNIT_EXPECT_EQ(test, psem_acquire_timeout(sem, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, psem_acquire(sem, 0), 0);
	KUNIT_EXPECT_EQ(test, psem_acquire_interruptible(sem, 0), 0);
	KUNIT_EXPECT_EQ(test, psem_acquire_killable(sem, 0), 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 0), 0);
	KUNIT_EXPECT_EQ(test, psem_release_all_held(sem, 0), 0);
	KUNIT_EXPECT_EQ(test, psem_drain(sem, 0), 0L);
	KUNIT_EXPECT_EQ(test, psem_reduce(sem, 0), 0);

	KUNIT_EXPECT_EQ(test, psem_available(sem), avail);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), debt);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warned);
	/*
	 * A zero release takes a release's path (an exchange of the word
	 * with itself, or the lock; release_all_held()'s exchange from an
	 * empty word fails on a balance) and changes nothing; nothing else
	 * may have happened.
	 */
	psem_stats_snapshot(&s);
	for (i = 0; i < PSEM_STAT_WARN; i++) {
		if (i == PSEM_STAT_FAST_RELEASE ||
		    i == PSEM_STAT_LOCKED_RELEASE ||
		    i == PSEM_STAT_FAST_CAS_FAIL)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, s.count[i], 0ULL, "stat %s",
				    psem_stat_names[i]);
	}
	KUNIT_EXPECT_EQ(test, s.count[PSEM_STAT_FAST_RELEASE] +
			s.count[PSEM_STAT_LOCKED_RELEASE], 2ULL);
}

static void psem_test_zero_counts(struct kunit *test)
{
	struct psem *sem;

	pkt_stats_start();
	pkt_zero_calls(test, pkt_sem(test, 0));
	pkt_zero_calls(test, pkt_sem(test, 2));

	sem = pkt_sem(test, 0);
	KUNIT_ASSERT_EQ(test, psem_reduce(sem, 3), 0);
	pkt_zero_calls(test, sem);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 3UL);
}

static void psem_test_bad_counts(struct kunit *test)
{
	static const long bad[] = { -1, LONG_MIN };
	struct psem *sem = pkt_sem(test, 2);
	u64 warned;
	unsigned int i;

	pkt_stats_start();
	psem_set_quiet_warnings(true);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		long n = bad[i];

		PKT_EXPECT_REFUSED(test, sem, psem_try_acquire(sem, n), false);
		PKT_EXPECT_REFUSED(test, sem, psem_acquire(sem, n), -EINVAL);
		PKT_EXPECT_REFUSED(test, sem,
				   psem_acquire_interruptible(sem, n), -EINVAL);
		PKT_EXPECT_REFUSED(test, sem, psem_acquire_killable(sem, n),
				   -EINVAL);
		PKT_EXPECT_REFUSED(test, sem, psem_acquire_timeout(sem, n, 1),
				   -EINVAL);
		PKT_EXPECT_REFUSED(test, sem, psem_release(sem, n), -EINVAL);
		PKT_EXPECT_REFUSED(test, sem, psem_release_all_held(sem, n),
				   -EINVAL);
		PKT_EXPECT_REFUSED(test, sem, psem_drain(sem, n), 0L);
		PKT_EXPECT_REFUSED(test, sem, psem_reduce(sem, n), -EINVAL);
	}
	PKT_EXPECT_IDLE(test, sem, 2);
	/* Refused before doing anything: no release or wait was counted. */
	PKT_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_SLEEP, 0);

	/* A negative initial balance is refused and leaves zero. */
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		warned = psem_warn_count();
		psem_init(sem, bad[i]);
		KUNIT_EXPECT_EQ(test, psem_warn_count() - warned, 1ULL);
		PKT_EXPECT_IDLE(test, sem, 0);
	}
	psem_set_quiet_warnings(false);
}

static void psem_test_overflow(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, PSEM_MAX_PERMITS);

	psem_set_quiet_warnings(true);
	PKT_EXPECT_REFUSED(test, sem, psem_release(sem, 1), -EOVERFLOW);
	PKT_EXPECT_REFUSED(test, sem, psem_release_all_held(sem, 1),
			   -EOVERFLOW);
	PKT_EXPECT_REFUSED(test, sem, psem_release(sem, PSEM_MAX_PERMITS),
			   -EOVERFLOW);
	PKT_EXPECT_IDLE(test, sem, PSEM_MAX_PERMITS);

	/* The fast path's own overflow check sends it to the lock, which refuses. */
	sem = pkt_sem(test, 1);
	PKT_EXPECT_REFUSED(test, sem, psem_release(sem, PSEM_MAX_PERMITS),
			   -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, psem_release(sem, PSEM_MAX_PERMITS - 1), 0);
	PKT_EXPECT_IDLE(test, sem, PSEM_MAX_PERMITS);

	/* The same on the locked path. */
	psem_set_fast_release(false);
	sem = pkt_sem(test, PSEM_MAX_PERMITS - 1);
	PKT_EXPECT_REFUSED(test, sem, psem_release(sem, 2), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PKT_EXPECT_IDLE(test, sem, PSEM_MAX_PERMITS);
	psem_set_fast_release(true);

	/* The debt is bounded too; releases pay all of it. */
	sem = pkt_sem(test, 0);
	KUNIT_EXPECT_EQ(test, psem_reduce(sem, PSEM_MAX_PERMITS), 0);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), (unsigned long)PSEM_MAX_PERMITS);
	PKT_EXPECT_REFUSED(test, sem, psem_reduce(sem, 1), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), (unsigned long)PSEM_MAX_PERMITS);
	KUNIT_EXPECT_EQ(test, psem_release(sem, PSEM_MAX_PERMITS), 0);
	PKT_EXPECT_IDLE(test, sem, 0);
	psem_set_quiet_warnings(false);
}

static void psem_test_drain(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 5);

	KUNIT_EXPECT_EQ(test, psem_drain(sem, 3), 3L);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 2L);
	KUNIT_EXPECT_EQ(test, psem_drain(sem, 10), 2L);
	KUNIT_EXPECT_EQ(test, psem_drain(sem, 1), 0L);
	KUNIT_EXPECT_EQ(test, psem_drain(sem, PSEM_MAX_PERMITS), 0L);
	PKT_EXPECT_IDLE(test, sem, 0);
	/* The drained permits are held: returning them restores the balance. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 5), 0);
	PKT_EXPECT_IDLE(test, sem, 5);

	sem = pkt_sem(test, PSEM_MAX_PERMITS);
	KUNIT_EXPECT_EQ(test, psem_drain(sem, PSEM_MAX_PERMITS),
			PSEM_MAX_PERMITS);
	PKT_EXPECT_IDLE(test, sem, 0);
}

static void psem_test_reduce_debt(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 5);

	pkt_stats_start();
	/* Covered by the balance: no debt. */
	KUNIT_EXPECT_EQ(test, psem_reduce(sem, 3), 0);
	PKT_EXPECT_IDLE(test, sem, 2);

	/* 2 of 5 available: the missing 3 become a debt. */
	KUNIT_EXPECT_EQ(test, psem_reduce(sem, 5), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 3UL);
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(sem, 1));
	KUNIT_EXPECT_EQ(test, psem_drain(sem, 1), 0L);

	/* Releases pay the debt before anything reaches the balance. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 1UL);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);
	PKT_EXPECT_IDLE(test, sem, 2);
	PKT_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 2);

	/* Debts add up. */
	KUNIT_EXPECT_EQ(test, psem_drain(sem, 2), 2L);
	KUNIT_EXPECT_EQ(test, psem_reduce(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_reduce(sem, 2), 0);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 3UL);
	KUNIT_EXPECT_EQ(test, psem_release_all_held(sem, 3), 0);
	PKT_EXPECT_IDLE(test, sem, 0);
}

static struct kunit_case pkt_basic_cases[] = {
	KUNIT_CASE(psem_test_define_psem),
	KUNIT_CASE(psem_test_init_available),
	KUNIT_CASE(psem_test_try_acquire),
	KUNIT_CASE(psem_test_zero_counts),
	KUNIT_CASE(psem_test_bad_counts),
	KUNIT_CASE(psem_test_overflow),
	KUNIT_CASE(psem_test_drain),
	KUNIT_CASE(psem_test_reduce_debt),
	{}
};

static struct kunit_suite pkt_basic_suite = {
	.name		= "psem_basic",
	.init		= pkt_init,
	.exit		= pkt_exit,
	.test_cases	= pkt_basic_cases,
};

/* ==== psem_release ==== */

static void psem_test_release_lock_free(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 1);
	unsigned long flags;
	long drained, avail;
	bool took;
	int ret;

	pkt_stats_start();
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 5), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 7L);
	PKT_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 2);
	PKT_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 0);

	/*
	 * With this CPU holding the queue lock, a release that took it would
	 * deadlock, and lockdep would report recursive locking: on a positive
	 * balance psem_release() must not touch the lock. Neither may
	 * psem_try_acquire() nor psem_drain(), which are lock-free always.
	 */
	spin_lock_irqsave(&sem->wq.lock, flags);
	ret = psem_release(sem, 1);
	took = psem_try_acquire(sem, 2);
	drained = psem_drain(sem, 3);
	avail = psem_available(sem);
	spin_unlock_irqrestore(&sem->wq.lock, flags);

	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_TRUE(test, took);
	KUNIT_EXPECT_EQ(test, drained, 3L);
	KUNIT_EXPECT_EQ(test, avail, 3L);
	PKT_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 3);
	PKT_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 0);
	PKT_EXPECT_IDLE(test, sem, 3);
}

static void psem_test_handoff(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 0);
	struct pkt_thread *w;

	pkt_stats_start();
	w = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 1, 1);
	PKT_EXPECT_STAT(test, PSEM_STAT_SLEEP, 1);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PKT_EXPECT_RETURNS(test, w, 0);
	PKT_EXPECT_IDLE(test, sem, 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 1);
	PKT_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 1);

	/* More than the waiter needs: the rest reaches the balance. */
	w = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 3, 1);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 5), 0);
	PKT_EXPECT_RETURNS(test, w, 0);
	PKT_EXPECT_IDLE(test, sem, 2);
	PKT_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 2);
	pkt_reap_all(test);
}

static void psem_test_locked_on_positive(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 2);

	pkt_stats_start();
	KUNIT_EXPECT_EQ(test, psem_release_all_held(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 3L);
	PKT_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 1);

	psem_set_fast_release(false);
	KUNIT_EXPECT_FALSE(test, psem_fast_release_enabled());
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 7L);
	PKT_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 3);

	psem_set_fast_release(true);
	KUNIT_EXPECT_TRUE(test, psem_fast_release_enabled());
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 1);
	PKT_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 3);
	PKT_EXPECT_IDLE(test, sem, 8);
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
	struct psem *sem = pkt_sem(test, 1);

	pkt_stats_start();
	atomic_long_or(PSEM_CONTENDED, &sem->count);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 2L);
	PKT_EXPECT_STAT(test, PSEM_STAT_FLAG_HONOURED, 1);
	PKT_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 1);
	PKT_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 0);
	/* Cleared by the locked release: the next one is lock-free. */
	KUNIT_EXPECT_EQ(test, atomic_long_read(&sem->count) & PSEM_FLAGS, 0L);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 1);

	/* A try leaves the flag alone; it rides in the low bits. */
	atomic_long_or(PSEM_CONTENDED, &sem->count);
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 3));
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(sem, 1));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&sem->count), PSEM_CONTENDED);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_FLAG_HONOURED, 2);
	PKT_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 2);
	PKT_EXPECT_IDLE(test, sem, 3);
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
enum pkt_irq_how { PKT_HARD_HRTIMER, PKT_SOFT_HRTIMER, PKT_IRQ_WORK };

static const char * const pkt_irq_names[] = {
	[PKT_HARD_HRTIMER]	= "a hard hrtimer (hard IRQ)",
	[PKT_SOFT_HRTIMER]	= "a soft hrtimer (softirq, a thread on PREEMPT_RT)",
	[PKT_IRQ_WORK]		= "an irq_work (hard IRQ; a thread on PREEMPT_RT)",
};

static enum pkt_irq_how pkt_locked_release_how(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return PKT_SOFT_HRTIMER;
	if (IS_ENABLED(CONFIG_PROVE_RAW_LOCK_NESTING))
		return PKT_IRQ_WORK;
	return PKT_HARD_HRTIMER;
}

struct pkt_irq {
	struct hrtimer	timer;
	struct irq_work	work;
	void		(*fn)(struct pkt_irq *p);
	struct psem	*sem;
	long		n;
	int		ret;
	bool		taken;
	long		drained;
	bool		in_hardirq;
	bool		in_softirq;
	bool		fired;
};

static void pkt_irq_run(struct pkt_irq *p)
{
	p->in_hardirq = in_hardirq();
	p->in_softirq = in_serving_softirq();
	p->fn(p);
	/* Publishes the results to pkt_in_irq(). */
	smp_store_release(&p->fired, true);
}

static enum hrtimer_restart pkt_irq_timer(struct hrtimer *timer)
{
	pkt_irq_run(container_of(timer, struct pkt_irq, timer));
	return HRTIMER_NORESTART;
}

static void pkt_irq_work(struct irq_work *work)
{
	pkt_irq_run(container_of(work, struct pkt_irq, work));
}

/* Run @fn(@p) from the context @how; false if it never ran. */
static bool pkt_in_irq(struct kunit *test, struct pkt_irq *p,
		       enum pkt_irq_how how)
{
	enum hrtimer_mode mode = how == PKT_SOFT_HRTIMER ?
		HRTIMER_MODE_REL_SOFT : HRTIMER_MODE_REL_HARD;
	bool fired;

	if (how == PKT_IRQ_WORK) {
		init_irq_work(&p->work, pkt_irq_work);
		irq_work_queue(&p->work);
	} else {
		hrtimer_setup(&p->timer, pkt_irq_timer, CLOCK_MONOTONIC, mode);
		hrtimer_start(&p->timer, ns_to_ktime(100 * NSEC_PER_USEC), mode);
	}
	/* Pairs with pkt_irq_run(). */
	fired = pkt_wait_for(smp_load_acquire(&p->fired));
	/* No-ops once it ran; keep @p alive for kunit if it never did. */
	if (how == PKT_IRQ_WORK)
		irq_work_sync(&p->work);
	else
		hrtimer_cancel(&p->timer);
	KUNIT_EXPECT_TRUE(test, fired);
	if (how == PKT_SOFT_HRTIMER)
		KUNIT_EXPECT_TRUE(test, p->in_softirq);
	else if (how == PKT_HARD_HRTIMER || !IS_ENABLED(CONFIG_PREEMPT_RT))
		KUNIT_EXPECT_TRUE(test, p->in_hardirq);
	return fired;
}

static void pkt_irq_release(struct pkt_irq *p)
{
	p->ret = psem_release(p->sem, p->n);
}

/* psem_release(@sem, @n) from context @how; its result. */
static int pkt_release_in_irq(struct kunit *test, struct psem *sem, long n,
			      enum pkt_irq_how how)
{
	struct pkt_irq *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->fn = pkt_irq_release;
	p->sem = sem;
	p->n = n;
	return pkt_in_irq(test, p, how) ? p->ret : -ETIMEDOUT;
}

/*
 * Both release paths from interrupt context, in the strictest context the
 * kernel allows a locked release (above); lockdep checks the queue lock's
 * IRQ safety and, with PROVE_RAW_LOCK_NESTING, its wait context.
 */
static void psem_test_release_in_hardirq(struct kunit *test)
{
	enum pkt_irq_how how = pkt_locked_release_how();
	struct psem *sem = pkt_sem(test, 0);
	struct pkt_thread *w;

	kunit_info(test, "locked release from %s\n", pkt_irq_names[how]);
	pkt_stats_start();
	w = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 2, 1);
	KUNIT_EXPECT_EQ(test, pkt_release_in_irq(test, sem, 2, how), 0);
	PKT_EXPECT_RETURNS(test, w, 0);
	PKT_EXPECT_IDLE(test, sem, 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 1);
	PKT_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 1);

	/* Nobody waits: both lock-free, onto zero and onto one. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, pkt_release_in_irq(test, sem, 1, how), 0);
	PKT_EXPECT_IDLE(test, sem, 2);
	PKT_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 2);
	PKT_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 1);
	pkt_reap_all(test);
}

static void pkt_irq_lock_free(struct pkt_irq *p)
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
	struct pkt_irq *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct psem *sem = pkt_sem(test, 3);

	KUNIT_ASSERT_NOT_NULL(test, p);
	pkt_stats_start();
	p->fn = pkt_irq_lock_free;
	p->sem = sem;
	KUNIT_ASSERT_TRUE(test, pkt_in_irq(test, p, PKT_HARD_HRTIMER));
	KUNIT_EXPECT_TRUE(test, p->taken);
	KUNIT_EXPECT_EQ(test, p->ret, 0);
	KUNIT_EXPECT_EQ(test, p->drained, 3L);
	PKT_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 2);
	PKT_EXPECT_STAT(test, PSEM_STAT_LOCKED_RELEASE, 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	PKT_EXPECT_IDLE(test, sem, 3);
}

static struct kunit_case pkt_release_cases[] = {
	KUNIT_CASE(psem_test_release_lock_free),
	KUNIT_CASE(psem_test_handoff),
	KUNIT_CASE(psem_test_locked_on_positive),
	KUNIT_CASE(psem_test_flag_honoured),
	KUNIT_CASE(psem_test_release_in_hardirq),
	KUNIT_CASE(psem_test_lock_free_in_hardirq),
	{}
};

static struct kunit_suite pkt_release_suite = {
	.name		= "psem_release",
	.init		= pkt_init,
	.exit		= pkt_exit,
	.test_cases	= pkt_release_cases,
};

/* ==== psem_waiters ==== */

/* A large request at the head is not overtaken by a small one behind it. */
static void psem_test_fifo_mixed_sizes(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 0);
	struct pkt_thread *a, *b;

	pkt_stats_start();
	a = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 3, 1);
	b = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 1, 2);

	/* Enough for B, but A is at the head: A gets it and needs 2 more. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_EQ(test, pkt_nr_waiters(sem), 2U);
	PKT_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 0);

	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	PKT_EXPECT_RETURNS(test, a, 0);
	KUNIT_EXPECT_EQ(test, pkt_nr_waiters(sem), 1U);
	KUNIT_EXPECT_FALSE(test, pkt_done(b));
	PKT_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 1);

	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PKT_EXPECT_RETURNS(test, b, 0);
	KUNIT_EXPECT_LT(test, a->rank, b->rank);
	PKT_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 2);
	PKT_EXPECT_IDLE(test, sem, 0);
	pkt_reap_all(test);
}

/* One release serves waiters in order until it runs out. */
static void psem_test_fifo_batch(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 0);
	struct pkt_thread *w[10];
	unsigned int i;

	pkt_stats_start();
	w[0] = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 3, 1);
	w[1] = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 1, 2);
	w[2] = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 2, 3);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 5), 0);
	PKT_EXPECT_RETURNS(test, w[0], 0);
	PKT_EXPECT_RETURNS(test, w[1], 0);
	/* The fifth permit is assigned to the third waiter, not the balance. */
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_EQ(test, pkt_nr_waiters(sem), 1U);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	PKT_EXPECT_RETURNS(test, w[2], 0);
	KUNIT_EXPECT_GT(test, w[2]->rank, w[0]->rank);
	KUNIT_EXPECT_GT(test, w[2]->rank, w[1]->rank);
	PKT_EXPECT_IDLE(test, sem, 1);
	pkt_reap_all(test);

	/* More waiters than psem defers wake-ups for; the last must wait. */
	KUNIT_EXPECT_EQ(test, psem_drain(sem, 1), 1L);
	psem_stats_reset();
	for (i = 0; i < ARRAY_SIZE(w); i++)
		w[i] = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 1, i + 1);
	KUNIT_EXPECT_EQ(test, psem_release(sem, ARRAY_SIZE(w) - 1), 0);
	for (i = 0; i < ARRAY_SIZE(w) - 1; i++)
		PKT_EXPECT_RETURNS(test, w[i], 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_HANDOFF, ARRAY_SIZE(w) - 1);
	KUNIT_EXPECT_FALSE(test, pkt_done(w[ARRAY_SIZE(w) - 1]));
	KUNIT_EXPECT_EQ(test, pkt_nr_waiters(sem), 1U);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PKT_EXPECT_RETURNS(test, w[ARRAY_SIZE(w) - 1], 0);
	PKT_EXPECT_IDLE(test, sem, 0);
	pkt_reap_all(test);
}

/* Lock-free takers never take permits assigned to, or owed to, a waiter. */
static void psem_test_waiter_not_overtaken(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 0);
	struct pkt_thread *a;

	a = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 2, 1);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	KUNIT_EXPECT_FALSE(test, psem_try_acquire(sem, 1));
	KUNIT_EXPECT_EQ(test, psem_drain(sem, 5), 0L);
	/* A zero request succeeds at once, even behind a waiter. */
	KUNIT_EXPECT_TRUE(test, psem_try_acquire(sem, 0));
	KUNIT_EXPECT_EQ(test, psem_acquire_timeout(sem, 0, PKT_HANG_GUARD), 0);
	KUNIT_EXPECT_EQ(test, pkt_nr_waiters(sem), 1U);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PKT_EXPECT_RETURNS(test, a, 0);
	PKT_EXPECT_IDLE(test, sem, 0);
	pkt_reap_all(test);
}

/*
 * A waits for 3 and is assigned 2; B queues for 2 behind it; @sig ends A's
 * wait. A returns -EINTR holding nothing, and its 2 go to B.
 */
static void pkt_cancel_partial(struct kunit *test, enum pkt_op op, int sig)
{
	struct psem *sem = pkt_sem(test, 0);
	struct pkt_thread *a, *b;

	pkt_stats_start();
	a = pkt_linked_waiter(test, sem, op, 3, 1);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	b = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 2, 2);

	send_sig(sig, a->task, 1);
	PKT_EXPECT_RETURNS(test, a, -EINTR);
	PKT_EXPECT_RETURNS(test, b, 0);
	PKT_EXPECT_IDLE(test, sem, 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_CANCEL, 1);
	PKT_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 1);
	/* B holds exactly the 2 released: none lost, none made up. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	PKT_EXPECT_IDLE(test, sem, 2);
	pkt_reap_all(test);
}

static void psem_test_interruptible_partial(struct kunit *test)
{
	pkt_cancel_partial(test, PKT_INTERRUPTIBLE, SIGUSR1);
}

static void psem_test_killable_partial(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 0);
	struct pkt_thread *a;

	/*
	 * A signal that is not fatal leaves a killable waiter asleep. This
	 * only fails if it wakes within the pause: slower is not caught.
	 */
	a = pkt_linked_waiter(test, sem, PKT_KILLABLE, 1, 1);
	send_sig(SIGUSR1, a->task, 1);
	msleep(50);
	KUNIT_EXPECT_FALSE(test, pkt_done(a));
	KUNIT_EXPECT_EQ(test, pkt_nr_waiters(sem), 1U);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PKT_EXPECT_RETURNS(test, a, 0);
	PKT_EXPECT_IDLE(test, sem, 0);
	pkt_reap_all(test);

	pkt_cancel_partial(test, PKT_KILLABLE, SIGKILL);
}

/*
 * The timeout counterpart of pkt_cancel_partial(). A's timeout must be long
 * enough for the test to assign it 2 and start B; if it fires earlier, the
 * round still must lose nothing, but proves less: retry with a longer one.
 */
static bool pkt_timeout_round(struct kunit *test, long timeout)
{
	struct psem *sem = pkt_sem(test, 0);
	struct pkt_thread *a, *b;
	bool assigned;

	psem_stats_reset();
	a = pkt_waiter(test, sem, PKT_TIMEOUT, 3, timeout);
	KUNIT_ASSERT_TRUE(test, pkt_wait_for(pkt_nr_waiters(sem) == 1 ||
					     pkt_done(a)));
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	/* 0: the 2 went to A, still linked; 2: A had already timed out. */
	assigned = psem_available(sem) == 0;
	b = pkt_waiter(test, sem, PKT_ACQUIRE, 2, 0);

	PKT_EXPECT_RETURNS(test, a, -ETIME);
	PKT_EXPECT_RETURNS(test, b, 0);
	PKT_EXPECT_IDLE(test, sem, 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_CANCEL, 1);
	pkt_reap_all(test);
	/* A's cancel served B only if B slept and got a hand-off. */
	return assigned && pkt_stat(PSEM_STAT_HANDOFF) == 1;
}

static void psem_test_timeout_partial(struct kunit *test)
{
	long timeout = HZ / 4;
	bool proved = false;
	int round;

	pkt_stats_start();
	for (round = 0; round < 5 && !proved; round++, timeout *= 2)
		proved = pkt_timeout_round(test, timeout);
	KUNIT_EXPECT_TRUE_MSG(test, proved,
			      "A always timed out before B could queue");
}

static void psem_test_timeout_nothing_assigned(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 0);
	struct pkt_thread *a, *t;

	pkt_stats_start();
	KUNIT_EXPECT_EQ(test, psem_acquire_timeout(sem, 1, 2), -ETIME);
	PKT_EXPECT_IDLE(test, sem, 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_CANCEL, 1);

	/* Took 1 of 3 from the balance, then timed out: the 1 goes back. */
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_acquire_timeout(sem, 3, 2), -ETIME);
	PKT_EXPECT_IDLE(test, sem, 1);
	PKT_EXPECT_STAT(test, PSEM_STAT_CANCEL, 2);

	/* A timeout of zero or less only tries. */
	KUNIT_EXPECT_EQ(test, psem_acquire_timeout(sem, 3, 0), -ETIME);
	KUNIT_EXPECT_EQ(test, psem_acquire_timeout(sem, 3, -1), -ETIME);
	PKT_EXPECT_IDLE(test, sem, 1);
	KUNIT_EXPECT_EQ(test, psem_acquire_timeout(sem, 1, 0), 0);
	PKT_EXPECT_IDLE(test, sem, 0);

	/* Timing out behind another waiter leaves that one at the head. */
	a = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 3, 1);
	t = pkt_waiter(test, sem, PKT_TIMEOUT, 1, 2);
	PKT_EXPECT_RETURNS(test, t, -ETIME);
	KUNIT_EXPECT_EQ(test, pkt_nr_waiters(sem), 1U);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);
	PKT_EXPECT_RETURNS(test, a, 0);
	PKT_EXPECT_IDLE(test, sem, 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 1);
	pkt_reap_all(test);
}

/* Served under the queue lock before the signal: the wait succeeded. */
static void pkt_served_then_signalled(struct kunit *test, enum pkt_op op,
				      int sig)
{
	struct psem *sem = pkt_sem(test, 0);
	struct pkt_thread *a;

	a = pkt_linked_waiter(test, sem, op, 2, 1);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	send_sig(sig, a->task, 1);
	PKT_EXPECT_RETURNS(test, a, 0);
	PKT_EXPECT_IDLE(test, sem, 0);
	pkt_reap_all(test);
}

static void psem_test_served_then_signalled(struct kunit *test)
{
	pkt_served_then_signalled(test, PKT_INTERRUPTIBLE, SIGUSR1);
	pkt_served_then_signalled(test, PKT_KILLABLE, SIGKILL);
}

/* A debt is queued ahead of every waiter, whenever it was recorded. */
static void psem_test_debt_before_waiters(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 0);
	struct pkt_thread *a, *b;

	pkt_stats_start();
	KUNIT_EXPECT_EQ(test, psem_reduce(sem, 2), 0);
	a = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 1, 1);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 0UL);
	KUNIT_EXPECT_EQ(test, pkt_nr_waiters(sem), 1U);
	PKT_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PKT_EXPECT_RETURNS(test, a, 0);

	b = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 1, 1);
	KUNIT_EXPECT_EQ(test, psem_reduce(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 1UL);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 0UL);
	KUNIT_EXPECT_EQ(test, pkt_nr_waiters(sem), 1U);
	PKT_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 1);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PKT_EXPECT_RETURNS(test, b, 0);
	PKT_EXPECT_IDLE(test, sem, 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 2);
	pkt_reap_all(test);
}

static struct kunit_case pkt_waiters_cases[] = {
	KUNIT_CASE(psem_test_fifo_mixed_sizes),
	KUNIT_CASE(psem_test_fifo_batch),
	KUNIT_CASE(psem_test_waiter_not_overtaken),
	KUNIT_CASE(psem_test_interruptible_partial),
	KUNIT_CASE(psem_test_killable_partial),
	KUNIT_CASE(psem_test_timeout_partial),
	KUNIT_CASE(psem_test_timeout_nothing_assigned),
	KUNIT_CASE(psem_test_served_then_signalled),
	KUNIT_CASE(psem_test_debt_before_waiters),
	{}
};

static struct kunit_suite pkt_waiters_suite = {
	.name		= "psem_waiters",
	.init		= pkt_init,
	.exit		= pkt_exit,
	.test_cases	= pkt_waiters_cases,
};

/* ==== psem_stress ==== */

/* Starts @per_cpu copies of @tmpl on every online CPU. */
static void pkt_spawn_per_cpu(struct kunit *test, const struct pkt_thread *tmpl,
			      unsigned int per_cpu)
{
	unsigned int cpu, i;

	for_each_online_cpu(cpu)
		for (i = 0; i < per_cpu; i++)
			pkt_spawn(test, tmpl, cpu);
}

static void pkt_expect_helpers_ok(struct kunit *test)
{
	struct pkt_ctx *ctx = test->priv;
	unsigned int i;

	for (i = 0; i < ctx->nr; i++)
		KUNIT_EXPECT_EQ_MSG(test, ctx->thread[i]->ret, 0, "helper %u", i);
}

static void pkt_info_stats(struct kunit *test)
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

/* Takes @k permits one of five ways; returns how many it now holds. */
static long pkt_race_take(struct psem *sem, long k, u32 how, int *err)
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
	pkt_note(err, ret);
	return ret ? 0 : k;
}

/* Returns @held permits one of three ways. */
static void pkt_race_give(struct psem *sem, long held, u32 how, int *err)
{
	if (!held)
		return;
	switch (how % 3) {
	case 0:
		pkt_note(err, psem_release(sem, held));
		break;
	case 1:
		pkt_note(err, psem_release_all_held(sem, held));
		break;
	default:
		/* Two releases: the second often finds a positive balance. */
		pkt_note(err, psem_release(sem, 1));
		if (held > 1)
			pkt_note(err, psem_release(sem, held - 1));
		break;
	}
}

static int pkt_race_fn(struct pkt_thread *t)
{
	unsigned int i;
	int err = 0;

	if (!pkt_wait_step(t, 1))
		return -EINTR;
	for (i = 0; i < t->iters && !pkt_aborted(t); i++) {
		long k = 1 + pkt_rand(&t->seed) % PKT_MAX_TAKE;
		long held = pkt_race_take(t->sem, k, pkt_rand(&t->seed), &err);

		pkt_race_give(t->sem, held, pkt_rand(&t->seed), &err);
		pkt_progress(t);
	}
	return err;
}

/*
 * Three helpers per online CPU take 1 to 4 permits every way psem offers,
 * sleeping and timing out often on a balance of 6, and give them back every
 * way too. Whatever interleaving happened, the end state is exact.
 */
static void pkt_race_mixed(struct kunit *test, bool fast)
{
	const long initial = PKT_MAX_TAKE + 2;
	struct pkt_thread tmpl = {
		.fn = pkt_race_fn, .n = PKT_MAX_TAKE, .iters = stress_iters,
	};

	tmpl.sem = pkt_sem(test, initial);
	psem_set_fast_release(fast);
	pkt_stats_start();
	pkt_spawn_per_cpu(test, &tmpl, 3);
	pkt_post_step(test->priv, 1);
	pkt_reap_all(test);

	pkt_expect_helpers_ok(test);
	PKT_EXPECT_IDLE(test, tmpl.sem, initial);
	if (!fast)
		PKT_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 0);
	pkt_info_stats(test);
}

static void psem_test_race_mixed_fast(struct kunit *test)
{
	pkt_race_mixed(test, true);
}

static void psem_test_race_mixed_locked(struct kunit *test)
{
	pkt_race_mixed(test, false);
}

static int pkt_flag_fn(struct pkt_thread *t)
{
	unsigned int i;
	int err = 0;

	if (!pkt_wait_step(t, 1))
		return -EINTR;
	/* At least @iters, then on until the test posts step 2. */
	for (i = 0; i < t->iters || !pkt_step_posted(t, 2); i++) {
		if (pkt_aborted(t))
			break;
		pkt_progress(t);
		if (!psem_try_acquire(t->sem, 2))
			continue;
		pkt_note(&err, psem_release(t->sem, 1));
		/* Half the time a locked release on a positive balance. */
		if (i & 1)
			pkt_note(&err, psem_release_all_held(t->sem, 1));
		else
			pkt_note(&err, psem_release(t->sem, 1));
	}
	return err;
}

/*
 * Releases and try-acquires on a balance that stays positive, from every
 * CPU, so that locked releases lose races to fast ones and trip the flag.
 * The helpers go on until the race happened (a trip with the flag on, a
 * lost fast-path exchange with it off) or the search ends. Afterwards the
 * flag must be clear and the balance exact; with the switch off the flag
 * is never set nor honoured.
 */
static void pkt_flag_race(struct kunit *test, bool flag)
{
	enum psem_stat evidence = flag ? PSEM_STAT_FLAG_TRIP :
					 PSEM_STAT_FAST_CAS_FAIL;
	const long initial = 64;
	struct pkt_thread tmpl = {
		.fn = pkt_flag_fn, .iters = 4 * stress_iters,
	};
	bool raced;

	tmpl.sem = pkt_sem(test, initial);
	psem_set_contention_flag(flag);
	pkt_stats_start();
	pkt_spawn_per_cpu(test, &tmpl, 2);
	pkt_post_step(test->priv, 1);
	raced = pkt_wait_until(pkt_stat(evidence) > 0, PKT_RACE_SEARCH);
	pkt_post_step(test->priv, 2);
	pkt_reap_all(test);

	pkt_expect_helpers_ok(test);
	PKT_EXPECT_IDLE(test, tmpl.sem, initial);
	if (!flag) {
		PKT_EXPECT_STAT(test, PSEM_STAT_FLAG_TRIP, 0);
		PKT_EXPECT_STAT(test, PSEM_STAT_FLAG_HONOURED, 0);
	}
	pkt_info_stats(test);
	/* Nothing raced, so nothing was shown; a skip must not hide a failure. */
	if (!raced && test->status != KUNIT_FAILURE)
		kunit_skip(test, "no %s within the search: no race to check",
			   psem_stat_names[evidence]);
}

static void psem_test_flag_race_on(struct kunit *test)
{
	pkt_flag_race(test, true);
}

static void psem_test_flag_race_off(struct kunit *test)
{
	pkt_flag_race(test, false);
}

/**
 * struct pkt_ovf - two releases of 1 racing on a balance of MAX - 1
 * @sem:      the psem
 * @arrived:  helpers at this round's start line, 2 per round
 * @finished: helpers past this round's release, 2 per round
 * @done_wq:  where the test waits for @finished
 * @ret:      this round's results, by helper
 */
struct pkt_ovf {
	struct psem		*sem;
	atomic_t		arrived;
	atomic_t		finished;
	wait_queue_head_t	done_wq;
	int			ret[2];
};

static int pkt_ovf_fn(struct pkt_thread *t)
{
	struct pkt_ovf *o = t->arg;
	unsigned int r;

	for (r = 1; r <= t->iters; r++) {
		if (!pkt_wait_step(t, r))
			return -EINTR;
		/* Spin until both arrived, so that the releases overlap. */
		atomic_inc(&o->arrived);
		while (atomic_read(&o->arrived) < 2 * r && !pkt_aborted(t))
			cpu_relax();
		o->ret[t->id] = psem_release(o->sem, 1);
		if (atomic_inc_return(&o->finished) == 2 * r)
			wake_up(&o->done_wq);
		pkt_progress(t);
	}
	return 0;
}

static void psem_test_overflow_race(struct kunit *test)
{
	const unsigned int rounds = 100;
	struct pkt_ctx *ctx = test->priv;
	unsigned int cpu0, cpu1, r, bad = 0;
	struct pkt_thread tmpl = { .fn = pkt_ovf_fn, .iters = rounds };
	struct pkt_ovf *o;
	u64 warned;

	cpu0 = cpumask_first(cpu_online_mask);
	cpu1 = cpumask_next(cpu0, cpu_online_mask);
	if (cpu1 >= nr_cpu_ids)
		kunit_skip(test, "needs two online CPUs");

	o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	init_waitqueue_head(&o->done_wq);
	o->sem = pkt_sem(test, 0);
	tmpl.arg = o;
	pkt_stats_start();
	pkt_spawn(test, &tmpl, cpu0);
	pkt_spawn(test, &tmpl, cpu1);

	psem_set_quiet_warnings(true);
	warned = psem_warn_count();
	for (r = 1; r <= rounds; r++) {
		psem_drain(o->sem, PSEM_MAX_PERMITS);
		KUNIT_ASSERT_EQ(test, psem_release(o->sem, PSEM_MAX_PERMITS - 1), 0);
		pkt_post_step(ctx, r);
		if (!wait_event_timeout(o->done_wq,
					atomic_read_acquire(&o->finished) == 2 * r,
					PKT_HANG_GUARD)) {
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
	pkt_reap_all(test);

	KUNIT_EXPECT_EQ(test, bad, 0U);
	pkt_expect_helpers_ok(test);
	PKT_EXPECT_IDLE(test, o->sem, PSEM_MAX_PERMITS);
	pkt_info_stats(test);
}

#define PKT_SLOTS	4

struct pkt_slot {
	unsigned long	seq;
	unsigned long	val[3];
};

/**
 * struct pkt_ring - a ring of messages passed between two CPUs
 * @full:       slots written and not yet read
 * @empty:      slots free for the writer
 * @slot:       the messages, accessed with plain loads and stores only
 * @mismatches: messages the reader found torn or stale (reader-owned)
 */
struct pkt_ring {
	struct psem	*full;
	struct psem	*empty;
	struct pkt_slot	slot[PKT_SLOTS];
	unsigned long	mismatches;
};

static int pkt_writer_fn(struct pkt_thread *t)
{
	struct pkt_ring *ring = t->arg;
	unsigned long i;
	int err = 0;

	if (!pkt_wait_step(t, 1))
		return -EINTR;
	for (i = 1; i <= t->iters && !pkt_aborted(t); i++) {
		struct pkt_slot *s = &ring->slot[i % PKT_SLOTS];

		pkt_note(&err, psem_acquire(ring->empty, 1));
		s->seq = i;
		s->val[0] = i * 3;
		s->val[1] = ~i;
		s->val[2] = i ^ 0xa5a5;
		pkt_note(&err, psem_release(ring->full, 1));
		pkt_progress(t);
	}
	return err;
}

static int pkt_reader_fn(struct pkt_thread *t)
{
	struct pkt_ring *ring = t->arg;
	unsigned long i;
	int err = 0;

	if (!pkt_wait_step(t, 1))
		return -EINTR;
	for (i = 1; i <= t->iters && !pkt_aborted(t); i++) {
		struct pkt_slot *s = &ring->slot[i % PKT_SLOTS];

		pkt_note(&err, psem_acquire(ring->full, 1));
		if (s->seq != i || s->val[0] != i * 3 || s->val[1] != ~i ||
		    s->val[2] != (i ^ 0xa5a5))
			ring->mismatches++;
		pkt_note(&err, psem_release(ring->empty, 1));
		pkt_progress(t);
	}
	return err;
}

/*
 * Message passing through two psems, writer and reader on two CPUs, the
 * messages in plain memory. Under psem's rule (_fast) every release that
 * finds nobody waiting is lock-free, the writer's releases of an empty
 * "full" included; under the seed's rule (_seed) only those on a positive
 * balance are, about half; the _locked case sends all of them to the lock.
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
static void pkt_release_ordering(struct kunit *test, bool fast, bool zero)
{
	struct pkt_thread tmpl = { .iters = order_iters };
	struct pkt_thread *w, *r;
	unsigned int cpu0, cpu1;
	struct pkt_ring *ring;

	cpu0 = cpumask_first(cpu_online_mask);
	cpu1 = cpumask_next(cpu0, cpu_online_mask);
	if (cpu1 >= nr_cpu_ids)
		kunit_skip(test, "needs two online CPUs");

	ring = kunit_kzalloc(test, sizeof(*ring), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ring);
	ring->full = pkt_sem(test, 0);
	ring->empty = pkt_sem(test, PKT_SLOTS);
	tmpl.arg = ring;
	tmpl.n = 1;
	psem_set_fast_release(fast);
	psem_set_zero_release(zero);
	pkt_stats_start();

	tmpl.fn = pkt_writer_fn;
	tmpl.sem = ring->empty;
	w = pkt_spawn(test, &tmpl, cpu0);
	tmpl.fn = pkt_reader_fn;
	tmpl.sem = ring->full;
	r = pkt_spawn(test, &tmpl, cpu1);
	pkt_post_step(test->priv, 1);
	pkt_reap_all(test);

	KUNIT_EXPECT_EQ(test, w->ret, 0);
	KUNIT_EXPECT_EQ(test, r->ret, 0);
	KUNIT_EXPECT_EQ(test, ring->mismatches, 0UL);
	PKT_EXPECT_IDLE(test, ring->full, 0);
	PKT_EXPECT_IDLE(test, ring->empty, PKT_SLOTS);
	/* Each path under test carried messages. */
	if (fast)
		KUNIT_EXPECT_GT(test, pkt_stat(PSEM_STAT_FAST_RELEASE), 0ULL);
	else
		PKT_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 0);
	KUNIT_EXPECT_GT(test, pkt_stat(PSEM_STAT_LOCKED_RELEASE), 0ULL);
	pkt_info_stats(test);
}

/* psem's rule: the writer's releases of an empty "full" are lock-free too. */
static void psem_test_release_ordering_fast(struct kunit *test)
{
	pkt_release_ordering(test, true, true);
}

/* The seed's rule: lock-free only on a positive balance. */
static void psem_test_release_ordering_seed(struct kunit *test)
{
	pkt_release_ordering(test, true, false);
}

static void psem_test_release_ordering_locked(struct kunit *test)
{
	pkt_release_ordering(test, false, true);
}

static struct kunit_case pkt_stress_cases[] = {
	KUNIT_CASE(psem_test_race_mixed_fast),
	KUNIT_CASE(psem_test_race_mixed_locked),
	KUNIT_CASE(psem_test_flag_race_on),
	KUNIT_CASE(psem_test_flag_race_off),
	KUNIT_CASE(psem_test_overflow_race),
	KUNIT_CASE(psem_test_release_ordering_fast),
	KUNIT_CASE(psem_test_release_ordering_seed),
	KUNIT_CASE(psem_test_release_ordering_locked),
	{}
};

static struct kunit_suite pkt_stress_suite = {
	.name		= "psem_stress",
	.init		= pkt_init,
	.exit		= pkt_exit,
	.test_cases	= pkt_stress_cases,
};

kunit_test_suites(&pkt_basic_suite, &pkt_release_suite, &pkt_waiters_suite,
		  &pkt_stress_suite);

MODULE_IMPORT_NS(PSEM_NS);
MODULE_IMPORT_NS(PSEM_KNOBS_NS);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for psem's core semaphore");
