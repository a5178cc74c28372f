// SPDX-License-Identifier: GPL-2.0
/*
 * The waiters-bit rule's lock-free release: a release of up to
 * PSEM_ADD_MAX adds first (psem_release_add()), one above it retries its
 * exchange while the word stays clean (psem_release_retry()), and one onto
 * a psem_ext's credit retries that (psem_release_credit()): against
 * another release and a take, which must never send it to the lock;
 * against a waiter that marks the word, a close, the edge of
 * PSEM_MAX_PERMITS, a shrinking resize and the contention flag. Last, the
 * positive-balance rule on a capacity.
 */
#include "psem_knobs.h"
#include "scen.h"

static struct psem *sem;
static int ret[4];
static long held;
static long rx_refused;
static struct ex_guard rt_data = { .what = "the data the first release published" };

/*
 * The count of the racing releases: 1, which adds first, or, in the
 * large- variants, one above PSEM_ADD_MAX, which reads first and retries.
 */
static long rt_n = 1;
#define RT_LARGE	(PSEM_ADD_MAX + 1)

static u64 rt_stat(enum psem_stat s)
{
	struct psem_stats st;

	psem_stats_snapshot(&st);
	return st.count[s];
}

static bool rt_balance_at_least(void *n)
{
	return psem_available(sem) >= (long)n;
}

/* ---- two releases and a take: never the lock ------------------------ */

static void rr_first(void *arg)
{
	ex_guard_write(&rt_data);
	ret[0] = psem_release(sem, rt_n);
}

static void rr_second(void *arg)
{
	ret[1] = psem_release(sem, rt_n);
}

/* A take and its release (the balance holds 1), racing the two releases. */
static void rr_taker(void *arg)
{
	if (psem_try_acquire(sem, 1))
		ret[2] = psem_release(sem, 1);
	else
		ret[2] = -EAGAIN;
	/* Both releases and its own in: it takes them all, ordered after. */
	ex_wait_until(rt_balance_at_least, (void *)(2 * rt_n + 1));
	if (psem_try_acquire(sem, 2 * rt_n + 1)) {
		held = 2 * rt_n + 1;
		ex_guard_read(&rt_data);
	}
}

static void rr_setup(void)
{
	sem = xs_psem(1);
	psem_set_stats(true);
	ex_spawn("first", rr_first, NULL);
	ex_spawn("second", rr_second, NULL);
	ex_spawn("taker", rr_taker, NULL);
}

static void rr_check(void)
{
	ex_assert(!ret[0] && !ret[1] && !ret[2], "results %d %d %d", ret[0],
		  ret[1], ret[2]);
	ex_assert(held == 2 * rt_n + 1, "the taker holds %ld, not %ld", held,
		  2 * rt_n + 1);
	xs_conserved(sem, held, 2 * rt_n + 1);
	/* Nobody waited, nothing closed: every release stayed lock-free. */
	ex_assert(!rt_stat(PSEM_STAT_LOCKED_RELEASE),
		  "%llu release(s) took the lock on a clean word",
		  (unsigned long long)rt_stat(PSEM_STAT_LOCKED_RELEASE));
	ex_assert(rt_stat(PSEM_STAT_FAST_RELEASE) == 3,
		  "%llu lock-free releases, not 3",
		  (unsigned long long)rt_stat(PSEM_STAT_FAST_RELEASE));
	psem_set_stats(false);
	kfree(sem);
}

XS_VARIANT(retry_race, rt_n, 1, rr_setup, rr_check, "retry/release-release-take",
	   "two releases and a take on a clean word: each release retries its lost exchange, none takes the lock");

/* The same on a psem with a capacity, both releases' permits out. */
static void rr_capped_setup(void)
{
	sem = xs_psem_cap(2 * rt_n + 1, 2 * rt_n);
	psem_set_stats(true);
	ex_spawn("first", rr_first, NULL);
	ex_spawn("second", rr_second, NULL);
	ex_spawn("taker", rr_taker, NULL);
}

XS_VARIANT(retry_race_capped, rt_n, 1, rr_capped_setup, rr_check,
	   "retry/capped-release-release-take",
	   "the same on a psem with a capacity (psem_release_credit()): no release takes the lock");

/* ---- a waiter marks the word under a retrying release --------------- */

static void rw_waiter(void *arg)
{
	ret[0] = psem_acquire(sem, 2 * rt_n + 1);
	if (!ret[0])
		held = 2 * rt_n + 1;
}

static void rw_releaser(void *arg)
{
	ret[(long)arg] = psem_release(sem, rt_n);
}

