// SPDX-License-Identifier: GPL-2.0
/*
 * psem_torture: the sem phase (the core churn: every psem call on one psem, with
 * exact conservation at each stutter) and the overflow and refusal checks
 * on psems of their own.
 */

#include "psem_torture.h"

struct psem tt_sem;		/* sem phase */
struct psem tt_ovf;		/* overflow checks: balance near the top */
struct psem tt_ovf_debt;		/* overflow checks: debt near the top */

/* Sem phase accounting. */
atomic_long_t tt_held_total;	/* sum of tt_thread.held */
atomic_long_t tt_reduced;	/* reduced and not yet re-added */
/* ---------------------------------------------------------------------- */
/* Overflow and refused calls, on psems of their own.                      */

void tt_expect_refusals(const char *what, u64 before, u64 n)
{
	u64 now = psem_warn_count();

	atomic64_add(n, &tt_expected_refusals);
	if (now != before + n)
		tt_viol_err("refusals: %s: psem counted %llu refusals, expected %llu\n",
			    what, now - before, n);
}

static void tt_expect_ret(const char *what, long ret, long want)
{
	if (ret != want)
		tt_viol_err("refusals: %s returned %ld, expected %ld\n", what, ret, want);
}

void tt_expect_balance(const char *what, struct psem *sem, long bal,
		       unsigned long debt)
{
	long b = psem_available(sem);
	unsigned long d = psem_debt(sem);

	if (b != bal || d != debt)
		tt_viol_err("overflow: after %s: balance %ld debt %lu, expected %ld and %lu (permit from nowhere?)\n",
			    what, b, d, bal, debt);
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
	atomic_long_add(n, &t->held);
	total = atomic_long_add_return(n, &tt_held_total);
	if (total > tp_permits)
		tt_viol_err("sem: threads hold %ld permits, only %d exist\n", total, tp_permits);
}

/* Returns @n permits. The accounting drops before the release. */
static void tt_sem_put(struct tt_thread *t, long n, bool all_held)
{
	int ret;

	atomic_long_sub(n, &t->held);
	atomic_long_sub(n, &tt_held_total);
	ret = all_held ? psem_release_all_held(&tt_sem, n) : psem_release(&tt_sem, n);
	if (ret)
		tt_viol_err("sem: %s(%ld) returned %d\n",
			    all_held ? "psem_release_all_held" : "psem_release", n, ret);
}

void tt_sem_put_all(struct tt_thread *t)
{
	long n = atomic_long_read(&t->held);

	if (n)
		tt_sem_put(t, n, tt_rand(t, 2));
	t->hold_ops = 0;
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
	enum tt_how how;
	long n, to = 0;
	int ret;

	how = tt_rand(t, 4) ? tt_rand(t, 3) : TT_TIMEOUT;	/* PLAIN..KILL */
	if (held)
		how = TT_TIMEOUT;
	if (how == TT_TIMEOUT && (!room || !tt_rand(t, 32)))
		n = tp_permits + 1 + tt_rand(t, tp_permits);	/* can never be met */
	else
		n = 1 + tt_rand(t, room);

	tt_wait_begin(t, &tt_sem, n, how == TT_INTR);
	switch (how) {
	case TT_PLAIN:
		ret = psem_acquire(&tt_sem, n);
		break;
	case TT_INTR:
		ret = psem_acquire_interruptible(&tt_sem, n);
		break;
	case TT_KILL:
		ret = psem_acquire_killable(&tt_sem, n);
		break;
	default:
		to = tt_rand(t, 5);	/* jiffies: short, 0 only tries */
		ret = psem_acquire_timeout(&tt_sem, n, to);
		break;
	}
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
		tt_sem_put(t, 1, !tt_rand(t, 4));
	}
}

static void tt_sem_release(struct tt_thread *t)
{
	long held = atomic_long_read(&t->held);

	if (!held)
		return;
	tt_sem_put(t, tt_rand(t, 4) ? 1 + tt_rand(t, held) : held, tt_rand(t, 2));
	if (!atomic_long_read(&t->held))
		t->hold_ops = 0;
}

void tt_sem_step(struct tt_thread *t)
{
	long held = atomic_long_read(&t->held);
	u32 r = tt_rand(t, 100);

	if (held && ++t->hold_ops > 8) {
		tt_sem_put_all(t);	/* bounded hold: waiters make progress */
	} else if (!held) {
		if (r < 45)
			tt_sem_acquire(t);
		else if (r < 65)
			tt_sem_try(t);
		else if (r < 75)
			tt_sem_drain(t);
		else if (r < 87)
			tt_sem_reduce(t);
		else if (r < 89)
			tt_sem_zero(t);
		else if (r < 97)
			tt_sem_juggle(t);
	} else {
		if (r < 40)
			tt_sem_release(t);
		else if (r < 55)
			tt_sem_try(t);
		else if (r < 70)
			tt_sem_acquire(t);
		else if (r < 75)
			tt_sem_drain(t);
		else if (r < 85)
			tt_sem_reduce(t);
		else if (r < 95)
			tt_sem_juggle(t);
	}
	if (!t->id && !(t->ops % 128))
		tt_overflow_check(t);
	if (!(t->ops % 32))
		tt_check_invariant(&tt_sem, "sem");
	tt_sem_check(t);
	tt_hold_delay(t);
}

/* Stutter stage 2: take some permits without waiting, and keep them. */
void tt_sem_take_some(struct tt_thread *t)
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
