// SPDX-License-Identifier: GPL-2.0
/*
 * psem_mutex: a sleeping mutex on a psem of one permit.
 *
 * The holder owns the only permit, so the word is zero whenever the mutex
 * is locked and nobody waits. With nobody waiting, lock and unlock are one
 * compare-exchange each, the semaphore's inline fast paths called directly
 * (psem_take_all_fast(): one permit to none; psem_release_all_fast(): none
 * to one), as mutex_lock()/mutex_unlock() are with MUTEX_FLAG_WAITERS
 * clear. Otherwise the semaphore's slow paths queue and hand off, FIFO.
 * Unlike struct mutex there is no optimistic spinning and no handoff to a
 * spinner: a contended lock always sleeps.
 *
 * With CONFIG_DEBUG_MUTEXES the owner is recorded, and an unlock by any
 * other task, or of an unlocked mutex, is refused with a warning and
 * changes nothing: releasing the permit would let two tasks in. The warning
 * never dereferences the recorded owner, which may have exited.
 *
 * Every lock and unlock is made by a task: trylock refuses interrupt
 * context, as mutex_trylock() must not be called there.
 */

#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/pid.h>
#include <linux/sched.h>

#include "psem_queue.h"
#include "psem_mutex.h"

#ifdef CONFIG_DEBUG_LOCK_ALLOC
#define mx_dep(lock) (&(lock)->dep_map)
#else
#define mx_dep(lock) ((void)(lock), (struct lockdep_map *)NULL)
#endif

static void psem_mutex_set_owner(struct psem_mutex *lock,
				 struct task_struct *owner)
{
#ifdef CONFIG_DEBUG_MUTEXES
	/* Only the holder writes it; others read it only to warn. */
	WRITE_ONCE(lock->owner, owner);
#endif
}

/*
 * Whether current may unlock: always, unless the owner is tracked. The
 * owner is only compared, never dereferenced: a task that exited while
 * holding the mutex leaves a stale pointer behind, and reading its name
 * would be a use-after-free. So the warning names the caller, which is
 * alive, and the owner only by its (hashed) address, as the kernel's own
 * DEBUG_MUTEXES check does.
 */
static __always_inline bool psem_mutex_owned(struct psem_mutex *lock,
					     unsigned long ip)
{
#ifdef CONFIG_DEBUG_MUTEXES
	/* Pairs with nothing: compared, never dereferenced (see above). */
	struct task_struct *owner = READ_ONCE(lock->owner);

	if (owner != current)
		return !psem_refuse_ip(ip, "mutex %p unlocked by %s/%d, not its owner %p\n",
				       lock, current->comm, task_pid_nr(current),
				       owner);
#endif
	return true;
}

void __psem_mutex_init(struct psem_mutex *lock, const char *name,
		       struct lock_class_key *key,
		       struct lock_class_key *sem_key)
{
	__psem_init(&lock->sem, 1, name, sem_key);
	psem_mutex_set_owner(lock, NULL);
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	lockdep_init_map_wait(&lock->dep_map, name, key, 0, LD_WAIT_SLEEP);
#endif
}
EXPORT_SYMBOL_PSEM(__psem_mutex_init);

/**
 * psem_mutex_destroy - make an unlocked psem_mutex safe to free
 * @lock: the mutex, held by nobody
 *
 * Waits until psem has let go of @lock (psem_sync()): an unlock from NMI
 * or a hard-only IRQ may still be handing the mutex over through its
 * irq_work after the task it served has unlocked in turn. Call it before
 * freeing @lock or unloading the module it lives in, as mutex_destroy().
 * Warns if @lock is still held. Process context; sleeps.
 */
void psem_mutex_destroy(struct psem_mutex *lock)
{
	psem_sync(&lock->sem);
	if (psem_mutex_is_locked(lock))
		psem_refuse("mutex %p destroyed while held\n", lock);
}
EXPORT_SYMBOL_PSEM(psem_mutex_destroy);

/*
 * Every sleeping lock below is this, inlined: tell lockdep first, as
 * mutex_lock() does, then one compare-exchange from one permit to none
 * (psem_take_all_fast()) when the mutex is free and nobody waits; else the
 * semaphore's slow path, which queues FIFO. A wait cut short by a signal
 * takes the lockdep annotation back.
 */
