// SPDX-License-Identifier: GPL-2.0
/*
 * psem_torture: the life phase: a psem with a capacity, resized, closed,
 * reopened and quiesced by a churn thread while workers use every acquire,
 * asynchronous ones included; each outcome judged against what the churn
 * did during the call.
 */

#include "psem_torture.h"

static struct psem_ext tt_lsem;	/* life phase */
static bool tt_life_ran;	/* the test ran a life phase: report it */

/* ---------------------------------------------------------------------- */
/* The life phase: capacity, resize, close, reopen, asynchronous waiters.  */

#define TT_LIFE_HIST		256	/* resizes remembered, a power of two */
#define TT_LIFE_QUIESCE_S	10	/* the stutter's quiesce: generous */

/* The churn resizes within 0..2 * permits. */
static long tt_life_cap_max(void)
{
	return 2L * tp_permits;
}

/*
 * What the churn did, for judging each call's outcome against the window
 * it ran in. Resize i (from 1; 0 is the psem_init_capacity()) stores its
 * capacity in tt_life_hist[i % TT_LIFE_HIST], then tt_life_res_begin = i,
 * resizes, then tt_life_res_end = i. tt_life_state counts close and reopen
 * steps: state % 4 is 0 open, 1 closing, 2 closed, 3 reopening. Written
 * only under tt_life_mx (by the churn, and by the controller while the
 * workers are paused).
 */
static DEFINE_MUTEX(tt_life_mx);
static long tt_life_hist[TT_LIFE_HIST];
static unsigned long tt_life_res_begin;
static unsigned long tt_life_res_end;
static unsigned long tt_life_state;
static long tt_life_cap;	/* the capacity last set, for picking counts */

enum tt_life_count {
	TT_LA_IMMEDIATE,	/* psem_acquire_async() took all at once */
	TT_LA_REF_SHUTDOWN,	/* ... refused with -ESHUTDOWN */
	TT_LA_REF_E2BIG,	/* ... refused with -E2BIG */
	TT_LA_CB_OK,		/* called back with 0 */
	TT_LA_CB_SHUTDOWN,	/* called back with -ESHUTDOWN */
	TT_LA_CB_E2BIG,		/* called back with -E2BIG */
	TT_LS_OK,		/* sleeping acquires: granted */
	TT_LS_SHUTDOWN,		/* ... -ESHUTDOWN */
	TT_LS_E2BIG,		/* ... -E2BIG */
	TT_LA_QUEUED,		/* psem_acquire_async() returned -EINPROGRESS */
	TT_LA_CANCELLED,	/* psem_cancel_async*() returned true */
	TT_LA_CANCEL_LATE,	/* ... returned false: the callback won */
	TT_LA_CANCEL_SYNC,	/* psem_cancel_async_sync() calls */
	TT_LA_CALLBACKS,	/* callbacks run */
	TT_LA_EXPECTED,		/* callbacks the workers saw for their requests */
	TT_LC_GROW,		/* churn: resizes up */
	TT_LC_SHRINK,		/* ... down */
	TT_LC_SHRINK_OUT,	/* ... down with permits out (a debt was left) */
	TT_LC_CLOSE,		/* ... closes */
	TT_LC_REOPEN,		/* ... reopens */
	TT_LC_QUIESCE,		/* ... psem_quiesce(0) checks */
	TT_LC_RESTORE,		/* stutters that found it closed or resized */
	TT_NR_LIFE_COUNTS,
};

/*
 * How a call ended, as an offset from the first of its three counts above:
 * each ..._OK is followed by its ..._SHUTDOWN and ..._E2BIG.
 */
enum tt_life_end {
	TT_END_OK,
	TT_END_SHUTDOWN,
	TT_END_E2BIG,
};

static atomic_long_t tt_life_n[TT_NR_LIFE_COUNTS];

static void tt_life_inc(enum tt_life_count c)
{
	atomic_long_inc(&tt_life_n[c]);
}

