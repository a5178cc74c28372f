// SPDX-License-Identifier: GPL-2.0
/*
 * psem-stress's lifecycle: life_sem, a psem with a capacity, which the
 * ROLE_LIFE workers take and give back with every acquire variant while
 * the ROLE_CHURN thread resizes, closes, reopens and quiesces it; each
 * outcome checked exactly, and at each stop, the psem brought home.
 * stress.c runs the workers and the epochs.
 */
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/workqueue.h>

#include "psem.h"
#include "psem-user.h"
#include "stress.h"

/* The lifecycle's psem, and what the churn thread set (seqcounts). */
struct psem_ext life_sem;
static unsigned long life_cap_gen, life_close_gen;
static long life_cap = LIFE_CAP;
static int life_closed;
long life_held;		/* like sem_held */

static struct {
	struct guarded	g;
	unsigned long	c;
} psem_stress_life_guarded;

/*
 * The lifecycle: life_sem, created with psem_init_capacity(LIFE_CAP), on
 * which ROLE_LIFE workers take and give back random amounts with every
 * acquire variant (the asynchronous ones included) while the ROLE_CHURN
 * thread resizes it (grow and shrink, with permits out), closes and reopens
 * it and quiesces it, with and without timeouts.
 *
 * Every outcome is checked exactly. Only the churn thread (and the main
 * thread at a stop, with everything parked) changes the capacity or the
 * closed state, and it publishes what it set in a seqcount: a worker that
 * finds a count unchanged across its call knows the capacity, or the closed
 * state, was that value throughout. So: -E2BIG only if the request exceeded
 * the capacity at some point, -ESHUTDOWN only if the psem was closed at some
 * point; a closed psem throughout refuses with -ESHUTDOWN, an open one with
 * a request over its capacity throughout with -E2BIG; nothing is granted
 * beyond the capacity or while closed; -EINTR only with the signal the
 * state lets in, -ETIME only with a timeout. A success holds exactly its
 * permits, a failure holds nothing: at each stop the main thread reopens
 * the psem, resizes it back to LIFE_CAP and quiesces it with a generous
 * timeout, which must succeed, and then finds the balance LIFE_CAP, no
 * debt, no flag in the word and nobody linked.
 *
 * The permits out never exceed the largest capacity the psem ever had
 * (LIFE_CAP: a shrink records a debt that returning permits pay, a grow
 * pays the debt first), so a holder of all LIFE_CAP permits is exclusive
 * and writes psem_stress_life_guarded.g.a/b, a holder of more than half is
 * exclusive among such holders and writes .c, the others read a and b.
 */
struct life_snap {
	unsigned long	cap_gen, close_gen;
	long		cap;
	int		closed;
};

static void life_snap(struct life_snap *s)
{
	s->cap_gen = __atomic_load_n(&life_cap_gen, __ATOMIC_SEQ_CST);
	s->close_gen = __atomic_load_n(&life_close_gen, __ATOMIC_SEQ_CST);
	s->cap = __atomic_load_n(&life_cap, __ATOMIC_SEQ_CST);
	s->closed = __atomic_load_n(&life_closed, __ATOMIC_SEQ_CST);
}

