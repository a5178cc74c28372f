// SPDX-License-Identifier: GPL-2.0
/*
 * The lifecycle calls (psem_close(), psem_reopen(), psem_resize(),
 * psem_reduce(), psem_quiesce()) against releases and waiters; close,
 * quiesce and free against a waiter that leaves and against a path that
 * calls back; the refusals of an overflowing release on a closed psem and
 * past the capacity.
 */
#include "scen.h"

static struct psem *sem;
static int ret[6];
static long held;
static int flag;

/* ---- close against a waiter that holds a partial grant -------------- */

static void cw_waiter(void *arg)
{
	ret[0] = psem_acquire(sem, 2);
	if (!ret[0])
		held += 2;
}

static void cw_releaser(void *arg)
{
	ex_wait_until(xs_tid_linked_or_done, (void *)2L);
	ret[2] = psem_release(sem, 1);
	held--;
}

static void cw_closer(void *arg)
{
	ret[1] = psem_close(sem);
}

static void cw_setup(void)
{
	sem = xs_psem_cap(2, 2);
	held = 2;
	ex_spawn("waiter", cw_waiter, NULL);
	ex_spawn("releaser", cw_releaser, NULL);
	ex_spawn("closer", cw_closer, NULL);
}

static void cw_check(void)
{
	/* One permit comes home: the waiter for 2 can only be failed. */
	ex_assert(ret[0] == -ESHUTDOWN, "waiter %d", ret[0]);
	ex_assert(!ret[1] && !ret[2], "close %d, release %d", ret[1], ret[2]);
	ex_assert(psem_is_closed(sem), "not closed");
	/* Its partial grant went back. */
	xs_settled(sem, held, 2);
	kfree(sem);
}

XS_SCENARIO(close_waiter, "life/close-vs-partial-waiter", cw_setup, cw_check,
	    "psem_close() against a waiter for 2 that a release half serves");

/* ---- close and reopen against an acquirer --------------------------- */

static void ro_closer(void *arg)
{
	ret[1] = psem_close(sem);
	ret[2] = psem_reopen(sem);
	flag = 1;	/* reopened */
}

static void ro_acquirer(void *arg)
{
	int after = flag;	/* reopened before this began */

	ret[0] = psem_acquire(sem, 1);
	/* An acquire that began after psem_reopen() returned is not refused. */
	ex_assert(!after || !ret[0], "acquire after the reopen: %d", ret[0]);
	if (!ret[0])
		psem_release(sem, 1);
}

static void ro_releaser(void *arg)
{
	ret[3] = psem_release(sem, 1);
	held--;
}

static void ro_setup(void)
{
	sem = xs_psem_cap(1, 1);
	held = 1;
	ex_spawn("closer", ro_closer, NULL);
	ex_spawn("acquirer", ro_acquirer, NULL);
	ex_spawn("releaser", ro_releaser, NULL);
}

static void ro_check(void)
{
	ex_assert(!ret[0] || ret[0] == -ESHUTDOWN, "acquire %d", ret[0]);
	ex_assert(!ret[1] && !ret[2] && !ret[3], "close %d, reopen %d, release %d",
		  ret[1], ret[2], ret[3]);
	ex_assert(!psem_is_closed(sem), "still closed after the reopen");
	xs_settled(sem, held, 1);
	kfree(sem);
}

XS_SCENARIO(reopen_acquire, "life/reopen-vs-acquire", ro_setup, ro_check,
	    "psem_close() then psem_reopen() against an acquirer and a release",
	    .bound = 1);	/* 3,226 schedules at bound 2 */

/* ---- a shrinking resize against a waiter it no longer fits ---------- */

static void rs_waiter(void *arg)
{
	ret[0] = psem_acquire(sem, 3);	/* takes the 1 there is, waits for 2 */
	if (!ret[0])
		held += 3;
}

static void rs_resizer(void *arg)
{
	ex_wait_until(xs_tid_linked_or_done, (void *)2L);
	ret[1] = psem_resize(sem, 2);
}

static void rs_releaser(void *arg)
{
	ret[2] = psem_release(sem, 3);
	held -= 3;
}

static void rs_setup(void)
{
	sem = xs_psem_cap(4, 3);
	held = 3;
	ex_spawn("waiter", rs_waiter, NULL);
	ex_spawn("resizer", rs_resizer, NULL);
	ex_spawn("releaser", rs_releaser, NULL);
}