static long tt_life_get(enum tt_life_count c)
{
	return atomic_long_read(&tt_life_n[c]);
}

/* Under tt_life_mx. */
static void tt_life_resize(long cap)
{
	unsigned long i = tt_life_res_begin + 1;
	long old = psem_capacity(&tt_lsem.sem);
	int ret;

	WRITE_ONCE(tt_life_hist[i % TT_LIFE_HIST], cap);
	smp_store_release(&tt_life_res_begin, i);	/* the capacity first */
	smp_mb();	/* pairs with tt_life_win_end(): begin before the resize */
	ret = psem_resize(&tt_lsem.sem, cap);
	if (ret)
		tt_viol_err("life: psem_resize(%ld) returned %d\n", cap, ret);
	if (cap < old && psem_debt(&tt_lsem.sem))
		tt_life_inc(TT_LC_SHRINK_OUT);
	/* Pairs with tt_life_win_begin(): the resize is over. */
	smp_store_release(&tt_life_res_end, i);
	WRITE_ONCE(tt_life_cap, cap);
	if (psem_capacity(&tt_lsem.sem) != cap)
		tt_viol_err("life: capacity %ld after psem_resize(%ld)\n",
			    psem_capacity(&tt_lsem.sem), cap);
	tt_life_inc(cap < old ? TT_LC_SHRINK : TT_LC_GROW);
}

/* Under tt_life_mx: closing (1), close, closed (2). */
static void tt_life_close(void)
{
	int ret;

	WRITE_ONCE(tt_life_state, tt_life_state + 1);
	smp_mb();	/* pairs with tt_life_win_end(): closing before the close */
	ret = psem_close(&tt_lsem.sem);
	if (ret)
		tt_viol_err("life: psem_close() returned %d\n", ret);
	if (!psem_is_closed(&tt_lsem.sem))
		tt_viol_err("life: not closed after psem_close()\n");
	smp_mb();	/* pairs with tt_life_win_begin(): closed after the close */
	WRITE_ONCE(tt_life_state, tt_life_state + 1);
	tt_life_inc(TT_LC_CLOSE);
}

/* Under tt_life_mx: reopening (3), reopen, open (0). */
static void tt_life_reopen(void)
{
	int ret;

	WRITE_ONCE(tt_life_state, tt_life_state + 1);
	smp_mb();	/* as in tt_life_close() */
	ret = psem_reopen(&tt_lsem.sem);
	if (ret)
		tt_viol_err("life: psem_reopen() returned %d\n", ret);
	if (psem_is_closed(&tt_lsem.sem))
		tt_viol_err("life: closed after psem_reopen()\n");
	smp_mb();	/* as in tt_life_close() */
	WRITE_ONCE(tt_life_state, tt_life_state + 1);
	tt_life_inc(TT_LC_REOPEN);
}

/* The churn's doings around one call. */
struct tt_life_win {
	unsigned long	res0, res1;
	unsigned long	st0, st1;
};

static void tt_life_win_begin(struct tt_life_win *w)
{
	/* Pairs with tt_life_resize(): every resize up to res0 is over. */
	w->res0 = smp_load_acquire(&tt_life_res_end);
	w->st0 = READ_ONCE(tt_life_state);
	smp_mb();	/* the window opens before the call */
}

static void tt_life_win_end(struct tt_life_win *w)
{
	smp_mb();	/* the call, then the window closes */
	w->res1 = smp_load_acquire(&tt_life_res_begin);
	w->st1 = READ_ONCE(tt_life_state);
}

/* The smallest and the largest capacity during the window. */
static void tt_life_cap_range(const struct tt_life_win *w, long *lo, long *hi)
{
	unsigned long i;

	*lo = 0;
	*hi = tt_life_cap_max();
	if (w->res1 - w->res0 >= TT_LIFE_HIST / 2)
		return;
	*lo = LONG_MAX;
	*hi = 0;
	for (i = w->res0; i != w->res1 + 1; i++) {
		long c = READ_ONCE(tt_life_hist[i % TT_LIFE_HIST]);

		*lo = min(*lo, c);
		*hi = max(*hi, c);
	}
	smp_rmb();	/* the history, then whether it was overwritten meanwhile */
	if (READ_ONCE(tt_life_res_begin) - w->res0 >= TT_LIFE_HIST - 1) {
		*lo = 0;
		*hi = tt_life_cap_max();
	}
}

