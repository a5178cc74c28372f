// SPDX-License-Identifier: GPL-2.0
/*
 * psem's waiter queue: linking a waiter, handing permits to the waiters in
 * FIFO order, waking those served once the queue lock is dropped, and
 * ending a wait early (a signal, a timeout, psem_close(), psem_resize())
 * without losing what the waiter was partly assigned.
 *
 * Everything here that touches the queue runs under the queue lock, and
 * the waiters bit (PSEM_WAITERS) is set for as long as the queue is not
 * empty or a debt is owed: I1 and I2 in psem_core.c and in
 * Documentation/design.rst.
 */

#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/debug.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/spinlock.h>

#include "psem_internal.h"

/*
 * rcu_read_lock() and rcu_read_unlock() for an asynchronous completion,
 * less sparse's context annotation: the section opens in psem_dequeue(),
 * under the queue lock, and closes in psem_wake_served(), after the
 * callback, and only for an asynchronous waiter, which sparse cannot
 * follow. Lockdep still tracks it (rcu_lock_map). Paths without an
 * asynchronous waiter pay nothing.
 */
static void psem_async_rcu_enter(void)
{
	__rcu_read_lock();
	rcu_lock_acquire(&rcu_lock_map);
}

static void psem_async_rcu_exit(void)
{
	rcu_lock_release(&rcu_lock_map);
	__rcu_read_unlock();
}

/*
 * Wakes the waiters that a locked path served and moved to @wake, once the
 * queue lock is dropped, so that the woken tasks do not spin on it and any
 * number can be woken without holding it. wake_q_add() is not exported to
 * modules, so the list runs through the waiters themselves, and a task
 * reference keeps each task alive past the store that lets it return.
 * An asynchronous waiter's callback is called instead, and the RCU
 * read-side section psem_dequeue() opened for it closed after it returns.
 */
void psem_wake_served(struct list_head *wake)
{
	struct psem_waiter *w, *next;

	/* The _safe iterator reads @next before @w may go away. */
	list_for_each_entry_safe(w, next, wake, wq_entry.entry) {
		struct task_struct *t = w->wq_entry.private;

		if (w->kind == PSEM_WAIT_ASYNC) {
			struct psem_async *aw = container_of(w, struct psem_async, w);

			/*
			 * The callback owns @aw from the call on. Our writes
			 * to @aw happened under the queue lock, before this,
			 * in program order: nothing to publish.
			 */
			aw->fn(aw, w->result);
			psem_async_rcu_exit();
			continue;
		}

		get_task_struct(t);
		/*
		 * RELEASE: orders the grant, and every critical section
		 * released into it (the queue lock orders earlier partial
		 * grants before this one), before the waiter's return;
		 * pairs with the smp_load_acquire() in psem_wait() and
		 * psem_wait_done(). After it @w may be gone.
		 */
		smp_store_release(&w->done, true);
		wake_up_process(t);
		put_task_struct(t);
	}
}

/*
 * Takes @w off the queue, onto @wake, to end its wait with @result. For an
 * asynchronous waiter it opens an RCU read-side section that ends after
 * its callback returns: psem_cancel_async_sync(), finding the waiter gone
 * from the queue (under the lock, so after this), waits for the callback
 * with synchronize_rcu().
 */
static void psem_dequeue(struct psem_waiter *w, int result,
			 struct list_head *wake)
{
	if (w->kind == PSEM_WAIT_ASYNC)
		psem_async_rcu_enter();
	w->result = result;
	w->served = true;
	list_move_tail(&w->wq_entry.entry, wake);
}

/* Pays @n towards the debt; returns what is left. */
static long psem_pay_debt(struct psem *sem, long n)
{
	unsigned long pay = min_t(unsigned long, n, sem->debt);

	if (pay)	/* under the lock; WRITE_ONCE for psem_debt()'s snapshot */
		WRITE_ONCE(sem->debt, sem->debt - pay);
	return n - pay;
}