static void rs_check(void)
{
	/* Served before the resize, or failed by it, its grant given back. */
	ex_assert(!ret[0] || ret[0] == -E2BIG, "waiter %d", ret[0]);
	ex_assert(!ret[1] && !ret[2], "resize %d, release %d", ret[1], ret[2]);
	ex_assert(psem_capacity(sem) == 2, "capacity %ld", psem_capacity(sem));
	/* What is held, less the debt, is the new capacity. */
	xs_settled(sem, held, 2);
	kfree(sem);
}

XS_SCENARIO(resize_waiter, "life/resize-shrink-vs-waiter", rs_setup, rs_check,
	    "a resize from 4 to 2 against a waiter for 3 and the release of 3");

/* ---- a growing resize while a quiesce waits ------------------------- */

static void rq_quiescer(void *arg)
{
	int resized;
	long avail;

	ret[0] = psem_quiesce(sem, MAX_SCHEDULE_TIMEOUT);
	/*
	 * Nobody takes here, so what is home stays home: both permits that
	 * were out, and the grown one once the resize has returned (which
	 * may also land between these two reads).
	 */
	resized = flag;
	avail = psem_available(sem);
	ex_assert(avail == 3 || (!resized && avail == 2),
		  "quiesced with %ld home, resize %s", avail,
		  resized ? "returned" : "not returned");
}

static void rq_resizer(void *arg)
{
	ex_wait_until(xs_tid_linked_or_done, (void *)2L);
	ret[1] = psem_resize(sem, 3);
	flag = 1;
}

static void rq_releaser(void *arg)
{
	ret[2] = psem_release(sem, 2);
	held -= 2;
}

static void rq_setup(void)
{
	sem = xs_psem_cap(2, 2);
	held = 2;
	ex_spawn("quiescer", rq_quiescer, NULL);
	ex_spawn("resizer", rq_resizer, NULL);
	ex_spawn("releaser", rq_releaser, NULL);
}

static void rq_check(void)
{
	ex_assert(!ret[0] && !ret[1] && !ret[2], "quiesce %d, resize %d, release %d",
		  ret[0], ret[1], ret[2]);
	xs_settled(sem, held, 3);
	kfree(sem);
}

XS_SCENARIO(resize_quiesce, "life/resize-grow-vs-quiesce", rq_setup, rq_check,
	    "a quiesce waits for 2 out; a resize to 3 and the release of the 2 race it");

/* ---- reduce against a release, then a waiter behind the debt -------- */

static void rd_reducer(void *arg)
{
	ret[0] = psem_reduce(sem, 2);
}

static void rd_waiter(void *arg)
{
	ex_wait_until((bool (*)(void *))ex_thread_done, (void *)2L);
	ret[1] = psem_acquire(sem, 1);
	/* The debt stands ahead of every waiter: paid before this one. */
	ex_assert(!psem_debt(sem), "served with a debt of %lu", psem_debt(sem));
	if (!ret[1])
		held++;
}

static void rd_releaser(void *arg)
{
	ret[2] = psem_release(sem, 2);
}

static void rd_setup(void)
{
	sem = xs_psem(1);
	held = 0;
	ex_spawn("reducer", rd_reducer, NULL);
	ex_spawn("waiter", rd_waiter, NULL);
	ex_spawn("releaser", rd_releaser, NULL);
}

static void rd_check(void)
{
	ex_assert(!ret[0] && !ret[1] && !ret[2], "reduce %d, acquire %d, release %d",
		  ret[0], ret[1], ret[2]);
	/* 1 + 2 released - 2 removed. */
	xs_settled(sem, held, 1);
	kfree(sem);
}

XS_SCENARIO(reduce_release, "life/reduce-vs-release", rd_setup, rd_check,
	    "psem_reduce(2) of 1 against a release of 2, and a waiter queued behind the debt");

/* ---- an acquirer queued behind a quiesce is served after it --------- */

static void qf_quiescer(void *arg)
{
	ret[0] = psem_quiesce(sem, MAX_SCHEDULE_TIMEOUT);
}

