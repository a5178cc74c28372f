// SPDX-License-Identifier: GPL-2.0
/*
 * psem's lifecycle calls, for psems that stand for a real credit pool:
 * the capacity, an absolute resize with permits out, close and reopen, and
 * quiesce, which waits until every permit is home. Device removal is
 * close, quiesce, free.
 *
 * Each call works under the queue lock on the same word and queue as the
 * releases (psem_word.c, psem_queue.c), keeping I1 and I2. A quiesce is a
 * FIFO waiter that asks for the whole capacity: it is served exactly when
 * every permit is back and no debt is owed, and it keeps PSEM_WAITERS set
 * meanwhile, so that it sees every release.
 */

#include <linux/export.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

#include "psem_queue.h"

/*
 * Points every linked quiesce at @capacity, the permits it now waits for,
 * and ends with -E2BIG the waits of acquirers that asked for more. Returns
 * what they held beyond their new needs, for the caller to give back.
 */
static long psem_retarget(struct psem *sem, long capacity,
			  struct psem_wake *wake)
{
	struct psem_waiter *w, *next;
	long back = 0;

	psem_for_each_waiter_safe(w, next, sem) {
		long assigned = w->n - w->needed;

		if (w->kind == PSEM_WAIT_QUIESCE) {
			w->n = capacity;
			back += max(assigned - capacity, 0L);
			w->needed = max(capacity - assigned, 0L);
		} else if (w->n > capacity) {
			back += psem_fail_waiter(sem, w, -E2BIG, wake);
		}
	}
	return back;
}

/* Under the queue lock: @sem's capacity is @capacity from now on. */
static void psem_set_limit(struct psem *sem, long capacity)
{
	WRITE_ONCE(psem_ext_of(sem)->limit,
		   capacity * PSEM_ONE | PSEM_LIMIT_CAPPED);
}

/**
 * psem_resize - set the capacity of a psem, with permits out
 * @sem:      a psem created with a capacity
 * @capacity: the new capacity, 0..PSEM_MAX_PERMITS
 *
 * Absolute, and valid at any time. Growing adds the difference, serving
 * waiters in FIFO order. Shrinking removes it: what the balance holds now,
 * the rest as a debt that returning permits pay before any waiter. Waiters
 * that asked for more than the new capacity fail with -E2BIG and their
 * partial grants go back. A quiesce in progress now waits for the new
 * capacity. Never sleeps; callable in any context but NMI and hard-only IRQs.
 *
 * Return: 0; -EINVAL (with a warning, changing nothing) if @sem has no
 * capacity or @capacity is out of range; -EPERM (likewise) from a context
 * where the queue lock may not be taken (NMI, a hard-only IRQ).
 */
int psem_resize(struct psem *sem, long capacity)
{
	unsigned long flags;
	DEFINE_PSEM_WAKE(wake);
	long old, back;

	if (!psem_capped(sem) && psem_refuse("resize of a psem without a capacity\n"))
		return -EINVAL;
	if (psem_refuse_context())
		return -EPERM;
	if (psem_count_out_of_range(capacity) &&
	    psem_refuse("resize to capacity %ld out of range\n", capacity))
		return -EINVAL;

	spin_lock_irqsave(&sem->lock, flags);
	old = psem_capacity(sem);
	back = psem_retarget(sem, capacity, &wake);
	if (capacity < old) {
		long owed = old - capacity;

		/*
		 * Shrinking: the new limit before the word changes. smp_wmb()
		 * pairs with the ACQUIRE load in psem_release_credit() and
		 * with its smp_rmb() after a lost exchange, so that a
		 * lock-free release that reads the shrunk word checks it
		 * against the new limit.
		 */
		psem_set_limit(sem, capacity);
		smp_wmb();	/* limit, then word */
		owed -= psem_take_or_mark(sem, owed);
		/* Anything left sets PSEM_WAITERS (I1). */
		if (owed)
			psem_owe(sem, owed);
		/* Gives back what failed waiters held, debt first. */
		psem_add_locked(sem, back, &wake, _RET_IP_);
	} else {
		/*
		 * Growing: the word before the new limit, judged against it.
		 * smp_wmb() orders the two for a lock-free release that reads
		 * the grown limit: its exchange, a RELEASE after that read,
		 * then finds the grown word or fails, and never lands on the
		 * credit from before the growth (from the review: with the
		 * limit first, an over-release took the growth's room, and the
		 * growth was refused; model/litmus/MP+grow+creditrelease).
		 */
		psem_add_locked_cap(sem, back + capacity - old, capacity, &wake,
				    _RET_IP_);
		smp_wmb();	/* word, then limit */
		psem_set_limit(sem, capacity);
	}
	spin_unlock_irqrestore(&sem->lock, flags);
	psem_wake_served(sem, &wake);
	return 0;
}
EXPORT_SYMBOL_PSEM(psem_resize);

