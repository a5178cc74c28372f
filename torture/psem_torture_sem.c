// SPDX-License-Identifier: GPL-2.0
/*
 * psem_torture: the sem phase (the core churn: every psem call on one psem, with
 * exact conservation at each stutter) and the overflow and refusal checks
 * on psems of their own.
 */

#include "psem_torture.h"

/* Overflow checks: tt_ovf's balance is this far below PSEM_MAX_PERMITS. */
#define TT_OVF_SLACK		3

static struct psem tt_sem;		/* sem phase */
static struct psem tt_ovf;		/* overflow checks: balance near the top */
static struct psem tt_ovf_debt;		/* overflow checks: debt near the top */
static atomic_long_t tt_reduced;	/* reduced and not yet re-added */

/* ---------------------------------------------------------------------- */
/* Overflow and refused calls, on psems of their own.                      */

static void tt_expect_ret(const char *what, long ret, long want)
{
	if (ret != want)
		tt_viol_err("refusals: %s returned %ld, expected %ld\n", what, ret, want);
}

/* At load: the psems of the overflow checks. */
void tt_overflow_init(void)
{
	psem_init(&tt_ovf, PSEM_MAX_PERMITS - TT_OVF_SLACK);
	psem_init(&tt_ovf_debt, 0);
}

/*
 * Releases that would overflow the balance, and reductions that would
 * overflow the debt, must be refused with -EOVERFLOW and change nothing;
 * negative counts with -EINVAL. Quiet warnings are on for the whole run, so
 * each refusal is only counted, and the count must match exactly.
 */
void tt_overflow_check(struct tt_thread *t)
{
	const long base = PSEM_MAX_PERMITS - TT_OVF_SLACK;
	long n = TT_OVF_SLACK + 1 + (t ? tt_rand(t, 1000) : 0);
	u64 w;

	tt_expect_balance("(start)", &tt_ovf, base, 0);

	w = psem_warn_count();
	tt_expect_ret("psem_release(overflow)", psem_release(&tt_ovf, n), -EOVERFLOW);
	tt_expect_balance("psem_release(overflow)", &tt_ovf, base, 0);
	tt_expect_ret("psem_release_all_held(overflow)",
		      psem_release_all_held(&tt_ovf, n), -EOVERFLOW);
	tt_expect_balance("psem_release_all_held(overflow)", &tt_ovf, base, 0);
	tt_expect_ret("psem_release(PSEM_MAX_PERMITS)",
		      psem_release(&tt_ovf, PSEM_MAX_PERMITS), -EOVERFLOW);
	tt_expect_balance("psem_release(PSEM_MAX_PERMITS)", &tt_ovf, base, 0);
	tt_expect_refusals("balance overflow", w, 3);

	/* Exactly up to the top is fine; one more is not. */
	w = psem_warn_count();
	tt_expect_ret("psem_release(fill)", psem_release(&tt_ovf, TT_OVF_SLACK), 0);
	tt_expect_balance("psem_release(fill)", &tt_ovf, PSEM_MAX_PERMITS, 0);
	tt_expect_ret("psem_release(1 at the top)", psem_release(&tt_ovf, 1), -EOVERFLOW);
	tt_expect_ret("psem_release_all_held(1 at the top)",
		      psem_release_all_held(&tt_ovf, 1), -EOVERFLOW);
	tt_expect_balance("release at the top", &tt_ovf, PSEM_MAX_PERMITS, 0);
	if (!psem_try_acquire(&tt_ovf, TT_OVF_SLACK))
		tt_viol_err("overflow: try_acquire(%d) failed on a full balance\n",
			    TT_OVF_SLACK);
	tt_expect_balance("try_acquire after the top", &tt_ovf, base, 0);
	tt_expect_refusals("balance at the top", w, 2);

	/* Negative counts. */
	w = psem_warn_count();
	tt_expect_ret("psem_release(-1)", psem_release(&tt_ovf, -1), -EINVAL);
	tt_expect_ret("psem_release_all_held(-5)", psem_release_all_held(&tt_ovf, -5), -EINVAL);
	tt_expect_ret("psem_try_acquire(-1)", psem_try_acquire(&tt_ovf, -1), false);
	tt_expect_ret("psem_drain(-1)", psem_drain(&tt_ovf, -1), 0);
	tt_expect_ret("psem_reduce(-1)", psem_reduce(&tt_ovf, -1), -EINVAL);
	tt_expect_ret("psem_acquire_timeout(-1)", psem_acquire_timeout(&tt_ovf, -1, 1), -EINVAL);
	tt_expect_balance("negative counts", &tt_ovf, base, 0);
	tt_expect_refusals("negative counts", w, 6);

	/* The debt: up to PSEM_MAX_PERMITS, not one more. */
	w = psem_warn_count();
	tt_expect_balance("(debt start)", &tt_ovf_debt, 0, 0);
	tt_expect_ret("psem_reduce(MAX - 1)", psem_reduce(&tt_ovf_debt, PSEM_MAX_PERMITS - 1), 0);
	tt_expect_balance("psem_reduce(MAX - 1)", &tt_ovf_debt, 0, PSEM_MAX_PERMITS - 1);
	tt_expect_ret("psem_reduce(2) on debt MAX - 1", psem_reduce(&tt_ovf_debt, 2), -EOVERFLOW);
	tt_expect_balance("psem_reduce(2) on debt MAX - 1", &tt_ovf_debt, 0,
			  PSEM_MAX_PERMITS - 1);
	tt_expect_ret("psem_reduce(1) on debt MAX - 1", psem_reduce(&tt_ovf_debt, 1), 0);
	tt_expect_balance("psem_reduce(1) on debt MAX - 1", &tt_ovf_debt, 0, PSEM_MAX_PERMITS);
	tt_expect_ret("psem_release(MAX) paying the debt",
		      psem_release(&tt_ovf_debt, PSEM_MAX_PERMITS), 0);
	tt_expect_balance("psem_release(MAX) paying the debt", &tt_ovf_debt, 0, 0);
	tt_expect_refusals("debt overflow", w, 1);

	if (t)
		tt_inc(&t->ovf);
}

