// SPDX-License-Identifier: GPL-2.0
/*
 * Asynchronous waiters: acquire permits without sleeping, and be called
 * back when a release completes the grant, as an async runtime wakes a
 * future.
 *
 * A struct psem_async sits in the same FIFO queue as sleeping waiters,
 * with the same partial assignment, so neither kind overtakes the other.
 * Its grant is completed by whatever moves it off the queue (a release, a
 * close, a resize). That path calls the callback after dropping the queue
 * lock, in its own context (possibly hard IRQ), unless another path is
 * already calling back on the same psem: then the callback joins that
 * path's list and runs there, after the ones before it (psem_call_back()).
 * So callbacks that release into their psem run one after another, never
 * nested, however long the chain.
 *
 * Cancel and grant race for the queue lock; whichever takes the waiter off
 * the queue first decides the outcome, so exactly one of "cancelled" and
 * "called back" happens. psem_cancel_async_sync() also waits, on
 * &psem_calls.calling and the waiter's state, until no callback for the waiter
 * is due or running.
 */

#include <linux/export.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#include "psem_queue.h"

/**
 * psem_acquire_async - take permits, or be called back once they are assigned
 * @sem: the semaphore, &psem_ext.sem of a struct psem_ext
 * @n:   permits to take, 0..PSEM_MAX_PERMITS
 * @aw:  the waiter, owned by the caller (embed it, e.g. in a request)
 * @fn:  called once with the outcome if @aw was queued
 *
 * Never sleeps. If all @n permits are available they are taken at once,
 * lock-free, and @fn is not called: that is possible in any context. A
 * wait that must queue takes the queue lock, so not from NMI or a
 * hard-only IRQ (Documentation/api.rst, "Contexts"): there it is refused.
 * Otherwise @aw takes what there is and is queued, FIFO with sleeping
 * waiters, for the rest: @fn then runs exactly once, with 0 when all @n are
 * assigned, or -ESHUTDOWN / -E2BIG when psem_close() or psem_resize() ended
 * the wait (the partial grant goes back first). @aw belongs to psem from a
 * return of -EINPROGRESS until @fn is called or psem_cancel_async()
 * returns true. @aw must not be queued already; the callback of @aw may
 * queue it again.
 *
 * Return: 0 if the permits were taken; -EINPROGRESS if @aw was queued;
 * -EINVAL (with a warning) if @n is out of range or @sem is a plain psem
 * (psem_init(), DEFINE_PSEM()), which has no room for the path that calls
 * back (&psem_ext.calls); -ESHUTDOWN if @sem is
 * closed (whatever @n); -E2BIG if @n exceeds its capacity. Only
 * -EINPROGRESS queues. -EPERM (with a warning) if it would have to queue
 * from a context where the queue lock may not be taken.
 */
int psem_acquire_async(struct psem *sem, long n, struct psem_async *aw,
		       psem_async_fn fn)
{
	unsigned long flags;
	long needed;
	int ret;

	/*
	 * Not queued, whatever follows, refusals included: a cancel now is
	 * a no-op. Unordered: @aw is the caller's until it is linked under
	 * the lock.
	 */
	atomic_set(&aw->w.state, PSEM_W_IDLE);
	if (psem_count_out_of_range(n) &&
	    psem_refuse("%s: count %ld out of range\n", __func__, n))
		return -EINVAL;
	if (!psem_is_ext(sem) &&
	    psem_refuse("%s: an asynchronous waiter needs a struct psem_ext\n", __func__))
		return -EINVAL;
	/* A psem_ext's balance is its credit: psem_take_range() takes it. */
	if (psem_take(sem, n) || psem_take_range(sem, n, n))
		return 0;
	/*
	 * Where the lock may not be taken, a closed psem and a count over its
	 * capacity are still answered, from a snapshot (the kernel-doc's
	 * return values): only a wait that would have to queue is refused.
	 */
	if (unlikely(psem_lock_forbidden())) {
		ret = psem_refuse_wait(sem, n);
		if (ret)
			return ret;
		if (psem_refuse_context())
			return -EPERM;
	}

	spin_lock_irqsave(&sem->lock, flags);
	ret = psem_refuse_wait(sem, n);
	if (ret)
		goto unlock;
	needed = n - psem_take_or_mark(sem, n);
	if (!needed)
		goto unlock;
	aw->fn = fn;
	aw->w.needed = needed;
	psem_link(sem, &aw->w, n, PSEM_WAIT_ASYNC, NULL);
	ret = -EINPROGRESS;
unlock:
	spin_unlock_irqrestore(&sem->lock, flags);
	return ret;
}
EXPORT_SYMBOL_PSEM(psem_acquire_async);

