// SPDX-License-Identifier: GPL-2.0
/*
 * The release that adds first (psem_release_add()): its add onto a word
 * that a waiter is about to mark, onto a word a close is changing, onto a
 * balance at PSEM_MAX_PERMITS that takers are emptying, and the credit a
 * lock holder leaves while an add is in the field, which the last add to
 * leave the field settles; a psem_ext's credit taken from NMI. Every
 * check ends with the word at rest (xs_conserved(): no add left in the
 * field, no plain psem waiting for nobody).
 */
#include "scen.h"

static struct psem *sem;
static int ret[4];
static long held;

static void ad_releaser(void *arg)
{
	ret[(long)arg] = psem_release(sem, 1);
}

/* ---- an add onto a word a waiter is about to mark ------------------- */

static void am_waiter(void *arg)
{
	ret[0] = psem_acquire(sem, 2);
	if (!ret[0])
		held += 2;
}

static void am_setup(void)
{
	sem = xs_psem(1);	/* the waiter takes 1, marks, links for 1 */
	ex_spawn("waiter", am_waiter, NULL);
	ex_spawn("release-1", ad_releaser, (void *)1L);
	ex_spawn("release-2", ad_releaser, (void *)2L);
}

static void am_check(void)
{
	ex_assert(!ret[0] && !ret[1] && !ret[2], "results %d %d %d", ret[0],
		  ret[1], ret[2]);
	xs_settled(sem, held, 3);
	kfree(sem);
}

XS_SCENARIO(add_mark, "add/add-vs-mark", am_setup, am_check,
	    "two adds racing a waiter that drains the balance and marks the word: served, the word settled");

/* ---- an add racing a close ------------------------------------------ */

static void ac_waiter(void *arg)
{
	ret[0] = psem_acquire(sem, 1);
	if (!ret[0])
		held += 1;
}

static void ac_closer(void *arg)
{
	ret[3] = psem_close(sem);
}

static void ac_setup(void)
{
	sem = xs_psem(0);
	ex_spawn("waiter", ac_waiter, NULL);
	ex_spawn("release", ad_releaser, (void *)1L);
	ex_spawn("closer", ac_closer, NULL);
}

static void ac_check(void)
{
	ex_assert(!ret[0] || ret[0] == -ESHUTDOWN, "waiter: %d", ret[0]);
	ex_assert(!ret[1] && !ret[3], "release %d, close %d", ret[1], ret[3]);
	ex_assert(psem_is_closed(sem), "not closed");
	xs_settled(sem, held, 1);
	kfree(sem);
}

XS_SCENARIO(add_close, "add/add-vs-close", ac_setup, ac_check,
	    "an add racing a close and a waiter: the add lands on the closed word or goes to the waiter");

/* ---- an add over PSEM_MAX_PERMITS, racing takes --------------------- */

static void ao_taker(void *arg)
{
	if (psem_try_acquire(sem, (long)arg))
		held += (long)arg;
}

static long ao_refused;

static void ao_setup(void)
{
	psem_quiet_warnings = true;
	ao_refused = xs_refusals();
	sem = xs_psem(PSEM_MAX_PERMITS);
	ex_spawn("over", ad_releaser, (void *)0L);
	ex_spawn("take-all", ao_taker, (void *)PSEM_MAX_PERMITS);
	ex_spawn("take-1", ao_taker, (void *)1L);
}

/*
 * The release of a permit nobody held crosses PSEM_MAX_PERMITS unless the
 * takes came first. Crossing it, it is refused and taken back exactly:
 * from the balance, or, if the takers had it meanwhile, as a debt.
 */
static void ao_check(void)
{
	long refused = xs_refusals() - ao_refused;

	psem_quiet_warnings = false;
	ex_assert(!ret[0] || ret[0] == -EOVERFLOW, "release: %d", ret[0]);
	ex_assert(refused == !!ret[0], "%ld refusals, release %d", refused,
		  ret[0]);
	xs_conserved(sem, held, PSEM_MAX_PERMITS + !ret[0]);
	kfree(sem);
}

XS_SCENARIO(add_over, "add/over-max-vs-takes", ao_setup, ao_check,
	    "an add over PSEM_MAX_PERMITS against takes that empty the balance: refused and taken back, or owed");

/* ---- the credit, left while an add is in the field ------------------ */

static void cs_waiter(void *arg)
{
	ret[0] = psem_acquire(sem, 1);
	if (!ret[0])
		held += 1;
}

static void cs_releaser(void *arg)
{
	ex_wait_until(xs_tid_linked_or_done, (void *)2L);
	ret[(long)arg] = psem_release(sem, 1);
}

static void cs_setup(void)
{
	sem = xs_psem(0);
	ex_spawn("waiter", cs_waiter, NULL);	/* 2 */
	ex_spawn("release-1", cs_releaser, (void *)1L);
	ex_spawn("release-2", cs_releaser, (void *)2L);
}

static void cs_check(void)
{
	ex_assert(!ret[0] && !ret[1] && !ret[2], "results %d %d %d", ret[0],
		  ret[1], ret[2]);
	ex_assert(psem_available(sem) == 1, "balance %ld, not 1",
		  psem_available(sem));
	xs_settled(sem, held, 2);
	kfree(sem);
}