static void rw_setup(void)
{
	sem = xs_psem(1);
	ex_spawn("waiter", rw_waiter, NULL);
	ex_spawn("release-1", rw_releaser, (void *)1L);
	ex_spawn("release-2", rw_releaser, (void *)2L);
}

static void rw_check(void)
{
	/* A release that lost to the mark must have handed its permit over. */
	ex_assert(!ret[0] && !ret[1] && !ret[2], "results %d %d %d", ret[0],
		  ret[1], ret[2]);
	ex_assert(held == 2 * rt_n + 1, "the waiter holds %ld, not %ld", held,
		  2 * rt_n + 1);
	xs_settled(sem, held, 2 * rt_n + 1);
	ex_assert(!(atomic_long_read(&sem->count) & PSEM_WAITERS),
		  "PSEM_WAITERS left set with nobody waiting");
	kfree(sem);
}

XS_VARIANT(retry_mark, rt_n, 1, rw_setup, rw_check, "retry/release-vs-waiter",
	   "two releases retrying against a waiter that drains and marks the word: no lost wake-up");

/* ---- a close under a retrying release ------------------------------- */

static void rc_closer(void *arg)
{
	ret[0] = psem_close(sem);
}

static void rc_taker(void *arg)
{
	ret[3] = psem_try_acquire(sem, 1);
	if (ret[3])
		held++;
}

static void rc_setup(void)
{
	sem = xs_psem(1);
	ex_spawn("closer", rc_closer, NULL);
	ex_spawn("release-1", rw_releaser, (void *)1L);
	ex_spawn("release-2", rw_releaser, (void *)2L);
	ex_spawn("taker", rc_taker, NULL);
}

static void rc_check(void)
{
	ex_assert(!ret[0] && !ret[1] && !ret[2], "results %d %d %d", ret[0],
		  ret[1], ret[2]);
	/* Releases keep working on a closed psem: both permits are home. */
	xs_settled(sem, held, 3);
	ex_assert(psem_try_acquire(sem, 0) == false, "closed, yet a take of 0 passed");
	kfree(sem);
}

XS_VARIANT(retry_close, rt_n, 1, rc_setup, rc_check, "retry/release-vs-close",
	   "two releases retrying against a close and a take: both land, on the closed psem or before it");

/* ---- the edge of the capacity -------------------------------------- */

static void rx_taker(void *arg)
{
	if (psem_try_acquire(sem, 1)) {
		held++;
		ret[3] = psem_release(sem, 1);
		held--;
	}
}

/*
 * A psem one permit short of PSEM_MAX_PERMITS, refusals quiet and counted
 * from here, two releases of 1 and a third thread, @third, named @name.
 */
static void rx_edge_setup(const char *name, void (*third)(void *))
{
	psem_quiet_warnings = true;
	rx_refused = xs_refusals();
	sem = xs_psem(PSEM_MAX_PERMITS - rt_n);
	ex_spawn("release-1", rw_releaser, (void *)1L);
	ex_spawn("release-2", rw_releaser, (void *)2L);
	ex_spawn(name, third, NULL);
}

static void rx_setup(void)
{
	rx_edge_setup("taker", rx_taker);
}

static void rx_check(void)
{
	long ok = !ret[1] + !ret[2];
	long refused = xs_refusals() - rx_refused;

	/* Each release lands or is refused whole; the word never wraps. */
	ex_assert((!ret[1] || ret[1] == -EOVERFLOW) &&
		  (!ret[2] || ret[2] == -EOVERFLOW) &&
		  (!ret[3] || ret[3] == -EOVERFLOW),
		  "results %d %d %d", ret[1], ret[2], ret[3]);
	ex_assert(ok >= 1, "both releases refused below the capacity");
	ex_assert(refused == !!ret[1] + !!ret[2] + !!ret[3],
		  "%ld refusals for results %d %d %d", refused, ret[1], ret[2],
		  ret[3]);
	/* A refused release of the taker's permit keeps it out. */
	xs_conserved(sem, held + !!ret[3], PSEM_MAX_PERMITS - rt_n + ok * rt_n);
	ex_assert(psem_available(sem) <= PSEM_MAX_PERMITS, "balance %ld",
		  psem_available(sem));
	psem_quiet_warnings = false;
	kfree(sem);
}

XS_VARIANT(retry_cap, rt_n, 1, rx_setup, rx_check, "retry/release-at-capacity",
	   "two releases and a take's release retrying at PSEM_MAX_PERMITS: each lands or is refused whole");

/* ---- the edge of the capacity, against a close (review) ------------- */