/* What held from @s0 to now: the capacity, the closed state, or neither. */
static void life_stable(const struct life_snap *s0, bool *cap_stable,
			bool *close_stable)
{
	unsigned long cg, sg;

	/* The call's accesses to the psem come before the second reads. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	cg = __atomic_load_n(&life_cap_gen, __ATOMIC_SEQ_CST);
	sg = __atomic_load_n(&life_close_gen, __ATOMIC_SEQ_CST);
	*cap_stable = !(s0->cap_gen & 1) && cg == s0->cap_gen;
	*close_stable = !(s0->close_gen & 1) && sg == s0->close_gen;
}

/* The writer's side of the seqcount around a change of the psem. */
static void life_change_begin(unsigned long *gen)
{
	__atomic_fetch_add(gen, 1, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void life_change_end(unsigned long *gen)
{
	__atomic_fetch_add(gen, 1, __ATOMIC_SEQ_CST);
}

static void life_resize(long cap)
{
	int ret;

	life_change_begin(&life_cap_gen);
	ret = psem_resize(&life_sem.sem, cap);
	if (ret)
		die("psem_resize(%ld) returned %d\n", cap, ret);
	__atomic_store_n(&life_cap, cap, __ATOMIC_SEQ_CST);
	life_change_end(&life_cap_gen);
}

/* Closes (@close) or reopens; @closed: what the caller knows it was. */
static void life_close(bool close, bool closed)
{
	int ret, want = close == closed ? -EALREADY : 0;

	life_change_begin(&life_close_gen);
	ret = close ? psem_close(&life_sem.sem) : psem_reopen(&life_sem.sem);
	if (ret != want)
		die("psem_%s() of a psem %s returned %d, not %d\n",
		    close ? "close" : "reopen", closed ? "closed" : "open",
		    ret, want);
	__atomic_store_n(&life_closed, close, __ATOMIC_SEQ_CST);
	life_change_end(&life_close_gen);
}

enum life_kind {
	LIFE_WAIT,		/* psem_acquire() */
	LIFE_INTR,		/* psem_acquire_interruptible() */
	LIFE_KILL,		/* psem_acquire_killable() */
	LIFE_TIMEOUT,		/* psem_acquire_timeout(), > 0 */
	LIFE_TRY,		/* psem_acquire_timeout(0) */
	LIFE_ASYNC,		/* psem_acquire_async*(): the immediate return */
	LIFE_ASYNC_DONE,	/* the callback's result */
};

static const char *const life_kind_name[] = {
	"acquire", "acquire_interruptible", "acquire_killable",
	"acquire_timeout", "acquire_timeout(0)", "acquire_async",
	"acquire_async callback",
};

/*
 * Checks the outcome @ret of a take of @n of kind @kind that began at @s0,
 * and counts it. Returns the permits the caller now holds.
 */
static long life_outcome(struct worker *w, enum life_kind kind, long n,
			 int ret, const struct life_snap *s0)
{
	const char *fn = life_kind_name[kind];
	bool cap_stable, close_stable, over, closed;

	life_stable(s0, &cap_stable, &close_stable);
	closed = close_stable && s0->closed;	/* closed throughout */
	/* Over the capacity throughout: LIFE_CAP is the largest it has. */
	over = n > LIFE_CAP || (cap_stable && n > s0->cap);

	if (closed && ret != -ESHUTDOWN && kind != LIFE_ASYNC_DONE)
		die("%s(%ld) of a psem closed throughout returned %d, not -ESHUTDOWN%s\n",
		    fn, n, ret, ret ? "" : ": permits created");
	if (over && !ret)
		die("%s(%ld) granted beyond the capacity %ld: permits created\n",
		    fn, n, cap_stable ? s0->cap : (long)LIFE_CAP);
	if (over && close_stable && !s0->closed && ret != -E2BIG &&
	    kind != LIFE_ASYNC_DONE)
		die("%s(%ld) over the capacity %ld of an open psem returned %d, not -E2BIG\n",
		    fn, n, s0->cap, ret);
	switch (ret) {
	case 0:
		w->life_ok++;
		return n;
	case -ESHUTDOWN:
		if (close_stable && !s0->closed)
			die("%s(%ld) of a psem open throughout returned -ESHUTDOWN\n",
			    fn, n);
		w->life_shutdown++;
		goto refused;
	case -E2BIG:
		if (n <= LIFE_CAP && cap_stable && n <= s0->cap)
			die("%s(%ld) within the capacity %ld throughout returned -E2BIG\n",
			    fn, n, s0->cap);
		w->life_e2big++;
		goto refused;
	case -EINTR:
		if (kind != LIFE_INTR && kind != LIFE_KILL)
			die("%s(%ld) returned -EINTR\n", fn, n);
		check_eintr(w, ret, kind == LIFE_KILL, fn);
		return 0;
	case -ETIME:
		if (kind != LIFE_TIMEOUT && kind != LIFE_TRY)
			die("%s(%ld) returned -ETIME\n", fn, n);
		w->etime++;
		return 0;
	case -EINPROGRESS:
		if (kind != LIFE_ASYNC)
			die("%s(%ld) returned -EINPROGRESS\n", fn, n);
		return 0;
	default:
		die("%s(%ld) returned %d\n", fn, n, ret);
	}
refused:
	/* Refusals are quick: leave the CPUs to the others for a moment. */
	if (kind != LIFE_ASYNC_DONE)
		psem_user_usleep(10 + rnd(w) % 40);
	return 0;
}

/*
 * LIFE_CAP is every permit the psem ever had: exclusive. More than half:
 * exclusive among such holders, which count in c across the hold.
 */
static void life_hold(struct worker *w, long n)
{
	bool big = n > LIFE_CAP / 2 && n < LIFE_CAP;
	unsigned long c = 0;

	if (!n)
		return;
	if (big)
		c = psem_stress_life_guarded.c;
	if (guarded_hold(w, &psem_stress_life_guarded.g, &life_held, LIFE_CAP,
			 n, "life_sem"))
		w->life_writes++;
	if (big) {
		psem_stress_life_guarded.c = c + 1;
		w->life_big++;
	}
}

static void life_give_back(struct worker *w, long n)
{
	int ret;

	if (!n)
		return;
	switch (rnd(w) % 4) {
	case 0:
		count_op(w, "life release_all_held");
		ret = psem_release_all_held(&life_sem.sem, n);
		break;
	case 1:
		if (n > 1) {
			long k = 1 + rnd(w) % (n - 1);

			count_op(w, "life release(split)");
			ret = psem_release(&life_sem.sem, k);
			if (!ret)
				ret = psem_release(&life_sem.sem, n - k);
			break;
		}
		/* fall through */
	default:
		count_op(w, "life release");
		ret = psem_release(&life_sem.sem, n);
	}
	if (ret)
		die("life release of %ld returned %d: permits created or lost\n",
		    n, ret);
}

/* An asynchronous waiter: psem_acquire_async() or its work variant. */
struct life_async {
	struct psem_async_work	aww;	/* .aw for the callback variant */
	int			armed;	/* relaxed: a late callback is a bug */
	int			calls;	/* callbacks (or works) run */
	int			result;	/* plain, published by done */
	int			done;	/* release/acquire */
};

static void life_async_complete(struct life_async *la, int result)
{
	if (!__atomic_load_n(&la->armed, __ATOMIC_RELAXED))
		die("async completion (%d) of a waiter not queued or cancelled\n",
		    result);
	if (__atomic_add_fetch(&la->calls, 1, __ATOMIC_RELAXED) != 1)
		die("async waiter completed twice\n");
	la->result = result;
	__atomic_store_n(&la->done, 1, __ATOMIC_RELEASE);
}

static void life_async_fn(struct psem_async *aw, int result)
{
	life_async_complete(container_of(aw, struct life_async, aww.aw), result);
}

static void life_async_work_fn(struct work_struct *work)
{
	struct life_async *la = container_of(work, struct life_async,
					     aww.work);

	/* psem wrote ->result before it queued the work. */
	life_async_complete(la, la->aww.result);
}

static bool life_async_done(struct life_async *la)
{
	return __atomic_load_n(&la->done, __ATOMIC_ACQUIRE);
}

/*
 * An asynchronous take of @n: immediate, or queued and then completed or
 * cancelled after a short wait. Exactly one of them; returns what is held.
 */
static long life_async(struct worker *w, long n, const struct life_snap *s0)
{
	static struct life_async las[MAX_WORKERS];
	struct life_async *la = &las[w->id];
	bool work = rnd(w) % 2, cancelled;
	unsigned int wait_us = rnd(w) % 3000, how = rnd(w) % 3;
	int ret;

	la->calls = 0;
	la->done = 0;
	la->result = 1;
	__atomic_store_n(&la->armed, 1, __ATOMIC_RELAXED);
	if (work) {
		count_op(w, "acquire_async_work");
		/* Once: the last round's work may still be returning. */
		if (!la->aww.work.func)
			psem_init_async_work(&la->aww, life_async_work_fn);
		ret = psem_acquire_async_work(&life_sem.sem, n, &la->aww);
	} else {
		count_op(w, "acquire_async");
		ret = psem_acquire_async(&life_sem.sem, n, &la->aww.aw,
					 life_async_fn);
	}
	if (ret != -EINPROGRESS) {
		__atomic_store_n(&la->armed, 0, __ATOMIC_RELAXED);
		if (__atomic_load_n(&la->calls, __ATOMIC_RELAXED))
			die("async callback for a waiter never queued (%d)\n",
			    ret);
		return life_outcome(w, LIFE_ASYNC, n, ret, s0);
	}
	life_outcome(w, LIFE_ASYNC, n, ret, s0);
	while (!life_async_done(la) && wait_us >= 50) {
		psem_user_usleep(50);
		wait_us -= 50;
	}
	if (!life_async_done(la)) {
		/* Withdraw it: cancelled, or completed by now. */
		if (how == 0) {
			count_op(w, "cancel_async_sync");
			cancelled = psem_cancel_async_sync(&life_sem.sem,
							   &la->aww.aw);
			/* A completion in flight has returned. */
			if (!cancelled && !work && !life_async_done(la))
				die("cancel_async_sync returned false before the callback returned\n");
		} else {
			count_op(w, "cancel_async");
			cancelled = psem_cancel_async(&life_sem.sem, &la->aww.aw);
		}
		if (cancelled) {
			__atomic_store_n(&la->armed, 0, __ATOMIC_RELAXED);
			if (__atomic_load_n(&la->calls, __ATOMIC_RELAXED))
				die("async waiter cancelled and called back\n");
			w->life_cancel++;
			return 0;
		}
		if (work && how == 1 && cancel_work_sync(&la->aww.work)) {
			/* Withdrawn before it ran: ->result says it all. */
			__atomic_store_n(&la->armed, 0, __ATOMIC_RELAXED);
			return life_outcome(w, LIFE_ASYNC_DONE, n,
					    la->aww.result, s0);
		}
		if (work)
			flush_work(&la->aww.work);
	}
	while (!life_async_done(la))
		psem_user_usleep(20);
	__atomic_store_n(&la->armed, 0, __ATOMIC_RELAXED);
	return life_outcome(w, LIFE_ASYNC_DONE, n, la->result, s0);
}

void life_op(struct worker *w)
{
	static const long counts[] = { 1, 1, 2, 2, 3, 4, 5, 6, 6, LIFE_CAP + 1 };
	long n = rnd(w) % 64 ? counts[rnd(w) % ARRAY_SIZE(counts)] : 0, got;
	struct life_snap s0;
	int ret;

	life_snap(&s0);
	switch (rnd(w) % 32) {
	case 0: case 1: case 2: case 3:
		count_op(w, "life acquire");
		ret = psem_acquire(&life_sem.sem, n);
		got = life_outcome(w, LIFE_WAIT, n, ret, &s0);
		break;
	case 4: case 5: case 6:
		count_op(w, "life acquire_interruptible");
		ret = psem_acquire_interruptible(&life_sem.sem, n);
		got = life_outcome(w, LIFE_INTR, n, ret, &s0);
		break;
	case 7: case 8: case 9:
		count_op(w, "life acquire_killable");
		ret = psem_acquire_killable(&life_sem.sem, n);
		got = life_outcome(w, LIFE_KILL, n, ret, &s0);
		break;
	case 10: case 11: case 12: case 13:
		count_op(w, "life acquire_timeout");
		ret = psem_acquire_timeout(&life_sem.sem, n, 1 + rnd(w) % 3);
		got = life_outcome(w, LIFE_TIMEOUT, n, ret, &s0);
		break;
	case 14: case 15:
		count_op(w, "life acquire_timeout(0)");
		ret = psem_acquire_timeout(&life_sem.sem, n, 0);
		got = life_outcome(w, LIFE_TRY, n, ret, &s0);
		break;
	case 16: case 17: case 18: {
		bool cap_stable, close_stable;

		count_op(w, "life try_acquire");
		got = psem_try_acquire(&life_sem.sem, n) ? n : -1;
		life_stable(&s0, &cap_stable, &close_stable);
		if (got >= 0 && close_stable && s0.closed)
			die("try_acquire(%ld) of a closed psem succeeded: permits created\n",
			    n);
		if (got >= 0 && (n > LIFE_CAP || (cap_stable && n > s0.cap)))
			die("try_acquire(%ld) beyond the capacity %ld: permits created\n",
			    n, s0.cap);
		if (got < 0 && !n && close_stable && !s0.closed)
			die("try_acquire(0) of an open psem failed\n");
		if (got < 0) {
			w->fast_try_fail++;
			got = 0;
		}
		break;
	}
	case 19: case 20: {
		long up_to = rnd(w) % (LIFE_CAP + 2);
		bool cap_stable, close_stable;

		count_op(w, "life drain");
		got = psem_drain(&life_sem.sem, up_to);
		life_stable(&s0, &cap_stable, &close_stable);
		if (got < 0 || got > up_to || got > LIFE_CAP ||
		    (cap_stable && got > s0.cap) ||
		    (close_stable && s0.closed && got))
			die("drain(%ld) of a psem of capacity %ld%s took %ld: permits created\n",
			    up_to, s0.cap, s0.closed ? ", closed" : "", got);
		break;
	}
	case 21: case 22: case 23: case 24:
		got = life_async(w, n, &s0);
		break;
	case 25: {
		bool killable = rnd(w) % 2;
		long timeout = rnd(w) % 4;

		/* A short one, racing the churn's resizes and closes. */
		count_op(w, killable ? "life quiesce_killable" : "life quiesce");
		ret = killable ? psem_quiesce_killable(&life_sem.sem, timeout) :
				 psem_quiesce(&life_sem.sem, timeout);
		if (ret == -EINTR && killable)
			check_eintr(w, ret, true, "quiesce_killable");
		else if (ret == -ETIME)
			w->etime++;
		else if (ret)
			die("psem_quiesce%s(%ld) returned %d\n",
			    killable ? "_killable" : "", timeout, ret);
		return;
	}
	default: {
		long avail = psem_available(&life_sem.sem);
		long cap = psem_capacity(&life_sem.sem);
		unsigned long debt = psem_debt(&life_sem.sem);

		count_op(w, "life available");
		if (avail < 0 || avail > LIFE_CAP || cap < 0 ||
		    cap > LIFE_CAP || debt > LIFE_CAP)
			die("life_sem out of range: available %ld, capacity %ld, debt %lu: permits %s\n",
			    avail, cap, debt, avail > LIFE_CAP ? "created" : "lost");
		return;
	}
	}
	life_hold(w, got);
	life_give_back(w, got);
}

/* The churn thread: resize, close and reopen, quiesce, while workers run. */
void churn_op(struct worker *w)
{
	static const long caps[] = { 0, 1, 2, 3, 4, 4, 5, 6, 6, 6 };
	bool closed = __atomic_load_n(&life_closed, __ATOMIC_RELAXED);
	long timeout;
	int ret;

	switch (rnd(w) % 16) {
	case 0: case 1: case 2: case 3: case 4:
		count_op(w, "churn resize");
		life_resize(caps[rnd(w) % ARRAY_SIZE(caps)]);
		w->churn_resizes++;
		break;
	case 5:
		count_op(w, "churn close");
		life_close(true, closed);
		w->churn_closes++;
		break;
	case 6: case 7: case 8:
		count_op(w, "churn reopen");
		life_close(false, closed);
		break;
	case 9:
		count_op(w, "churn quiesce(MAX)");
		ret = psem_quiesce(&life_sem.sem, MAX_SCHEDULE_TIMEOUT);
		if (ret)
			die("psem_quiesce(MAX_SCHEDULE_TIMEOUT) returned %d\n", ret);
		w->churn_quiesced++;
		break;
	case 10: case 11:
		timeout = rnd(w) % 4;
		count_op(w, "churn quiesce");
		ret = psem_quiesce(&life_sem.sem, timeout);
		if (ret && ret != -ETIME)
			die("psem_quiesce(%ld) returned %d\n", timeout, ret);
		if (!ret)
			w->churn_quiesced++;
		break;
	case 12: case 13:
		timeout = rnd(w) % 3 ? 1 + rnd(w) % 5 : MAX_SCHEDULE_TIMEOUT;
		count_op(w, "churn quiesce_killable");
		ret = psem_quiesce_killable(&life_sem.sem, timeout);
		if (ret == -EINTR)
			check_eintr(w, ret, true, "quiesce_killable");
		else if (ret && (ret != -ETIME || timeout == MAX_SCHEDULE_TIMEOUT))
			die("psem_quiesce_killable(%ld) returned %d\n", timeout,
			    ret);
		if (!ret)
			w->churn_quiesced++;
		break;
	default: {
		long avail = psem_available(&life_sem.sem);
		long cap = psem_capacity(&life_sem.sem);

		/* Only this thread changes them while workers run. */
		count_op(w, "churn check");
		if (cap != __atomic_load_n(&life_cap, __ATOMIC_RELAXED) ||
		    psem_is_closed(&life_sem.sem) != closed)
			die("life_sem capacity %ld%s, set %ld%s\n", cap,
			    psem_is_closed(&life_sem.sem) ? " closed" : "",
			    __atomic_load_n(&life_cap, __ATOMIC_RELAXED),
			    closed ? " closed" : "");
		if (avail > cap)
			die("life_sem balance %ld over its capacity %ld: permits created\n",
			    avail, cap);
		break;
	}
	}
	/* Let the workers run between two changes. */
	psem_user_usleep(50 + rnd(w) % 250);
}

/*
 * For a hang: the permits of life_sem out of the psem's hands (neither in
 * the balance nor assigned to a linked waiter, less the debt), which must
 * be what the workers hold once they are parked.
 */
long life_out(void)
{
	struct psem_waiter *w;
	long assigned = 0, avail;
	unsigned long debt;

	spin_lock(&life_sem.sem.lock);
	psem_for_each_waiter(w, &life_sem.sem)
		assigned += w->n - w->needed;
	debt = psem_debt(&life_sem.sem);
	avail = psem_available(&life_sem.sem);	/* the balance, or the credit */
	spin_unlock(&life_sem.sem.lock);
	return psem_capacity(&life_sem.sem) + (long)debt - avail - assigned;
}

/*
 * A stop of the lifecycle, with everything parked: reopen, resize back to
 * LIFE_CAP and quiesce, which must find every permit home; then the word
 * must be exactly LIFE_CAP permits of credit (a psem_ext's word at rest:
 * psem.h, PSEM_EXT), no debt, nobody linked.
 */
void check_life(unsigned int ep, const struct totals *s)
{
	long avail, cur;
	unsigned long debt;
	bool linked;
	int ret;

	if (!nr_life)
		return;
	life_close(false, life_closed);
	life_resize(LIFE_CAP);
	ret = psem_quiesce(&life_sem.sem, LIFE_STOP_MS);
	if (ret)
		die("epoch %u: life_sem quiesce(%d ms) returned %d with every worker parked: permits lost (available %ld of %d, debt %lu)\n",
		    ep, LIFE_STOP_MS, ret, psem_available(&life_sem.sem), LIFE_CAP,
		    psem_debt(&life_sem.sem));
	spin_lock(&life_sem.sem.lock);
	linked = !psem_queue_empty(&life_sem.sem);
	debt = psem_debt(&life_sem.sem);
	cur = atomic_long_read(&life_sem.sem.count);
	spin_unlock(&life_sem.sem.lock);
	avail = psem_available(&life_sem.sem);
	if (avail != LIFE_CAP || debt || cur != __PSEM_EXT_WORD(LIFE_CAP) ||
	    linked || psem_capacity(&life_sem.sem) != LIFE_CAP ||
	    __atomic_load_n(&life_held, __ATOMIC_RELAXED))
		die("epoch %u: life_sem word %#lx: available %ld of %ld (want %d), debt %lu, %s, held %ld: permits %s\n",
		    ep, cur, avail, psem_capacity(&life_sem.sem), LIFE_CAP, debt,
		    linked ? "waiters linked" : "nobody linked", life_held,
		    avail < LIFE_CAP ? "lost" : avail > LIFE_CAP ? "created" :
		    "accounted wrongly");
	if (psem_stress_life_guarded.g.a != s->life_writes ||
	    psem_stress_life_guarded.g.b != s->life_writes ||
	    psem_stress_life_guarded.c != s->life_big)
		die("epoch %u: life guarded a=%lu b=%lu c=%lu after %lu exclusive and %lu big holds\n",
		    ep, psem_stress_life_guarded.g.a, psem_stress_life_guarded.g.b,
		    psem_stress_life_guarded.c, s->life_writes, s->life_big);
}
