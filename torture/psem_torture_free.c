// SPDX-License-Identifier: GPL-2.0
/*
 * psem_torture: the life phase's close -> quiesce -> free cycles, the
 * device-removal pattern raced by the waiters it ends.
 *
 * An owner thread allocates a psem with kmalloc() (psem_init_capacity()),
 * keeps some of its permits, and lets TT_FREE_NACQ acquirer threads in:
 * interruptible waits that it sends SIGUSR1, timed waits that run out,
 * killable and plain waits, and asynchronous waits through
 * psem_acquire_async() and psem_acquire_async_work() that the acquirers
 * wait for or withdraw. Then it shuts the gate (no acquirer starts a call
 * on this psem any more: excluding calls that have not queued yet is the
 * owner's job, as for any object), waits until every acquirer still in a
 * call is linked on the queue, and, while signals and timeouts end some of
 * those waits, closes, gives back its permits, quiesces and kfree()s the
 * psem, and allocates the next one. Once psem_quiesce() has returned 0
 * after psem_close(), psem must not touch the psem again for any wait that
 * was queued on it: KASAN reports any access to the freed memory.
 *
 * Exact conservation is checked after each quiesce, before the free: the
 * whole capacity available, no debt, no flag, nobody linked, no permit
 * held by an acquirer, and every asynchronous wait either withdrawn or
 * called back.
 */

#include "psem_torture.h"

#define TT_FREE_NACQ		4	/* acquirer threads */
#define TT_FREE_CAP		4	/* each psem's capacity */
#define TT_FREE_QUIESCE_S	10	/* a generous bound for the quiesce */

/* What an acquirer calls. */
enum tt_free_op {
	TT_FO_INTR,
	TT_FO_TIMEOUT,
	TT_FO_KILL,
	TT_FO_PLAIN,
	TT_FO_ASYNC,
	TT_FO_WORK,
	TT_NR_FO,
};

/**
 * struct tt_free_acq - one acquirer of the free cycles
 * @task:       the kthread
 * @rnd:        its pseudo-random state
 * @intr:       in an interruptible wait now: the owner may signal it
 * @aw:         its asynchronous waiter (psem_acquire_async())
 * @aww:        its work waiter (psem_acquire_async_work())
 * @req_gen:    the cycle its request was queued in; 0 if none is queued
 * @req_work:   the request is @aww (else @aw)
 * @req_n:      the permits the request asked for
 * @req_result: what the callback or the work said
 * @req_done:   callbacks (or works) run for the request: must end 0 or 1
 * @req_since:  jiffies when the request was queued
 * @wq:         the acquirer waits here for its callback
 * @held_sem:   the psem it holds @held permits of
 * @held:       permits it holds
 */
struct tt_free_acq {
	struct task_struct	*task;
	struct rnd_state	rnd;
	bool			intr;
	struct psem_async	aw;
	struct psem_async_work	aww;
	unsigned long		req_gen;
	bool			req_work;
	long			req_n;
	int			req_result;
	atomic_t		req_done;
	unsigned long		req_since;
	wait_queue_head_t	wq;
	struct psem		*held_sem;
	long			held;
};

/* What the cycles did, for the report. */
enum tt_free_count {
	TT_FC_CYCLES,		/* psems allocated, closed, quiesced and freed */
	TT_FC_GRANTED,		/* sleeping acquires that got their permits */
	TT_FC_EINTR,		/* ... ended by a signal */
	TT_FC_ETIME,		/* ... that ran out of time */
	TT_FC_SHUTDOWN,		/* ... ended by the close, or refused by it */
	TT_FC_SIGNALS,		/* SIGUSR1 sent to interruptible waiters */
	TT_FC_LINKED,		/* waiters linked when a close began, summed */
	TT_FC_IMMEDIATE,	/* async requests granted at once */
	TT_FC_QUEUED,		/* async requests queued */
	TT_FC_CALLBACKS,	/* ... called back */
	TT_FC_WITHDRAWN,	/* ... withdrawn */
	TT_FC_WQUEUED,		/* work requests queued */
	TT_FC_WORKS,		/* ... whose work ran */
	TT_FC_WWITHDRAWN,	/* ... withdrawn */
	TT_NR_FREE_COUNTS,
};

static atomic_long_t tt_free_n[TT_NR_FREE_COUNTS];

