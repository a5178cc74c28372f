/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem_mutex: a sleeping mutex built on a psem of one permit.
 */
#ifndef _PSEM_MUTEX_H
#define _PSEM_MUTEX_H

#include <linux/compiler.h>
#include <linux/lockdep.h>

#include "psem.h"

struct task_struct;

/**
 * struct psem_mutex - a sleeping mutual-exclusion lock, FIFO among waiters
 * @sem:     one permit while unlocked
 * @owner:   the holder (CONFIG_DEBUG_MUTEXES only), to catch an unlock by
 *           another task. Compared with current, never dereferenced: the
 *           holder may have exited.
 * @dep_map: lockdep's view of the lock (CONFIG_DEBUG_LOCK_ALLOC only)
 */
struct psem_mutex {
	struct psem		sem;
#ifdef CONFIG_DEBUG_MUTEXES
	struct task_struct	*owner;
#endif
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	struct lockdep_map	dep_map;
#endif
};

void __psem_mutex_init(struct psem_mutex *lock, const char *name,
		       struct lock_class_key *key,
		       struct lock_class_key *sem_key);

/**
 * psem_mutex_init - initialise a psem_mutex, unlocked
 * @lock: the mutex
 *
 * Each call site is one lockdep class, as with mutex_init().
 */
#define psem_mutex_init(lock)						\
do {									\
	static struct lock_class_key __psem_mx_key;			\
	static struct lock_class_key __psem_mx_sem_key;			\
									\
	__psem_mutex_init((lock), #lock, &__psem_mx_key,		\
			  &__psem_mx_sem_key);				\
} while (0)

void psem_mutex_destroy(struct psem_mutex *lock);
void psem_mutex_lock(struct psem_mutex *lock);
int __must_check psem_mutex_lock_interruptible(struct psem_mutex *lock);
int __must_check psem_mutex_lock_killable(struct psem_mutex *lock);
bool __must_check psem_mutex_trylock(struct psem_mutex *lock);
void psem_mutex_unlock(struct psem_mutex *lock);
bool psem_mutex_is_locked(struct psem_mutex *lock);

#endif /* _PSEM_MUTEX_H */
