/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: RCU read-side sections as a per-task nesting count, and a
 * synchronize_rcu() that waits until every task that was inside a section
 * when it started has left it (shim.c). Acquire/release on the task's
 * counters, so ThreadSanitizer sees a section's end happen before the grace
 * period that waited for it returns.
 */
#ifndef _PSEM_SHIM_LINUX_RCUPDATE_H
#define _PSEM_SHIM_LINUX_RCUPDATE_H

#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

void rcu_read_lock(void);
void rcu_read_unlock(void);
void synchronize_rcu(void);
#define rcu_read_lock_held()	(current->rcu_nesting > 0)
/* The halves of rcu_read_lock() that psem_queue.c uses directly. */
#define __rcu_read_lock()	rcu_read_lock()
#define __rcu_read_unlock()	rcu_read_unlock()
#define rcu_lock_acquire(map)	((void)(map))
#define rcu_lock_release(map)	((void)(map))
extern int rcu_lock_map;

/* As with CONFIG_PROVE_RCU: a warning, which the stress counts as a failure. */
#define RCU_LOCKDEP_WARN(c, s)	WARN_ON_ONCE(c)

#endif