/*
 * A retry that read a closed word as clean would add to it: at the edge
 * the sum wraps past the sign bit, and the release lands with the closed
 * state and the balance both lost.
 */
static void rz_setup(void)
{
	rx_edge_setup("closer", rc_closer);
}

static void rz_check(void)
{
	long ok = !ret[1] + !ret[2];

	ex_assert(!ret[0], "close: %d", ret[0]);
	ex_assert(ok == 1 && (!ret[1] || ret[1] == -EOVERFLOW) &&
		  (!ret[2] || ret[2] == -EOVERFLOW),
		  "results %d %d: exactly one fits", ret[1], ret[2]);
	ex_assert(psem_available(sem) == PSEM_MAX_PERMITS, "balance %ld",
		  psem_available(sem));
	ex_assert(!psem_try_acquire(sem, 0), "the close was lost");
	psem_quiet_warnings = false;
	kfree(sem);
}

XS_VARIANT(retry_close_cap, rt_n, 1, rz_setup, rz_check, "retry/release-close-at-capacity",
	   "two releases retrying at PSEM_MAX_PERMITS - 1 against a close: one fits, the psem stays closed");

/* The releases above PSEM_ADD_MAX: the read-first exchange, retried. */
XS_VARIANT(retry_race_large, rt_n, RT_LARGE, rr_setup, rr_check,
	   "retry/large-release-release-take",
	   "two releases above PSEM_ADD_MAX and a take: each retries its lost exchange, none takes the lock");
XS_VARIANT(retry_mark_large, rt_n, RT_LARGE, rw_setup, rw_check,
	   "retry/large-release-vs-waiter",
	   "two releases above PSEM_ADD_MAX against a waiter that marks the word: no lost wake-up");
XS_VARIANT(retry_cap_large, rt_n, RT_LARGE, rx_setup, rx_check,
	   "retry/large-release-at-capacity",
	   "the same at PSEM_MAX_PERMITS: each lands or is refused whole");
XS_VARIANT(retry_close_cap_large, rt_n, RT_LARGE, rz_setup, rz_check,
	   "retry/large-release-close-at-capacity",
	   "the same against a close: one fits, the psem stays closed");

/* ---- a shrinking resize under a retrying release on a capacity ------ */

/*
 * A capacity of 4, 3 available, one permit out: a holder returns it, an
 * over-releaser returns one it never took, and a resize to 2 takes 2 of
 * the balance. In every order exactly one of the two releases fits. A
 * retry that checked the word a failed exchange returned against the
 * limit from before the resize would land both: 3 of a capacity of 2. The
 * amounts keep the word from coming back to a value a release read (the
 * ABA of edge/fast-release-stale-capacity, a known defect).
 */
static void rs_resizer(void *arg)
{
	ret[0] = psem_resize(sem, 2);
}

static void rs_setup(void)
{
	rt_n = 1;
	psem_quiet_warnings = true;
	rx_refused = xs_refusals();
	sem = xs_psem_cap(4, 1);
	ex_spawn("resizer", rs_resizer, NULL);
	ex_spawn("holder", rw_releaser, (void *)1L);
	ex_spawn("over", rw_releaser, (void *)2L);
}

static void rs_check(void)
{
	ex_assert(!ret[0], "resize: %d", ret[0]);
	ex_assert(!ret[1] + !ret[2] == 1 &&
		  (!ret[1] || ret[1] == -EOVERFLOW) &&
		  (!ret[2] || ret[2] == -EOVERFLOW),
		  "results %d %d: exactly one of the two fits", ret[1], ret[2]);
	ex_assert(xs_refusals() - rx_refused == 1, "%ld refusals, not 1",
		  xs_refusals() - rx_refused);
	ex_assert(psem_capacity(sem) == 2 && psem_available(sem) == 2 &&
		  !psem_debt(sem),
		  "capacity %ld, balance %ld, debt %lu: not 2, 2, 0",
		  psem_capacity(sem), psem_available(sem), psem_debt(sem));
	psem_quiet_warnings = false;
	kfree(sem);
}

XS_SCENARIO(retry_resize, "retry/capped-release-vs-resize", rs_setup,
	    rs_check,
	    "a holder's and an over-releaser's releases retrying against a shrinking resize: exactly one fits");

/* ---- the contention flag under a retrying release ----------------- */

static long rf_old;

/* A release above PSEM_ADD_MAX: it reads first, and honours the flag. */
#define RF_LARGE	(PSEM_ADD_MAX + 1)