/* ---------------------------------------------------------------------- */
/* The semaphore phase.                                                    */

static void tt_sem_hold(struct tt_thread *t, long n)
{
	long total;

	if (!n)
		return;
	total = tt_hold(t, n);
	if (total > tp_permits)
		tt_viol_err("sem: threads hold %ld permits, only %d exist\n", total, tp_permits);
}

static void tt_sem_put_all(struct tt_thread *t)
{
	tt_put_all(t, &tt_sem);
}

static void tt_sem_check(struct tt_thread *t)
{
	long avail = psem_available(&tt_sem);
	long mine = atomic_long_read(&t->held);
	long total = atomic_long_read(&tt_held_total);
	unsigned long debt = psem_debt(&tt_sem);

	if (avail < 0 || avail > tp_permits)
		tt_viol_err("sem: %ld permits available, only %d exist\n", avail, tp_permits);
	if (mine < 0 || mine > tp_permits)
		tt_viol_err("sem: thread %d holds %ld of %d permits\n", t->id, mine, tp_permits);
	if (total < 0 || total > tp_permits)
		tt_viol_err("sem: threads hold %ld of %d permits\n", total, tp_permits);
	/* Each thread has at most one reduction of <= permits outstanding. */
	if (debt > (unsigned long)tp_permits * tt_nthr)
		tt_viol_err("sem: debt %lu exceeds what %d threads can owe\n", debt, tt_nthr);
}

/* A sleeping acquire: only with nothing held, except timed ones. */
static void tt_sem_acquire(struct tt_thread *t)
{
	long held = atomic_long_read(&t->held);
	long room = tp_permits - held;
	enum tt_how how = tt_pick_how(t, held);
	long n, to = 0;
	int ret;

	if (how == TT_TIMEOUT && (!room || !tt_rand(t, 32)))
		n = tp_permits + 1 + tt_rand(t, tp_permits);	/* can never be met */
	else
		n = 1 + tt_rand(t, room);

	tt_wait_begin(t, &tt_sem, n, how == TT_INTR);
	ret = tt_acquire(t, &tt_sem, n, how, &to);
	tt_wait_end(t);

	if (!ret) {
		if (n > room)
			tt_viol_err("sem: %s acquire of %ld succeeded while holding %ld of %d\n",
				    tt_how_names[how], n, held, tp_permits);
		tt_sem_hold(t, n);
	} else if (ret == -EINTR && how == TT_INTR) {
		tt_inc(&t->eintr);
		tt_flush_signals();
	} else if (ret == -ETIME && how == TT_TIMEOUT) {
		tt_inc(&t->etime);
	} else {
		tt_viol_err("sem: %s acquire of %ld (timeout %ld) returned %d\n",
			    tt_how_names[how], n, to, ret);
	}
}

static void tt_sem_try(struct tt_thread *t)
{
	long room = tp_permits - atomic_long_read(&t->held);
	long n = room && tt_rand(t, 16) ? 1 + tt_rand(t, room) : tp_permits + 1;

	if (psem_try_acquire(&tt_sem, n)) {
		if (n > room)
			tt_viol_err("sem: try_acquire(%ld) succeeded with at most %ld free\n",
				    n, room);
		tt_sem_hold(t, n);
	} else {
		tt_inc(&t->busy);
	}
}

static void tt_sem_drain(struct tt_thread *t)
{
	long up_to = 1 + tt_rand(t, tp_permits + 2);
	long got = psem_drain(&tt_sem, up_to);

	if (got < 0 || got > up_to || got > tp_permits - atomic_long_read(&t->held))
		tt_viol_err("sem: psem_drain(%ld) returned %ld\n", up_to, got);
	tt_sem_hold(t, got);
}

