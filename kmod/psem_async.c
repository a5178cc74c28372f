// SPDX-License-Identifier: GPL-2.0
/*
 * Asynchronous waiters: acquire permits without sleeping, and be called
 * back when a release completes the grant, as the seed's futures are woken.
 *
 * A struct psem_async sits in the same FIFO queue as sleeping waiters,
 * with the same partial assignment, so neither kind overtakes the other.
 * Its grant is completed by whatever moves it off the queue (a release, a
 * close, a resize), which calls the callback after dropping the queue lock
 * (psem_wake_served()), in its own context: possibly hard IRQ.
 *
 * Cancel and grant race for the queue lock; whichever takes the waiter off
 * the queue first decides the outcome, so exactly one of "cancelled" and
 * "called back" happens. psem_cancel_async_sync() also waits for a
 * callback in flight, through the RCU read-side section that brackets
 * each asynchronous completion (psem_dequeue() to psem_wake_served()).
 */

#include <linux/export.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>

#include "psem_internal.h"

/**
 * psem_acquire_async - take permits, or be called back once they are assigned
 * @sem: the semaphore
 * @n:   permits to take, 0..PSEM_MAX_PERMITS
 * @aw:  the waiter, owned by the caller (embed it, e.g. in a request)
 * @fn:  called once with the outcome if @aw was queued
 *
 * Never sleeps; may be called wherever psem_release() may. If all @n
 * permits are available they are taken at once and @fn is not called.
 * Otherwise @aw takes what there is and is queued, FIFO with sleeping
 * waiters, for the rest: @fn then runs exactly once, with 0 when all @n are
 * assigned, or -ESHUTDOWN / -E2BIG when psem_close() or psem_resize() ended
 * the wait (the partial grant goes back first). @aw belongs to psem from a
 * return of -EINPROGRESS until @fn is called or psem_cancel_async()
 * returns true.
 *
 * Return: 0 if the permits were taken; -EINPROGRESS if @aw was queued;
 * -EINVAL (with a warning) if @n is out of range; -ESHUTDOWN if @sem is
 * closed; -E2BIG if @n exceeds its capacity. Only -EINPROGRESS queues.
 */
int psem_acquire_async(struct psem *sem, long n, struct psem_async *aw,
		       psem_async_fn fn)
{
	unsigned long flags;
	long needed;
	int ret;

	if (unlikely((unsigned long)n > PSEM_MAX_PERMITS) &&
	    psem_refuse("%s: count %ld out of range\n", __func__, n))
		return -EINVAL;
	if (psem_take(sem, n))
		return 0;

	spin_lock_irqsave(&sem->wq.lock, flags);
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
	spin_unlock_irqrestore(&sem->wq.lock, flags);
	return ret;
}
PSEM_EXPORT(psem_acquire_async);

/**
 * psem_cancel_async - withdraw a queued asynchronous acquire
 * @sem: the semaphore @aw was queued on
 * @aw:  a waiter for which psem_acquire_async() returned -EINPROGRESS
 *
 * Never sleeps; may be called wherever psem_release() may, including from
 * another asynchronous waiter's callback.
 *
 * Return: true if @aw was still queued: it is unlinked, the permits it was
 * partly assigned go back (FIFO), @fn will never run, and @aw is the
 * caller's again. False if its wait was already completed: @fn has run or
 * is running (on another CPU), and owns @aw. Exactly one of the two, on
 * every interleaving with a release, close or resize.
 */
bool psem_cancel_async(struct psem *sem, struct psem_async *aw)
{
	return psem_cancel(sem, &aw->w);
}
PSEM_EXPORT(psem_cancel_async);

/**
 * psem_cancel_async_sync - withdraw an asynchronous acquire, or wait for its callback
 * @sem: the semaphore @aw was queued on
 * @aw:  a waiter for which psem_acquire_async() returned -EINPROGRESS
 *
 * As psem_cancel_async(), but when the wait was already completed, waits
 * until the callback has returned (an RCU grace period). The
 * del_timer_sync() of psem: after it, neither @aw nor @fn is in use by
 * psem, so a module may free @aw and unload. The caller must not hold
 * anything the callback needs. Process context; sleeps.
 *
 * Return: as psem_cancel_async().
 */
bool psem_cancel_async_sync(struct psem *sem, struct psem_async *aw)
{
	might_sleep();
	if (psem_cancel_async(sem, aw))
		return true;
	/* The completion took @aw off the queue inside rcu_read_lock(). */
	synchronize_rcu();
	return false;
}
PSEM_EXPORT(psem_cancel_async_sync);

static void psem_async_queue_work(struct psem_async *aw, int result)
{
	struct psem_async_work *aww = container_of(aw, struct psem_async_work, aw);

	aww->result = result;
	queue_work(system_wq, &aww->work);
}

/**
 * psem_acquire_async_work - an asynchronous acquire completed in process context
 * @sem: the semaphore
 * @n:   permits to take, 0..PSEM_MAX_PERMITS
 * @aww: the waiter and its work item, owned by the caller
 * @fn:  the work function; it finds the outcome in @aww->result
 *
 * As psem_acquire_async(), but a queued wait completes by queueing
 * @aww->work on system_wq, so that @fn runs in process context and may
 * sleep. To withdraw it: psem_cancel_async(sem, &aww->aw), then, if that
 * returned false, cancel_work_sync() or flush_work() on @aww->work (its
 * @result then says whether the caller holds the permits).
 *
 * Return: as psem_acquire_async(); on 0 the permits are held at once and
 * @fn is not queued.
 */
int psem_acquire_async_work(struct psem *sem, long n,
			    struct psem_async_work *aww, work_func_t fn)
{
	INIT_WORK(&aww->work, fn);
	return psem_acquire_async(sem, n, &aww->aw, psem_async_queue_work);
}
PSEM_EXPORT(psem_acquire_async_work);
