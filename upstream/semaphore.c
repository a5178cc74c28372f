// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (c) 2008 Intel Corporation
 * Author: Matthew Wilcox <willy@linux.intel.com>
 *
 * This file implements counting semaphores.
 * A counting semaphore may be acquired 'n' times before sleeping.
 * See mutex.c for single-acquisition sleeping locks which enforce
 * rules which allow code to be debugged more easily.
 */

/*
 * Some notes on the implementation:
 *
 * ->state holds the count in its low 32 bits (the tasks that may still
 * acquire the semaphore) and SEM_WAITERS in its sign bit, set while a task
 * waits on ->first_waiter's list. Two rules, kept by setting and clearing
 * SEM_WAITERS only under ->lock, with the list:
 *
 *  - SEM_WAITERS is set if and only if ->first_waiter is not NULL;
 *  - while SEM_WAITERS is set the count is zero: up() hands its permit to
 *    the first waiter instead of counting it.
 *
 * So down_trylock(), and down*() while the count is not zero, take a
 * permit with one compare-exchange on ->state, and up() adds one with one
 * compare-exchange while SEM_WAITERS is clear; neither takes ->lock. A
 * waiter sets SEM_WAITERS with a compare-exchange on the count of zero
 * that it saw: an up() that adds a permit first makes it fail, and the
 * waiter takes that permit instead of sleeping; an up() that comes after
 * sees SEM_WAITERS and takes ->lock, where the first waiter is. Everything
 * else runs under ->lock, with interrupts off, since up() may be called
 * from interrupt context. A count that wraps (an up() too many on a count
 * of UINT_MAX, which wrapped to zero before too) carries into bits 32 to
 * 62, which nothing reads.
 *
 * down() is still expected to work in interrupt context where it cannot
 * sleep, when the caller knows that it will succeed: it does, without the
 * lock.
 */

#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/export.h>
#include <linux/sched.h>
#include <linux/sched/debug.h>
#include <linux/sched/wake_q.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/ftrace.h>
#include <trace/events/lock.h>
#include <linux/hung_task.h>

/* Set in ->state while a task waits; the count is zero then. */
#define SEM_WAITERS	S64_MIN

/* ->count, which some code reads, is ->state's low half. */
static_assert(offsetof(struct semaphore, count) ==
	      offsetof(struct semaphore, state) +
	      (IS_ENABLED(CONFIG_CPU_BIG_ENDIAN) ? 4 : 0));

static noinline void __down(struct semaphore *sem);
static noinline int __down_interruptible(struct semaphore *sem);
static noinline int __down_killable(struct semaphore *sem);
static noinline int __down_timeout(struct semaphore *sem, long timeout);
static noinline void __up(struct semaphore *sem);

#ifdef CONFIG_DETECT_HUNG_TASK_BLOCKER
static inline void hung_task_sem_set_holder(struct semaphore *sem)
{
	WRITE_ONCE((sem)->last_holder, (unsigned long)current);
}

static inline void hung_task_sem_clear_if_holder(struct semaphore *sem)
{
	if (READ_ONCE((sem)->last_holder) == (unsigned long)current)
		WRITE_ONCE((sem)->last_holder, 0UL);
}

unsigned long sem_last_holder(struct semaphore *sem)
{
	return READ_ONCE(sem->last_holder);
}
#else
static inline void hung_task_sem_set_holder(struct semaphore *sem)
{
}
static inline void hung_task_sem_clear_if_holder(struct semaphore *sem)
{
}
unsigned long sem_last_holder(struct semaphore *sem)
{
	return 0UL;
}
#endif

/*
 * Take a permit that the count shows, without the lock. A count of zero
 * fails: then either nobody holds a spare permit or tasks wait for one,
 * and a permit taken while they wait would overtake them. Always inlined:
 * it is the whole of down_trylock() and the fast path of every down*().
 */
static __always_inline bool __sem_try_acquire(struct semaphore *sem)
{
	/* Unordered: only the compare-exchange that uses it orders. */
	s64 old = atomic64_read(&sem->state);

	do {
		if (!(u32)old)
			return false;
		/*
		 * ACQUIRE: pairs with the RELEASE of the up() whose permit
		 * this is (its compare-exchange or, under the lock, its
		 * fetch-add), so that what the releaser did before up() is
		 * seen by the new holder.
		 */
	} while (!atomic64_try_cmpxchg_acquire(&sem->state, &old, old - 1));
	hung_task_sem_set_holder(sem);
	return true;
}

/**
 * down - acquire the semaphore
 * @sem: the semaphore to be acquired
 *
 * Acquires the semaphore.  If no more tasks are allowed to acquire the
 * semaphore, calling this function will put the task to sleep until the
 * semaphore is released.
 *
 * Use of this function is deprecated, please use down_interruptible() or
 * down_killable() instead.
 */