/*
 * The gate: tt_free_sem is the current psem (cycle tt_free_gen), and an
 * acquirer starts a call on it only while tt_free_open, counting itself in
 * tt_free_in_call under tt_free_lock, the lock the owner shuts the gate
 * under.
 */
static DEFINE_SPINLOCK(tt_free_lock);
static struct psem *tt_free_sem;
static unsigned long tt_free_gen;
static bool tt_free_open;
static atomic_t tt_free_in_call;
static DECLARE_WAIT_QUEUE_HEAD(tt_free_wq);	/* acquirers wait for a cycle */
static atomic_long_t tt_free_held;		/* permits the acquirers hold */

static struct tt_free_acq tt_free_acq[TT_FREE_NACQ];
static struct task_struct *tt_free_owner;

static void tt_free_inc(enum tt_free_count c)
{
	atomic_long_inc(&tt_free_n[c]);
}

static long tt_free_get(enum tt_free_count c)
{
	return atomic_long_read(&tt_free_n[c]);
}

static u32 tt_free_rand(struct rnd_state *rnd, u32 n)
{
	return prandom_u32_state(rnd) % n;
}

/* The current psem and its cycle if the gate is open (then leave later). */
static struct psem *tt_free_enter(unsigned long *gen)
{
	struct psem *sem = NULL;

	spin_lock(&tt_free_lock);
	if (tt_free_open) {
		sem = tt_free_sem;
		*gen = tt_free_gen;
		/* Under the lock the gate shuts under: ordered by it. */
		atomic_inc(&tt_free_in_call);
	}
	spin_unlock(&tt_free_lock);
	return sem;
}

static void tt_free_leave(void)
{
	/*
	 * RELEASE: the call's accesses to the psem come before the count
	 * drops; pairs with the ACQUIRE in tt_free_settled().
	 */
	atomic_dec_return_release(&tt_free_in_call);
}

/*
 * Whether every acquirer still in a call is linked on @sem's queue as a
 * task waiter (white-box: only a test may walk psem's queue). Under the
 * queue lock the list cannot change, and a linked waiter cannot return
 * (it unlinks under this lock first), so the count read here is at least
 * the linked ones; equal means nobody is on its way in. The gate is shut,
 * so the count only falls.
 */
static bool tt_free_settled(struct psem *sem, long *linked)
{
	struct psem_waiter *w;
	long n = 0;
	bool ok;

	spin_lock_irq(&sem->lock);
	psem_for_each_waiter(w, sem)
		if (w->kind == PSEM_WAIT_ACQUIRE)
			n++;
	/* ACQUIRE: pairs with tt_free_leave()'s RELEASE. */
	ok = atomic_read_acquire(&tt_free_in_call) == n;
	spin_unlock_irq(&sem->lock);
	*linked = n;
	return ok;
}

/* Sends SIGUSR1 to the interruptible waiters: all, or one at random. */
static void tt_free_signal(struct rnd_state *rnd, bool all)
{
	int i, first = tt_free_rand(rnd, TT_FREE_NACQ);

	for (i = 0; i < TT_FREE_NACQ; i++) {
		struct tt_free_acq *a = &tt_free_acq[(first + i) % TT_FREE_NACQ];

		if (!a->task || !READ_ONCE(a->intr))
			continue;
		send_sig(SIGUSR1, a->task, 0);
		tt_free_inc(TT_FC_SIGNALS);
		if (!all)
			return;
	}
}

/* Now holds @n permits of @sem (a grant, or a callback's). */
static void tt_free_hold(struct tt_free_acq *a, struct psem *sem, long n)
{
	a->held_sem = sem;
	a->held = n;
	atomic_long_add(n, &tt_free_held);
}

/* Gives back what it holds; allowed on a closed psem, so never gated. */
static void tt_free_put(struct tt_free_acq *a)
{
	int ret;

	if (!a->held)
		return;
	atomic_long_sub(a->held, &tt_free_held);
	/*
	 * Full barrier: the count falls before the permits go home, so that
	 * an owner whose quiesce found them home reads it fallen (it reads
	 * after psem_quiesce(), which took the queue lock).
	 */
	smp_mb__after_atomic();
	ret = psem_release(a->held_sem, a->held);
	if (ret)
		tt_viol_err("life free: psem_release(%ld) returned %d\n", a->held, ret);
	a->held = 0;
	a->held_sem = NULL;
}

