// SPDX-License-Identifier: GPL-2.0
/*
 * Asynchronous waiters: cancel against grant, psem_cancel_async_sync()
 * against a callback that queues its waiter again, the work cancel against
 * a work that queues itself again, chains of callbacks, cancels of what is
 * not queued.
 */
#include <linux/workqueue.h>

#include "scen.h"

static struct psem *sem;
static struct psem_async aw;
static struct psem_async_work aww;
static int calls, in_cb, rearm, cancelled, cancel_done, depth, max_depth;
static int results[8];
static long held;

/*
 * A callback's (or a work's) body, against the synchronous cancel
 * @cancel: counted in, and what it was granted held, until cb_exit().
 */
static void cb_enter(int result, const char *cancel)
{
	ex_assert(!cancel_done, "called back after %s returned", cancel);
	in_cb++;
	calls++;
	if (!result)
		held++;
}

/* Steps aside, for a cancel to come in here, then counts itself out. */
static void cb_exit(void)
{
	ex_yield("callback body");
	in_cb--;
}

/* ---- cancel against grant: exactly one of the two ------------------- */

static void cg_cb(struct psem_async *a, int result)
{
	results[calls++] = result;
	if (!result)
		held++;
}

static void cg_queuer(void *arg)
{
	int ret = psem_acquire_async(sem, 1, &aw, cg_cb);

	ex_assert(ret == -EINPROGRESS, "acquire_async %d", ret);
	cancelled = psem_cancel_async(sem, &aw);
}

static bool cg_queued(void *arg)
{
	return xs_any_waiter(sem) || ex_thread_done(2);
}

static void cg_releaser(void *arg)
{
	ex_wait_until(cg_queued, NULL);
	psem_release(sem, 1);
}

static void cg_setup(void)
{
	sem = xs_psem_ext(0);
	ex_spawn("queuer", cg_queuer, NULL);
	ex_spawn("releaser", cg_releaser, NULL);
}

/* Cancelled, or called back (with 0): exactly one of the two. */
static void cg_one_outcome(void)
{
	ex_assert(cancelled + calls == 1, "cancelled %d, called back %d",
		  cancelled, calls);
	ex_assert(!calls || !results[0], "result %d", results[0]);
}

static void cg_check(void)
{
	cg_one_outcome();
	xs_conserved(sem, held, 1);
	kfree(sem);
}

XS_SCENARIO(cancel_grant, "async/cancel-vs-grant", cg_setup, cg_check,
	    "a cancel racing the release that grants: exactly one outcome");

/*
 * ---- a synchronous cancel against a waiter that queues itself again --
 *
 * A callback waiter against psem_cancel_async_sync(), a work waiter
 * against psem_cancel_async_work_sync(): the setup queues it, two
 * releases serve it, and its callback (or work) queues it again, once.
 * No callback may run once the cancel has returned, nor one still run
 * when it returns.
 */
struct rq_waiter {
	int		(*queue)(void);		/* 0, or -EINPROGRESS */
	bool		(*cancel_sync)(void);
	const char	*cancel;		/* for the report */
};

static const struct rq_waiter *rq;

static void rq_called(int result)
{
	/* What it was granted is kept: a re-queue must wait. */
	cb_enter(result, rq->cancel);
	if (rearm-- > 0 && !rq->queue())
		held++;
	cb_exit();
}

static void rq_cb(struct psem_async *a, int result)
{
	rq_called(result);
}

static void rq_work(struct work_struct *w)
{
	rq_called(container_of(w, struct psem_async_work, work)->result);
}

static int rq_queue_cb(void)
{
	return psem_acquire_async(sem, 1, &aw, rq_cb);
}

static bool rq_cancel_cb(void)
{
	return psem_cancel_async_sync(sem, &aw);
}

static int rq_queue_work(void)
{
	return xs_acquire_async_work(sem, 1, &aww, rq_work);
}

static bool rq_cancel_work(void)
{
	return xs_cancel_async_work_sync(sem, &aww);
}

static void rq_canceller(void *arg)
{
	rq->cancel_sync();
	ex_assert(!in_cb, "%s returned with the callback running", rq->cancel);
	cancel_done = 1;
}

/* The waiters are queued by the setup: a release serves, or finds none. */
static void cs_releaser(void *arg)
{
	psem_release(sem, 1);
}

/* A canceller (thread 2) against two releases of 1 (threads 3 and 4). */
static void cs_spawn(void (*canceller)(void *arg))
{
	ex_spawn("canceller", canceller, NULL);
	ex_spawn("releaser", cs_releaser, NULL);
	ex_spawn("releaser2", cs_releaser, NULL);
}

