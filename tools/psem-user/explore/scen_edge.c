// SPDX-License-Identifier: GPL-2.0
/*
 * Edge cases found by review: what the kernel-doc promises from NMI for an
 * asynchronous acquire that would not queue; an NMI's parked release
 * against a synchronous cancel, a resize and a quiesce.
 *
 * Two known defects are kept here as failing scenarios, built only with
 * -DPSEM_EXPLORE_KNOWN_DEFECTS (make -C tools/psem-user EXPLORE=1
 * EXTRA_CFLAGS=-DPSEM_EXPLORE_KNOWN_DEFECTS): a lock-free release checked
 * against a capacity that a shrinking resize has changed under it (an ABA
 * on the word), and a double pool put from an NMI that interrupts the
 * first put. Both need a caller's bug (an over-release, a double put) and
 * both wait for the word's redesign (issue 24); see Documentation/userspace.rst.
 */
#include "scen.h"

static struct psem *sem;
static int ret[4];
static long refused;
static struct psem_async aw;

static void ra_cb(struct psem_async *a, int result)
{
	ex_fail("an asynchronous acquire that never queued was called back (%d)",
		result);
}

/*
 * psem_acquire_async()'s kernel-doc: "-ESHUTDOWN if @sem is closed
 * (whatever @n); -E2BIG if @n exceeds its capacity. Only -EINPROGRESS
 * queues. -EPERM (with a warning) if it would have to queue from a
 * context where the queue lock may not be taken." A closed psem, or a
 * request over the capacity, never queues: from NMI these must still be
 * -ESHUTDOWN and -E2BIG, with no refusal counted. A psem of capacity 2,
 * none of it out.
 */
struct ra_case {
	long		n;		/* the acquire's */
	bool		closed;		/* closed by the setup */
	int		want;		/* its result */
	const char	*what;		/* for the report */
};

static const struct ra_case *ra;

static void ra_nmi(void *arg)
{
	refused = xs_refusals();
	ret[0] = psem_acquire_async(sem, ra->n, &aw, ra_cb);
	refused = xs_refusals() - refused;
}

static void ra_setup(void)
{
	psem_quiet_warnings = true;
	sem = xs_psem_cap(2, 0);
	if (ra->closed && psem_close(sem))
		ex_fail("setup: close");
	ex_spawn_ctx("nmi", ra_nmi, NULL, NMI_OFFSET);
}

static void ra_check(void)
{
	ex_assert(ret[0] == ra->want && !refused,
		  "NMI: acquire_async(%ld) %s: %d, %ld refusals counted",
		  ra->n, ra->what, ret[0], refused);
	kfree(sem);
}

static const struct ra_case ra_e2big = {
	.n = 3, .want = -E2BIG, .what = "of capacity 2",
};

static const struct ra_case ra_closed = {
	.n = 1, .closed = true, .want = -ESHUTDOWN, .what = "on a closed psem",
};

XS_VARIANT(nmi_async_e2big, ra, &ra_e2big, ra_setup, ra_check,
	   "edge/nmi-async-over-capacity",
	   "an asynchronous acquire over the capacity, from NMI: -E2BIG, as documented",
	   .bound = 1);
XS_VARIANT(nmi_async_closed, ra, &ra_closed, ra_setup, ra_check,
	   "edge/nmi-async-closed",
	   "an asynchronous acquire on a closed psem, from NMI: -ESHUTDOWN, as documented",
	   .bound = 1);

#ifdef PSEM_EXPLORE_KNOWN_DEFECTS
/*
 * ---- a lock-free release checked against a stale capacity ----------
 *
 * psem_release()'s kernel-doc: -EOVERFLOW "if the balance would exceed
 * the capacity", warning and changing nothing. psem_release_fast() reads
 * the word, then the limit, then exchanges from the word it read; a
 * shrinking psem_resize() and a release that brings the word back to the
 * same value (ABA) between the limit's read and the exchange let a
 * release land above the new capacity. With 5 of a capacity of 10
 * available, a holder of 2 and an over-releaser of 4: in every serial
 * order the over-release, or the later release, is refused and the balance
 * stays within the capacity; interleaved, the balance ends at 9 of 8.
 */
static void rl_over(void *arg)
{
	ret[0] = psem_release(sem, 4);
}

static void rl_resizer(void *arg)
{
	ret[1] = psem_resize(sem, 8);	/* takes 2 of the 5 available */
}

static void rl_holder(void *arg)
{
	ex_wait_until((bool (*)(void *))ex_thread_done, (void *)3L);
	ret[2] = psem_release(sem, 2);
}

static void rl_setup(void)
{
	psem_quiet_warnings = true;
	sem = xs_psem_cap(10, 5);
	ex_spawn("over", rl_over, NULL);
	ex_spawn("resizer", rl_resizer, NULL);
	ex_spawn("holder", rl_holder, NULL);
}

static void rl_check(void)
{
	ex_assert(!ret[1], "resize %d", ret[1]);
	ex_assert(psem_available(sem) <= psem_capacity(sem),
		  "balance %ld above capacity %ld (over-release %d, release %d)",
		  psem_available(sem), psem_capacity(sem), ret[0], ret[2]);
	kfree(sem);
}

XS_SCENARIO(stale_limit, "edge/fast-release-stale-capacity", rl_setup,
	    rl_check,
	    "an over-release against a shrinking resize and a release that restores the word");
#endif /* PSEM_EXPLORE_KNOWN_DEFECTS */

/*
 * ---- an NMI's parked release serves an asynchronous waiter; the owner
 * cancels it synchronously, frees it, then closes, quiesces and frees ---
 */
static struct psem_async *naw;