/*
 * Hands @n to the waiters, oldest first, moving each one served to @wake;
 * returns what is left. A head that needs nothing more (a quiesce whose
 * target a resize lowered) is served even when @n is zero.
 */
static long psem_hand_off(struct psem *sem, long n, struct list_head *wake)
{
	struct psem_waiter *w, *next;

	list_for_each_entry_safe(w, next, &sem->wq.head, wq_entry.entry) {
		if (w->needed > n) {
			w->needed -= n;
			return 0;	/* FIFO: nobody overtakes the head */
		}
		n -= w->needed;
		w->needed = 0;
		psem_dequeue(w, 0, wake);
		psem_stat(PSEM_STAT_HANDOFF);
	}
	return n;
}

/*
 * The locked path of a release, and of a wait that ends early and gives
 * back its partial grant: debt first, then waiters, then the balance. @n
 * may be zero (a cancel that was assigned nothing), to clear PSEM_WAITERS
 * when the queue has emptied.
 */
int psem_add_locked(struct psem *sem, long n, struct list_head *wake,
		    unsigned long ip)
{
	/* Relaxed: see below for why each value is stable or rechecked. */
	long cur = atomic_long_read(&sem->count);

	lockdep_assert_held(&sem->wq.lock);
	/* I1: nobody waits or owes; skip the walk. */
	if (!(cur & PSEM_WAITERS))
		return n ? psem_add_balance(sem, cur, n, ip) : 0;

	/*
	 * I2: the balance is zero, and only the lock holder writes the word.
	 * Refuse a release that could not fit in the capacity even after
	 * paying the debt: no holder can have taken that many.
	 */
	if (n - min_t(unsigned long, n, sem->debt) > psem_capacity(sem)) {
		psem_refuse_ip(ip, "release of %ld exceeds capacity %ld\n",
			       n, psem_capacity(sem));
		return -EOVERFLOW;
	}
	n = psem_pay_debt(sem, n);
	if (sem->debt)
		return 0;	/* and @n is zero: it ran out first */
	n = psem_hand_off(sem, n, wake);
	if (!list_empty(&sem->wq.head))
		return 0;	/* likewise */
	/*
	 * The last waiter is served or gone and no debt is left: clear the
	 * bit and add the rest in one RMW, so that the word is never seen
	 * without the bit before the queue is empty (I1). RELEASE: pairs with
	 * the ACQUIRE of a later taker, ordering this caller's critical
	 * section before it. The rest is at most the capacity: no overflow.
	 */
	atomic_long_add_return_release(n * PSEM_ONE - PSEM_WAITERS, &sem->count);
	return 0;
}

/*
 * Ends @w's wait with @result (-ESHUTDOWN, -E2BIG) for psem_close() or
 * psem_resize(): moves it to @wake and returns what it was assigned, for
 * the caller to give back through psem_add_locked() once it has dealt with
 * every waiter.
 */
long psem_fail_waiter(struct psem *sem, struct psem_waiter *w, int result,
		      struct list_head *wake)
{
	long assigned = w->n - w->needed;

	lockdep_assert_held(&sem->wq.lock);
	w->needed = 0;
	psem_dequeue(w, result, wake);
	psem_stat(PSEM_STAT_CANCEL);
	return assigned;
}

/*
 * A waiter that left the queue, but whose ->done is not published yet,
 * must not return: the task that dequeued it still reads its struct. The
 * wait is short: that task is between its unlock and its store.
 */
static void psem_wait_done(struct psem_waiter *w)
{
	for (;;) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		/* ACQUIRE: pairs with the RELEASE in psem_wake_served(). */
		if (smp_load_acquire(&w->done))
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
}

/*
 * Gives up a wait, if it is still a wait: unlinks the waiter and returns
 * what it was assigned to the next waiters through the locked path, so
 * nothing is lost. Returns false if it had already left the queue. Any
 * context that may take the queue lock.
 */
