// SPDX-License-Identifier: GPL-2.0
/*
 * psem: a counting semaphore whose release adds permits with one lock-free
 * compare-exchange while the balance is positive.
 *
 * The invariant everything below rests on:
 *
 *   A positive balance proves that no waiter is linked and no debt is owed.
 *
 * It holds because (1) a waiter is linked, or a debt recorded, only by a task
 * that holds the queue lock and has just drained the balance to zero with a
 * compare-exchange made under that lock, and (2) the locked path adds to the
 * balance only once it has paid every debt and served every linked waiter.
 * While a waiter is linked the balance stays zero: the fast path needs a
 * positive balance to add anything, try_acquire cannot take from zero, and
 * every other writer holds the queue lock.
 *
 * So a release that reads a positive balance and wins a compare-exchange on
 * it added its permits at an instant when nobody was waiting for them. If an
 * acquirer drains the balance while the release attempts its exchange, the
 * acquirer holds the lock and changed the value, so the exchange fails and
 * the release takes the locked path, which runs after the waiter is linked
 * and hands the permits to it. A balance that returns to its old value (ABA)
 * is harmless: the exchange only needs the balance to be positive at the
 * instant it succeeds.
 *
 * Memory ordering. Every write to the balance is a read-modify-write: the
 * releases are _release operations, the acquisitions _acquire ones, so an
 * acquirer that reads a balance written by any chain of releases is ordered
 * after all of them (each RMW extends the release sequence of the one it read
 * from). Permits handed to a waiter travel under the queue lock instead: the
 * waiter reads its "done" flag under the same lock, so the releaser's
 * spin_unlock() pairs with the waiter's spin_lock().
 *
 * Documentation/design.rst explains the design at length.
 */

#include <linux/export.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sched/debug.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/spinlock.h>

#include "psem.h"
#include "psem_internal.h"

#define CREATE_TRACE_POINTS
#include "psem_trace.h"

/**
 * struct psem_waiter - a task sleeping in psem_acquire*()
 * @wq_entry: links the waiter into &psem.wq.head; .private is the task
 * @needed:   permits still missing; lowered by releases under the queue lock
 * @done:     set under the queue lock once @needed reached zero and the
 *            waiter was unlinked
 */
struct psem_waiter {
	struct wait_queue_entry	wq_entry;
	long			needed;
	bool			done;
};

/*
 * Tasks whose waits a locked release completed, woken once the queue lock is
 * dropped so that the woken tasks do not spin on it. wake_q_add() is not
 * exported to modules, so hold a task reference instead.
 */
#define PSEM_WAKE_BATCH 8

struct psem_wake_list {
	unsigned int		nr;
	struct task_struct	*task[PSEM_WAKE_BATCH];
};

static void psem_wake_later(struct psem_wake_list *wl, struct task_struct *t)
{
	if (wl->nr < PSEM_WAKE_BATCH) {
		get_task_struct(t);
		wl->task[wl->nr++] = t;
		return;
	}
	/*
	 * Batch full: wake under the lock, as kernel/locking/semaphore.c
	 * did. The waiter cannot miss it: it reads @done under this lock.
	 */
	wake_up_process(t);
}

static void psem_wake_all(struct psem_wake_list *wl)
{
	unsigned int i;

	for (i = 0; i < wl->nr; i++) {
		wake_up_process(wl->task[i]);
		put_task_struct(wl->task[i]);
	}
}

/*
 * Refuses a count outside 0..PSEM_MAX_PERMITS (a negative one; n == 0 is
 * valid). Out of line and cold, so that the callers' fast paths carry only
 * the sign test: WARN_ONCE would otherwise keep them from being inlined and
 * cost them register saves.
 */
static noinline __cold int psem_bad_count(const char *fn, long n)
{
	psem_refuse("%s: count %ld out of range\n", fn, n);
	return -EINVAL;
}