static void rq_setup(void)
{
	sem = xs_psem_ext(0);
	rearm = 1;
	if (rq->queue() != -EINPROGRESS)
		ex_fail("setup");
	cs_spawn(rq_canceller);
}

static void cs_check(void)
{
	/* Whatever was withdrawn or called back, every permit is counted. */
	xs_settled(sem, held, 2);
	kfree(sem);
}

static const struct rq_waiter rq_async = {
	.queue = rq_queue_cb, .cancel_sync = rq_cancel_cb,
	.cancel = "psem_cancel_async_sync()",
};

static const struct rq_waiter rq_async_work = {
	.queue = rq_queue_work, .cancel_sync = rq_cancel_work,
	.cancel = "psem_cancel_async_work_sync()",
};

XS_VARIANT(cancel_sync_rearm, rq, &rq_async, rq_setup, cs_check,
	   "async/cancel-sync-rearm",
	   "psem_cancel_async_sync() against a callback that queues again",
	   .bound = 1);	/* 18,327 schedules at bound 2 */
/*
 * 130,394 schedules at bound 2: the first 20,000 of them, deepest first,
 * where the explorer found (at 15,612 on the sources before 36f3d08) a
 * callback that finished between the cancel's two reads.
 */
XS_VARIANT(work_requeue, rq, &rq_async_work, rq_setup, cs_check,
	   "async/work-cancel-requeue",
	   "psem_cancel_async_work_sync() against a work that queues itself again",
	   .max = 20000);

/* ---- a chain of callbacks that release into their psem iterates ----- */

#define CHAIN	6
static struct psem_async chain[CHAIN];

static void ch_cb(struct psem_async *a, int result)
{
	ex_assert(!result, "result %d", result);
	if (++depth > max_depth)
		max_depth = depth;
	calls++;
	psem_release(sem, 1);	/* serves the next one: never from here */
	depth--;
}

static void ch_releaser(void *arg)
{
	psem_release(sem, 1);
}

static void ch_setup(void)
{
	int i;

	sem = xs_psem_ext(0);
	for (i = 0; i < CHAIN; i++)
		if (psem_acquire_async(sem, 1, &chain[i], ch_cb) != -EINPROGRESS)
			ex_fail("setup");
	ex_spawn("releaser", ch_releaser, NULL);
}

static void ch_check(void)
{
	ex_assert(calls == CHAIN, "%d of %d called back", calls, CHAIN);
	ex_assert(max_depth == 1, "callbacks nested %d deep", max_depth);
	xs_conserved(sem, 0, 1);
	kfree(sem);
}

XS_SCENARIO(chain_iterates, "async/chain-iterates", ch_setup, ch_check,
	    "six callbacks, each releasing into the psem, run one after another, never nested");

/* ---- cancels of what is not queued change nothing ------------------- */

static void nq_cb(struct psem_async *a, int result)
{
	calls++;
	if (!result)
		held++;
}

static void nq_thread(void *arg)
{
	/* Granted at once: no callback, a cancel finds nothing. */
	ex_assert(!psem_acquire_async(sem, 1, &aw, nq_cb), "not granted at once");
	held++;
	ex_assert(!psem_cancel_async(sem, &aw), "cancelled a wait never queued");
	/* Queued, cancelled, cancelled again. */
	ex_assert(psem_acquire_async(sem, 1, &aw, nq_cb) == -EINPROGRESS, "queue");
	ex_assert(psem_cancel_async(sem, &aw), "first cancel");
	ex_assert(!psem_cancel_async(sem, &aw), "second cancel");
	ex_assert(!psem_cancel_async_sync(sem, &aw), "cancel_sync of nothing");
	/* Called back, then cancelled. */
	ex_assert(psem_acquire_async(sem, 1, &aw, nq_cb) == -EINPROGRESS, "queue");
	psem_release(sem, 1);
	held--;
	ex_assert(!psem_cancel_async_sync(sem, &aw), "cancel after the callback");
}

static void nq_setup(void)
{
	sem = xs_psem_ext(1);
	ex_spawn("owner", nq_thread, NULL);
}

static void nq_check(void)
{
	ex_assert(calls == 1, "%d callbacks", calls);
	xs_conserved(sem, held, 1);
	kfree(sem);
}

XS_SCENARIO(not_queued, "async/cancel-not-queued", nq_setup, nq_check,
	    "cancels of a wait granted at once, cancelled, or called back change nothing");

/* ---- a served work waiter withdrawn while another callback runs ----- */

static struct psem_async other;
static int works;