bool psem_cancel(struct psem *sem, struct psem_waiter *w)
{
	unsigned long flags;
	LIST_HEAD(wake);
	bool linked;

	spin_lock_irqsave(&sem->wq.lock, flags);
	linked = !w->served;
	if (linked) {
		__remove_wait_queue(&sem->wq, &w->wq_entry);
		psem_stat(PSEM_STAT_CANCEL);
		/* At most the capacity: the balance was zero meanwhile. */
		psem_add_locked(sem, w->n - w->needed, &wake, _RET_IP_);
	}
	spin_unlock_irqrestore(&sem->wq.lock, flags);
	psem_wake_served(&wake);
	return linked;
}

/* Sleeps until served, or until a signal or the timeout cancels the wait. */
static int psem_wait(struct psem *sem, struct psem_waiter *w,
		     unsigned int state, long timeout)
{
	int ret;

	for (;;) {
		set_current_state(state);
		/* ACQUIRE: pairs with the RELEASE in psem_wake_served(). */
		if (smp_load_acquire(&w->done)) {
			__set_current_state(TASK_RUNNING);
			return w->result;
		}
		if (signal_pending_state(state, current)) {
			ret = -EINTR;
			break;
		}
		if (unlikely(timeout <= 0)) {
			ret = -ETIME;
			break;
		}
		timeout = schedule_timeout(timeout);
	}
	__set_current_state(TASK_RUNNING);
	if (psem_cancel(sem, w))
		return ret;
	/* It left the queue before it could cancel: that outcome stands. */
	psem_wait_done(w);
	return w->result;
}

/*
 * Called with the queue lock held (irqs off) and PSEM_WAITERS set by
 * psem_take_or_mark(), which assigned @w the permits it could: links @w
 * for the rest, drops the lock and waits. Returns 0 once all @n permits
 * are assigned, or the error that ended the wait, having given back what
 * it was assigned.
 */
/*
 * Links @w, which psem_take_or_mark() assigned all but @w->needed of @n,
 * at the tail of the queue. Called with the queue lock held and
 * PSEM_WAITERS set, so linking keeps I1.
 */
void psem_link(struct psem *sem, struct psem_waiter *w, long n,
	       enum psem_wait_kind kind, struct task_struct *task)
{
	lockdep_assert_held(&sem->wq.lock);
	init_waitqueue_entry(&w->wq_entry, task);
	w->n = n;
	w->since = jiffies;
	w->kind = kind;
	w->result = 0;
	w->served = false;
	w->done = false;
	__add_wait_queue_entry_tail(&sem->wq, &w->wq_entry);
	psem_stat(PSEM_STAT_SLEEP);
	trace_psem_wait_begin(sem, n, w->needed);
}

int psem_wait_queued(struct psem *sem, struct psem_waiter *w, long n,
		     enum psem_wait_kind kind, unsigned int state, long timeout)
	__releases(&sem->wq.lock)
{
	int ret;

	psem_link(sem, w, n, kind, current);
	spin_unlock_irq(&sem->wq.lock);

	ret = psem_wait(sem, w, state, timeout);
	trace_psem_wait_end(sem, n, ret);
	return ret;
}

/*
 * Under the queue lock: the refusals that no release can change. The
 * closed state and the capacity change only under the lock.
 */
int psem_refuse_wait(struct psem *sem, long n)
{
	if (atomic_long_read(&sem->count) < 0)	/* relaxed: stable here */
		return -ESHUTDOWN;
	return n > psem_capacity(sem) ? -E2BIG : 0;
}

int __sched psem_acquire_slow(struct psem *sem, long n, unsigned int state,
			      long timeout)
{
	struct psem_waiter w;
	int ret;

	/* Callers with a lock-free take call might_sleep() after it. */
	might_sleep();
	spin_lock_irq(&sem->wq.lock);
	ret = psem_refuse_wait(sem, n);
	if (ret) {
		spin_unlock_irq(&sem->wq.lock);
		return ret;
	}
	w.needed = n - psem_take_or_mark(sem, n);
	if (!w.needed) {
		spin_unlock_irq(&sem->wq.lock);
		return 0;
	}
	return psem_wait_queued(sem, &w, n, PSEM_WAIT_ACQUIRE, state, timeout);
}