void __psem_init(struct psem *sem, long permits, const char *name,
		 struct lock_class_key *key)
{
	if (unlikely(permits < 0)) {
		psem_bad_count(__func__, permits);
		permits = 0;
	}
	/* Unordered: the psem is not yet shared (see the kernel-doc). */
	atomic_long_set(&sem->balance, permits);
	__init_waitqueue_head(&sem->wq, name, key);
	sem->debt = 0;
	sem->contended = 0;
}
EXPORT_SYMBOL_NS_GPL(__psem_init, PSEM);

/**
 * psem_try_acquire - take permits without sleeping
 * @sem: the semaphore
 * @n:   permits to take, 0..PSEM_MAX_PERMITS
 *
 * Takes all @n permits or none. Never sleeps and never takes the queue lock,
 * so it may be called from any context, hard IRQ included. It never
 * overtakes a waiter: while one is linked the balance is zero.
 *
 * Return: true if the permits were taken (always for @n == 0), false if too
 * few were available or @n is out of range (which also warns once).
 */
bool psem_try_acquire(struct psem *sem, long n)
{
	if (unlikely(n < 0))
		return !psem_bad_count(__func__, n);
	return psem_take(sem, n);
}
EXPORT_SYMBOL_NS_GPL(psem_try_acquire, PSEM);

/* Pays @n towards the debt left by psem_reduce(); returns what is left. */
static long psem_pay_debt(struct psem *sem, long n)
{
	unsigned long pay = min_t(unsigned long, n, sem->debt);

	if (pay)
		WRITE_ONCE(sem->debt, sem->debt - pay);
	return n - pay;
}

/* Hands @n to the waiters, oldest first; returns what is left. */
static long psem_hand_off(struct psem *sem, long n, struct psem_wake_list *wl)
{
	struct psem_waiter *w, *tmp;

	list_for_each_entry_safe(w, tmp, &sem->wq.head, wq_entry.entry) {
		long give = min(n, w->needed);

		w->needed -= give;
		n -= give;
		if (w->needed)
			break;		/* FIFO: nobody overtakes the head */
		__remove_wait_queue(&sem->wq, &w->wq_entry);
		w->done = true;
		psem_wake_later(wl, w->wq_entry.private);
		psem_stat(PSEM_STAT_HANDOFF);
		if (!n)
			break;
	}
	return n;
}

/*
 * Adds @n to the balance once nobody is owed anything. Called with the
 * queue lock held, so no waiter can link meanwhile, but fast releases can
 * still grow a positive balance and try_acquire can shrink it.
 */
static int psem_add_balance(struct psem *sem, long n)
{
	/* Relaxed: every use below is rechecked by an RMW or the lock. */
	long cur = atomic_long_read(&sem->balance);
	bool tripped = false;
	int ret = 0;

	if (!cur) {
		/*
		 * A zero balance cannot change under the lock (see the top of
		 * this file), and n <= PSEM_MAX_PERMITS cannot overflow it.
		 * Keep a read-modify-write all the same: a plain store would
		 * end the release sequence of the release that wrote the old
		 * value. RELEASE: pairs with the ACQUIRE in psem_take() of a
		 * later acquirer, ordering this caller's critical section
		 * before it.
		 */
		atomic_long_fetch_add_release(n, &sem->balance);
		return 0;
	}

	for (;;) {
		if (n > PSEM_MAX_PERMITS - cur) {
			psem_refuse("release of %ld overflows balance %ld\n",
				    n, cur);
			ret = -EOVERFLOW;
			break;
		}
		/* RELEASE: pairs with the ACQUIRE in psem_take(), as above. */
		if (atomic_long_try_cmpxchg_release(&sem->balance, &cur, cur + n))
			break;
		/*
		 * Lost a race to a fast release (or a try_acquire). Send the
		 * other releases to the lock until this addition lands. The
		 * flag is a hint, not a synchronisation: relaxed accesses.
		 */
		if (!tripped && static_branch_likely(&psem_contention_flag_key)) {
			WRITE_ONCE(sem->contended, 1);
			tripped = true;
			psem_stat(PSEM_STAT_FLAG_TRIP);
		}
	}
	if (tripped)
		WRITE_ONCE(sem->contended, 0);
	return ret;
}