/*
 * Judges the result of taking @n permits over window @w; true if the
 * caller now holds them. A grant needs a capacity of at least @n at some
 * moment of the call and an open psem at some moment; -E2BIG a capacity
 * below @n at some moment; -ESHUTDOWN a close at some moment.
 */
static bool tt_life_judge(const char *what, long n, int ret,
			  const struct tt_life_win *w, bool may_intr, bool may_time)
{
	bool closing = (w->st0 & 3) || w->st1 != w->st0;
	bool closed_all = (w->st0 & 3) == 2 && w->st1 == w->st0;
	long lo, hi;

	tt_life_cap_range(w, &lo, &hi);
	switch (ret) {
	case 0:
		if (n > hi)
			tt_viol_err("life: %s of %ld granted, the capacity was at most %ld\n",
				    what, n, hi);
		if (closed_all)
			tt_viol_err("life: %s of %ld granted while closed throughout\n", what, n);
		return true;
	case -E2BIG:
		if (n <= lo)
			tt_viol_err("life: %s of %ld failed -E2BIG, the capacity was at least %ld\n",
				    what, n, lo);
		return false;
	case -ESHUTDOWN:
		if (!closing)
			tt_viol_err("life: %s of %ld failed -ESHUTDOWN with no close during the call\n",
				    what, n);
		return false;
	case -EINTR:
		if (!may_intr)
			break;
		return false;
	case -ETIME:
		if (!may_time)
			break;
		return false;
	default:
		break;
	}
	tt_viol_err("life: %s of %ld returned %d\n", what, n, ret);
	return false;
}

static void tt_life_hold(struct tt_thread *t, long n)
{
	long total;

	if (!n)
		return;
	total = tt_hold(t, n);
	if (total > tt_life_cap_max())
		tt_viol_err("life: threads hold %ld permits, the capacity was never above %ld\n",
			    total, tt_life_cap_max());
}

static void tt_life_put_all(struct tt_thread *t)
{
	tt_put_all(t, &tt_lsem.sem);
}

/*
 * Judges @ret of taking @n over @w (tt_life_judge()), takes the permits on
 * a grant and counts the outcome in the three counts from @first on.
 */
static void tt_life_outcome(struct tt_thread *t, const char *what, long n, int ret,
			    const struct tt_life_win *w, bool may_intr, bool may_time,
			    enum tt_life_count first)
{
	if (tt_life_judge(what, n, ret, w, may_intr, may_time)) {
		tt_life_hold(t, n);
		tt_life_inc(first + TT_END_OK);
	} else if (ret == -ESHUTDOWN) {
		tt_life_inc(first + TT_END_SHUTDOWN);
	} else if (ret == -E2BIG) {
		tt_life_inc(first + TT_END_E2BIG);
	}
}

/* A count: mostly up to the capacity last set, sometimes above it. */
static long tt_life_pick(struct tt_thread *t)
{
	long cap = READ_ONCE(tt_life_cap);

	if (cap > 0 && tt_rand(t, 8))
		return 1 + tt_rand(t, cap);
	return cap + 1 + tt_rand(t, tp_permits);
}

/*
 * Under the queue lock: the balance is within the capacity, and a linked
 * waiter or an owed debt means PSEM_WAITERS is set without PSEM_CREDIT
 * (I2, I3) and the balance zero.
 */
