// SPDX-License-Identifier: GPL-2.0
/*
 * psem_rwlock: a fair sleeping reader-writer lock on top of psem.
 *
 * A reader takes one permit and returns it with the add that
 * psem_release() makes (psem_release_small()), lock-free whenever nobody
 * waits. A writer takes every
 * permit and returns them: with nobody waiting, its lock and unlock are one
 * compare-exchange each (psem_take_all_fast(), psem_release_all_fast(),
 * called directly, not through the exported functions). All ordering
 * comes from the semaphore: acquiring a permit is an ACQUIRE, returning one
 * a RELEASE (see psem_core.c).
 *
 * lockdep sees the lock as an rw_semaphore: readers are shared,
 * non-recursive acquisitions, so a read_lock while holding the write side
 * is reported, as is an AB-BA order between two locks. lockdep records a
 * hold on current's stack of held locks, so every unlock must be made by
 * the task (or the interrupt handler, for a trylock) that locked. A read
 * hold released by another task or from an interrupt uses the _non_owner
 * pair, as rw_semaphore has down_read_non_owner()/up_read_non_owner(): it
 * is invisible to lockdep on both sides.
 */

#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/sched.h>

#include "psem_queue.h"
#include "psem_rwlock.h"

/* A writer takes every permit: as many as the most readers. */
#define PSEM_RW_WRITE_PERMITS	PSEM_RWLOCK_MAX_READERS

/* An unlock from NMI or a hard-only IRQ parks them all; it must not fail. */
static_assert(PSEM_RW_WRITE_PERMITS <= PSEM_PARKED_MAX);

#ifdef CONFIG_DEBUG_LOCK_ALLOC
#define rw_dep(lock) (&(lock)->dep_map)
#else
#define rw_dep(lock) ((void)(lock), (struct lockdep_map *)NULL)
#endif

void __psem_rwlock_init(struct psem_rwlock *lock, const char *name,
			struct lock_class_key *key,
			struct lock_class_key *sem_key)
{
	__psem_init(&lock->sem, PSEM_RW_WRITE_PERMITS, name, sem_key);
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	lockdep_init_map_wait(&lock->dep_map, name, key, 0, LD_WAIT_SLEEP);
#endif
}
EXPORT_SYMBOL_PSEM(__psem_rwlock_init);

/**
 * psem_rwlock_destroy - make an unlocked psem_rwlock safe to free
 * @lock: the lock, held by nobody
 *
 * Waits until psem has let go of @lock (psem_sync()): an unlock from NMI
 * or a hard-only IRQ may still be handing the lock over through its
 * irq_work after the task it served has unlocked in turn. Call it before
 * freeing @lock or unloading the module it lives in, as mutex_destroy().
 * Warns if @lock is still held, and then frees nothing. Process context;
 * sleeps.
 */
void psem_rwlock_destroy(struct psem_rwlock *lock)
{
	psem_sync(&lock->sem);
	if (psem_available(&lock->sem) != PSEM_RWLOCK_MAX_READERS)
		psem_refuse("rwlock %p destroyed while held\n", lock);
}
EXPORT_SYMBOL_PSEM(psem_rwlock_destroy);

/*
 * Every sleeping lock function below is this, inlined so that @acquire is a
 * direct call: tell lockdep first, as down_read() does, so that a deadlock
 * is reported before it happens, and take it back if the wait was cut short.
 */
static __always_inline int psem_rw_wait(struct psem_rwlock *lock,
					int (*acquire)(struct psem *, long),
					bool read, unsigned long ip)
{
	int ret;

	if (read)
		rwsem_acquire_read(rw_dep(lock), 0, 0, ip);
	else
		rwsem_acquire(rw_dep(lock), 0, 0, ip);
	ret = acquire(&lock->sem, read ? 1 : PSEM_RW_WRITE_PERMITS);
	if (ret)
		rwsem_release(rw_dep(lock), ip);
	return ret;
}

/**
 * psem_read_lock - take the lock for reading, sleeping uninterruptibly
 * @lock: the lock
 *
 * Sleeps behind any writer that holds or waits for the lock. Process
 * context only.
 */