/**
 * psem_close - fail every wait, now and until psem_reopen()
 * @sem: the semaphore
 *
 * Every waiting acquirer returns -ESHUTDOWN and gives back its partial
 * grant; an asynchronous waiter's callback gets -ESHUTDOWN, from this call
 * or, if another path is calling back on @sem already, from that one.
 * Until psem_reopen(), every acquire returns -ESHUTDOWN and every try
 * fails, even with permits available. Releases keep working, so that
 * permits come home; a quiesce is not failed. Never sleeps; callable
 * in any context but NMI and hard-only IRQs.
 *
 * Return: 0, -EALREADY if @sem was closed already, or -EPERM (with a
 * warning, changing nothing) from a context where the queue lock may not
 * be taken (NMI, a hard-only IRQ).
 */
int psem_close(struct psem *sem)
{
	struct psem_waiter *w, *next;
	unsigned long flags;
	DEFINE_PSEM_WAKE(wake);
	long back = 0, cur;
	int ret = 0;

	if (psem_refuse_context())
		return -EPERM;
	spin_lock_irqsave(&sem->lock, flags);
	/*
	 * Relaxed: PSEM_WAITERS and the closed state change only under the
	 * lock. A relaxed RMW sets it: "closed" publishes no data, and a task
	 * that reads it only refuses; an RMW all the same, to keep the word's
	 * chain of releases unbroken (Documentation/design.rst).
	 */
	cur = atomic_long_read(&sem->count);
	if (psem_word_closed(cur)) {
		ret = -EALREADY;
		goto unlock;
	}
	/* PSEM_BIAS once more: an add, which commutes with those in flight. */
	atomic_long_add((long)PSEM_BIAS, &sem->count);
	psem_for_each_waiter_safe(w, next, sem)
		if (w->kind != PSEM_WAIT_QUIESCE)
			back += psem_fail_waiter(sem, w, -ESHUTDOWN, &wake);
	psem_add_locked(sem, back, &wake, _RET_IP_);
unlock:
	spin_unlock_irqrestore(&sem->lock, flags);
	psem_wake_served(sem, &wake);
	return ret;
}
EXPORT_SYMBOL_PSEM(psem_close);

/**
 * psem_reopen - let acquirers in again after psem_close()
 * @sem: the semaphore
 *
 * Never sleeps; callable in any context but NMI and hard-only IRQs.
 *
 * Return: 0, -EALREADY if @sem was not closed, or -EPERM as psem_close().
 */
int psem_reopen(struct psem *sem)
{
	unsigned long flags;
	int ret = 0;
	long cur;

	if (psem_refuse_context())
		return -EPERM;
	spin_lock_irqsave(&sem->lock, flags);
	/* Relaxed, and a relaxed RMW: as in psem_close(). */
	cur = atomic_long_read(&sem->count);
	if (!psem_word_closed(cur))
		ret = -EALREADY;
	else
		atomic_long_sub((long)PSEM_BIAS, &sem->count);
	spin_unlock_irqrestore(&sem->lock, flags);
	return ret;
}
EXPORT_SYMBOL_PSEM(psem_reopen);

