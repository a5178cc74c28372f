/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem's waiter queue (psem_queue.c): the locked paths that link, serve,
 * fail and cancel waiters, and the wake-ups and callbacks that follow once
 * the queue lock is dropped. Above the word (psem_word.h); below the core,
 * the lifecycle calls, the asynchronous waiters and the primitives.
 */
#ifndef _PSEM_QUEUE_H
#define _PSEM_QUEUE_H

#include <linux/list.h>

#include "psem_word.h"

/*
 * A waiter's state (&psem_waiter.state). Every change is made under the
 * queue lock but one: a task whose wait a signal or its timeout ended
 * turns LINKED into LEAVING on its own before it takes the lock to cancel
 * (psem_leave()), so that a server that dequeues it meanwhile knows it
 * will still take the lock once.
 */
enum psem_waiter_state {
	PSEM_W_IDLE,	/* not queued: never, cancelled, or called back */
	PSEM_W_LINKED,	/* on the queue */
	PSEM_W_LEAVING,	/* on the queue; its task is on its way to cancel */
	PSEM_W_SERVED,	/* off the queue: its task's wake-up, or its callback, is due */
};

/**
 * struct psem_wake - what a locked path does once it drops the queue lock
 * @tasks: the task waiters it served, to wake
 * @calls: the asynchronous waiters whose callbacks are due, if this path
 *         runs them (it found no other path doing so: &psem.calls)
 */
struct psem_wake {
	struct list_head	tasks;
	struct list_head	calls;
};

#define PSEM_WAKE(name)							\
	struct psem_wake name = {					\
		.tasks = LIST_HEAD_INIT((name).tasks),			\
		.calls = LIST_HEAD_INIT((name).calls),			\
	}

/* Under the queue lock. */
int psem_add_locked(struct psem *sem, long n, struct psem_wake *wake,
		    unsigned long ip);
long psem_fail_waiter(struct psem *sem, struct psem_waiter *w, int result,
		      struct psem_wake *wake);
void psem_link(struct psem *sem, struct psem_waiter *w, long n,
	       enum psem_wait_kind kind, struct task_struct *task);
int psem_refuse_wait(struct psem *sem, long n);
int psem_wait_queued(struct psem *sem, struct psem_waiter *w, long n,
		     enum psem_wait_kind kind, unsigned int state,
		     long timeout) __releases(&sem->wq.lock);

/* Without it. */
void psem_wake_served(struct psem *sem, struct psem_wake *wake);
bool psem_cancel(struct psem *sem, struct psem_waiter *w);
void psem_settle(struct psem *sem);
int __psem_release_locked(struct psem *sem, long n, unsigned long ip);
#define psem_release_locked(sem, n) __psem_release_locked(sem, n, _RET_IP_)
int psem_acquire_slow(struct psem *sem, long n, unsigned int state,
		      long timeout);

#endif /* _PSEM_QUEUE_H */