static void qf_acquirer(void *arg)
{
	ex_wait_until(xs_tid_linked, (void *)2L);	/* behind the quiesce */
	ret[1] = psem_acquire(sem, 1);
	/* FIFO: the quiesce, linked first, was served first. */
	ex_assert(!xs_linked(sem, ex_task(2)), "served before the quiesce");
	if (!ret[1])
		psem_release(sem, 1);
}

static void qf_releaser(void *arg)
{
	ex_wait_until(xs_tid_linked, (void *)3L);
	ret[2] = psem_release(sem, 1);
	held--;
}

static void qf_setup(void)
{
	sem = xs_psem_cap(2, 1);
	held = 1;
	ex_spawn("quiescer", qf_quiescer, NULL);
	ex_spawn("acquirer", qf_acquirer, NULL);
	ex_spawn("releaser", qf_releaser, NULL);
}

static void qf_check(void)
{
	ex_assert(!ret[0] && !ret[1] && !ret[2], "quiesce %d, acquire %d, release %d",
		  ret[0], ret[1], ret[2]);
	xs_settled(sem, held, 2);
	kfree(sem);
}

XS_SCENARIO(quiesce_fifo, "life/quiesce-fifo", qf_setup, qf_check,
	    "an acquirer queued behind a quiesce is served after it");

/*
 * ---- close, quiesce, free against a waiter on its way out -----------
 *
 * The waiter leaves its wait by a signal, its timeout or psem_close();
 * the owner closes, brings its permit home, quiesces and frees. Once
 * psem_quiesce() has returned 0 after psem_close(), nothing may touch the
 * psem: ASan reports any later access.
 */
enum { CQ_SIGNAL, CQ_TIMEOUT, CQ_SHUTDOWN };
static int cq_kind;

static void cq_waiter(void *arg)
{
	switch (cq_kind) {
	case CQ_SIGNAL:
		ret[0] = psem_acquire_interruptible(sem, 1);
		break;
	case CQ_TIMEOUT:
		ret[0] = psem_acquire_timeout(sem, 1, 5);
		break;
	default:
		ret[0] = psem_acquire_killable(sem, 1);
		break;
	}
}

static void cq_owner(void *arg)
{
	ex_wait_until(xs_tid_linked_or_done, (void *)2L);
	if (cq_kind == CQ_SIGNAL)
		psem_user_signal(ex_task(2), false);
	ret[1] = psem_close(sem);
	ret[2] = psem_release(sem, 1);
	xs_quiesce_free(&sem, 1);
}

static void cq_setup(void)
{
	sem = xs_psem_cap(1, 1);	/* the owner's permit */
	ex_spawn("waiter", cq_waiter, NULL);
	ex_spawn("owner", cq_owner, NULL);
}

static void cq_check(void)
{
	static const int left[] = { -EINTR, -ETIME, -ESHUTDOWN };

	/* The owner's permit comes home after the close: never the waiter's. */
	ex_assert(ret[0] == -ESHUTDOWN || ret[0] == left[cq_kind],
		  "waiter %d", ret[0]);
	ex_assert(!ret[1] && !ret[2], "close %d, release %d", ret[1], ret[2]);
}

XS_VARIANT(cq_signal, cq_kind, CQ_SIGNAL, cq_setup, cq_check,
	   "life/close-quiesce-free-signal",
	   "a waiter a signal ends; the owner closes, quiesces and frees");
XS_VARIANT(cq_timeout, cq_kind, CQ_TIMEOUT, cq_setup, cq_check,
	   "life/close-quiesce-free-timeout",
	   "a waiter whose timeout fires; the owner closes, quiesces and frees");
XS_VARIANT(cq_shutdown, cq_kind, CQ_SHUTDOWN, cq_setup, cq_check,
	   "life/close-quiesce-free-shutdown",
	   "a waiter psem_close() fails; the owner quiesces and frees");

/* ---- close, quiesce, free against a path that has just called back -- */

static struct psem_async cqa;

static void cqa_cb(struct psem_async *aw, int result)
{
	/* Gives the permit back at once; the releaser calls back on. */
	ret[4] = result ? result : psem_release(sem, 1);
	flag = 1;
}

static void cqa_releaser(void *arg)
{
	ret[0] = psem_release(sem, 1);
}

static bool cqa_given_back(void *arg)
{
	return flag;
}