static __always_inline int psem_mutex_wait(struct psem_mutex *lock,
					   unsigned int state,
					   unsigned long ip)
{
	int ret;

	mutex_acquire(mx_dep(lock), 0, 0, ip);
	if (likely(psem_take_all_fast(&lock->sem, 1))) {
		/* After the take, as in psem_acquire_common(); the slow path has its own. */
		might_sleep();
		goto owned;
	}
	ret = psem_acquire_slow(&lock->sem, 1, state, MAX_SCHEDULE_TIMEOUT);
	if (ret) {
		mutex_release(mx_dep(lock), ip);
		return ret;
	}
owned:
	psem_mutex_set_owner(lock, current);
	return 0;
}

/**
 * psem_mutex_lock - take the mutex, sleeping uninterruptibly
 * @lock: the mutex
 *
 * One compare-exchange when the mutex is free and nobody waits. Process
 * context only; not recursive.
 */
void psem_mutex_lock(struct psem_mutex *lock)
{
	psem_mutex_wait(lock, TASK_UNINTERRUPTIBLE, _RET_IP_);
}
EXPORT_SYMBOL_PSEM(psem_mutex_lock);

/**
 * psem_mutex_lock_interruptible - take the mutex, or give up on a signal
 * @lock: the mutex
 *
 * Return: 0, or -EINTR if a signal ended the wait.
 */
int psem_mutex_lock_interruptible(struct psem_mutex *lock)
{
	return psem_mutex_wait(lock, TASK_INTERRUPTIBLE, _RET_IP_);
}
EXPORT_SYMBOL_PSEM(psem_mutex_lock_interruptible);

/**
 * psem_mutex_lock_killable - take the mutex, or give up on a fatal signal
 * @lock: the mutex
 *
 * Return: 0, or -EINTR if a fatal signal ended the wait.
 */
int psem_mutex_lock_killable(struct psem_mutex *lock)
{
	return psem_mutex_wait(lock, TASK_KILLABLE, _RET_IP_);
}
EXPORT_SYMBOL_PSEM(psem_mutex_lock_killable);

/**
 * psem_mutex_trylock - take the mutex if it is free and nobody waits
 * @lock: the mutex
 *
 * Never sleeps. Task context only, as with mutex_trylock(): the holder is a
 * task (the owner check and lockdep record current), and an interrupt
 * handler would make the interrupted task the owner, which could then never
 * be unlocked by anyone else. A call from interrupt context (hard or soft
 * IRQ, NMI) is refused with a warning, returns false and changes nothing.
 * With interrupts or preemption disabled in task context it is fine.
 *
 * Return: true if the mutex is now held by the caller.
 */
bool psem_mutex_trylock(struct psem_mutex *lock)
{
	if (unlikely(!in_task()) &&
	    psem_refuse("%s(%p) from interrupt context\n", __func__, lock))
		return false;
	/*
	 * psem_take(): succeeds with the contention flag set, too; and the
	 * permit may be a credit (I3) for a moment after an unlock.
	 */
	if (!psem_take(&lock->sem, 1) && !psem_take_range(&lock->sem, 1, 1))
		return false;
	mutex_acquire(mx_dep(lock), 0, 1, _RET_IP_);
	psem_mutex_set_owner(lock, current);
	return true;
}
EXPORT_SYMBOL_PSEM(psem_mutex_trylock);

/**
 * psem_mutex_unlock - release the mutex
 * @lock: the mutex, held by the caller
 *
 * Hands the permit to the oldest waiter, if any. Never sleeps. Only the
 * task that locked the mutex may unlock it (lockdep releases it from
 * current's held locks; CONFIG_DEBUG_MUTEXES refuses anybody else).
 */
void psem_mutex_unlock(struct psem_mutex *lock)
{
	if (!psem_mutex_owned(lock, _RET_IP_))
		return;
	psem_mutex_set_owner(lock, NULL);
	mutex_release(mx_dep(lock), _RET_IP_);
	/* One compare-exchange from zero unless somebody waits. */
	if (likely(psem_release_all_fast(&lock->sem, 1)))
		return;
	psem_release_locked(&lock->sem, 1);
}
EXPORT_SYMBOL_PSEM(psem_mutex_unlock);

/**
 * psem_mutex_is_locked - whether the mutex is held
 * @lock: the mutex
 *
 * Return: true if some task holds it (a snapshot).
 */
bool psem_mutex_is_locked(struct psem_mutex *lock)
{
	return psem_available(&lock->sem) == 0;
}
EXPORT_SYMBOL_PSEM(psem_mutex_is_locked);
