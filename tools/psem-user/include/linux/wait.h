/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: the wait-queue head and entry that psem links by hand. */
#ifndef _PSEM_SHIM_LINUX_WAIT_H
#define _PSEM_SHIM_LINUX_WAIT_H

#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

struct wait_queue_entry;
typedef int (*wait_queue_func_t)(struct wait_queue_entry *wq_entry,
				 unsigned int mode, int flags, void *key);

struct wait_queue_entry {
	unsigned int		flags;
	void			*private;
	wait_queue_func_t	func;
	struct list_head	entry;
};
typedef struct wait_queue_entry wait_queue_entry_t;

struct wait_queue_head {
	spinlock_t		lock;
	struct list_head	head;
};
typedef struct wait_queue_head wait_queue_head_t;

#define __WAIT_QUEUE_HEAD_INITIALIZER(name) {				\
	.lock	= __SPIN_LOCK_UNLOCKED(name.lock),			\
	.head	= LIST_HEAD_INIT(name.head) }
#define DECLARE_WAIT_QUEUE_HEAD(name)					\
	struct wait_queue_head name = __WAIT_QUEUE_HEAD_INITIALIZER(name)

int default_wake_function(struct wait_queue_entry *wq_entry,
			  unsigned int mode, int flags, void *key);

static inline void __init_waitqueue_head(struct wait_queue_head *wq_head,
					 const char *name,
					 struct lock_class_key *key)
{
	spin_lock_init(&wq_head->lock);
	INIT_LIST_HEAD(&wq_head->head);
}

#define init_waitqueue_head(wq)	__init_waitqueue_head((wq), #wq, NULL)

static inline void init_waitqueue_entry(struct wait_queue_entry *wq_entry,
					struct task_struct *p)
{
	wq_entry->flags = 0;
	wq_entry->private = p;
	wq_entry->func = default_wake_function;
}

static inline int waitqueue_active(struct wait_queue_head *wq_head)
{
	return !list_empty(&wq_head->head);
}

static inline void __add_wait_queue(struct wait_queue_head *wq_head,
				    struct wait_queue_entry *wq_entry)
{
	list_add(&wq_entry->entry, &wq_head->head);
}

static inline void
__add_wait_queue_entry_tail(struct wait_queue_head *wq_head,
			    struct wait_queue_entry *wq_entry)
{
	list_add_tail(&wq_entry->entry, &wq_head->head);
}

static inline void __remove_wait_queue(struct wait_queue_head *wq_head,
				       struct wait_queue_entry *wq_entry)
{
	list_del(&wq_entry->entry);
}

#endif /* _PSEM_SHIM_LINUX_WAIT_H */