/**
 * psem_cancel_async - withdraw a queued asynchronous acquire
 * @sem: the semaphore @aw was queued on
 * @aw:  a waiter given to psem_acquire_async()
 *
 * Never sleeps; takes the queue lock, so any context but NMI and hard-only
 * IRQs (Documentation/api.rst, "Contexts"), including another asynchronous
 * waiter's callback.
 *
 * Return: true if @aw was still queued: it is unlinked, the permits it was
 * partly assigned go back (FIFO), @fn will never run for this wait, and
 * @aw is the caller's again. False otherwise, changing nothing: the wait
 * was completed, and @fn has run, is running, or is queued to run (on the
 * path calling back on @sem) and owns @aw; or @aw is not queued at all
 * (psem_acquire_async() granted it at once, or it was cancelled already).
 * Exactly one of "true" and "called back" per queued wait, on every
 * interleaving with a release, close or resize.
 */
bool psem_cancel_async(struct psem *sem, struct psem_async *aw)
{
	return psem_cancel(sem, &aw->w);
}
EXPORT_SYMBOL_PSEM(psem_cancel_async);

/* Where an asynchronous waiter stands, for psem_cancel_async_sync(). */
enum psem_async_stand {
	PSEM_ASYNC_IDLE,	/* not queued, and no callback of it runs */
	PSEM_ASYNC_QUEUED,	/* queued again (by its callback) */
	PSEM_ASYNC_BUSY,	/* its callback is due or running */
};

/*
 * Under the queue lock, where its state and &psem_ext.calls change: the path
 * that &psem_ext.calls points at keeps its struct psem_calls on its stack
 * until it has cleared the pointer under the lock.
 */
static enum psem_async_stand psem_async_stand_locked(struct psem *sem,
						     struct psem_async *aw)
{
	int state = atomic_read(&aw->w.state);	/* under the lock */
	/* A plain psem has no asynchronous waiter and no path calling back. */
	struct psem_calls *calls = psem_is_ext(sem) ? psem_ext_of(sem)->calls : NULL;

	lockdep_assert_held(&sem->lock);
	if (state == PSEM_W_SERVED)
		return PSEM_ASYNC_BUSY;
	/* ACQUIRE: pairs with the RELEASE in psem_call_back(). */
	if (calls && smp_load_acquire(&calls->calling) == aw)
		return PSEM_ASYNC_BUSY;
	return state == PSEM_W_IDLE ? PSEM_ASYNC_IDLE : PSEM_ASYNC_QUEUED;
}

/*
 * Where @aw stands, read in one hold of the queue lock: a second read
 * after the unlock could find a second callback started meanwhile (IDLE
 * again, and calling).
 */
static enum psem_async_stand psem_async_stand(struct psem *sem,
					      struct psem_async *aw)
{
	enum psem_async_stand stand;

	spin_lock_irq(&sem->lock);
	stand = psem_async_stand_locked(sem, aw);
	spin_unlock_irq(&sem->lock);
	return stand;
}

/**
 * psem_cancel_async_sync - withdraw an asynchronous acquire, or wait for its callback
 * @sem: the semaphore @aw was queued on
 * @aw:  a waiter given to psem_acquire_async()
 *
 * As psem_cancel_async(), but when the wait was already completed, waits
 * until its callback has returned; and when a callback still running
 * queued @aw again, withdraws that wait too and waits for that callback.
 * The timer_delete_sync() of psem: after it, neither @aw nor @fn is in use
 * by psem, so a module may free @aw and unload. A callback that always
 * queues @aw again must be told to stop by its owner first. The caller
 * must not hold anything the callback needs, and must not be a callback.
 * Process context; sleeps.
 *
 * Return: true if the last wait of @aw was withdrawn (its callback will
 * not run for it); false if it completed and its callback has returned,
 * or @aw was not queued.
 */
bool psem_cancel_async_sync(struct psem *sem, struct psem_async *aw)
{
	enum psem_async_stand stand;
	bool cancelled;

	might_sleep();
	do {
		cancelled = psem_cancel_async(sem, aw);
		/*
		 * psem_call_back() wakes psem_let_go_var() after each callback.
		 * Decided in one hold of the lock: not busy, and either idle
		 * for good or queued again by the callback that returned.
		 */
		wait_var_event(psem_let_go_var(sem),
			       (stand = psem_async_stand(sem, aw)) !=
			       PSEM_ASYNC_BUSY);
	} while (stand == PSEM_ASYNC_QUEUED);
	return cancelled;
}
EXPORT_SYMBOL_PSEM(psem_cancel_async_sync);

static void psem_async_queue_work(struct psem_async *aw, int result)
{
	struct psem_async_work *aww = container_of(aw, struct psem_async_work, aw);

	aww->result = result;
	/*
	 * Counted before the work is queued: after it the work may free
	 * @aww. Unordered of its own: &psem_calls.calling's RELEASE, once this
	 * callback returns, orders it for psem_async_work_idle().
	 */
	WRITE_ONCE(aww->queued, aww->queued + 1);
	queue_work(system_wq, &aww->work);
}