static void tt_life_check_locked(void)
{
	unsigned long flags, debt;
	long word, bal, cap;
	bool waiters;

	spin_lock_irqsave(&tt_lsem.sem.lock, flags);
	/* Under the queue lock: the list cannot change, no barrier needed. */
	waiters = !psem_queue_empty(&tt_lsem.sem);
	debt = psem_debt(&tt_lsem.sem);
	word = atomic_long_read(&tt_lsem.sem.count);
	bal = psem_available(&tt_lsem.sem);
	cap = psem_capacity(&tt_lsem.sem);
	spin_unlock_irqrestore(&tt_lsem.sem.lock, flags);
	if (bal > cap)
		tt_viol_err("life: balance %ld above the capacity %ld (queue lock held)\n",
			    bal, cap);
	if ((waiters || debt) && (bal || !(word & PSEM_WAITERS) ||
				  (word & PSEM_CREDIT)))
		tt_viol_err("life: word %#lx (balance %ld) while %s (queue lock held)\n",
			    word, bal, waiters ? "a waiter is linked" : "debt is owed");
}

static void tt_life_acquire(struct tt_thread *t)
{
	long n = tt_life_pick(t);
	enum tt_how how = tt_pick_how(t, atomic_long_read(&t->held));
	struct tt_life_win w;
	int ret;

	tt_wait_begin(t, &tt_lsem.sem, n, how == TT_INTR);
	tt_life_win_begin(&w);
	ret = tt_acquire(t, &tt_lsem.sem, n, how, NULL);
	tt_life_win_end(&w);
	tt_wait_end(t);
	tt_life_outcome(t, tt_how_names[how], n, ret, &w, how == TT_INTR,
			how == TT_TIMEOUT, TT_LS_OK);
	if (ret == -EINTR) {
		tt_inc(&t->eintr);
		tt_flush_signals();
	} else if (ret == -ETIME) {
		tt_inc(&t->etime);
	}
}

static void tt_life_try(struct tt_thread *t)
{
	long n = tt_life_pick(t);
	struct tt_life_win w;
	bool ok;

	tt_life_win_begin(&w);
	ok = psem_try_acquire(&tt_lsem.sem, n);
	tt_life_win_end(&w);
	if (ok && tt_life_judge("try_acquire", n, 0, &w, false, false))
		tt_life_hold(t, n);
	else
		tt_inc(&t->busy);
}

static void tt_life_drain(struct tt_thread *t)
{
	long up_to = tt_life_pick(t), got;
	struct tt_life_win w;

	tt_life_win_begin(&w);
	got = psem_drain(&tt_lsem.sem, up_to);
	tt_life_win_end(&w);
	if (got < 0 || got > up_to)
		tt_viol_err("life: psem_drain(%ld) returned %ld\n", up_to, got);
	else if (got && tt_life_judge("drain", got, 0, &w, false, false))
		tt_life_hold(t, got);
}

/* May run in any context, hard IRQ included: records, then wakes. */
static void tt_life_callback(struct psem_async *aw, int result)
{
	struct tt_life_req *r = container_of(aw, struct tt_life_req, aw);

	if (!READ_ONCE(r->queued))
		tt_viol_err("life: callback (%d) for a request that is not queued\n", result);
	WRITE_ONCE(r->result, result);
	tt_life_inc(TT_LA_CALLBACKS);
	/* The result before done: pairs with the worker's acquire. */
	if (atomic_inc_return_release(&r->done) != 1)
		tt_viol_err("life: callback (%d) ran twice for one request\n", result);
	wake_up(&r->wq);
}

static bool tt_life_req_done(struct tt_life_req *r)
{
	return atomic_read_acquire(&r->done);
}

/* A random moment: now, soon, or after a sleep. */
static void tt_life_moment(struct tt_thread *t)
{
	switch (tt_rand(t, 4)) {
	case 0:
		break;
	case 1:
		udelay(tt_rand(t, 30));
		break;
	case 2:
		cond_resched();
		break;
	default:
		msleep(1 + tt_rand(t, 2));
		break;
	}
}

/*
 * psem_acquire_async(), then wait for the callback or cancel at a random
 * moment. With permits held, the wait is short and ends in a cancel: two
 * holders waiting for each other must not hang.
 */