/* The locked path of a release: debt first, then waiters, then balance. */
static int psem_add_locked(struct psem *sem, long n, struct psem_wake_list *wl)
{
	lockdep_assert_held(&sem->wq.lock);

	n = psem_pay_debt(sem, n);
	if (n)
		n = psem_hand_off(sem, n, wl);
	if (n)
		return psem_add_balance(sem, n);
	return 0;
}

int psem_release_locked(struct psem *sem, long n)
{
	struct psem_wake_list wl = { .nr = 0 };
	unsigned long flags;
	int ret;

	psem_stat(PSEM_STAT_LOCKED_RELEASE);
	trace_psem_release(sem, n, false);
	spin_lock_irqsave(&sem->wq.lock, flags);
	ret = psem_add_locked(sem, n, &wl);
	spin_unlock_irqrestore(&sem->wq.lock, flags);
	psem_wake_all(&wl);
	return ret;
}

/**
 * psem_release - return permits
 * @sem: the semaphore
 * @n:   permits to return, 0..PSEM_MAX_PERMITS
 *
 * While the balance is positive (so nobody waits) this is one lock-free
 * compare-exchange. Otherwise, or when the exchange loses a race, it takes
 * the queue lock, pays any debt, hands permits to the waiters in FIFO order
 * and adds what remains to the balance. May be called from any context,
 * hard IRQ included; never sleeps.
 *
 * Return: 0; -EINVAL if @n is out of range, or -EOVERFLOW if the balance
 * would exceed PSEM_MAX_PERMITS. Both warn once and change nothing.
 */
int psem_release(struct psem *sem, long n)
{
	if (unlikely(n <= 0))
		return n ? psem_bad_count(__func__, n) : 0;
	if (psem_release_fast(sem, n))
		return 0;
	return psem_release_locked(sem, n);
}
EXPORT_SYMBOL_NS_GPL(psem_release, PSEM);

/**
 * psem_release_all_held - return permits from a holder of every permit
 * @sem: the semaphore
 * @n:   permits to return, 0..PSEM_MAX_PERMITS
 *
 * For callers that know the balance is zero because they hold all of it,
 * as a mutex or a rwlock writer does: skips the probe of the balance that
 * psem_release() makes and goes straight to the locked path. Any context.
 *
 * Return: as psem_release().
 */
int psem_release_all_held(struct psem *sem, long n)
{
	if (unlikely(n <= 0))
		return n ? psem_bad_count(__func__, n) : 0;
	return psem_release_locked(sem, n);
}
EXPORT_SYMBOL_NS_GPL(psem_release_all_held, PSEM);

/*
 * Drains up to @n permits under the queue lock. Returns how many were taken;
 * fewer than @n only if the balance is now zero, which lets the caller link
 * a waiter or record a debt while keeping the invariant.
 */
static long psem_take_locked(struct psem *sem, long n)
{
	/* Relaxed: the cmpxchg below rechecks it. */
	long cur = atomic_long_read(&sem->balance);

	lockdep_assert_held(&sem->wq.lock);
	/* ACQUIRE: as in psem_take(); zero is stable under the lock. */
	while (cur && !atomic_long_try_cmpxchg_acquire(&sem->balance, &cur,
						       cur - min(cur, n)))
		;
	return min(cur, n);
}

/*
 * Gives up a wait: unlinks the waiter and returns what it was assigned to
 * the next waiters through the locked path, so nothing is lost.
 */
static void psem_cancel(struct psem *sem, struct psem_waiter *w, long n,
			struct psem_wake_list *wl)
{
	__remove_wait_queue(&sem->wq, &w->wq_entry);
	psem_stat(PSEM_STAT_CANCEL);
	/* Cannot overflow: the balance was zero while we were linked. */
	psem_add_locked(sem, n - w->needed, wl);
}

