/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: wait_var_event() and wake_up_var() on one futex word, a
 * sequence that every wake_up_var() bumps (shim.c). A waiter reads the
 * sequence, then (after a full fence, as prepare_to_wait_event()'s
 * set_current_state() gives) the condition, and sleeps only while the
 * sequence is unchanged, so that no wake-up is lost.
 *
 * Relaxed atomics and fences only: ThreadSanitizer sees no happens-before
 * edge from wake_up_var() to the waiter, so what the waiter reads after
 * the condition holds must be ordered by the code under test, as in the
 * kernel, where the caller's smp_mb() before wake_up_var() and the
 * condition's own ordering are what count. Every wake_up_var() wakes every
 * waiter, whatever its variable: more wake-ups than the kernel's, never
 * fewer.
 */
#ifndef _PSEM_SHIM_LINUX_WAIT_BIT_H
#define _PSEM_SHIM_LINUX_WAIT_BIT_H

#include <linux/compiler.h>
#include <linux/sched.h>
#include <linux/wait.h>

#ifndef ERESTARTSYS
#define ERESTARTSYS	512
#endif

/* The sequence word, and a sleep while it still reads @seq (at most @ms). */
unsigned int psem_user_var_seq(void);
void psem_user_var_sleep(unsigned int seq, unsigned int ms);
void psem_user_wake_up_var(void *var);

#define wake_up_var(var)	psem_user_wake_up_var(var)

/*
 * Reads the sequence into @seq, then @condition: the sequence first, with
 * a full fence between, which pairs with the caller's smp_mb() before
 * wake_up_var(), so that a sleep while the sequence still reads @seq
 * misses no wake-up. The value of @condition.
 */
#define __psem_user_var_cond(seq, condition)				\
({									\
	(seq) = psem_user_var_seq();					\
	smp_mb();	/* the sequence before @condition */		\
	(condition);							\
})

/* Sleeps until @condition holds; uninterruptible. */
#define wait_var_event(var, condition)					\
do {									\
	unsigned int __seq;						\
									\
	might_sleep();							\
	while (!__psem_user_var_cond(__seq, condition))			\
		psem_user_var_sleep(__seq, 0);				\
} while (0)

/*
 * The variants that a signal or a timeout ends: they sleep in slices of a
 * millisecond, to see a signal that psem_user_signal() does not wake
 * them for. 0, or -ERESTARTSYS on a signal the state lets in.
 */
#define __psem_user_wait_var_event_sig(var, condition, state)		\
({									\
	unsigned int __seq;						\
	int __ret = 0;							\
									\
	might_sleep();							\
	while (!__psem_user_var_cond(__seq, condition)) {		\
		if (signal_pending_state((state), current)) {		\
			__ret = -ERESTARTSYS;				\
			break;						\
		}							\
		psem_user_var_sleep(__seq, 1);				\
	}								\
	__ret;								\
})

#define wait_var_event_killable(var, condition)				\
	__psem_user_wait_var_event_sig(var, condition, TASK_KILLABLE)
#define wait_var_event_interruptible(var, condition)			\
	__psem_user_wait_var_event_sig(var, condition, TASK_INTERRUPTIBLE)

/*
 * Returns 0 if @timeout jiffies passed with @condition false, else the
 * jiffies left (at least 1), as the kernel's does.
 */
#define wait_var_event_timeout(var, condition, timeout)		\
({									\
	long __left = (timeout);					\
	unsigned long __end = jiffies + __left;				\
	unsigned int __seq;						\
									\
	might_sleep();							\
	for (;;) {							\
		if (__psem_user_var_cond(__seq, condition)) {		\
			if (!__left)					\
				__left = 1;				\
			break;						\
		}							\
		if (__left <= 0) {					\
			__left = 0;					\
			break;						\
		}							\
		psem_user_var_sleep(__seq, 1);				\
		__left = (long)(__end - jiffies);			\
		if (__left < 0)						\
			__left = 0;					\
	}								\
	__left;								\
})

#endif /* _PSEM_SHIM_LINUX_WAIT_BIT_H */