static void tt_life_async(struct tt_thread *t)
{
	struct tt_life_req *r = &t->req;
	bool holding = atomic_long_read(&t->held);
	long n = tt_life_pick(t);
	struct tt_life_win w;
	bool cancelled = false, sync = false;
	int ret, done;

	r->n = n;
	r->result = 1;
	atomic_set(&r->done, 0);
	WRITE_ONCE(r->queued, true);
	tt_life_win_begin(&w);
	ret = psem_acquire_async(&tt_lsem.sem, n, &r->aw, tt_life_callback);
	if (ret != -EINPROGRESS) {
		tt_life_win_end(&w);
		WRITE_ONCE(r->queued, false);
		if (atomic_read(&r->done))
			tt_viol_err("life: callback ran, yet psem_acquire_async(%ld) returned %d\n",
				    n, ret);
		tt_life_outcome(t, "acquire_async", n, ret, &w, false, false,
				TT_LA_IMMEDIATE);
		return;
	}
	tt_life_inc(TT_LA_QUEUED);

	if (holding) {
		wait_event_idle_timeout(r->wq, tt_life_req_done(r), 1 + tt_rand(t, 3));
	} else if (tt_rand(t, 2)) {
		tt_wait_begin(t, &tt_lsem.sem, n, false);
		wait_event_idle(r->wq, tt_life_req_done(r));
		tt_wait_end(t);
	} else {
		tt_life_moment(t);
	}
	if (!tt_life_req_done(r)) {
		sync = !tt_rand(t, 16);
		if (sync) {
			tt_life_inc(TT_LA_CANCEL_SYNC);
			cancelled = psem_cancel_async_sync(&tt_lsem.sem, &r->aw);
			if (!cancelled && !tt_life_req_done(r))
				tt_viol_err("life: psem_cancel_async_sync() returned false before the callback ran\n");
		} else {
			cancelled = psem_cancel_async(&tt_lsem.sem, &r->aw);
		}
		tt_life_inc(cancelled ? TT_LA_CANCELLED : TT_LA_CANCEL_LATE);
		if (!cancelled) {
			/* The callback has run or is running: wait for it. */
			tt_wait_begin(t, &tt_lsem.sem, n, false);
			wait_event_idle(r->wq, tt_life_req_done(r));
			tt_wait_end(t);
		}
	}
	tt_life_win_end(&w);
	done = atomic_read_acquire(&r->done);
	WRITE_ONCE(r->queued, false);
	if (cancelled) {
		if (done)
			tt_viol_err("life: request of %ld both cancelled and called back (%d)\n",
				    n, READ_ONCE(r->result));
		return;
	}
	tt_life_inc(TT_LA_EXPECTED);
	ret = READ_ONCE(r->result);
	tt_life_outcome(t, "async callback", n, ret, &w, false, false, TT_LA_CB_OK);
}

/* The life phase's steps, after tt_put_some() (35 while holding permits). */
static const struct tt_pick tt_life_picks[] = {
	/* step			idle	holding */
	{ tt_life_acquire,	35,	15 },
	{ tt_life_async,	35,	20 },
	{ tt_life_try,		15,	15 },
	{ tt_life_drain,	10,	5 },
	{ }
};

static void tt_life_step(struct tt_thread *t)
{
	long total;

	tt_pick_step(t, &tt_lsem.sem, 35, tt_life_picks);
	if (!(t->ops % 32))
		tt_life_check_locked();
	total = atomic_long_read(&tt_held_total);
	if (total < 0 || total > tt_life_cap_max())
		tt_viol_err("life: threads hold %ld, the capacity was never above %ld\n",
			    total, tt_life_cap_max());
	tt_hold_delay(t);
}

/* The life phase's psem and the churn's history, at the phase's start. */
static void tt_life_init(void)
{
	if (psem_init_capacity(&tt_lsem, tp_permits))
		tt_viol_err("life: psem_init_capacity(%d) failed\n", tp_permits);
	memset(tt_life_hist, 0, sizeof(tt_life_hist));
	tt_life_hist[0] = tp_permits;
	tt_life_res_begin = 0;
	tt_life_res_end = 0;
	tt_life_state = 0;
	tt_life_cap = tp_permits;
}