int __sched psem_acquire_slow(struct psem *sem, long n, unsigned int state,
			      long timeout)
{
	struct psem_wake_list wl = { .nr = 0 };
	struct psem_waiter w;
	int ret = 0;

	spin_lock_irq(&sem->wq.lock);
	w.needed = n - psem_take_locked(sem, n);
	if (!w.needed)
		goto unlock;

	/* The balance is zero: linking keeps the invariant. */
	init_waitqueue_entry(&w.wq_entry, current);
	w.done = false;
	__add_wait_queue_entry_tail(&sem->wq, &w.wq_entry);
	psem_stat(PSEM_STAT_SLEEP);
	trace_psem_wait_begin(sem, n, w.needed);

	for (;;) {
		if (signal_pending_state(state, current)) {
			ret = -EINTR;
			break;
		}
		if (unlikely(timeout <= 0)) {
			ret = -ETIME;
			break;
		}
		__set_current_state(state);
		spin_unlock_irq(&sem->wq.lock);
		timeout = schedule_timeout(timeout);
		spin_lock_irq(&sem->wq.lock);
		/* Served counts even if a signal or the timeout came too. */
		if (w.done)
			goto served;
	}
	psem_cancel(sem, &w, n, &wl);
served:
	trace_psem_wait_end(sem, n, ret);
unlock:
	spin_unlock_irq(&sem->wq.lock);
	psem_wake_all(&wl);
	return ret;
}

static __always_inline int psem_acquire_common(struct psem *sem, long n,
					       unsigned int state, long timeout,
					       const char *fn)
{
	might_sleep();
	if (unlikely(n < 0))
		return psem_bad_count(fn, n);
	if (psem_take(sem, n))
		return 0;
	if (timeout <= 0)
		return -ETIME;	/* a zero timeout only tries */
	return psem_acquire_slow(sem, n, state, timeout);
}

/**
 * psem_acquire - take permits, sleeping uninterruptibly until all are assigned
 * @sem: the semaphore
 * @n:   permits to take, 0..PSEM_MAX_PERMITS
 *
 * Waiters are served in FIFO order: a large request at the head is not
 * overtaken by later small ones. A waiter takes what is available at once,
 * links itself for the remainder, and is woken once releases assigned it.
 * Process context only.
 *
 * Return: 0, or -EINVAL (with a warning) if @n is out of range.
 */
int __sched psem_acquire(struct psem *sem, long n)
{
	return psem_acquire_common(sem, n, TASK_UNINTERRUPTIBLE,
				   MAX_SCHEDULE_TIMEOUT, __func__);
}
EXPORT_SYMBOL_NS_GPL(psem_acquire, PSEM);

/**
 * psem_acquire_interruptible - take permits, sleeping interruptibly
 * @sem: the semaphore
 * @n:   permits to take, 0..PSEM_MAX_PERMITS
 *
 * As psem_acquire(), but a signal ends the wait. The permits assigned to
 * the waiter so far then go back to the next waiters or the balance. A
 * waiter fully served by the time it sees the signal succeeds.
 * Process context only.
 *
 * Return: 0, -EINTR if interrupted (holding nothing), or -EINVAL.
 */
int __sched psem_acquire_interruptible(struct psem *sem, long n)
{
	return psem_acquire_common(sem, n, TASK_INTERRUPTIBLE,
				   MAX_SCHEDULE_TIMEOUT, __func__);
}
EXPORT_SYMBOL_NS_GPL(psem_acquire_interruptible, PSEM);

/**
 * psem_acquire_killable - take permits, sleeping until served or killed
 * @sem: the semaphore
 * @n:   permits to take, 0..PSEM_MAX_PERMITS
 *
 * As psem_acquire_interruptible(), but only a fatal signal ends the wait.
 * Process context only.
 *
 * Return: 0, -EINTR if killed (holding nothing), or -EINVAL.
 */
int __sched psem_acquire_killable(struct psem *sem, long n)
{
	return psem_acquire_common(sem, n, TASK_KILLABLE,
				   MAX_SCHEDULE_TIMEOUT, __func__);
}
EXPORT_SYMBOL_NS_GPL(psem_acquire_killable, PSEM);

