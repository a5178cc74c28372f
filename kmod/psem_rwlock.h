/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem_rwlock: a fair sleeping reader-writer lock built on psem.
 *
 * A reader holds one permit, a writer all PSEM_RWLOCK_MAX_READERS of them.
 * The semaphore's FIFO queue gives the fairness: a writer that waits is
 * linked with the balance drained to zero, so readers that come after it
 * queue behind it instead of overtaking, and neither side starves.
 */
#ifndef _PSEM_RWLOCK_H
#define _PSEM_RWLOCK_H

#include <linux/compiler.h>
#include <linux/lockdep.h>

#include "psem.h"

/*
 * Readers that may hold the lock at once. A reader beyond it sleeps, FIFO
 * like any waiter, until one of the others unlocks. A writer takes this
 * many permits in one request.
 */
#define PSEM_RWLOCK_MAX_READERS	0x40000000L	/* 2^30 */

/**
 * struct psem_rwlock - a fair sleeping reader-writer lock
 * @sem:     holds PSEM_RWLOCK_MAX_READERS permits while unlocked
 * @dep_map: lockdep's view of the lock (CONFIG_DEBUG_LOCK_ALLOC only)
 */
struct psem_rwlock {
	struct psem		sem;
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	struct lockdep_map	dep_map;
#endif
};

void __psem_rwlock_init(struct psem_rwlock *lock, const char *name,
			struct lock_class_key *key,
			struct lock_class_key *sem_key);

/**
 * psem_rwlock_init - initialise a psem_rwlock, unlocked
 * @lock: the lock
 *
 * Each call site is one lockdep class, as with init_rwsem().
 */
#define psem_rwlock_init(lock)						\
do {									\
	static struct lock_class_key __psem_rw_key;			\
	static struct lock_class_key __psem_rw_sem_key;			\
									\
	__psem_rwlock_init((lock), #lock, &__psem_rw_key,		\
			   &__psem_rw_sem_key);				\
} while (0)

void psem_rwlock_destroy(struct psem_rwlock *lock);
void psem_read_lock(struct psem_rwlock *lock);
int __must_check psem_read_lock_interruptible(struct psem_rwlock *lock);
int __must_check psem_read_lock_killable(struct psem_rwlock *lock);
bool __must_check psem_read_trylock(struct psem_rwlock *lock);
void psem_read_unlock(struct psem_rwlock *lock);
void psem_write_lock(struct psem_rwlock *lock);
int __must_check psem_write_lock_interruptible(struct psem_rwlock *lock);
int __must_check psem_write_lock_killable(struct psem_rwlock *lock);
bool __must_check psem_write_trylock(struct psem_rwlock *lock);
void psem_write_unlock(struct psem_rwlock *lock);
void psem_downgrade_write(struct psem_rwlock *lock);

/*
 * A read hold released by another task or from an interrupt, as
 * down_read_non_owner()/up_read_non_owner(): lockdep does not see it.
 */
void psem_read_lock_non_owner(struct psem_rwlock *lock);
bool __must_check psem_read_trylock_non_owner(struct psem_rwlock *lock);
void psem_read_unlock_non_owner(struct psem_rwlock *lock);

#endif /* _PSEM_RWLOCK_H */