/*
 * The life phase's churn: every few ms a resize (grow or shrink, to any
 * capacity 0..2 * permits, with permits out), a close or a reopen, or a
 * quiesce that only checks. Not while the workers are paused: the
 * controller then owns the psem (and tt_life_mx).
 */
static void tt_life_churn_one(struct rnd_state *rnd)
{
	u32 r = prandom_u32_state(rnd) % 100;
	int ret;

	if (r < 50) {
		long cap = r < 4 ? 0 : prandom_u32_state(rnd) % (tt_life_cap_max() + 1);

		tt_life_resize(cap);
	} else if (psem_is_closed(&tt_lsem.sem)) {
		if (r < 90)	/* closed about a tenth of the time */
			tt_life_reopen();
	} else if (r < 55) {
		tt_life_close();
	} else if (r < 65) {
		ret = psem_quiesce(&tt_lsem.sem, 0);	/* only checks: never sleeps */
		if (ret && ret != -ETIME)
			tt_viol_err("life: psem_quiesce(0) returned %d\n", ret);
		tt_life_inc(TT_LC_QUIESCE);
	}
}

static int tt_life_churn(void *arg)
{
	struct rnd_state rnd;

	prandom_seed_state(&rnd, tp_seed ^ 0xc4a2);
	while (!kthread_should_stop()) {
		schedule_timeout_idle(msecs_to_jiffies(1 + prandom_u32_state(&rnd) % 8));
		mutex_lock(&tt_life_mx);
		if (!(tt_stut_state() & 3) && !READ_ONCE(tt_phase_stop))
			tt_life_churn_one(&rnd);
		mutex_unlock(&tt_life_mx);
	}
	return 0;
}

/* A close that frees stuck workers (with the churn stopped). */
static void tt_life_rescue(void)
{
	mutex_lock(&tt_life_mx);
	if (!psem_is_closed(&tt_lsem.sem))
		tt_life_close();
	mutex_unlock(&tt_life_mx);
}

/*
 * All workers paused, nothing held, every asynchronous request over: the
 * psem, reopened and resized back to @permits, must quiesce at once and
 * be exactly whole.
 */
static void tt_life_quiescent(int stage)
{
	long avail, word, cap, total, sum = 0, cb, exp;
	unsigned long debt;
	bool waiters;
	int i, ret;

	mutex_lock(&tt_life_mx);
	if (psem_is_closed(&tt_lsem.sem) || psem_capacity(&tt_lsem.sem) != tp_permits)
		tt_life_inc(TT_LC_RESTORE);
	if (psem_is_closed(&tt_lsem.sem))
		tt_life_reopen();
	if (psem_capacity(&tt_lsem.sem) != tp_permits)
		tt_life_resize(tp_permits);
	ret = psem_quiesce(&tt_lsem.sem, TT_LIFE_QUIESCE_S * HZ);
	if (ret)
		tt_viol_err("life: paused (stage %d): psem_quiesce() returned %d: available %ld of %d, debt %lu\n",
			    stage, ret, psem_available(&tt_lsem.sem), tp_permits,
			    psem_debt(&tt_lsem.sem));
	avail = psem_available(&tt_lsem.sem);
	debt = psem_debt(&tt_lsem.sem);
	word = atomic_long_read(&tt_lsem.sem.count);
	cap = psem_capacity(&tt_lsem.sem);
	waiters = tt_has_waiters(&tt_lsem.sem);
	total = atomic_long_read(&tt_held_total);
	for (i = 0; i < tt_nthr; i++) {
		sum += atomic_long_read(&tt_thr[i].held);
		if (READ_ONCE(tt_thr[i].req.queued))
			tt_viol_err("life: paused (stage %d): thread %d has a request queued\n",
				    stage, i);
	}
	if (avail != tp_permits || debt || word != tt_ext_word(tp_permits, false) || waiters ||
	    cap != tp_permits || total || sum)
		tt_viol_err("life: paused (stage %d): available %ld debt %lu word %#lx capacity %ld of %d, held %ld (threads %ld), waiters: %s\n",
			    stage, avail, debt, word, cap, tp_permits, total, sum,
			    waiters ? "yes" : "no");
	cb = tt_life_get(TT_LA_CALLBACKS);
	exp = tt_life_get(TT_LA_EXPECTED);
	if (cb != exp)
		tt_viol_err("life: paused (stage %d): %ld callbacks ran, %ld requests were called back\n",
			    stage, cb, exp);
	mutex_unlock(&tt_life_mx);
}

