// SPDX-License-Identifier: GPL-2.0
/*
 * psem_mutex: a sleeping mutex on a psem of one permit.
 *
 * The holder owns the only permit, so the balance is zero whenever the
 * mutex is locked and unlock goes straight to the locked path through
 * psem_release_all_held(), skipping the probe of the balance that could
 * never succeed. Unlike struct mutex there is no optimistic spinning and
 * no handoff to a spinner: a contended lock always sleeps, FIFO.
 *
 * With CONFIG_DEBUG_MUTEXES the owner is recorded, and an unlock by any
 * other task, or of an unlocked mutex, is refused with a warning and
 * changes nothing: releasing the permit would let two tasks in.
 */

#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/sched.h>

#include "psem_internal.h"
#include "psem_mutex.h"

#ifdef CONFIG_DEBUG_LOCK_ALLOC
#define mx_dep(lock) (&(lock)->dep_map)
#else
#define mx_dep(lock) NULL
#endif

static void psem_mutex_set_owner(struct psem_mutex *lock,
				 struct task_struct *owner)
{
#ifdef CONFIG_DEBUG_MUTEXES
	/* Only the holder writes it; others read it only to warn. */
	WRITE_ONCE(lock->owner, owner);
#endif
}

/* Whether current may unlock: always, unless the owner is tracked. */
static bool psem_mutex_owned(struct psem_mutex *lock)
{
#ifdef CONFIG_DEBUG_MUTEXES
	struct task_struct *owner = READ_ONCE(lock->owner);

	if (owner != current)
		return !psem_refuse("mutex %p unlocked by %s/%d, owner %s/%d\n",
				    lock, current->comm, current->pid,
				    owner ? owner->comm : "none",
				    owner ? owner->pid : 0);
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
EXPORT_SYMBOL_NS_GPL(__psem_mutex_init, PSEM);

static __always_inline int psem_mutex_wait(struct psem_mutex *lock,
					   int (*acquire)(struct psem *, long),
					   unsigned long ip)
{
	int ret;

	mutex_acquire(mx_dep(lock), 0, 0, ip);
	ret = acquire(&lock->sem, 1);
	if (ret) {
		mutex_release(mx_dep(lock), ip);
		return ret;
	}
	psem_mutex_set_owner(lock, current);
	return 0;
}

/**
 * psem_mutex_lock - take the mutex, sleeping uninterruptibly
 * @lock: the mutex
 *
 * Process context only; not recursive.
 */
void psem_mutex_lock(struct psem_mutex *lock)
{
	psem_mutex_wait(lock, psem_acquire, _RET_IP_);
}
EXPORT_SYMBOL_NS_GPL(psem_mutex_lock, PSEM);

/**
 * psem_mutex_lock_interruptible - take the mutex, or give up on a signal
 * @lock: the mutex
 *
 * Return: 0, or -EINTR if a signal ended the wait.
 */
int psem_mutex_lock_interruptible(struct psem_mutex *lock)
{
	return psem_mutex_wait(lock, psem_acquire_interruptible, _RET_IP_);
}
EXPORT_SYMBOL_NS_GPL(psem_mutex_lock_interruptible, PSEM);

/**
 * psem_mutex_lock_killable - take the mutex, or give up on a fatal signal
 * @lock: the mutex
 *
 * Return: 0, or -EINTR if a fatal signal ended the wait.
 */
int psem_mutex_lock_killable(struct psem_mutex *lock)
{
	return psem_mutex_wait(lock, psem_acquire_killable, _RET_IP_);
}
EXPORT_SYMBOL_NS_GPL(psem_mutex_lock_killable, PSEM);

/**
 * psem_mutex_trylock - take the mutex if it is free and nobody waits
 * @lock: the mutex
 *
 * Never sleeps. Unlike mutex_trylock() it may be called from interrupt
 * context, but the holder must then unlock it from the same context.
 *
 * Return: true if the mutex is now held.
 */
bool psem_mutex_trylock(struct psem_mutex *lock)
{
	if (!psem_try_acquire(&lock->sem, 1))
		return false;
	mutex_acquire(mx_dep(lock), 0, 1, _RET_IP_);
	psem_mutex_set_owner(lock, current);
	return true;
}
EXPORT_SYMBOL_NS_GPL(psem_mutex_trylock, PSEM);

/**
 * psem_mutex_unlock - release the mutex
 * @lock: the mutex, held by the caller
 *
 * Hands the permit to the oldest waiter, if any. Never sleeps.
 */
void psem_mutex_unlock(struct psem_mutex *lock)
{
	if (!psem_mutex_owned(lock))
		return;
	psem_mutex_set_owner(lock, NULL);
	mutex_release(mx_dep(lock), _RET_IP_);
	psem_release_all_held(&lock->sem, 1);
}
EXPORT_SYMBOL_NS_GPL(psem_mutex_unlock, PSEM);

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
EXPORT_SYMBOL_NS_GPL(psem_mutex_is_locked, PSEM);