static void aw_other_cb(struct psem_async *a, int result)
{
	in_cb++;
	ex_yield("other callback");
	psem_release(sem, 1);
	in_cb--;
}

static void aw_work(struct work_struct *w)
{
	works++;
	if (!aww.result)
		psem_release(sem, 1);
}

static void aw_canceller(void *arg)
{
	cancelled = xs_cancel_async_work_sync(sem, &aww);
	ex_assert(cancelled ? !works : works == 1,
		  "cancelled %d, the work ran %d times", cancelled, works);
	cancel_done = 1;
}

static void aw_setup(void)
{
	sem = xs_psem_ext(0);
	if (psem_acquire_async(sem, 1, &other, aw_other_cb) != -EINPROGRESS ||
	    xs_acquire_async_work(sem, 1, &aww, aw_work) != -EINPROGRESS)
		ex_fail("setup");
	cs_spawn(aw_canceller);
}

XS_SCENARIO(work_withdraw, "async/work-withdraw", aw_setup, cs_check,
	    "a work waiter served while another callback runs, withdrawn, then free",
	    .bound = 1);	/* 35,675 schedules at bound 2 */

/*
 * ---- cancel_sync against a second callback of a re-queued waiter -----
 *
 * The callback queues its waiter again and returns; the canceller, which
 * was waiting for that callback, finds it returned and the waiter queued;
 * then a release serves the waiter and a second callback starts. The
 * canceller must withdraw the re-queued wait, or wait for the second
 * callback: it may not return while that one runs.
 */
static int sc_rearmed;

static void sc_cb(struct psem_async *a, int result)
{
	cb_enter(result, "psem_cancel_async_sync()");
	/* Steps aside: the canceller, waiting for a callback, comes in here. */
	ex_yield("callback body");
	if (calls == 1) {
		if (!psem_acquire_async(sem, 1, a, sc_cb))
			held++;
		sc_rearmed = 1;
	}
	in_cb--;
}

static bool sc_called(void *arg)
{
	return calls > 0;
}

static void sc_canceller(void *arg)
{
	ex_wait_until(sc_called, NULL);
	cancelled = psem_cancel_async_sync(sem, &aw);
	ex_assert(!in_cb, "psem_cancel_async_sync() returned with a callback running");
	cancel_done = 1;
}

static bool sc_requeued(void *arg)
{
	return sc_rearmed;
}

static void sc_releaser2(void *arg)
{
	ex_wait_until(sc_requeued, NULL);
	psem_release(sem, 1);
}

static void sc_setup(void)
{
	sem = xs_psem_ext(0);
	if (psem_acquire_async(sem, 1, &aw, sc_cb) != -EINPROGRESS)
		ex_fail("setup");
	ex_spawn("releaser", cs_releaser, NULL);	/* 2: serves the first wait */
	ex_spawn("canceller", sc_canceller, NULL);	/* 3 */
	ex_spawn("releaser2", sc_releaser2, NULL);	/* 4: serves the re-queued one */
}

XS_SCENARIO(cancel_sync_second, "async/cancel-sync-second-callback", sc_setup, cs_check,
	    "psem_cancel_async_sync() while a re-queued waiter is served again and called back a second time",
	    .bound = 1);	/* 25,322 schedules at bound 2 */

/* ---- a second cancel of a wait that holds a partial grant ----------- */

static int dc_second;

static void dc_cb(struct psem_async *a, int result)
{
	calls++;
	results[0] = result;
	if (!result)
		held += 3;
}

static void dc_canceller(void *arg)
{
	cancelled = psem_cancel_async(sem, &aw);
	/* Cancelled or called back: either way, nothing is queued now. */
	dc_second = psem_cancel_async(sem, &aw);
}

static void dc_releaser(void *arg)
{
	psem_release(sem, 3);
	held -= 3;
}

static void dc_setup(void)
{
	sem = xs_psem_cap(4, 3);
	held = 3;
	/* Takes the 1 there is, waits for 2. */
	if (psem_acquire_async(sem, 3, &aw, dc_cb) != -EINPROGRESS)
		ex_fail("setup");
	ex_spawn("canceller", dc_canceller, NULL);
	ex_spawn("releaser", dc_releaser, NULL);
}

static void dc_check(void)
{
	cg_one_outcome();
	ex_assert(!dc_second, "the second cancel returned true");
	/* The partial grant went back once, not twice. */
	xs_settled(sem, held, 4);
	kfree(sem);
}

XS_SCENARIO(double_cancel, "async/double-cancel-partial", dc_setup, dc_check,
	    "two cancels of a wait for 3 that holds 1, against the release that completes it");
