/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: one struct task_struct per thread, current a thread-local
 * pointer. A task sleeps on a futex on its own __state word:
 *
 *   set_current_state()    relaxed store and a full fence (smp_store_mb)
 *   __set_current_state()  relaxed store (WRITE_ONCE)
 *   schedule_timeout()     sleeps while __state is not TASK_RUNNING, with a
 *                          real timeout (HZ = 1000); returns at once if a
 *                          signal is pending that the state lets in, as
 *                          __schedule() does
 *   wake_up_process()      full fence, then TASK_RUNNING and a futex wake
 *                          if the task was not running
 *
 * The sleep/wake protocol uses relaxed atomics and fences only, so that
 * ThreadSanitizer sees no happens-before edge through a wake-up or a signal:
 * whatever psem's waiters read after a wake-up must be ordered by psem
 * itself (its lock or its done flag), or it is reported.
 *
 * Signals are simulated: psem_user_signal() (harness API, psem-user.h) marks
 * one pending and wakes the task if its state lets the signal in.
 */
#ifndef _PSEM_SHIM_LINUX_SCHED_H
#define _PSEM_SHIM_LINUX_SCHED_H

#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/types.h>

#define TASK_RUNNING		0x0000
#define TASK_INTERRUPTIBLE	0x0001
#define TASK_UNINTERRUPTIBLE	0x0002
#define TASK_WAKEKILL		0x0100
#define TASK_NOLOAD		0x0400
#define TASK_KILLABLE		(TASK_WAKEKILL | TASK_UNINTERRUPTIBLE)
#define TASK_IDLE		(TASK_UNINTERRUPTIBLE | TASK_NOLOAD)
#define TASK_NORMAL		(TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)

#define MAX_SCHEDULE_TIMEOUT	LONG_MAX
#define HZ			1000

#define PSEM_USER_SIG_PENDING	0x1UL	/* any signal */
#define PSEM_USER_SIG_FATAL	0x2UL	/* SIGKILL */

struct task_struct {
	unsigned int	__state;	/* the futex word */
	unsigned long	sigpending;	/* PSEM_USER_SIG_* */
	long		usage;		/* get/put_task_struct() */
	int		locks_held;	/* spinlocks, for might_sleep() */
	int		rcu_nesting;	/* rcu_read_lock() depth; atomics */
	unsigned long	rcu_seq;	/* outermost rcu_read_unlock()s */
	struct task_struct *next_task;	/* every task, for synchronize_rcu() */
	int		pid;
	int		cpu;
	char		comm[16];
	/*
	 * The preemption hook (psem_user_preempt_arm(), psem-user.h): set
	 * by the harness, read by the task at its preemption points; all
	 * relaxed atomics, so that a stop and its end order nothing.
	 */
	int		pre_where;	/* PSEM_USER_AT_*; 0: disarmed */
	const void	*pre_lock;	/* the lock to stop before; NULL: any */
	int		pre_left;	/* points still to pass, then stop */
	unsigned int	pre_bound_ms;	/* the longest stop */
	int		pre_state;	/* PSEM_USER_PRE_* */
	int		pre_go;		/* psem_user_preempt_release() */
	int		preempt_count;	/* hardirq/softirq/NMI context bits */
};

struct task_struct *psem_user_current(void);
#define current			psem_user_current()

#define __set_current_state(s)	WRITE_ONCE(current->__state, (s))
#define set_current_state(s)	smp_store_mb(current->__state, (s))
#define task_is_running(t)	(READ_ONCE((t)->__state) == TASK_RUNNING)

long schedule_timeout(long timeout);
void schedule(void);
int wake_up_process(struct task_struct *p);
int wake_up_state(struct task_struct *p, unsigned int state);
void yield(void);
#define cond_resched()		do { } while (0)
#define io_schedule()		schedule()
#define io_schedule_timeout(t)	schedule_timeout(t)

static inline long schedule_timeout_interruptible(long timeout)
{
	__set_current_state(TASK_INTERRUPTIBLE);
	return schedule_timeout(timeout);
}

static inline long schedule_timeout_uninterruptible(long timeout)
{
	__set_current_state(TASK_UNINTERRUPTIBLE);
	return schedule_timeout(timeout);
}

static inline long schedule_timeout_killable(long timeout)
{
	__set_current_state(TASK_KILLABLE);
	return schedule_timeout(timeout);
}

static inline int signal_pending(struct task_struct *p)
{
	return !!(READ_ONCE(p->sigpending) & PSEM_USER_SIG_PENDING);
}

static inline int __fatal_signal_pending(struct task_struct *p)
{
	return !!(READ_ONCE(p->sigpending) & PSEM_USER_SIG_FATAL);
}

static inline int fatal_signal_pending(struct task_struct *p)
{
	return signal_pending(p) && __fatal_signal_pending(p);
}

static inline int signal_pending_state(unsigned int state,
				       struct task_struct *p)
{
	if (!(state & (TASK_INTERRUPTIBLE | TASK_WAKEKILL)))
		return 0;
	if (!signal_pending(p))
		return 0;
	return (state & TASK_INTERRUPTIBLE) || __fatal_signal_pending(p);
}

/* Tasks are never freed while the harness runs; the count is checked. */
void psem_user_put_task(struct task_struct *t);

static inline struct task_struct *get_task_struct(struct task_struct *t)
{
	__atomic_fetch_add(&t->usage, 1, __ATOMIC_RELAXED);
	return t;
}

static inline void put_task_struct(struct task_struct *t)
{
	psem_user_put_task(t);
}

/* jiffies: milliseconds since the harness started (HZ = 1000). */
unsigned long psem_user_jiffies(void);
#define jiffies			psem_user_jiffies()
#define msecs_to_jiffies(m)	((unsigned long)(m))
#define jiffies_to_msecs(j)	((unsigned int)(j))
#define time_after(a, b)	((long)((b) - (a)) < 0)
#define time_before(a, b)	time_after(b, a)

#define raw_smp_processor_id()	(current->cpu)
#define smp_processor_id()	(current->cpu)
#define task_pid_nr(t)		((t)->pid)

#endif /* _PSEM_SHIM_LINUX_SCHED_H */