/* A request's end, from its callback or its work. */
static void tt_free_done(struct tt_free_acq *a, int result, enum tt_free_count c)
{
	if (!READ_ONCE(a->req_gen))
		tt_viol_err("life free: callback (%d) for a request that is not queued\n",
			    result);
	WRITE_ONCE(a->req_result, result);
	tt_free_inc(c);
	/* The result before done: pairs with the acquirer's ACQUIRE. */
	if (atomic_inc_return_release(&a->req_done) != 1)
		tt_viol_err("life free: callback (%d) ran twice for one request\n", result);
	wake_up(&a->wq);
}

static void tt_free_callback(struct psem_async *aw, int result)
{
	tt_free_done(container_of(aw, struct tt_free_acq, aw), result, TT_FC_CALLBACKS);
}

static void tt_free_work_fn(struct work_struct *work)
{
	struct psem_async_work *aww = container_of(work, struct psem_async_work, work);

	tt_free_done(container_of(aww, struct tt_free_acq, aww), aww->result,
		     TT_FC_WORKS);
}

/* The request is over: a grant is held, anything else is counted. */
static void tt_free_req_end(struct tt_free_acq *a, struct psem *sem)
{
	int ret = READ_ONCE(a->req_result);

	if (!ret)
		tt_free_hold(a, sem, a->req_n);
	else if (ret != -ESHUTDOWN)
		tt_viol_err("life free: %s request of %ld ended %d\n",
			    a->req_work ? "work" : "async", a->req_n, ret);
	WRITE_ONCE(a->req_gen, 0);
}

/*
 * A queued request: maybe withdraw it (only while its cycle's gate is
 * open: after that the psem may be gone, and the close fails it anyway),
 * else wait a little for its callback.
 */
static void tt_free_req_step(struct tt_free_acq *a, struct psem *req_sem)
{
	unsigned long gen;
	struct psem *sem;
	bool withdrawn;

	if (atomic_read_acquire(&a->req_done)) {
		tt_free_req_end(a, req_sem);
		return;
	}
	if (!tt_free_rand(&a->rnd, 3)) {
		sem = tt_free_enter(&gen);
		if (sem && gen == a->req_gen) {
			if (a->req_work)
				withdrawn = psem_cancel_async_work_sync(sem, &a->aww);
			else if (tt_free_rand(&a->rnd, 2))
				withdrawn = psem_cancel_async_sync(sem, &a->aw);
			else
				withdrawn = psem_cancel_async(sem, &a->aw);
			/*
			 * Counted inside the gate, as tt_free_call() counts a
			 * request queued: the owner checks the counts once
			 * every call has left. Counted after leaving, the
			 * owner could quiesce and check in between and find a
			 * queued request neither called back nor withdrawn.
			 */
			if (withdrawn)
				tt_free_inc(a->req_work ? TT_FC_WWITHDRAWN : TT_FC_WITHDRAWN);
			tt_free_leave();
			if (withdrawn) {
				if (atomic_read(&a->req_done))
					tt_viol_err("life free: a request both withdrawn and called back\n");
				WRITE_ONCE(a->req_gen, 0);
				return;
			}
		} else if (sem) {
			tt_free_leave();
		}
	}
	wait_event_idle_timeout(a->wq, atomic_read(&a->req_done),
				1 + tt_free_rand(&a->rnd, 3));
	if (!atomic_read(&a->req_done) &&
	    time_after(jiffies, a->req_since + (unsigned long)tp_wait_bound_s * HZ))
		tt_viol_err("life free: a %s request of %ld not called back after %d s\n",
			    a->req_work ? "work" : "async", a->req_n, tp_wait_bound_s);
}