XS_SCENARIO(add_credit, "add/credit-settle", cs_setup, cs_check,
	    "two adds onto a waiting word: one serves the waiter, the other's permit becomes the balance, the word settled");

/* The same with one release from NMI, which may not take the lock. */
static void cs_nmi_setup(void)
{
	sem = xs_psem(0);
	ex_spawn("waiter", cs_waiter, NULL);	/* 2 */
	ex_spawn("release-1", cs_releaser, (void *)1L);
	ex_spawn_ctx("release-nmi", cs_releaser, (void *)2L, NMI_OFFSET);
}

static void cs_nmi_check(void)
{
	/* A permit parked by the NMI is home once the hand-off has run. */
	xs_sync(sem);
	cs_check();
}

XS_SCENARIO(add_credit_nmi, "add/credit-settle-nmi", cs_nmi_setup,
	    cs_nmi_check,
	    "the same with one add from NMI: taken back, then onto the credit or parked");

/* ---- a psem_ext's credit, taken from NMI -------------------------- */

static struct psem_async an_aw;

static void an_callback(struct psem_async *aw, int result)
{
	ex_fail("called back (%d): the credit held the permit", result);
}

/*
 * An asynchronous acquire from NMI on a psem_ext that holds the permit:
 * granted at once, lock-free, from the credit, while a release adds to it
 * (from the review: the acquire took only a clean balance, found none on
 * a psem_ext's word, and went on to a lock NMI may not take).
 */
static void an_nmi(void *arg)
{
	ret[0] = psem_acquire_async(sem, 1, &an_aw, an_callback);
	if (!ret[0])
		held++;
}

static void an_setup(void)
{
	sem = xs_psem_ext(1);
	ex_spawn_ctx("nmi", an_nmi, NULL, NMI_OFFSET);
	ex_spawn("release", ad_releaser, (void *)1L);
}

static void an_check(void)
{
	ex_assert(!ret[0] && !ret[1], "acquire %d, release %d", ret[0], ret[1]);
	xs_settled(sem, held, 2);
	kfree(sem);
}

XS_SCENARIO(add_async_nmi, "add/async-credit-nmi", an_setup, an_check,
	    "an asynchronous acquire from NMI granted from a psem_ext's credit while a release adds to it");

/* ---- two adds over PSEM_MAX_PERMITS (review) ----------------------- */

static long ov_refused;

static void ov_release(void *arg)
{
	ret[(long)arg] = psem_release(sem, PSEM_ADD_MAX);
}

static void ov_setup(void)
{
	psem_quiet_warnings = true;
	ov_refused = xs_refusals();
	sem = xs_psem(PSEM_MAX_PERMITS - 1);
	ex_spawn("over-1", ov_release, (void *)0L);
	ex_spawn("over-2", ov_release, (void *)1L);
}

/*
 * Each release of PSEM_ADD_MAX onto PSEM_MAX_PERMITS - 1 is over the
 * limit in every order: both refused, the balance as it was. From the
 * review: an add onto the other's overflow stood, and the limit was gone
 * for every later add.
 */
static void ov_check(void)
{
	psem_quiet_warnings = false;
	ex_assert(ret[0] == -EOVERFLOW && ret[1] == -EOVERFLOW,
		  "results %d %d", ret[0], ret[1]);
	ex_assert(xs_refusals() - ov_refused == 2, "%ld refusals, not 2",
		  xs_refusals() - ov_refused);
	ex_assert(psem_available(sem) == PSEM_MAX_PERMITS - 1, "balance %ld",
		  psem_available(sem));
	xs_conserved(sem, 0, PSEM_MAX_PERMITS - 1);
	kfree(sem);
}

XS_SCENARIO(add_double_over, "add/double-over", ov_setup, ov_check,
	    "two adds of PSEM_ADD_MAX onto PSEM_MAX_PERMITS - 1: both refused, the balance as it was");

/* ---- an add over the limit whose permits a full debt cannot owe ---- */

static void od_over(void *arg)
{
	ret[0] = psem_release(sem, PSEM_ADD_MAX);	/* nobody held these */
}

static void od_taker(void *arg)
{
	if (psem_try_acquire(sem, PSEM_MAX_PERMITS))
		held += PSEM_MAX_PERMITS;
	held += psem_drain(sem, PSEM_MAX_PERMITS);
	ret[1] = psem_reduce(sem, PSEM_MAX_PERMITS);
}

static void od_setup(void)
{
	psem_quiet_warnings = true;
	sem = xs_psem(PSEM_MAX_PERMITS - 1);
	ex_spawn("over", od_over, NULL);
	ex_spawn("taker", od_taker, NULL);
}

/*
 * Takers have the add's permits and a reduce owes PSEM_MAX_PERMITS: the
 * add cannot be taken back, even as a debt, so it stands, as a release
 * (from the review: it was refused, and its permits created).
 */