void __sched down(struct semaphore *sem)
{
	might_sleep();
	if (likely(__sem_try_acquire(sem)))
		return;
	__down(sem);
}
EXPORT_SYMBOL(down);

/**
 * down_interruptible - acquire the semaphore unless interrupted
 * @sem: the semaphore to be acquired
 *
 * Attempts to acquire the semaphore.  If no more tasks are allowed to
 * acquire the semaphore, calling this function will put the task to sleep.
 * If the sleep is interrupted by a signal, this function will return -EINTR.
 * If the semaphore is successfully acquired, this function returns 0.
 *
 * Return: 0 if acquired, -EINTR if interrupted.
 */
int __sched down_interruptible(struct semaphore *sem)
{
	might_sleep();
	if (likely(__sem_try_acquire(sem)))
		return 0;
	return __down_interruptible(sem);
}
EXPORT_SYMBOL(down_interruptible);

/**
 * down_killable - acquire the semaphore unless killed
 * @sem: the semaphore to be acquired
 *
 * Attempts to acquire the semaphore.  If no more tasks are allowed to
 * acquire the semaphore, calling this function will put the task to sleep.
 * If the sleep is interrupted by a fatal signal, this function will return
 * -EINTR.  If the semaphore is successfully acquired, this function returns
 * 0.
 *
 * Return: 0 if acquired, -EINTR if killed.
 */
int __sched down_killable(struct semaphore *sem)
{
	might_sleep();
	if (likely(__sem_try_acquire(sem)))
		return 0;
	return __down_killable(sem);
}
EXPORT_SYMBOL(down_killable);

/**
 * down_trylock - try to acquire the semaphore, without waiting
 * @sem: the semaphore to be acquired
 *
 * Try to acquire the semaphore atomically.  Returns 0 if the semaphore has
 * been acquired successfully or 1 if it cannot be acquired.
 *
 * NOTE: This return value is inverted from both spin_trylock and
 * mutex_trylock!  Be careful about this when converting code.
 *
 * Unlike mutex_trylock, this function can be used from interrupt context,
 * and the semaphore can be released by any task or interrupt.
 *
 * Return: 0 if acquired, 1 if not.
 */
int __sched down_trylock(struct semaphore *sem)
{
	return !__sem_try_acquire(sem);
}
EXPORT_SYMBOL(down_trylock);

/**
 * down_timeout - acquire the semaphore within a specified time
 * @sem: the semaphore to be acquired
 * @timeout: how long to wait before failing
 *
 * Attempts to acquire the semaphore.  If no more tasks are allowed to
 * acquire the semaphore, calling this function will put the task to sleep.
 * If the semaphore is not released within the specified number of jiffies,
 * this function returns -ETIME.  It returns 0 if the semaphore was acquired.
 *
 * Return: 0 if acquired, -ETIME if the time ran out.
 */
int __sched down_timeout(struct semaphore *sem, long timeout)
{
	might_sleep();
	if (likely(__sem_try_acquire(sem)))
		return 0;
	return __down_timeout(sem, timeout);
}
EXPORT_SYMBOL(down_timeout);

/**
 * up - release the semaphore
 * @sem: the semaphore to release
 *
 * Release the semaphore.  Unlike mutexes, up() may be called from any
 * context and even by tasks which have never called down().
 */
void __sched up(struct semaphore *sem)
{
	/* Unordered: only the compare-exchange that uses it orders. */
	s64 old = atomic64_read(&sem->state);

	/*
	 * Outside the lock, with two permits or more, a new holder's
	 * setting may fall between its test and its clearing and be
	 * lost; the hung-task reporter reads it only for a task that
	 * blocks, which it does after a taker has set it again.
	 */
	hung_task_sem_clear_if_holder(sem);
	/*
	 * RELEASE: pairs with the ACQUIRE of the compare-exchange that takes
	 * this permit. It fails, leaving the permit to __up(), if a waiter
	 * set SEM_WAITERS since the read.
	 */
	if (likely(old >= 0) &&
	    atomic64_try_cmpxchg_release(&sem->state, &old, old + 1))
		return;
	__up(sem);
}
EXPORT_SYMBOL(up);

/* Functions for the contended case */

struct semaphore_waiter {
	struct list_head list;
	struct task_struct *task;
	bool up;
};

/* Under ->lock: the last waiter's leaving clears SEM_WAITERS. */
static inline
void sem_del_waiter(struct semaphore *sem, struct semaphore_waiter *waiter)
{
	if (list_empty(&waiter->list)) {
		sem->first_waiter = NULL;
		/*
		 * Relaxed: it publishes nothing. The count is still zero (a
		 * handed-over permit never entered it); from here, up() adds
		 * its permits to it again.
		 */
		atomic64_andnot(SEM_WAITERS, &sem->state);
		return;
	}

	if (sem->first_waiter == waiter) {
		sem->first_waiter = list_first_entry(&waiter->list,
						     struct semaphore_waiter, list);
	}
	list_del(&waiter->list);
}