/* One call on the current psem, inside the gate. */
static void tt_free_call(struct tt_free_acq *a, struct psem *sem, unsigned long gen)
{
	enum tt_free_op op = tt_free_rand(&a->rnd, TT_NR_FO);
	long n = 1 + tt_free_rand(&a->rnd, TT_FREE_CAP);
	int ret;

	switch (op) {
	case TT_FO_INTR:
		WRITE_ONCE(a->intr, true);
		ret = psem_acquire_interruptible(sem, n);
		WRITE_ONCE(a->intr, false);
		break;
	case TT_FO_TIMEOUT:
		ret = psem_acquire_timeout(sem, n, 1 + tt_free_rand(&a->rnd, 3));
		break;
	case TT_FO_KILL:
		ret = psem_acquire_killable(sem, n);
		break;
	case TT_FO_PLAIN:
		ret = psem_acquire(sem, n);
		break;
	default:
		a->req_work = op == TT_FO_WORK;
		a->req_n = n;
		a->req_result = 1;
		a->req_since = jiffies;
		atomic_set(&a->req_done, 0);
		WRITE_ONCE(a->req_gen, gen);
		if (a->req_work)
			ret = psem_acquire_async_work(sem, n, &a->aww);
		else
			ret = psem_acquire_async(sem, n, &a->aw, tt_free_callback);
		/*
		 * Counted inside the gate: its callback or work may run (and
		 * count) at once, and the owner's check after the quiesce
		 * reads this count once every call has left (the RELEASE in
		 * tt_free_leave()). Counted after leaving, a request could be
		 * called back and checked before it was counted queued.
		 */
		if (ret == -EINPROGRESS)
			tt_free_inc(a->req_work ? TT_FC_WQUEUED : TT_FC_QUEUED);
		break;
	}
	tt_free_leave();

	if (op == TT_FO_ASYNC || op == TT_FO_WORK) {
		if (ret == -EINPROGRESS)
			return;
		WRITE_ONCE(a->req_gen, 0);
		if (!ret) {
			tt_free_inc(TT_FC_IMMEDIATE);
		} else {
			if (ret != -ESHUTDOWN)
				tt_viol_err("life free: acquire_async(%ld) returned %d\n", n, ret);
			tt_free_inc(TT_FC_SHUTDOWN);
			return;
		}
	} else if (ret) {
		if (ret == -EINTR && op == TT_FO_INTR)
			tt_free_inc(TT_FC_EINTR);
		else if (ret == -ETIME && op == TT_FO_TIMEOUT)
			tt_free_inc(TT_FC_ETIME);
		else if (ret == -ESHUTDOWN)
			tt_free_inc(TT_FC_SHUTDOWN);
		else
			tt_viol_err("life free: acquire (op %d) of %ld returned %d\n", op, n, ret);
		return;
	}
	if (op != TT_FO_ASYNC && op != TT_FO_WORK)
		tt_free_inc(TT_FC_GRANTED);
	tt_free_hold(a, sem, n);
	/* Sometimes hold across the close: the quiesce must wait for it. */
	if (!tt_free_rand(&a->rnd, 4))
		schedule_timeout_idle(1 + tt_free_rand(&a->rnd, 2));
}

static int tt_free_acquirer(void *arg)
{
	struct tt_free_acq *a = arg;
	struct psem *sem, *req_sem = NULL;
	unsigned long gen;

	allow_signal(SIGUSR1);
	while (!kthread_should_stop()) {
		tt_flush_signals();
		tt_free_put(a);
		if (READ_ONCE(a->req_gen)) {
			tt_free_req_step(a, req_sem);
			continue;
		}
		sem = tt_free_enter(&gen);
		if (!sem) {
			wait_event_idle_timeout(tt_free_wq, READ_ONCE(tt_free_open) ||
						kthread_should_stop(), HZ / 10);
			continue;
		}
		req_sem = sem;
		tt_free_call(a, sem, gen);
		cond_resched();
	}
	/* The owner is gone: its last close failed any request still queued. */
	tt_free_put(a);
	if (READ_ONCE(a->req_gen)) {
		if (!wait_event_idle_timeout(a->wq, atomic_read(&a->req_done),
					     (long)tp_wait_bound_s * HZ))
			tt_viol_err("life free: a request outlived its psem\n");
		else if (atomic_read_acquire(&a->req_done))
			tt_free_req_end(a, req_sem);
		tt_free_put(a);
	}
	/* Its work may still be returning. */
	flush_work(&a->aww.work);
	return 0;
}