/**
 * psem_is_closed - whether psem_close() was called and not undone
 * @sem: the semaphore
 *
 * Return: true while closed (a snapshot).
 */
bool psem_is_closed(const struct psem *sem)
{
	/* Relaxed: a snapshot. */
	return psem_word_closed(atomic_long_read(&sem->count));
}
EXPORT_SYMBOL_PSEM(psem_is_closed);

static int psem_quiesce_common(struct psem *sem, unsigned int state,
			       long timeout, unsigned long ip)
{
	struct psem_waiter w;
	long cap;
	int ret;

	might_sleep();
	if (!psem_capped(sem) &&
	    psem_refuse_ip(ip, "quiesce of a psem without a capacity\n"))
		return -EINVAL;

	spin_lock_irq(&sem->lock);
	cap = psem_capacity(sem);
	w.needed = cap - psem_take_or_mark(sem, cap);
	/* All home now, unless a debt (which sets the bit) is owed. */
	if (!w.needed && !psem_debt_locked(sem)) {
		spin_unlock_irq(&sem->lock);
		w.n = cap;
		goto give_back;
	}
	if (timeout <= 0) {
		DEFINE_PSEM_WAKE(wake);

		/* Gives back what it took; clears the bit it may have set. */
		psem_add_locked(sem, cap - w.needed, &wake, ip);
		spin_unlock_irq(&sem->lock);
		psem_wake_served(sem, &wake);
		return -ETIME;
	}
	ret = psem_wait_queued(sem, &w, cap, PSEM_WAIT_QUIESCE, state,
			       timeout);
	if (ret)
		return ret;
give_back:
	/* w.n: the capacity when it was served, after any resize. */
	if (w.n)
		__psem_release_locked(sem, w.n, ip);
	/* Last: nothing queued before it may touch @sem once it returns. */
	psem_sync(sem);
	return 0;
}

/**
 * psem_quiesce - wait until every permit is home
 * @sem:     a psem created with a capacity
 * @timeout: the longest wait in jiffies (MAX_SCHEDULE_TIMEOUT: no limit);
 *           0 or less only checks
 *
 * Sleeps, uninterruptibly, until the balance equals the capacity and no
 * debt is owed. It takes its place in the FIFO queue as a waiter for the
 * whole capacity, so acquirers that queue after it are served after it:
 * when it is served it holds every permit, and gives them all back before
 * it returns, so such an acquirer may return before the quiesce's caller
 * runs again. psem_close() first is the device-removal pattern, and does
 * not fail it. A psem_resize() meanwhile makes it wait for the new
 * capacity; a psem_reopen() changes nothing for it. Process context.
 *
 * Once it has returned 0 after psem_close(), psem no longer touches @sem
 * on behalf of any wait that was queued on it: no waiter that was failed,
 * interrupted or timed out is still inside a psem call, and no
 * asynchronous callback is due or running. With the owner's own calls
 * stopped (calls that have not yet queued are the owner's to exclude, as
 * for any object), @sem may be freed: close, quiesce, free.
 *
 * Return: 0, -ETIME if the time ran out, or -EINVAL (with a warning) if
 * @sem has no capacity.
 */
int psem_quiesce(struct psem *sem, long timeout)
{
	return psem_quiesce_common(sem, TASK_UNINTERRUPTIBLE, timeout, _RET_IP_);
}
EXPORT_SYMBOL_PSEM(psem_quiesce);

/**
 * psem_quiesce_killable - psem_quiesce(), or give up on a fatal signal
 * @sem:     a psem created with a capacity
 * @timeout: as psem_quiesce()
 *
 * Return: 0, -ETIME, -EINTR if killed, or -EINVAL as psem_quiesce().
 */
int psem_quiesce_killable(struct psem *sem, long timeout)
{
	return psem_quiesce_common(sem, TASK_KILLABLE, timeout, _RET_IP_);
}
EXPORT_SYMBOL_PSEM(psem_quiesce_killable);
