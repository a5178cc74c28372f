/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The userspace build of psem: what the harness calls on top of the kernel
 * API shim (tasks, simulated signals, warnings).
 */
#ifndef _PSEM_USER_H
#define _PSEM_USER_H

#include <linux/sched.h>
#include <linux/types.h>

/* Makes the calling thread a task; returns current. */
struct task_struct *psem_user_task_init(const char *comm, int cpu);

/* Marks a signal pending on @t (fatal: SIGKILL) and wakes it if it may. */
void psem_user_signal(struct task_struct *t, bool fatal);

/* What returning to user space does: the pending signals are handled. */
void psem_user_flush_signals(void);

/* Warnings (WARN*, lockdep_assert_held, might_sleep) seen so far. */
unsigned long psem_user_warnings(void);

/* Sleeps @us microseconds (not a kernel call; for the harness). */
void psem_user_usleep(unsigned int us);

#endif /* _PSEM_USER_H */