/*
 * Under ->lock: take a permit that the count shows, or, on a count of
 * zero, queue @waiter, setting SEM_WAITERS for the first one. Returns true
 * if it took a permit. A lock-free up() between the read and the
 * compare-exchange makes it fail, and the next try sees the permit.
 */
static inline bool sem_acquire_or_queue(struct semaphore *sem,
					struct semaphore_waiter *waiter)
{
	/* Unordered: only the compare-exchanges that use it order. */
	s64 old = atomic64_read(&sem->state);

	for (;;) {
		if ((u32)old) {
			/* ACQUIRE: as in __sem_try_acquire(). */
			if (atomic64_try_cmpxchg_acquire(&sem->state, &old,
							 old - 1))
				return true;
			continue;
		}
		/*
		 * Relaxed: SEM_WAITERS only sends up() to ->lock, which
		 * orders the rest.
		 */
		if (old < 0 ||
		    atomic64_try_cmpxchg_relaxed(&sem->state, &old,
						 old | SEM_WAITERS))
			break;
	}

	if (sem->first_waiter) {
		list_add_tail(&waiter->list, &sem->first_waiter->list);
	} else {
		INIT_LIST_HEAD(&waiter->list);
		sem->first_waiter = waiter;
	}
	waiter->task = current;
	waiter->up = false;
	return false;
}

/*
 * Because this function is inlined, the 'state' parameter will be
 * constant, and thus optimised away by the compiler.  Likewise the
 * 'timeout' parameter for the cases without timeouts.
 */
static inline int __sched ___down_common(struct semaphore *sem,
					 struct semaphore_waiter *waiter,
					 long state, long timeout)
{
	for (;;) {
		if (signal_pending_state(state, current))
			goto interrupted;
		if (unlikely(timeout <= 0))
			goto timed_out;
		__set_current_state(state);
		raw_spin_unlock_irq(&sem->lock);
		timeout = schedule_timeout(timeout);
		raw_spin_lock_irq(&sem->lock);
		if (waiter->up)
			return 0;
	}

 timed_out:
	sem_del_waiter(sem, waiter);
	return -ETIME;

 interrupted:
	sem_del_waiter(sem, waiter);
	return -EINTR;
}

static inline int __sched __down_common(struct semaphore *sem, long state,
					long timeout)
{
	struct semaphore_waiter waiter;
	unsigned long flags;
	int ret = 0;

	raw_spin_lock_irqsave(&sem->lock, flags);
	if (!sem_acquire_or_queue(sem, &waiter)) {
		hung_task_set_blocker(sem, BLOCKER_TYPE_SEM);

		trace_contention_begin(sem, 0);
		ret = ___down_common(sem, &waiter, state, timeout);
		trace_contention_end(sem, ret);

		hung_task_clear_blocker();
	}
	if (!ret)
		hung_task_sem_set_holder(sem);
	raw_spin_unlock_irqrestore(&sem->lock, flags);

	return ret;
}

static noinline void __sched __down(struct semaphore *sem)
{
	__down_common(sem, TASK_UNINTERRUPTIBLE, MAX_SCHEDULE_TIMEOUT);
}

static noinline int __sched __down_interruptible(struct semaphore *sem)
{
	return __down_common(sem, TASK_INTERRUPTIBLE, MAX_SCHEDULE_TIMEOUT);
}

static noinline int __sched __down_killable(struct semaphore *sem)
{
	return __down_common(sem, TASK_KILLABLE, MAX_SCHEDULE_TIMEOUT);
}

static noinline int __sched __down_timeout(struct semaphore *sem, long timeout)
{
	return __down_common(sem, TASK_UNINTERRUPTIBLE, timeout);
}

/*
 * up() when SEM_WAITERS was set, or its compare-exchange lost a race:
 * under ->lock, the permit goes to the first waiter, or to the count if
 * none waits.
 */
static noinline void __sched __up(struct semaphore *sem)
{
	struct semaphore_waiter *waiter;
	unsigned long flags;
	DEFINE_WAKE_Q(wake_q);

	raw_spin_lock_irqsave(&sem->lock, flags);
	waiter = sem->first_waiter;
	if (likely(!waiter)) {
		/*
		 * SEM_WAITERS is clear and only a holder of ->lock sets it:
		 * the add cannot land on a word with waiters. RELEASE: as
		 * in up(); a lock-free taker does not take ->lock.
		 */
		atomic64_fetch_inc_release(&sem->state);
	} else {
		/* ->lock orders the hand-over: the waiter reads ->up under it. */
		sem_del_waiter(sem, waiter);
		waiter->up = true;
		wake_q_add(&wake_q, waiter->task);
	}

	if (trace_contended_release_enabled() && !wake_q_empty(&wake_q))
		trace_call__contended_release(sem);

	raw_spin_unlock_irqrestore(&sem->lock, flags);
	if (!wake_q_empty(&wake_q))
		wake_up_q(&wake_q);
}