/**
 * psem_acquire_async_work - an asynchronous acquire completed in process context
 * @sem: the semaphore
 * @n:   permits to take, 0..PSEM_MAX_PERMITS
 * @aww: the waiter and its work item, owned by the caller, prepared once
 *       with psem_init_async_work()
 *
 * As psem_acquire_async(), but a queued wait completes by queueing
 * @aww->work on system_wq, so that its function runs in process context
 * and may sleep; it may call this again for @aww. The work item is never
 * initialised here: it may still be running. A wait may be queued again
 * from the work function, or once it has run (or after
 * psem_cancel_async_work_sync()), never while the work of the last one is
 * still to run: a second completion could not queue it again, and its
 * grant would be lost. To withdraw the wait, call
 * psem_cancel_async_work_sync(): a psem_cancel_async() that returns false
 * does not mean that the work has been queued yet (the callback that
 * queues it may still be due).
 *
 * Return: as psem_acquire_async(); on 0 the permits are held at once and
 * the work is not queued; -EBUSY, changing nothing, if the work of the
 * last wait is queued and has yet to run.
 */
int psem_acquire_async_work(struct psem *sem, long n,
			    struct psem_async_work *aww)
{
	/*
	 * The last wait's work queued and not yet run: a completion of this
	 * one could not queue it again. (Before its callback has queued it,
	 * the last wait is not complete to its owner, which must not queue
	 * @aww again then, as for any waiter that is still queued.)
	 */
	if (work_pending(&aww->work))
		return -EBUSY;
	return psem_acquire_async(sem, n, &aww->aw, psem_async_queue_work);
}
EXPORT_SYMBOL_PSEM(psem_acquire_async_work);

/*
 * Whether @aww is idle for good: not queued, no callback of it due or
 * running, and no callback queued its work since *@queued was read; if
 * one did, *@queued is the new count, for the next round.
 */
static bool psem_async_work_idle(struct psem *sem,
				 struct psem_async_work *aww,
				 unsigned int *queued)
{
	unsigned int now;
	bool idle;

	spin_lock_irq(&sem->lock);
	idle = psem_async_stand_locked(sem, &aww->aw) == PSEM_ASYNC_IDLE;
	/*
	 * After &psem_calls.calling's ACQUIRE above: a callback that has returned
	 * counted its run before; none can start while the lock is held
	 * (it sets &psem_calls.calling under it), and none is due unless @aww is
	 * queued or served, which is not idle.
	 */
	now = READ_ONCE(aww->queued);
	idle = idle && now == *queued;
	spin_unlock_irq(&sem->lock);
	*queued = now;
	return idle;
}

/**
 * psem_cancel_async_work_sync - withdraw a work waiter, or wait for its work
 * @sem: the semaphore @aww was queued on
 * @aww: a waiter given to psem_acquire_async_work()
 *
 * Withdraws the wait if it is still queued; otherwise waits until the
 * callback that queues @aww->work has returned, then until the work has
 * run (flush_work()). Waits as well for a run of the work that is under
 * way, and when that run queued @aww again, withdraws that wait too, and
 * so on: after it neither psem nor the work uses @aww, and the caller may
 * free it. A work that always queues @aww again must be told to stop by
 * its owner first. Process context; sleeps; not from the work itself.
 *
 * Return: true if the last wait was withdrawn (holding nothing; the work
 * will not run for it); false if it completed and its work has run (it
 * found the outcome in @aww->result), or if @aww was not queued (e.g.
 * psem_acquire_async_work() granted it at once and returned 0: the work
 * never runs, the caller holds the permits).
 */
bool psem_cancel_async_work_sync(struct psem *sem, struct psem_async_work *aww)
{
	/*
	 * Before the first cancel: a callback that starts from here on is
	 * counted; one running now, psem_cancel_async_sync() waits for, and
	 * its work is queued before flush_work().
	 */
	unsigned int queued = READ_ONCE(aww->queued);
	bool cancelled = false;

	do {
		/*
		 * The outcome of the last wait: withdrawn now, or completed
		 * (a callback queued the work since the round began); a
		 * round that found nothing queued changes nothing.
		 */
		if (psem_cancel_async_sync(sem, &aww->aw))
			cancelled = true;
		/*
		 * Ordered after the ACQUIRE of &psem_calls.calling in the
		 * cancel's last look under the lock: a callback that has
		 * returned counted its run before it cleared calling
		 * (RELEASE).
		 */
		else if (READ_ONCE(aww->queued) != queued)
			cancelled = false;
		/* A run under way or queued: it may queue @aww again. */
		flush_work(&aww->work);
	} while (!psem_async_work_idle(sem, aww, &queued));
	return cancelled;
}
EXPORT_SYMBOL_PSEM(psem_cancel_async_work_sync);
