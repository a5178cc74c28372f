// SPDX-License-Identifier: GPL-2.0
/*
 * The hand-off of every psem's parked permits (psem_kick_list and the
 * psem_kick_work of each CPU): two runs overlapping on two CPUs against
 * psem_sync() and a free, and many psems with a hand-off due at once
 * (found by a review of the one global work and slot table that the list
 * and the per-CPU works replaced: defer/kick-overlap-* failed there).
 */
#include <linux/irq_work.h>

#include "psem_mutex.h"
#include "scen.h"

static struct psem *x, *y;
static int rv[4];
static bool ov_free_only;

/*
 * ---- two runs of the one work overlap on two CPUs ---------------------
 *
 * CPU0's run (thread 0) takes the list with X on it and is about to take
 * X's lock. An NMI on CPU1 parks on Y and queues the work again (its
 * PENDING bit was cleared when CPU0's run began), CPU1 runs it, and its
 * end clears BUSY while CPU0's run goes on. X's owner, whose NMI release
 * returned, calls psem_sync(): it must wait for X's hand-off all the same
 * (X's permit home), and only then may the owner free X.
 */
static void ov_nmi_x(void *arg)
{
	rv[0] = psem_release(x, XS_PARK_N);	/* closed: parks */
}

static bool ov_run_started(void *arg)
{
	return ex_thread_done(2) && !ex_irq_queued();
}

static void ov_nmi_y(void *arg)
{
	ex_wait_until(ov_run_started, NULL);
	rv[1] = psem_release(y, XS_PARK_N);	/* another psem, another CPU */
}

static void ov_cpu1(void *arg)
{
	ex_wait_until((bool (*)(void *))ex_thread_done, (void *)3L);
	ex_irq_work_run_here();		/* CPU1's irq_work interrupt */
}

static bool ov_ready(void *arg)
{
	return ex_thread_done(2) && ex_thread_done(4);
}

static void ov_owner(void *arg)
{
	ex_wait_until(ov_ready, NULL);	/* X's release has returned */
	psem_sync(x);
	if (!ov_free_only)
		ex_assert(psem_available(x) == XS_PARK_N,
			  "psem_sync() returned with %ld of X's %ld permits home",
			  psem_available(x), XS_PARK_N);
	kfree(x);
	x = NULL;
}

static void ov_setup(void)
{
	x = xs_psem_cap(XS_PARK_N, XS_PARK_N);
	y = xs_psem_cap(XS_PARK_N, XS_PARK_N);
	if (psem_close(x) || psem_close(y))
		ex_fail("setup");
	ex_spawn_ctx("nmi-x", ov_nmi_x, NULL, NMI_OFFSET);
	ex_spawn_ctx("nmi-y", ov_nmi_y, NULL, NMI_OFFSET);
	ex_spawn("cpu1-irq", ov_cpu1, NULL);
	ex_spawn("owner", ov_owner, NULL);
}

static void ov_check(void)
{
	ex_assert(!rv[0] && !rv[1], "NMI releases %d %d", rv[0], rv[1]);
	psem_sync(y);
	kfree(y);
	y = NULL;
}

XS_VARIANT(ov_home, ov_free_only, false, ov_setup, ov_check,
	   "defer/kick-overlap-sync-home",
	   "two overlapping runs of the hand-off work: psem_sync(X) returns with X's permit home",
	   .bound = 1);
XS_VARIANT(ov_free, ov_free_only, true, ov_setup, ov_check,
	   "defer/kick-overlap-free",
	   "the same, X freed after psem_sync(): no run touches it after",
	   .bound = 1);

/*
 * ---- many psems with a hand-off due ---------------------------------
 *
 * One NMI releases into KM_PSEMS closed psems, each then due a hand-off,
 * and then: a second release into the first of them, which finds its
 * hand-off due already (kick-many-same-psem); or a mutex unlock to a
 * queued waiter (kick-many-mutex-unlock). Every release lands, and the
 * waiter is served: a hand-off has no capacity to run out of.
 */
#define KM_PSEMS	64

static struct psem *km[KM_PSEMS];
static struct psem_mutex *km_mtx;
static int km_kind;
static long km_ret;

static bool km_linked(void *arg)
{
	return xs_linked(&km_mtx->sem, ex_task(2));
}

static void km_nmi(void *arg)
{
	int i;

	if (km_kind == 1)
		ex_wait_until(km_linked, NULL);
	for (i = 0; i < KM_PSEMS; i++)
		if (psem_release(km[i], XS_PARK_N))
			ex_fail("release %d refused", i);
	if (km_kind == 0)
		km_ret = psem_release(km[0], XS_PARK_N);	/* its hand-off is due */
	else
		psem_mutex_unlock(km_mtx);		/* to the queued waiter */
}

static void km_waiter(void *arg)
{
	psem_mutex_lock(km_mtx);
	psem_mutex_unlock(km_mtx);
}

static void km_setup(void)
{
	int i;

	for (i = 0; i < KM_PSEMS; i++) {
		km[i] = xs_psem_cap(2 * XS_PARK_N, 2 * XS_PARK_N);
		if (psem_close(km[i]))
			ex_fail("setup");
	}
	km_mtx = NULL;
	if (km_kind == 1) {
		km_mtx = kzalloc(sizeof(*km_mtx), GFP_KERNEL);
		psem_mutex_init(km_mtx);
		if (!psem_try_acquire(&km_mtx->sem, 1))	/* held: the NMI unlocks */
			ex_fail("setup");
		ex_spawn("waiter", km_waiter, NULL);
	}
	ex_spawn_ctx("nmi", km_nmi, NULL, NMI_OFFSET);
}

static void km_check(void)
{
	int i;

	if (km_kind == 0)
		ex_assert(!km_ret, "a release into a psem whose hand-off is due: %ld",
			  km_ret);
	for (i = 0; i < KM_PSEMS; i++) {
		psem_sync(km[i]);
		ex_assert(psem_available(km[i]) ==
			  XS_PARK_N * (1 + (km_kind == 0 && !i)),
			  "psem %d: %ld home", i, psem_available(km[i]));
		kfree(km[i]);
	}
	if (km_mtx)
		xs_mutex_free(&km_mtx);
}

XS_VARIANT(km_same, km_kind, 0, km_setup, km_check, "defer/kick-many-same-psem",
	   "an NMI releases into 64 closed psems, then again into the first: all land",
	   .bound = 1, .max = 5);
XS_VARIANT(km_mutex, km_kind, 1, km_setup, km_check, "defer/kick-many-mutex-unlock",
	   "an NMI releases into 64 closed psems, then unlocks a mutex to its waiter",
	   .bound = 1, .max = 5);
