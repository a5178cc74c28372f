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

/*
 * ---- one lifecycle call raced by three threads ----------------------
 *
 * The races below share their frame: a psem, three threads, then each
 * thread's results against what the contract allows, the race's own
 * oracle, and exact conservation with no waiter left. Each is a
 * struct life_race; life_setup() and life_check() run them all.
 */
struct life_race {
	long	capacity;	/* 0: uncapped, of @permits */
	long	permits;
	long	held;		/* held at the start, of the capacity */
	long	total;		/* held + available - debt, at the end */
	struct {
		const char	*name;
		void		(*fn)(void *arg);
	} threads[3];		/* spawned in order: threads 2, 3 and 4 */
	const char *call[4];	/* ret[i]'s call, for the report */
	int	ok[4][2];	/* ret[i] is one of these two */
	void	(*check)(void);	/* the race's own oracle, or NULL */
};

static const struct life_race *race;

static void life_setup(void)
{
	int i;

	if (race->capacity)
		sem = xs_psem_cap(race->capacity, race->held);
	else
		sem = xs_psem(race->permits);
	held = race->held;
	for (i = 0; i < ARRAY_SIZE(race->threads); i++)
		ex_spawn(race->threads[i].name, race->threads[i].fn, NULL);
}

static void life_check(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(race->call) && race->call[i]; i++)
		ex_assert(ret[i] == race->ok[i][0] || ret[i] == race->ok[i][1],
			  "%s returned %d", race->call[i], ret[i]);
	if (race->check)
		race->check();
	xs_settled(sem, held, race->total);
	kfree(sem);
}

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

static void cw_check(void)
{
	ex_assert(psem_is_closed(sem), "not closed");
}

/*
 * One permit comes home: the waiter for 2 can only be failed, and its
 * partial grant goes back.
 */
static const struct life_race cw_race = {
	.capacity = 2, .held = 2, .total = 2,
	.threads = { { "waiter", cw_waiter }, { "releaser", cw_releaser },
		     { "closer", cw_closer } },
	.call = { "the waiter", "close", "the release" },
	.ok = { { -ESHUTDOWN, -ESHUTDOWN } },
	.check = cw_check,
};