static void od_check(void)
{
	long total = PSEM_MAX_PERMITS - 1 + (ret[0] ? 0 : PSEM_ADD_MAX) -
		     (ret[1] ? 0 : PSEM_MAX_PERMITS);

	psem_quiet_warnings = false;
	ex_assert(!ret[0] || ret[0] == -EOVERFLOW, "release %d", ret[0]);
	ex_assert(!ret[1] || ret[1] == -EOVERFLOW, "reduce %d", ret[1]);
	/* xs_conserved() by hand: the total may be below zero here. */
	ex_assert(held + psem_available(sem) - (long)psem_debt(sem) == total,
		  "held %ld + available %ld - debt %lu != %ld (release %d, reduce %d)",
		  held, psem_available(sem), psem_debt(sem), total, ret[0],
		  ret[1]);
	kfree(sem);
}

XS_SCENARIO(add_over_debt, "add/over-vs-full-debt", od_setup, od_check,
	    "an add over the limit, its permits taken, a reduce owing the maximum: exact");

/* ---- the last add out of the field refused (review) ---------------- */

static void ur_add(void *arg)
{
	ex_wait_until(xs_tid_linked_or_done, (void *)2L);
	ret[1] = psem_release(sem, PSEM_ADD_MAX);
}

static void ur_large(void *arg)
{
	ex_wait_until(xs_tid_linked_or_done, (void *)2L);
	ret[2] = psem_release(sem, PSEM_MAX_PERMITS);
}

static void ur_setup(void)
{
	psem_quiet_warnings = true;
	sem = xs_psem(0);
	ex_spawn("waiter", cs_waiter, NULL);	/* 2 */
	ex_spawn("add", ur_add, NULL);
	ex_spawn("release-max", ur_large, NULL);
}

/*
 * A waiter, an add of PSEM_ADD_MAX and a release of PSEM_MAX_PERMITS: the
 * lock holder that serves the waiter leaves a credit while the add is in
 * the field, and the add, taken back, is refused over the limit. The word
 * must settle all the same (from the review: it stayed waiting for nobody).
 */
static void ur_check(void)
{
	long total = (ret[1] ? 0 : PSEM_ADD_MAX) +
		     (ret[2] ? 0 : PSEM_MAX_PERMITS);

	psem_quiet_warnings = false;
	ex_assert(!ret[0], "waiter %d", ret[0]);
	ex_assert((!ret[1] || ret[1] == -EOVERFLOW) &&
		  (!ret[2] || ret[2] == -EOVERFLOW), "results %d %d",
		  ret[1], ret[2]);
	xs_settled(sem, held, total);
	kfree(sem);
}

XS_SCENARIO(add_refused_settles, "add/refused-add-settles", ur_setup,
	    ur_check,
	    "the last add out of the field refused over the limit: the word settles all the same");

/* ---- a growing resize against a release of a permit nobody held ---- */

static void gr_over(void *arg)
{
	ret[0] = psem_release(sem, 1);
}

static void gr_resizer(void *arg)
{
	ret[1] = psem_resize(sem, 2);
}

static void gr_setup(void)
{
	psem_quiet_warnings = true;
	sem = xs_psem_cap(1, 0);	/* capacity 1, all of it home */
	ex_spawn("over", gr_over, NULL);
	ex_spawn("resizer", gr_resizer, NULL);
}

/*
 * In either order the release finds every permit home, and is refused;
 * the resize grows. From the review: the release read the grown limit
 * with the credit from before the growth and landed, and the growth was
 * refused.
 */
static void gr_check(void)
{
	psem_quiet_warnings = false;
	ex_assert(!ret[1], "resize %d", ret[1]);
	ex_assert(ret[0] == -EOVERFLOW, "the release of a permit nobody held: %d",
		  ret[0]);
	ex_assert(psem_capacity(sem) == 2 && psem_available(sem) == 2,
		  "capacity %ld, available %ld", psem_capacity(sem),
		  psem_available(sem));
	xs_conserved(sem, 0, 2);
	kfree(sem);
}

XS_SCENARIO(add_grow_over, "add/grow-vs-over-release", gr_setup, gr_check,
	    "a release of a permit nobody held against a growing resize: refused in either order");

/* ---- close, quiesce and free against adds from a task and NMI ------ */

static void qf_holder(void *arg)
{
	ret[(long)arg] = psem_release(sem, 1);
}

static void qf_owner(void *arg)
{
	ret[0] = psem_close(sem);
	xs_quiesce_free(&sem, 2);
}

static void qf_setup(void)
{
	sem = xs_psem_cap(2, 2);
	ex_spawn("holder", qf_holder, (void *)1L);
	ex_spawn_ctx("holder-nmi", qf_holder, (void *)2L, NMI_OFFSET);
	ex_spawn("owner", qf_owner, NULL);
}

static void qf_check(void)
{
	ex_assert(!ret[0] && !ret[1] && !ret[2], "close %d, releases %d %d",
		  ret[0], ret[1], ret[2]);
	ex_assert(!sem, "not freed");
}

XS_SCENARIO(add_quiesce_free, "add/close-quiesce-free", qf_setup, qf_check,
	    "two adds onto a psem_ext, one from NMI, against close, quiesce and free: nothing touched after");