/* After the quiesce, before the free: the psem must be exactly whole. */
static bool tt_free_check(struct psem *sem, long cap, int ret)
{
	long avail = psem_available(sem), word = atomic_long_read(&sem->count);
	long held = atomic_long_read(&tt_free_held);
	long queued = tt_free_get(TT_FC_QUEUED), cb = tt_free_get(TT_FC_CALLBACKS);
	long wd = tt_free_get(TT_FC_WITHDRAWN);
	long wq = tt_free_get(TT_FC_WQUEUED), works = tt_free_get(TT_FC_WORKS);
	long wwd = tt_free_get(TT_FC_WWITHDRAWN);
	unsigned long debt = psem_debt(sem);
	bool waiters = tt_has_waiters(sem), ok = true;

	if (ret) {
		tt_viol_err("life free: psem_quiesce() after psem_close() returned %d: available %ld of %ld, debt %lu\n",
			    ret, avail, cap, debt);
		return false;
	}
	if (avail != cap || debt || waiters || word != tt_ext_word(cap, true) ||
	    held) {
		tt_viol_err("life free: quiesced: available %ld of %ld, debt %lu, word %#lx, acquirers hold %ld, waiters: %s\n",
			    avail, cap, debt, word, held, waiters ? "yes" : "no");
		ok = false;
	}
	/* Every callback has run: quiesce waits for those due or running. */
	if (queued != cb + wd) {
		tt_viol_err("life free: quiesced: %ld async requests queued, %ld called back, %ld withdrawn\n",
			    queued, cb, wd);
		ok = false;
	}
	/* A work that failed need not have run yet: it no longer needs the psem. */
	if (works + wwd > wq) {
		tt_viol_err("life free: quiesced: %ld work requests queued, %ld ran, %ld withdrawn\n",
			    wq, works, wwd);
		ok = false;
	}
	return ok;
}

/* One psem's life: allocate, let acquirers in, close, quiesce, free. */
static void tt_free_cycle(struct rnd_state *rnd)
{
	unsigned long end;
	struct psem_ext *cs;
	struct psem *sem;
	long own, linked;
	bool settled;
	int i, ret;

	cs = kmalloc(sizeof(*cs), GFP_KERNEL);
	if (!cs) {
		schedule_timeout_idle(1);
		return;
	}
	sem = &cs->sem;
	if (psem_init_capacity(cs, TT_FREE_CAP)) {
		tt_viol_err("life free: psem_init_capacity(%d) failed\n", TT_FREE_CAP);
		kfree(cs);
		schedule_timeout_idle(HZ);
		return;
	}
	own = tt_free_rand(rnd, TT_FREE_CAP + 1);
	if (own && !psem_try_acquire(sem, own))
		tt_viol_err("life free: the owner could not take %ld of a new psem\n", own);

	spin_lock(&tt_free_lock);
	tt_free_sem = sem;
	tt_free_gen++;
	WRITE_ONCE(tt_free_open, true);
	spin_unlock(&tt_free_lock);
	wake_up_all(&tt_free_wq);

	for (i = 1 + tt_free_rand(rnd, 8); i > 0; i--) {
		schedule_timeout_idle(1);
		if (own && !tt_free_rand(rnd, 4)) {
			psem_release(sem, 1);
			own--;
		}
		if (!tt_free_rand(rnd, 4))
			tt_free_signal(rnd, false);
	}

	spin_lock(&tt_free_lock);
	WRITE_ONCE(tt_free_open, false);
	spin_unlock(&tt_free_lock);
	end = jiffies + (unsigned long)tp_wait_bound_s * HZ;
	while (!(settled = tt_free_settled(sem, &linked)) && time_before(jiffies, end))
		schedule_timeout_idle(1);
	if (!settled)
		tt_viol_err("life free: acquirers still on their way in after %d s\n",
			    tp_wait_bound_s);
	atomic_long_add(linked, &tt_free_n[TT_FC_LINKED]);

	/* The race: signals, timeouts and the close end waits at once. */
	if (tt_free_rand(rnd, 2))
		tt_free_signal(rnd, true);
	if (own && tt_free_rand(rnd, 2)) {
		psem_release(sem, own);
		own = 0;
	}
	ret = psem_close(sem);
	if (ret)
		tt_viol_err("life free: psem_close() returned %d\n", ret);
	if (own)
		psem_release(sem, own);
	ret = psem_quiesce(sem, TT_FREE_QUIESCE_S * HZ);
	if (!tt_free_check(sem, TT_FREE_CAP, ret) || !settled) {
		tt_alert("life free: leaving a psem unfreed after a failed check\n");
		sem = NULL;
	}

	spin_lock(&tt_free_lock);
	tt_free_sem = NULL;
	spin_unlock(&tt_free_lock);
	/* While the waiters that close, signals and timeouts ended still leave. */
	kfree(cs);
	tt_free_inc(TT_FC_CYCLES);
}