void psem_read_lock(struct psem_rwlock *lock)
{
	rwsem_acquire_read(rw_dep(lock), 0, 0, _RET_IP_);
	/*
	 * The common case inline; the uninterruptible wait cannot fail.
	 * might_sleep() on both paths, after the take, as in the core.
	 */
	if (likely(psem_take(&lock->sem, 1))) {
		might_sleep();
		return;
	}
	psem_acquire_slow(&lock->sem, 1, TASK_UNINTERRUPTIBLE,
			  MAX_SCHEDULE_TIMEOUT);
}
EXPORT_SYMBOL_PSEM(psem_read_lock);

/**
 * psem_read_lock_interruptible - take the lock for reading, or a signal
 * @lock: the lock
 *
 * Return: 0, or -EINTR if a signal ended the wait (nothing held).
 */
int psem_read_lock_interruptible(struct psem_rwlock *lock)
{
	return psem_rw_wait(lock, psem_acquire_interruptible, true, _RET_IP_);
}
EXPORT_SYMBOL_PSEM(psem_read_lock_interruptible);

/**
 * psem_read_lock_killable - take the lock for reading, or a fatal signal
 * @lock: the lock
 *
 * Return: 0, or -EINTR if a fatal signal ended the wait (nothing held).
 */
int psem_read_lock_killable(struct psem_rwlock *lock)
{
	return psem_rw_wait(lock, psem_acquire_killable, true, _RET_IP_);
}
EXPORT_SYMBOL_PSEM(psem_read_lock_killable);

/**
 * psem_read_trylock - take the lock for reading if that needs no wait
 * @lock: the lock
 *
 * Fails while a writer holds or waits for the lock. Never sleeps; any
 * context, but the same context must unlock it (from an interrupt handler:
 * before it returns). For a hold released elsewhere use
 * psem_read_trylock_non_owner().
 *
 * Return: true if the lock is now held for reading.
 */
bool psem_read_trylock(struct psem_rwlock *lock)
{
	if (!psem_try_acquire(&lock->sem, 1))
		return false;
	rwsem_acquire_read(rw_dep(lock), 0, 1, _RET_IP_);
	return true;
}
EXPORT_SYMBOL_PSEM(psem_read_trylock);

/**
 * psem_read_unlock - release the lock held for reading
 * @lock: the lock, held for reading by the caller
 *
 * Lock-free while other readers hold the lock. Never sleeps. Only the
 * context that took the read hold may release it: lockdep releases it from
 * current's held locks, and reports "bad unlock balance" otherwise. A hold
 * taken with a _non_owner lock is released with psem_read_unlock_non_owner().
 */
void psem_read_unlock(struct psem_rwlock *lock)
{
	rwsem_release(rw_dep(lock), _RET_IP_);
	psem_release_small(&lock->sem, 1, _RET_IP_);
}
EXPORT_SYMBOL_PSEM(psem_read_unlock);

/**
 * psem_write_lock - take the lock for writing, sleeping uninterruptibly
 * @lock: the lock
 *
 * One compare-exchange when the lock is free and nobody waits. Readers that
 * arrive while the writer waits queue behind it. Process context only.
 */
void psem_write_lock(struct psem_rwlock *lock)
{
	rwsem_acquire(rw_dep(lock), 0, 0, _RET_IP_);
	/* Every permit to none; else the uninterruptible wait, which cannot fail. */
	if (likely(psem_take_all_fast(&lock->sem, PSEM_RW_WRITE_PERMITS))) {
		might_sleep();	/* after the take, as in psem_read_lock() */
		return;
	}
	psem_acquire_slow(&lock->sem, PSEM_RW_WRITE_PERMITS, TASK_UNINTERRUPTIBLE,
			  MAX_SCHEDULE_TIMEOUT);
}
EXPORT_SYMBOL_PSEM(psem_write_lock);

/**
 * psem_write_lock_interruptible - take the lock for writing, or a signal
 * @lock: the lock
 *
 * Return: 0, or -EINTR if a signal ended the wait. Permits already assigned
 * to the writer go on to the next waiters.
 */
int psem_write_lock_interruptible(struct psem_rwlock *lock)
{
	return psem_rw_wait(lock, psem_acquire_interruptible, false, _RET_IP_);
}
EXPORT_SYMBOL_PSEM(psem_write_lock_interruptible);

/**
 * psem_write_lock_killable - take the lock for writing, or a fatal signal
 * @lock: the lock
 *
 * Return: 0, or -EINTR if a fatal signal ended the wait.
 */
