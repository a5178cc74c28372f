/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: a sleeping mutex is a pthread mutex (ThreadSanitizer
 * knows its ordering). Only what kmod/psem_switch.c uses: the switches'
 * lock.
 */
#ifndef _PSEM_SHIM_LINUX_MUTEX_H
#define _PSEM_SHIM_LINUX_MUTEX_H

#include <pthread.h>

struct mutex {
	pthread_mutex_t		mutex;
};

#define DEFINE_MUTEX(name)						\
	struct mutex name = { .mutex = PTHREAD_MUTEX_INITIALIZER }

static inline void mutex_lock(struct mutex *lock)
{
	pthread_mutex_lock(&lock->mutex);
}

static inline void mutex_unlock(struct mutex *lock)
{
	pthread_mutex_unlock(&lock->mutex);
}

#endif /* _PSEM_SHIM_LINUX_MUTEX_H */
