// SPDX-License-Identifier: GPL-2.0
/*
 * psem_torture: the hard-IRQ releaser (hardirq_release=1; off by default).
 *
 * A feeder thread takes permits of a psem of its own for an hrtimer in
 * HRTIMER_MODE_REL_HARD mode, which expires in hard interrupt context on
 * every kernel, PREEMPT_RT included; the timer's callback releases them
 * while waiter threads sleep on that psem for permits. api.rst allows a
 * release from hard IRQ; whether one that hands permits to a waiter may
 * take the queue lock (a spinlock_t) there is exactly what lockdep's
 * PROVE_RAW_LOCK_NESTING checks ("BUG: Invalid wait context" where it may
 * not). Conservation is checked exactly at the end of each phase.
 */

#include <linux/hrtimer.h>

#include "psem_torture.h"

#define TT_HIRQ_PERMITS		2	/* the psem's permits: few, so that tasks wait */
#define TT_HIRQ_NWAITERS	2	/* task waiters beside the feeder */

static struct psem tt_hsem;
static struct hrtimer tt_hirq_timer;
static atomic_long_t tt_hirq_pending;	/* taken for the timer, not yet released */
static atomic_long_t tt_hirq_held;	/* held by the feeder and the waiters */
static atomic_long_t tt_hirq_releases;	/* callbacks that released */
static atomic_long_t tt_hirq_waits;	/* waiter acquires */
static atomic_long_t tt_hirq_not_hard;	/* callbacks that did not run in hard IRQ */
static struct task_struct *tt_hirq_feeder;
static struct task_struct *tt_hirq_waiter[TT_HIRQ_NWAITERS];

static enum hrtimer_restart tt_hirq_fn(struct hrtimer *timer)
{
	long n = atomic_long_xchg(&tt_hirq_pending, 0);
	int ret;

	if (!in_hardirq())
		atomic_long_inc(&tt_hirq_not_hard);
	if (!n)
		return HRTIMER_NORESTART;
	atomic_long_sub(n, &tt_hirq_held);
	/* Full barrier: the count falls before the permits go home. */
	smp_mb__after_atomic();
	ret = psem_release(&tt_hsem, n);
	if (ret)
		tt_viol_err("hardirq: psem_release(%ld) from hard IRQ returned %d\n", n, ret);
	atomic_long_inc(&tt_hirq_releases);
	return HRTIMER_NORESTART;
}

/* Takes 1..2 permits, sleeping, and hands them to the timer. */
static int tt_hirq_feed(void *arg)
{
	struct rnd_state rnd;
	long n;

	prandom_seed_state(&rnd, tp_seed ^ 0x41e0);
	while (!kthread_should_stop()) {
		n = 1 + prandom_u32_state(&rnd) % 2;
		if (psem_acquire_timeout(&tt_hsem, n, HZ / 10))
			continue;
		atomic_long_add(n, &tt_hirq_held);
		/* Before the timer is armed; its xchg reads it. */
		atomic_long_add(n, &tt_hirq_pending);
		hrtimer_start(&tt_hirq_timer,
			      ns_to_ktime(20000 + prandom_u32_state(&rnd) % 200000),
			      HRTIMER_MODE_REL_HARD);
		/* Until the callback has run: one release in flight at a time. */
		while (atomic_long_read(&tt_hirq_pending) && !kthread_should_stop())
			schedule_timeout_idle(1);
	}
	hrtimer_cancel(&tt_hirq_timer);
	/* A cancelled timer released nothing: give back what it had. */
	n = atomic_long_xchg(&tt_hirq_pending, 0);
	if (n) {
		atomic_long_sub(n, &tt_hirq_held);
		psem_release(&tt_hsem, n);
	}
	return 0;
}

/* Sleeps for one permit, holds it briefly, gives it back. */
static int tt_hirq_wait(void *arg)
{
	while (!kthread_should_stop()) {
		if (psem_acquire_timeout(&tt_hsem, 1, HZ / 10))
			continue;
		atomic_long_inc(&tt_hirq_held);
		atomic_long_inc(&tt_hirq_waits);
		cond_resched();
		atomic_long_dec(&tt_hirq_held);
		/* Full barrier: the count falls before the permit goes home. */
		smp_mb__after_atomic();
		psem_release(&tt_hsem, 1);
	}
	return 0;
}

/* With each phase, when hardirq_release=1. */
void tt_hirq_start(void)
{
	int i;

	psem_init(&tt_hsem, TT_HIRQ_PERMITS);
	hrtimer_setup(&tt_hirq_timer, tt_hirq_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	atomic_long_set(&tt_hirq_pending, 0);
	atomic_long_set(&tt_hirq_held, 0);
	atomic_long_set(&tt_hirq_releases, 0);
	atomic_long_set(&tt_hirq_waits, 0);
	tt_hirq_feeder = tt_start(tt_hirq_feed, NULL, "hirq", 0, -1);
	for (i = 0; i < TT_HIRQ_NWAITERS; i++)
		tt_hirq_waiter[i] = tt_start(tt_hirq_wait, NULL, "hirqw", i, -1);
}

void tt_hirq_stop(void)
{
	long avail, held;
	int i;

	if (tt_hirq_feeder)
		kthread_stop(tt_hirq_feeder);
	tt_hirq_feeder = NULL;
	for (i = 0; i < TT_HIRQ_NWAITERS; i++) {
		if (tt_hirq_waiter[i])
			kthread_stop(tt_hirq_waiter[i]);
		tt_hirq_waiter[i] = NULL;
	}
	hrtimer_cancel(&tt_hirq_timer);
	avail = psem_available(&tt_hsem);
	held = atomic_long_read(&tt_hirq_held);
	if (avail != TT_HIRQ_PERMITS || held || psem_debt(&tt_hsem) ||
	    tt_has_waiters(&tt_hsem))
		tt_viol_err("hardirq: at the end: available %ld of %d, held %ld, debt %lu\n",
			    avail, TT_HIRQ_PERMITS, held, psem_debt(&tt_hsem));
	if (atomic_long_read(&tt_hirq_not_hard))
		tt_viol_err("hardirq: %ld timer callbacks did not run in hard IRQ\n",
			    atomic_long_read(&tt_hirq_not_hard));
	tt_alert("hardirq: releases from hard IRQ=%ld waiter acquires=%ld\n",
		 atomic_long_read(&tt_hirq_releases), atomic_long_read(&tt_hirq_waits));
}