/*
 * A take empties the balance, then sets PSEM_CONTENDED as a locked
 * release that lost a race does (psem_add_balance()'s fetch_or). A
 * read-first release whose exchange lost to either and that had not
 * landed before the flag was set must take the lock, which clears the
 * flag, and count the flag honoured (from the review of the capped retry:
 * no scenario checked that a retry stops at the flag).
 */
static void rf_flagger(void *arg)
{
	if (!psem_try_acquire(sem, (long)arg))
		ex_fail("the balance held %ld", (long)arg);
	held = (long)arg;
	rf_old = atomic_long_fetch_or_relaxed(PSEM_CONTENDED, &sem->count);
}

static void rf_releaser(void *arg)
{
	ret[1] = psem_release(sem, (long)arg);
}

static void rf_common_setup(long n)
{
	sem = xs_psem(n);
	psem_set_stats(true);
	ex_spawn("release", rf_releaser, (void *)n);
	ex_spawn("flagger", rf_flagger, (void *)n);
}

static void rf_setup(void)
{
	rf_common_setup(RF_LARGE);
}

static void rf_add_setup(void)
{
	rf_common_setup(1);
}

static void rf_check(void)
{
	ex_assert(!ret[1], "release: %d", ret[1]);
	if (rf_old < PSEM_ONE) {
		/* The flag was set before the release landed. */
		ex_assert(!(atomic_long_read(&sem->count) & PSEM_CONTENDED),
			  "a release landed lock-free on a word with PSEM_CONTENDED");
		ex_assert(rt_stat(PSEM_STAT_LOCKED_RELEASE) == 1 &&
			  rt_stat(PSEM_STAT_FLAG_HONOURED) == 1,
			  "locked %llu, honoured %llu: not 1, 1",
			  (unsigned long long)rt_stat(PSEM_STAT_LOCKED_RELEASE),
			  (unsigned long long)rt_stat(PSEM_STAT_FLAG_HONOURED));
	}
	xs_conserved(sem, held, 2 * RF_LARGE);
	kfree(sem);
}

/*
 * A release of at most PSEM_ADD_MAX adds first: the flag, a hint for the
 * read-first releases, does not stop it, and it never takes the lock on
 * a clean word, flagged or not.
 */
static void rf_add_check(void)
{
	ex_assert(!ret[1], "release: %d", ret[1]);
	ex_assert(!rt_stat(PSEM_STAT_LOCKED_RELEASE) &&
		  rt_stat(PSEM_STAT_FAST_RELEASE) == 1,
		  "locked %llu, lock-free %llu: not 0, 1",
		  (unsigned long long)rt_stat(PSEM_STAT_LOCKED_RELEASE),
		  (unsigned long long)rt_stat(PSEM_STAT_FAST_RELEASE));
	ex_assert(atomic_long_read(&sem->count) & PSEM_CONTENDED,
		  "the flag, set and never cleared, is gone");
	xs_conserved(sem, held, 2);
	kfree(sem);
}

XS_SCENARIO(retry_flag, "retry/release-vs-flag", rf_setup, rf_check,
	    "a read-first release retrying against a take and the contention flag: sent to the lock");
XS_SCENARIO(retry_flag_add, "retry/add-vs-flag", rf_add_setup,
	    rf_add_check,
	    "a release that adds first, against a take and the contention flag: lands lock-free");

/* ---- the positive-balance rule's capped release -------------------- */

/*
 * Under the seed's rule a psem_ext's release takes the lock (its word is
 * never positive); its check against the limit is tested here, since every
 * other scenario runs the waiters-bit rule.
 */
static void pb_setup(void)
{
	rt_n = 1;
	psem_quiet_warnings = true;
	rx_refused = xs_refusals();
	psem_set_zero_release(false);	/* the positive-balance rule */
	sem = xs_psem_cap(3, 1);	/* 2 available: a positive balance */
	ex_spawn("holder", rw_releaser, (void *)1L);
	ex_spawn("over", rw_releaser, (void *)2L);
}

static void pb_check(void)
{
	psem_set_zero_release(true);
	psem_quiet_warnings = false;
	ex_assert(!ret[1] + !ret[2] == 1, "results %d %d: exactly one fits",
		  ret[1], ret[2]);
	ex_assert(psem_available(sem) == 3, "balance %ld of capacity 3",
		  psem_available(sem));
	kfree(sem);
}

XS_SCENARIO(pb_capped, "retry/positive-balance-capped-over-release",
	    pb_setup, pb_check,
	    "under the positive-balance rule, a holder's and an over-releaser's release on a capacity: exactly one fits");