static int tt_free_owner_fn(void *arg)
{
	struct rnd_state rnd;

	prandom_seed_state(&rnd, tp_seed ^ 0xf3ee);
	while (!kthread_should_stop())
		tt_free_cycle(&rnd);
	return 0;
}

/*
 * Starts the owner and the acquirers, with the life phase. Half of the
 * acquirers share the owner's CPU: the owner, woken by its tick-long
 * sleeps, then preempts a waiter on its way out of a wait (a signal or a
 * timeout ended it on the same tick), the interleaving that a
 * close -> quiesce -> free must survive.
 */
void tt_free_start(void)
{
	int i, cpu = tt_nth_online_cpu(0);

	atomic_set(&tt_free_in_call, 0);
	atomic_long_set(&tt_free_held, 0);
	for (i = 0; i < TT_FREE_NACQ; i++) {
		struct tt_free_acq *a = &tt_free_acq[i];

		memset(a, 0, sizeof(*a));
		prandom_seed_state(&a->rnd, tp_seed ^ (0xacc0 + i));
		init_waitqueue_head(&a->wq);
		psem_init_async_work(&a->aww, tt_free_work_fn);
		a->task = tt_start(tt_free_acquirer, a, "free", i, i % 2 ? -1 : cpu);
		if (a->task)
			get_task_struct(a->task);
	}
	tt_free_owner = tt_start(tt_free_owner_fn, NULL, "owner", 0, cpu);
}

/*
 * Stops them: the owner first, whose last cycle ends with the gate shut and
 * every wait failed; then the acquirers, which wait for their requests.
 */
void tt_free_stop(void)
{
	int i;

	if (tt_free_owner)
		kthread_stop(tt_free_owner);
	tt_free_owner = NULL;
	for (i = 0; i < TT_FREE_NACQ; i++) {
		struct tt_free_acq *a = &tt_free_acq[i];

		if (!a->task)
			continue;
		kthread_stop(a->task);
		put_task_struct(a->task);
		a->task = NULL;
	}
	if (tt_free_get(TT_FC_QUEUED) != tt_free_get(TT_FC_CALLBACKS) +
	    tt_free_get(TT_FC_WITHDRAWN) ||
	    tt_free_get(TT_FC_WQUEUED) != tt_free_get(TT_FC_WORKS) +
	    tt_free_get(TT_FC_WWITHDRAWN) || atomic_long_read(&tt_free_held))
		tt_viol_err("life free: at the end: async %ld queued, %ld called back, %ld withdrawn; work %ld queued, %ld ran, %ld withdrawn; %ld permits held\n",
			    tt_free_get(TT_FC_QUEUED), tt_free_get(TT_FC_CALLBACKS),
			    tt_free_get(TT_FC_WITHDRAWN), tt_free_get(TT_FC_WQUEUED),
			    tt_free_get(TT_FC_WORKS), tt_free_get(TT_FC_WWITHDRAWN),
			    atomic_long_read(&tt_free_held));
}

void tt_free_report(void)
{
	tt_alert("lifecycle: free cycles=%ld granted=%ld eintr=%ld etime=%ld shutdown=%ld signals=%ld linked_at_close=%ld async immediate=%ld queued=%ld called_back=%ld withdrawn=%ld work queued=%ld ran=%ld withdrawn=%ld\n",
		 tt_free_get(TT_FC_CYCLES), tt_free_get(TT_FC_GRANTED),
		 tt_free_get(TT_FC_EINTR), tt_free_get(TT_FC_ETIME),
		 tt_free_get(TT_FC_SHUTDOWN), tt_free_get(TT_FC_SIGNALS),
		 tt_free_get(TT_FC_LINKED), tt_free_get(TT_FC_IMMEDIATE),
		 tt_free_get(TT_FC_QUEUED), tt_free_get(TT_FC_CALLBACKS),
		 tt_free_get(TT_FC_WITHDRAWN), tt_free_get(TT_FC_WQUEUED),
		 tt_free_get(TT_FC_WORKS), tt_free_get(TT_FC_WWITHDRAWN));
}