/* The life phase's outcomes and what its churn did, if it ran. */
static void tt_life_report(void)
{
	if (!tt_life_ran)
		return;
	tt_alert("lifecycle: async queued=%ld immediate=%ld granted=%ld shutdown=%ld e2big=%ld cancelled=%ld cancel_late=%ld cancel_sync=%ld refused_shutdown=%ld refused_e2big=%ld callbacks=%ld\n",
		 tt_life_get(TT_LA_QUEUED), tt_life_get(TT_LA_IMMEDIATE),
		 tt_life_get(TT_LA_CB_OK), tt_life_get(TT_LA_CB_SHUTDOWN),
		 tt_life_get(TT_LA_CB_E2BIG), tt_life_get(TT_LA_CANCELLED),
		 tt_life_get(TT_LA_CANCEL_LATE), tt_life_get(TT_LA_CANCEL_SYNC),
		 tt_life_get(TT_LA_REF_SHUTDOWN), tt_life_get(TT_LA_REF_E2BIG),
		 tt_life_get(TT_LA_CALLBACKS));
	tt_alert("lifecycle: sleeping granted=%ld shutdown=%ld e2big=%ld; churn grows=%ld shrinks=%ld shrinks_with_debt=%ld closes=%ld reopens=%ld quiesce_checks=%ld stutter_restores=%ld\n",
		 tt_life_get(TT_LS_OK), tt_life_get(TT_LS_SHUTDOWN), tt_life_get(TT_LS_E2BIG),
		 tt_life_get(TT_LC_GROW), tt_life_get(TT_LC_SHRINK),
		 tt_life_get(TT_LC_SHRINK_OUT), tt_life_get(TT_LC_CLOSE),
		 tt_life_get(TT_LC_REOPEN), tt_life_get(TT_LC_QUIESCE),
		 tt_life_get(TT_LC_RESTORE));
	tt_free_report();
}

/* The monitor's bounds, and the word under the queue lock. */
static void tt_life_monitor(void)
{
	tt_monitor_bounds(&tt_lsem.sem, tt_life_cap_max());
	tt_life_check_locked();
}

static struct task_struct *tt_life_churner;

/* Beside the workers: the churn and the free cycles. */
static void tt_life_start(void)
{
	tt_life_ran = true;
	tt_life_churner = tt_start(tt_life_churn, NULL, "churn", 0, -1);
	tt_free_start();
}

static void tt_life_stop(void)
{
	if (tt_life_churner)
		kthread_stop(tt_life_churner);
	tt_life_churner = NULL;
	tt_free_stop();
}

/* Callbacks may still be returning: they run under rcu_read_lock(). */
static void tt_life_finished(void)
{
	synchronize_rcu();
}

const struct psem_torture_ops tt_life_ops = {
	.name		= "life",
	.sem		= &tt_lsem.sem,
	.init		= tt_life_init,
	.start		= tt_life_start,
	.stop		= tt_life_stop,
	.step		= tt_life_step,
	.put_all	= tt_life_put_all,
	.monitor	= tt_life_monitor,
	.quiescent	= tt_life_quiescent,
	.rescue		= tt_life_rescue,
	.finished	= tt_life_finished,
	.report		= tt_life_report,
};
