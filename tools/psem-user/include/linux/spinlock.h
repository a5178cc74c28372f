/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: a spinlock is a pthread mutex (ThreadSanitizer knows its
 * acquire/release edges) plus its owner, so that lockdep_assert_held()
 * checks something. "irq" variants are the plain ones: there are no
 * interrupts here.
 */
#ifndef _PSEM_SHIM_LINUX_SPINLOCK_H
#define _PSEM_SHIM_LINUX_SPINLOCK_H

#include <pthread.h>

#include <linux/compiler.h>
#include <linux/lockdep.h>
#include <linux/preempt.h>
#include <linux/types.h>

typedef struct spinlock {
	pthread_mutex_t		mutex;
	void			*owner;	/* a task_struct; relaxed atomics */
} spinlock_t;
typedef spinlock_t raw_spinlock_t;

#define __SPIN_LOCK_UNLOCKED(name)					\
	{ .mutex = PTHREAD_MUTEX_INITIALIZER, .owner = NULL }
#define __RAW_SPIN_LOCK_UNLOCKED(name)	__SPIN_LOCK_UNLOCKED(name)
#define DEFINE_SPINLOCK(x)	spinlock_t x = __SPIN_LOCK_UNLOCKED(x)

void psem_user_spin_init(spinlock_t *lock);
void psem_user_spin_lock(spinlock_t *lock);
void psem_user_spin_unlock(spinlock_t *lock);
int psem_user_spin_trylock(spinlock_t *lock);
bool psem_user_spin_held(spinlock_t *lock);

#define spin_lock_init(l)		psem_user_spin_init(l)
#define raw_spin_lock_init(l)		psem_user_spin_init(l)
#define spin_lock(l)			psem_user_spin_lock(l)
#define spin_unlock(l)			psem_user_spin_unlock(l)
#define spin_trylock(l)			psem_user_spin_trylock(l)
/* No interrupt is masked here: every variant is the plain lock. */
#define spin_lock_irq(l)		spin_lock(l)
#define spin_unlock_irq(l)		spin_unlock(l)
#define spin_lock_bh(l)			spin_lock(l)
#define spin_unlock_bh(l)		spin_unlock(l)
#define spin_lock_irqsave(l, f)		do { (f) = 0; spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, f)	do { (void)(f); spin_unlock(l); } while (0)
#define raw_spin_lock(l)		spin_lock(l)
#define raw_spin_unlock(l)		spin_unlock(l)
#define raw_spin_lock_irq(l)		spin_lock(l)
#define raw_spin_unlock_irq(l)		spin_unlock(l)
#define raw_spin_lock_irqsave(l, f)	spin_lock_irqsave(l, f)
#define raw_spin_unlock_irqrestore(l, f) spin_unlock_irqrestore(l, f)
#define assert_spin_locked(l)		lockdep_assert_held(l)

/* Not a real check of interrupt state: there is none. */
#define local_irq_save(f)		do { (f) = 0; } while (0)
#define local_irq_restore(f)		do { (void)(f); } while (0)
#define local_irq_disable()		do { } while (0)
#define local_irq_enable()		do { } while (0)
/* irqs_disabled(), in_task() and the other context tests: <linux/preempt.h>. */

#endif /* _PSEM_SHIM_LINUX_SPINLOCK_H */