static void na_cb(struct psem_async *a, int result)
{
	/* Gives the permit back at once, from the hand-off's irq_work. */
	ret[3] = result ? result : psem_release(sem, 1);
}

static void na_nmi(void *arg)
{
	ret[0] = psem_release(sem, 1);	/* a waiter is linked: parks */
}

static void na_owner(void *arg)
{
	bool cancelled = psem_cancel_async_sync(sem, naw);

	kfree(naw);		/* the contract: neither aw nor fn in use */
	naw = NULL;
	ret[1] = cancelled;
	/* The permit comes home either way: to the balance, or via fn. */
	ret[2] = psem_close(sem);
	xs_quiesce_free(&sem, 1);
}

static void na_setup(void)
{
	sem = xs_psem_cap(1, 1);	/* the NMI's permit */
	naw = kzalloc(sizeof(*naw), GFP_KERNEL);
	if (psem_acquire_async(sem, 1, naw, na_cb) != -EINPROGRESS)
		ex_fail("setup");
	ex_spawn_ctx("nmi", na_nmi, NULL, NMI_OFFSET);
	ex_spawn("owner", na_owner, NULL);
}

static void na_check(void)
{
	ex_assert(!ret[0] && !ret[2] && !ret[3], "NMI release %d, close %d, give-back %d",
		  ret[0], ret[2], ret[3]);
}

XS_SCENARIO(nmi_async_cancel_free, "edge/nmi-async-cancel-sync-free", na_setup,
	    na_check,
	    "an NMI release hands off to an async waiter; the owner cancels it synchronously, frees it, closes, quiesces and frees");

/*
 * ---- a growing resize against a quiesce and an NMI's parked release --
 *
 * Capacity 2, one out, with an NMI. The owner
 * closes and quiesces while a resizer grows the capacity to 3 (shrinks
 * it to 0: a debt the NMI's permit pays). However
 * they interleave, the quiesce returns 0, and once all is done every
 * permit of the final capacity is home, with no debt and no waiter.
 */
static void gq_nmi(void *arg)
{
	ret[1] = psem_release(sem, 1);
}

static long gq_cap;

static void gq_resizer(void *arg)
{
	ret[2] = psem_resize(sem, gq_cap);
}

static void gq_owner(void *arg)
{
	ret[3] = psem_close(sem);
	ret[3] |= psem_quiesce(sem, MAX_SCHEDULE_TIMEOUT);
}

static void gq_setup(void)
{
	sem = xs_psem_cap(2, 1);
	ex_spawn_ctx("nmi", gq_nmi, NULL, NMI_OFFSET);
	ex_spawn("resizer", gq_resizer, NULL);
	ex_spawn("owner", gq_owner, NULL);
}

static void gq_check(void)
{
	ex_assert(!ret[1] && !ret[2] && !ret[3],
		  "NMI release %d, resize %d, close|quiesce %d",
		  ret[1], ret[2], ret[3]);
	ex_assert(psem_capacity(sem) == gq_cap, "capacity %ld", psem_capacity(sem));
	xs_settled(sem, 0, gq_cap);
	kfree(sem);
}

XS_VARIANT(grow_quiesce_nmi, gq_cap, 3, gq_setup, gq_check,
	   "edge/grow-vs-quiesce-nmi",
	   "a growing resize against close and quiesce, with one permit released from NMI",
	   .bound = 1);
XS_VARIANT(shrink_quiesce_nmi, gq_cap, 0, gq_setup, gq_check,
	   "edge/shrink-vs-quiesce-nmi",
	   "a resize to 0 against close and quiesce, with one permit released from NMI",
	   .bound = 1);

#ifdef PSEM_EXPLORE_KNOWN_DEFECTS
/*
 * ---- a double put from an NMI that interrupts the first put ---------
 *
 * psem_pool_put()'s kernel-doc: -EINVAL, with a warning and nothing
 * changed, for "a put into a pool that holds every object already" (a
 * double put, which CONFIG_DEBUG_OBJECTS catches earlier, best effort).
 * Without that option the refusal is the full-pass test, which counts
 * the permits home: an NMI that lands on the first put between its slot
 * fill and its release finds the slot full and the permit not yet home,
 * and spins for a permit that the interrupted put can only release once
 * the NMI returns.
 */
#include "psem_pool.h"

static struct psem_pool *dp_pool;
static int dp_obj;

static void dp_put(void *arg)
{
	ret[(long)arg] = psem_pool_put(dp_pool, &dp_obj);
}

static void dp_setup(void)
{
	void *objs[1] = { &dp_obj };

	psem_quiet_warnings = true;
	dp_pool = kzalloc(sizeof(*dp_pool), GFP_KERNEL);
	if (!dp_pool || psem_pool_init(dp_pool, objs, 1, GFP_KERNEL) ||
	    psem_pool_try_get(dp_pool) != &dp_obj)
		ex_fail("setup");
	ret[0] = ret[1] = 1;
	ex_spawn("putter", dp_put, (void *)0L);
	/* The same put again, from an NMI on the putter's CPU. */
	ex_interrupt(2, NMI_OFFSET, dp_put, (void *)1L, 1);
}

static void dp_check(void)
{
	ex_assert((!ret[0] && ret[1] == -EINVAL) || (ret[0] == -EINVAL && !ret[1]) ||
		  (!ret[0] && ret[1] == 1),
		  "puts %d, %d", ret[0], ret[1]);
	psem_pool_destroy(dp_pool);
	kfree(dp_pool);
}

XS_SCENARIO(pool_double_put_nmi, "edge/pool-double-put-nmi", dp_setup, dp_check,
	    "a double put from an NMI on the first put's CPU: refused, or a hang");
#endif /* PSEM_EXPLORE_KNOWN_DEFECTS */