XS_VARIANT(close_waiter, race, &cw_race, life_setup, life_check,
	   "life/close-vs-partial-waiter",
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

static void ro_check(void)
{
	ex_assert(!psem_is_closed(sem), "still closed after the reopen");
}

static const struct life_race ro_race = {
	.capacity = 1, .held = 1, .total = 1,
	.threads = { { "closer", ro_closer }, { "acquirer", ro_acquirer },
		     { "releaser", ro_releaser } },
	.call = { "the acquire", "close", "reopen", "the release" },
	.ok = { { 0, -ESHUTDOWN } },
	.check = ro_check,
};

XS_VARIANT(reopen_acquire, race, &ro_race, life_setup, life_check,
	   "life/reopen-vs-acquire",
	   "psem_close() then psem_reopen() against an acquirer and a release",
	   .bound = 1);	/* 3,226 schedules at bound 2 */

/* ---- reopen with a debt owed, against a try and the release ---------- */

static void rdb_closer(void *arg)
{
	ret[0] = psem_reduce(sem, 3);	/* the 1 there is, or 3; owes the rest */
	ret[1] = psem_close(sem);
	ret[2] = psem_reopen(sem);
	WRITE_ONCE(flag, 1);
}

static bool rdb_reopened(void *arg)
{
	return READ_ONCE(flag);
}

static void rdb_taker(void *arg)
{
	ex_wait_until(rdb_reopened, NULL);
	/*
	 * From the reduce on the balance is zero: the 2 released pay the
	 * debt. While any is owed the word keeps PSEM_BLOCKED, reopened or
	 * not, and reads no balance.
	 */
	ex_assert(!psem_try_acquire(sem, 1), "a try took a permit of the debt");
}

static void rdb_releaser(void *arg)
{
	ret[3] = psem_release(sem, 2);
	held -= 2;
}

static void rdb_check(void)
{
	ex_assert(!psem_is_closed(sem), "still closed after the reopen");
	ex_assert(!psem_debt(sem), "debt %lu left", psem_debt(sem));
}

/* 1 + 2 held - 3 removed. */
static const struct life_race rdb_race = {
	.permits = 1, .held = 2, .total = 0,
	.threads = { { "closer", rdb_closer }, { "taker", rdb_taker },
		     { "releaser", rdb_releaser } },
	.call = { "reduce", "close", "reopen", "the release" },
	.ok = { { 0, 0 }, { 0, 0 }, { 0, 0 }, { 0, 0 } },
	.check = rdb_check,
};

XS_VARIANT(reopen_debt, race, &rdb_race, life_setup, life_check,
	   "life/reopen-with-debt",
	   "psem_reopen() with a debt owed, against a try and the release that pays it");

/* ---- a release that pays the debt of a closed psem, and a try -------- */

static bool cdp_close_first;	/* close, then the reduce drains to PSEM_WAITERS */

static void cdp_closer(void *arg)
{
	if (cdp_close_first)
		ret[1] = psem_close(sem);
	ret[0] = psem_reduce(sem, 3);
	if (!cdp_close_first)
		ret[1] = psem_close(sem);
	WRITE_ONCE(flag, 1);
}

static void cdp_taker(void *arg)
{
	ex_wait_until(rdb_reopened, NULL);	/* here: closed */
	ex_assert(!psem_try_acquire(sem, 1), "a try took a permit while closed");
}

static void cdp_releaser(void *arg)
{
	ret[2] = psem_release(sem, 3);	/* pays the debt, 1 left over */
	held -= 3;
}

static void cdp_check(void)
{
	ex_assert(psem_is_closed(sem), "not closed");
	ex_assert(!psem_try_acquire(sem, 1), "a try took the permit left while closed");
}

/* 1 + 3 held - 3 removed: 1 left, closed. */
static const struct life_race cdp_race = {
	.permits = 1, .held = 3, .total = 1,
	.threads = { { "closer", cdp_closer }, { "taker", cdp_taker },
		     { "releaser", cdp_releaser } },
	.call = { "reduce", "close", "the release" },
	.ok = { { 0, 0 }, { 0, 0 }, { 0, 0 } },
	.check = cdp_check,
};

XS_VARIANT(closed_debt, race, &cdp_race, life_setup, life_check,
	   "life/closed-debt-paid",
	   "a release pays a closed psem's debt with one to spare; a try must still fail");

/* The same, closed before the reduce drains it to PSEM_WAITERS. */
static void ctr_setup(void)
{
	cdp_close_first = true;
	race = &cdp_race;
	life_setup();
}

XS_SCENARIO(close_then_reduce, "life/close-then-debt-paid", ctr_setup, life_check,
	    "a reduce leaves a debt on a closed psem, a release pays it with one to spare; still closed");

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

static void rs_check(void)
{
	ex_assert(psem_capacity(sem) == 2, "capacity %ld", psem_capacity(sem));
}

/*
 * The waiter is served before the resize, or failed by it, its grant
 * given back. What is held, less the debt, is the new capacity.
 */
static const struct life_race rs_race = {
	.capacity = 4, .held = 3, .total = 2,
	.threads = { { "waiter", rs_waiter }, { "resizer", rs_resizer },
		     { "releaser", rs_releaser } },
	.call = { "the waiter", "resize", "the release" },
	.ok = { { 0, -E2BIG } },
	.check = rs_check,
};

XS_VARIANT(resize_waiter, race, &rs_race, life_setup, life_check,
	   "life/resize-shrink-vs-waiter",
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

static const struct life_race rq_race = {
	.capacity = 2, .held = 2, .total = 3,
	.threads = { { "quiescer", rq_quiescer }, { "resizer", rq_resizer },
		     { "releaser", rq_releaser } },
	.call = { "quiesce", "resize", "the release" },
};

XS_VARIANT(resize_quiesce, race, &rq_race, life_setup, life_check,
	   "life/resize-grow-vs-quiesce",
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

/* 1 + 2 released - 2 removed. */
static const struct life_race rd_race = {
	.permits = 1, .total = 1,
	.threads = { { "reducer", rd_reducer }, { "waiter", rd_waiter },
		     { "releaser", rd_releaser } },
	.call = { "reduce", "the acquire", "the release" },
};

XS_VARIANT(reduce_release, race, &rd_race, life_setup, life_check,
	   "life/reduce-vs-release",
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

static const struct life_race qf_race = {
	.capacity = 2, .held = 1, .total = 2,
	.threads = { { "quiescer", qf_quiescer }, { "acquirer", qf_acquirer },
		     { "releaser", qf_releaser } },
	.call = { "quiesce", "the acquire", "the release" },
};

XS_VARIANT(quiesce_fifo, race, &qf_race, life_setup, life_check,
	   "life/quiesce-fifo",
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

/* The same on a psem_ext without a capacity: close, psem_sync(), free. */
static void cqe_owner(void *arg)
{
	ex_wait_until(cqa_given_back, NULL);
	ret[1] = psem_close(sem);
	psem_sync(sem);
	ex_assert(!xs_nr_waiters(sem) && psem_available(sem) == 1,
		  "synced with %ld waiters, %ld home", xs_nr_waiters(sem),
		  psem_available(sem));
	kfree(sem);	/* &psem_ext.sem is at offset 0 */
	sem = NULL;
}

static void cqe_setup(void)
{
	sem = xs_psem_ext(0);
	if (psem_acquire_async(sem, 1, &cqa, cqa_cb) != -EINPROGRESS)
		ex_fail("setup");
	ex_spawn("releaser", cqa_releaser, NULL);
	ex_spawn("owner", cqe_owner, NULL);
}

XS_SCENARIO(cq_async_ext, "life/close-sync-free-async-ext", cqe_setup, cqa_check,
	    "as close-quiesce-free-async, on a psem_ext without a capacity: close, psem_sync(), free");

/* ---- refused releases: on a closed psem, past the capacity ---------- */

static long xs_word(struct psem *s)
{
	return atomic_long_read(&s->count);
}

/* @sem, closed, refuses a release that overflows it and changes nothing. */
static void ov_refused(const char *what)
{
	long before;
	int r;

	ex_assert(!psem_close(sem), "%s: close", what);
	before = xs_word(sem);
	r = psem_release(sem, PSEM_MAX_PERMITS);
	ex_assert(r == -EOVERFLOW, "%s: release returned %d", what, r);
	ex_assert(xs_word(sem) == before, "%s: the word changed %#lx -> %#lx",
		  what, (unsigned long)before, (unsigned long)xs_word(sem));
	ex_assert(psem_is_closed(sem), "%s: reopened", what);
}

static void ov_thread(void *arg)
{
	struct psem *open = sem;
	long refused = xs_refusals();

	/* Uncapped, balance 1, closed: the sum must not wrap and land. */
	ov_refused("uncapped");
	/* Capacity 10, 5 held, closed. */
	sem = xs_psem_cap(10, 5);
	ov_refused("capped");
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

/* ---- the capacity mark through a waiter's drain and hand-off -------- */

static void cm_waiter(void *arg)
{
	ret[0] = psem_acquire(sem, 1);	/* drains to PSEM_WAITERS, links */
}

static void cm_releaser(void *arg)
{
	ret[1] = psem_release(sem, 1);	/* serves it, clears the bit */
}

static void cm_setup(void)
{
	psem_quiet_warnings = true;
	ret[0] = ret[1] = -1;
	sem = xs_psem_cap(2, 2);
	ex_spawn("waiter", cm_waiter, NULL);
	ex_spawn("releaser", cm_releaser, NULL);
}

/*
 * Whichever came first, the psem still knows its capacity: a release of
 * more than can be out is refused lock-free or locked, changing nothing.
 */
static void cm_check(void)
{
	long before = xs_word(sem);
	int r;

	ex_assert(!ret[0] && !ret[1], "acquire %d, release %d", ret[0], ret[1]);
	ex_assert(before & PSEM_EXT, "the word %#lx lost PSEM_EXT",
		  (unsigned long)before);
	r = psem_release(sem, 3);
	ex_assert(r == -EOVERFLOW && xs_word(sem) == before,
		  "release of 3 with 2 out: %d, word %#lx -> %#lx", r,
		  (unsigned long)before, (unsigned long)xs_word(sem));
	xs_conserved(sem, 2, 2);	/* the waiter's 1 and the owner's other */
	r = psem_release(sem, 2);
	ex_assert(!r && psem_available(sem) == 2, "the 2 out: %d, available %ld",
		  r, psem_available(sem));
	kfree(sem);
}

XS_SCENARIO(capacity_mark, "life/capacity-after-waiter", cm_setup, cm_check,
	    "a capped psem's waiter drains the word and is served: the capacity still holds");