/**
 * psem_acquire_timeout - take permits, sleeping at most @timeout jiffies
 * @sem:     the semaphore
 * @n:       permits to take, 0..PSEM_MAX_PERMITS
 * @timeout: the longest wait in jiffies; 0 or less only tries
 *
 * As psem_acquire(), but gives up after @timeout jiffies; the permits
 * assigned so far then go back to the next waiters or the balance.
 * Process context only.
 *
 * Return: 0, -ETIME if the time ran out (holding nothing), or -EINVAL.
 */
int __sched psem_acquire_timeout(struct psem *sem, long n, long timeout)
{
	return psem_acquire_common(sem, n, TASK_UNINTERRUPTIBLE, timeout,
				   __func__);
}
EXPORT_SYMBOL_NS_GPL(psem_acquire_timeout, PSEM);

/**
 * psem_available - the permits that could be taken without waiting now
 * @sem: the semaphore
 *
 * A snapshot: it may be stale by the time the caller looks at it.
 *
 * Return: the balance, 0..PSEM_MAX_PERMITS.
 */
long psem_available(const struct psem *sem)
{
	/* Relaxed: a snapshot that orders nothing. */
	return atomic_long_read(&sem->balance);
}
EXPORT_SYMBOL_NS_GPL(psem_available, PSEM);

/**
 * psem_drain - take whatever permits are available, up to a limit
 * @sem:   the semaphore
 * @up_to: the most permits to take, 0..PSEM_MAX_PERMITS
 *
 * Lock-free and never sleeps; any context. Like psem_try_acquire() it
 * never takes permits from a waiter.
 *
 * Return: the number of permits taken (the caller now holds them), or 0
 * if @up_to is out of range (with a warning).
 */
long psem_drain(struct psem *sem, long up_to)
{
	long cur;

	if (unlikely(up_to < 0)) {
		psem_bad_count(__func__, up_to);
		return 0;
	}
	cur = atomic_long_read(&sem->balance);	/* relaxed: rechecked */
	/* ACQUIRE: as in psem_take(). */
	while (cur && up_to &&
	       !atomic_long_try_cmpxchg_acquire(&sem->balance, &cur,
						cur - min(cur, up_to)))
		;
	return min(cur, up_to);
}
EXPORT_SYMBOL_NS_GPL(psem_drain, PSEM);

/**
 * psem_reduce - lower the number of permits for good
 * @sem: the semaphore
 * @n:   permits to remove, 0..PSEM_MAX_PERMITS
 *
 * Removes exactly @n permits without sleeping: what the balance holds is
 * taken now; what is missing becomes a debt, queued ahead of every waiter,
 * that later releases pay before anybody is served. Any context.
 *
 * Return: 0, -EINVAL if @n is out of range, or -EOVERFLOW if the debt
 * would exceed PSEM_MAX_PERMITS. Both warn once and change nothing.
 */
int psem_reduce(struct psem *sem, long n)
{
	unsigned long flags;
	int ret = 0;

	if (unlikely(n <= 0))
		return n ? psem_bad_count(__func__, n) : 0;
	spin_lock_irqsave(&sem->wq.lock, flags);
	/* The debt a reduce may add is bounded by what it asks for. */
	if (sem->debt > PSEM_MAX_PERMITS - n &&
	    psem_refuse("reduce by %ld overflows debt %lu\n", n, sem->debt)) {
		ret = -EOVERFLOW;
		goto unlock;
	}
	n -= psem_take_locked(sem, n);
	/* Anything left means the balance is zero: the invariant holds. */
	if (n)
		WRITE_ONCE(sem->debt, sem->debt + n);
unlock:
	spin_unlock_irqrestore(&sem->wq.lock, flags);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(psem_reduce, PSEM);

/**
 * psem_debt - the permits psem_reduce() still waits to remove
 * @sem: the semaphore
 *
 * A snapshot, like psem_available().
 *
 * Return: the outstanding debt.
 */
unsigned long psem_debt(struct psem *sem)
{
	return READ_ONCE(sem->debt);
}
EXPORT_SYMBOL_NS_GPL(psem_debt, PSEM);