int psem_write_lock_killable(struct psem_rwlock *lock)
{
	return psem_rw_wait(lock, psem_acquire_killable, false, _RET_IP_);
}
EXPORT_SYMBOL_PSEM(psem_write_lock_killable);

/**
 * psem_write_trylock - take the lock for writing if that needs no wait
 * @lock: the lock
 *
 * Never sleeps; any context, but the same context must unlock it (from an
 * interrupt handler: before it returns).
 *
 * Return: true if the lock is now held for writing.
 */
bool psem_write_trylock(struct psem_rwlock *lock)
{
	if (!psem_try_acquire(&lock->sem, PSEM_RW_WRITE_PERMITS))
		return false;
	rwsem_acquire(rw_dep(lock), 0, 1, _RET_IP_);
	return true;
}
EXPORT_SYMBOL_PSEM(psem_write_trylock);

/**
 * psem_write_unlock - release the lock held for writing
 * @lock: the lock, held for writing by the caller
 *
 * The writer held every permit, so with nobody waiting this is one
 * compare-exchange from zero. Never sleeps. Only the context that took
 * the write hold may release it, as with up_write(); there is no
 * non-owner write side.
 */
void psem_write_unlock(struct psem_rwlock *lock)
{
	rwsem_release(rw_dep(lock), _RET_IP_);
	/* One compare-exchange from zero unless somebody waits. */
	if (likely(psem_release_all_fast(&lock->sem, PSEM_RW_WRITE_PERMITS)))
		return;
	psem_release_locked(&lock->sem, PSEM_RW_WRITE_PERMITS);
}
EXPORT_SYMBOL_PSEM(psem_write_unlock);

/**
 * psem_downgrade_write - turn a write hold into a read hold
 * @lock: the lock, held for writing by the caller
 *
 * Keeps one permit and returns the rest, FIFO: waiting readers at the head
 * of the queue get in, and a waiting writer cannot, since one permit is
 * still held. Never sleeps. The caller then holds a read hold, released
 * with psem_read_unlock().
 */
void psem_downgrade_write(struct psem_rwlock *lock)
{
	lock_downgrade(rw_dep(lock), _RET_IP_);
	psem_release_all_held(&lock->sem, PSEM_RW_WRITE_PERMITS - 1);
}
EXPORT_SYMBOL_PSEM(psem_downgrade_write);

/**
 * psem_read_lock_non_owner - take the lock for reading, for another context
 *                            to release
 * @lock: the lock
 *
 * As psem_read_lock(), but the hold belongs to no task: lockdep does not
 * see it, as with down_read_non_owner(), so it may be released by any task
 * or interrupt with psem_read_unlock_non_owner(), and only with that.
 * Process context only.
 */
void psem_read_lock_non_owner(struct psem_rwlock *lock)
{
	if (likely(psem_take(&lock->sem, 1))) {
		might_sleep();	/* after the take, as in psem_read_lock() */
		return;
	}
	psem_acquire_slow(&lock->sem, 1, TASK_UNINTERRUPTIBLE,
			  MAX_SCHEDULE_TIMEOUT);
}
EXPORT_SYMBOL_PSEM(psem_read_lock_non_owner);

/**
 * psem_read_trylock_non_owner - take the lock for reading if that needs no
 *                               wait, for another context to release
 * @lock: the lock
 *
 * As psem_read_trylock(), without lockdep. Never sleeps; any context.
 *
 * Return: true if the lock is now held for reading; release it with
 * psem_read_unlock_non_owner().
 */
bool psem_read_trylock_non_owner(struct psem_rwlock *lock)
{
	return psem_try_acquire(&lock->sem, 1);
}
EXPORT_SYMBOL_PSEM(psem_read_trylock_non_owner);

/**
 * psem_read_unlock_non_owner - release a read hold taken by a _non_owner lock
 * @lock: the lock
 *
 * Lock-free while nobody waits. Never sleeps. Any task or interrupt may
 * call it, as with up_read_non_owner(), in every context psem_release()
 * allows: any, NMI included (Documentation/api.rst, "Contexts"); where the
 * queue lock may not be taken, the permit is handed over by an irq_work,
 * and psem_rwlock_destroy() waits for it.
 */
void psem_read_unlock_non_owner(struct psem_rwlock *lock)
{
	psem_release_small(&lock->sem, 1, _RET_IP_);
}
EXPORT_SYMBOL_PSEM(psem_read_unlock_non_owner);