/* Reduce, hold the reduction a little, then re-add it with a release. */
static void tt_sem_reduce(struct tt_thread *t)
{
	long n = 1 + tt_rand(t, tp_permits);
	bool all_held = tt_rand(t, 2);
	int ret;

	atomic_long_add(n, &tt_reduced);
	ret = psem_reduce(&tt_sem, n);
	if (ret) {
		tt_viol_err("sem: psem_reduce(%ld) returned %d\n", n, ret);
		atomic_long_sub(n, &tt_reduced);
		return;
	}
	udelay(tt_rand(t, 10));
	tt_sem_check(t);
	ret = all_held ? psem_release_all_held(&tt_sem, n) : psem_release(&tt_sem, n);
	if (ret)
		tt_viol_err("sem: re-adding %ld reduced permits returned %d\n", n, ret);
	atomic_long_sub(n, &tt_reduced);
}

/* n == 0 is an immediate success that changes nothing. */
static void tt_sem_zero(struct tt_thread *t)
{
	if (!psem_try_acquire(&tt_sem, 0))
		tt_viol_err("sem: psem_try_acquire(0) failed\n");
	if (psem_release(&tt_sem, 0) || psem_release_all_held(&tt_sem, 0) ||
	    psem_reduce(&tt_sem, 0) || psem_drain(&tt_sem, 0) ||
	    psem_acquire(&tt_sem, 0) || psem_acquire_timeout(&tt_sem, 0, 0))
		tt_viol_err("sem: a call with count 0 did not return 0\n");
}

/*
 * Many single-permit try_acquire/release pairs in a row: traffic on the
 * balance word, so that fast releases race with each other and with the
 * locked path (which is what trips the contention flag).
 */
static void tt_sem_juggle(struct tt_thread *t)
{
	int i;

	for (i = 0; i < 32; i++) {
		if (!psem_try_acquire(&tt_sem, 1))
			continue;
		tt_sem_hold(t, 1);
		tt_put(t, &tt_sem, 1, !tt_rand(t, 4));
	}
}

/* The sem phase's steps, after tt_put_some() (40 while holding permits). */
static const struct tt_pick tt_sem_picks[] = {
	/* step			idle	holding */
	{ tt_sem_acquire,	45,	15 },
	{ tt_sem_try,		20,	15 },
	{ tt_sem_drain,		10,	5 },
	{ tt_sem_reduce,	12,	10 },
	{ tt_sem_zero,		2,	0 },
	{ tt_sem_juggle,	8,	10 },
	{ }
};

static void tt_sem_step(struct tt_thread *t)
{
	tt_pick_step(t, &tt_sem, 40, tt_sem_picks);
	if (!t->id && !(t->ops % 128))
		tt_overflow_check(t);
	if (!(t->ops % 32))
		tt_check_invariant(&tt_sem, "sem");
	tt_sem_check(t);
	tt_hold_delay(t);
}

/* Stutter stage 2: take some permits without waiting, and keep them. */
static void tt_sem_take_some(struct tt_thread *t)
{
	long n = 1 + tt_rand(t, tp_permits);

	switch (tt_rand(t, 3)) {
	case 0:
		break;
	case 1:
		if (psem_try_acquire(&tt_sem, n))
			tt_sem_hold(t, n);
		break;
	default:
		tt_sem_hold(t, psem_drain(&tt_sem, n));
		break;
	}
}

static void tt_sem_init(void)
{
	psem_init(&tt_sem, tp_permits);
	atomic_long_set(&tt_reduced, 0);
}

/* The monitor's bounds. */
static void tt_sem_monitor(void)
{
	tt_monitor_bounds(&tt_sem, tp_permits);
}

/*
 * All workers paused: conservation, exactly. At stage 1 nothing is held;
 * at stage 2 the threads hold what they took without waiting.
 */
static void tt_sem_quiescent(int stage)
{
	long avail = psem_available(&tt_sem);
	unsigned long debt = psem_debt(&tt_sem);
	bool waiters = tt_has_waiters(&tt_sem);
	long total = atomic_long_read(&tt_held_total);
	long reduced = atomic_long_read(&tt_reduced);
	long sum = 0;
	int i;

	for (i = 0; i < tt_nthr; i++)
		sum += atomic_long_read(&tt_thr[i].held);
	if (sum != total)
		tt_viol_err("sem: paused (stage %d): threads hold %ld, accounted %ld\n",
			    stage, sum, total);
	if (total + avail - (long)debt + reduced != tp_permits || waiters ||
	    (stage == 1 && total) || reduced || debt)
		tt_viol_err("sem: paused (stage %d): held %ld + available %ld - debt %lu + reduced %ld != %d permits (waiters: %s)\n",
			    stage, total, avail, debt, reduced, tp_permits,
			    waiters ? "yes" : "no");
}

/* Workers stuck at the end: give them all the permits there are. */
static void tt_sem_rescue(void)
{
	psem_release_all_held(&tt_sem, tp_permits);
}

const struct psem_torture_ops tt_sem_ops = {
	.name		= "sem",
	.sem		= &tt_sem,
	.init		= tt_sem_init,
	.step		= tt_sem_step,
	.put_all	= tt_sem_put_all,
	.take_some	= tt_sem_take_some,
	.monitor	= tt_sem_monitor,
	.quiescent	= tt_sem_quiescent,
	.rescue		= tt_sem_rescue,
};
