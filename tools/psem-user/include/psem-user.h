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

/*
 * Sets the calling task's context bits (<linux/preempt.h>: HARDIRQ_OFFSET,
 * SOFTIRQ_OFFSET, NMI_OFFSET; 0 for task context); returns the old ones.
 */
int psem_user_set_context(int bits);

/* The task that runs irq_work (started if need be), e.g. to arm its hook. */
struct task_struct *psem_user_irq_work_task(void);

/* Sleeps @us microseconds (not a kernel call; for the harness). */
void psem_user_usleep(unsigned int us);

/*
 * The preemption hook: forces an interleaving by stopping a task at a
 * chosen point, as if the scheduler had preempted it there, until the
 * harness lets it go or a bound passes.
 *
 *   PSEM_USER_AT_LOCK  before a spin_lock*() or spin_trylock*() of @lock
 *                      (any spinlock if @lock is NULL), before the lock's
 *                      memory is touched
 *   PSEM_USER_AT_WAKE  on the way out of schedule_timeout(), once the task
 *                      is running again, before its caller reads anything
 *
 * psem_user_preempt_arm(t, where, lock, nth, bound_ms) makes @t stop at
 * its @nth such point from now on (1: the next one). The stop ends when
 * psem_user_preempt_release(t) is called or @bound_ms milliseconds have
 * passed, whichever comes first: the bound lets a case go on when the
 * code under test rightly waits for the stopped task (a quiesce that
 * waits for a waiter to leave). Each arming stops @t at most once.
 *
 * The stop polls relaxed atomics: it gives ThreadSanitizer no
 * happens-before edge between the harness and the stopped task, so what
 * the task touches after it resumes is ordered by the code under test, or
 * reported. A task may be armed only by one thread at a time, and only
 * while it is not stopped.
 */
#define PSEM_USER_AT_LOCK	1
#define PSEM_USER_AT_WAKE	2

#define PSEM_USER_PRE_IDLE	0	/* never armed, or disarmed */
#define PSEM_USER_PRE_ARMED	1	/* armed, the point not reached */
#define PSEM_USER_PRE_STOPPED	2	/* stopped at the point now */
#define PSEM_USER_PRE_RELEASED	3	/* went on: released by the harness */
#define PSEM_USER_PRE_EXPIRED	4	/* went on: the bound passed */

void psem_user_preempt_arm(struct task_struct *t, int where, const void *lock,
			   int nth, unsigned int bound_ms);
void psem_user_preempt_disarm(struct task_struct *t);
/* Waits up to @ms for @t to stop; returns its PSEM_USER_PRE_* state. */
int psem_user_preempt_wait_stopped(struct task_struct *t, unsigned int ms);
void psem_user_preempt_release(struct task_struct *t);
int psem_user_preempt_state(struct task_struct *t);

/*
 * For the two runtimes of the shim (shim.c, explore/): a new task, running,
 * with one reference, which the runtime then makes current.
 */
struct task_struct *psem_user_task_alloc(const char *comm, int cpu, int pid);

/* The hook's call sites (the shim's own). */
void psem_user_preempt_point(int where, const void *lock);

#endif /* _PSEM_USER_H */