static void cqa_owner(void *arg)
{
	ex_wait_until(cqa_given_back, NULL);
	ret[1] = psem_close(sem);
	xs_quiesce_free(&sem, 1);
}

static void cqa_setup(void)
{
	sem = xs_psem_cap(1, 1);	/* the releaser's permit */
	if (psem_acquire_async(sem, 1, &cqa, cqa_cb) != -EINPROGRESS)
		ex_fail("setup");
	ex_spawn("releaser", cqa_releaser, NULL);
	ex_spawn("owner", cqa_owner, NULL);
}

static void cqa_check(void)
{
	ex_assert(!ret[0] && !ret[1] && !ret[4], "release %d, close %d, give-back %d",
		  ret[0], ret[1], ret[4]);
}

XS_SCENARIO(cq_async, "life/close-quiesce-free-async", cqa_setup, cqa_check,
	    "a callback gives its permit back; the owner closes, quiesces and frees while its releaser calls back");

/* ---- refused releases: on a closed psem, past the capacity ---------- */

static long xs_word(struct psem *s)
{
	return atomic_long_read(&s->count);
}

static void ov_thread(void *arg)
{
	struct psem *open = sem;
	long before, refused = xs_refusals();
	int r;

	/* Uncapped, balance 1, closed: the sum must not wrap and land. */
	ex_assert(!psem_close(sem), "close");
	before = xs_word(sem);
	r = psem_release(sem, PSEM_MAX_PERMITS);
	ex_assert(r == -EOVERFLOW, "uncapped: release returned %d", r);
	ex_assert(xs_word(sem) == before, "uncapped: the word changed %#lx -> %#lx",
		  (unsigned long)before, (unsigned long)xs_word(sem));
	ex_assert(psem_is_closed(sem), "uncapped: reopened");

	/* Capacity 10, 5 held, closed. */
	sem = xs_psem_cap(10, 5);
	ex_assert(!psem_close(sem), "close");
	before = xs_word(sem);
	r = psem_release(sem, PSEM_MAX_PERMITS);
	ex_assert(r == -EOVERFLOW, "capped: release returned %d", r);
	ex_assert(xs_word(sem) == before, "capped: the word changed %#lx -> %#lx",
		  (unsigned long)before, (unsigned long)xs_word(sem));
	ex_assert(psem_is_closed(sem), "capped: reopened");
	ex_assert(xs_refusals() - refused == 2, "%ld refusals counted",
		  xs_refusals() - refused);
	ex_assert(!psem_release(sem, 5) && psem_available(sem) == 10,
		  "the 5 held: available %ld", psem_available(sem));
	kfree(open);
}

static void ov_setup(void)
{
	psem_quiet_warnings = true;
	sem = xs_psem(1);
	ex_spawn("releaser", ov_thread, NULL);
}

static void ov_check(void)
{
	kfree(sem);
}

XS_SCENARIO(closed_overflow, "life/closed-release-overflow", ov_setup, ov_check,
	    "an overflowing release on a closed psem (uncapped, capped) is refused and changes nothing");

static void ah_thread(void *arg)
{
	long before = xs_word(sem), refused = xs_refusals();
	int r;

	r = psem_release(sem, 10);
	ex_assert(r == -EOVERFLOW, "psem_release(10) of 5: %d", r);
	r = psem_release_all_held(sem, 10);
	ex_assert(r == -EOVERFLOW, "psem_release_all_held(10) of 5: %d", r);
	ex_assert(xs_word(sem) == before, "the word changed %#lx -> %#lx",
		  (unsigned long)before, (unsigned long)xs_word(sem));
	ex_assert(xs_refusals() - refused == 2, "%ld refusals counted",
		  xs_refusals() - refused);
	r = psem_release_all_held(sem, 5);
	ex_assert(!r, "the real release: %d", r);
}

static void ah_setup(void)
{
	psem_quiet_warnings = true;
	sem = xs_psem_cap(5, 5);
	ex_spawn("holder", ah_thread, NULL);
}

static void ah_check(void)
{
	xs_conserved(sem, 0, 5);
	kfree(sem);
}

XS_SCENARIO(all_held_capacity, "life/release-all-held-capacity", ah_setup, ah_check,
	    "psem_release_all_held() of more than the capacity is refused, as psem_release() is");
