// SPDX-License-Identifier: GPL-2.0
/*
 * A release against every acquire flavour: plain, timed, interruptible and
 * killable with a signal, a try; FIFO between queued waiters.
 */
#include "scen.h"

static struct psem *sem;
static int ret[4];
static long held;

/* ---- acquire-release: two waiters, FIFO, partial grants ------------- */

static void ar_head(void *arg)
{
	ret[0] = psem_acquire(sem, 2);
	held += 2;
	ret[2] = xs_linked(sem, ex_task(3));	/* the later waiter: still queued? */
	psem_release(sem, 2);
	held -= 2;
}

static void ar_next(void *arg)
{
	ex_wait_until(xs_tid_linked, (void *)2L);	/* queue behind the head */
	ret[1] = psem_acquire(sem, 1);
	/* FIFO: the head, linked first, was served first. */
	ex_assert(!xs_linked(sem, ex_task(2)), "served before the head");
	psem_release(sem, 1);
}

static void ar_releaser(void *arg)
{
	ex_wait_until(xs_tid_linked, (void *)3L);
	psem_release(sem, 1);
	psem_release(sem, 1);
}

static void ar_setup(void)
{
	sem = xs_psem(0);
	ex_spawn("head", ar_head, NULL);	/* 2 */
	ex_spawn("next", ar_next, NULL);	/* 3 */
	ex_spawn("releaser", ar_releaser, NULL);
}

static void ar_check(void)
{
	ex_assert(!ret[0] && !ret[1], "results %d %d", ret[0], ret[1]);
	xs_conserved(sem, held, 2);
	kfree(sem);
}

XS_SCENARIO(acquire_release, "release/acquire-fifo", ar_setup, ar_check,
	    "two queued waiters (2 then 1) and two releases of 1: FIFO, partial grants");

/* ---- release against a timed, interruptible or killable wait -------- */

static int variant;

static void tw_waiter(void *arg)
{
	switch (variant) {
	case 0:
		ret[0] = psem_acquire_timeout(sem, 2, 5);
		break;
	case 1:
		ret[0] = psem_acquire_interruptible(sem, 2);
		break;
	default:
		ret[0] = psem_acquire_killable(sem, 2);
		break;
	}
	if (!ret[0])
		held += 2;
}

static void tw_releaser(void *arg)
{
	ex_wait_until(xs_tid_linked_or_done, (void *)2L);
	psem_release(sem, 1);
}

static void tw_signaller(void *arg)
{
	ex_wait_until(xs_tid_linked_or_done, (void *)2L);
	psem_user_signal(ex_task(2), variant == 2);
}

static void tw_setup(void)
{
	sem = xs_psem(1);	/* the waiter takes 1 at once, waits for 1 */
	ex_spawn("waiter", tw_waiter, NULL);
	ex_spawn("releaser", tw_releaser, NULL);
	if (variant)
		ex_spawn("signaller", tw_signaller, NULL);
}

static void tw_check(void)
{
	int want = variant ? -EINTR : -ETIME;

	ex_assert(!ret[0] || ret[0] == want, "result %d", ret[0]);
	/* Served: holds both. Gave up: its partial grant went back. */
	xs_settled(sem, held, 2);
	kfree(sem);
}

XS_VARIANT(timed, variant, 0, tw_setup, tw_check, "release/timeout",
	   "a release against a timed wait that holds a partial grant");
/* With a signaller, 3,592 schedules at bound 2: those at bound 1. */
XS_VARIANT(intr, variant, 1, tw_setup, tw_check, "release/signal",
	   "a release and a signal against an interruptible partial wait",
	   .bound = 1);
XS_VARIANT(kill, variant, 2, tw_setup, tw_check, "release/kill",
	   "a release and SIGKILL against a killable partial wait",
	   .bound = 1);

/* ---- a try never overtakes a queued waiter -------------------------- */

static int tr_waiter_done;

static void tr_waiter(void *arg)
{
	ret[0] = psem_acquire(sem, 1);
	tr_waiter_done = 1;
	psem_release(sem, 1);
}

static void tr_trier(void *arg)
{
	ex_wait_until(xs_tid_linked_or_done, (void *)2L);
	if (psem_try_acquire(sem, 1)) {
		ex_assert(!xs_linked(sem, ex_task(2)),
			  "a try took the permit of a queued waiter");
		psem_release(sem, 1);
	}
}

static void tr_releaser(void *arg)
{
	ex_wait_until(xs_tid_linked_or_done, (void *)2L);
	psem_release(sem, 1);
}

static void tr_setup(void)
{
	sem = xs_psem(0);
	ex_spawn("waiter", tr_waiter, NULL);
	ex_spawn("trier", tr_trier, NULL);
	ex_spawn("releaser", tr_releaser, NULL);
}

static void tr_check(void)
{
	ex_assert(!ret[0] && tr_waiter_done, "waiter %d", ret[0]);
	xs_conserved(sem, 0, 1);
	kfree(sem);
}

XS_SCENARIO(try_waiter, "release/try-vs-waiter", tr_setup, tr_check,
	    "a try racing a release to a queued waiter never overtakes it");
