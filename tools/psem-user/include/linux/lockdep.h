/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: lockdep is off (no CONFIG_DEBUG_LOCK_ALLOC), except that
 * lockdep_assert_held() on a spinlock checks that the caller holds it.
 */
#ifndef _PSEM_SHIM_LINUX_LOCKDEP_H
#define _PSEM_SHIM_LINUX_LOCKDEP_H

#include <linux/bug.h>
#include <linux/compiler.h>

struct spinlock;
bool psem_user_spin_held(struct spinlock *lock);

struct lock_class_key {
	char unused;
};

struct lockdep_map {
	const char *name;
};

#define LD_WAIT_FREE	0
#define LD_WAIT_SPIN	1
#define LD_WAIT_CONFIG	2
#define LD_WAIT_SLEEP	3

#define lockdep_init_map(m, n, k, s)		do { (void)(m); } while (0)
#define lockdep_init_map_wait(m, n, k, s, w)	do { (void)(m); } while (0)
#define lock_acquire(l, s, t, r, c, n, i)	do { (void)(l); } while (0)
#define lock_acquire_shared(l, s, t, n, i)	do { (void)(l); } while (0)
#define lock_acquire_exclusive(l, s, t, n, i)	do { (void)(l); } while (0)
#define lock_release(l, i)			do { (void)(l); } while (0)
#define lock_downgrade(l, i)			do { (void)(l); } while (0)
#define mutex_acquire(l, s, t, i)		do { (void)(l); } while (0)
#define mutex_acquire_nest(l, s, t, n, i)	do { (void)(l); } while (0)
#define mutex_release(l, i)			do { (void)(l); } while (0)
#define rwsem_acquire(l, s, t, i)		do { (void)(l); } while (0)
#define rwsem_acquire_nest(l, s, t, n, i)	do { (void)(l); } while (0)
#define rwsem_acquire_read(l, s, t, i)		do { (void)(l); } while (0)
#define rwsem_release(l, i)			do { (void)(l); } while (0)
#define lock_map_acquire(l)			do { (void)(l); } while (0)
#define lock_map_release(l)			do { (void)(l); } while (0)
#define lockdep_set_class(l, k)			do { (void)(l); } while (0)
#define lockdep_set_class_and_name(l, k, n)	do { (void)(l); } while (0)
#define lockdep_assert_irqs_disabled()		do { } while (0)
#define lockdep_assert_irqs_enabled()		do { } while (0)
#define lockdep_assert_not_held(l)		do { (void)(l); } while (0)

/* Spinlocks only: the one lock type psem asserts. */
#define lockdep_assert_held(l)						\
	WARN_ON(!psem_user_spin_held(l))

#endif /* _PSEM_SHIM_LINUX_LOCKDEP_H */
