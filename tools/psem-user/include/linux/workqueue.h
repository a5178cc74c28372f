/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: one workqueue, system_wq, run by one worker thread (a
 * task, "kworker", started on the first queue_work()). The queue is under a
 * pthread mutex, so ThreadSanitizer sees what the kernel guarantees: all
 * that happened before queue_work() happens before the work function runs,
 * and the work function happens before a flush_work() or cancel_work_sync()
 * that waited for it returns.
 */
#ifndef _PSEM_SHIM_LINUX_WORKQUEUE_H
#define _PSEM_SHIM_LINUX_WORKQUEUE_H

#include <linux/compiler.h>
#include <linux/list.h>
#include <linux/types.h>

struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);

struct work_struct {
	struct list_head	entry;
	work_func_t		func;
	bool			pending;	/* written under the queue's mutex */
};

struct workqueue_struct;
extern struct workqueue_struct *system_wq;

#define INIT_WORK(w, f)							\
do {									\
	INIT_LIST_HEAD(&(w)->entry);					\
	(w)->func = (f);						\
	(w)->pending = false;						\
} while (0)

bool queue_work(struct workqueue_struct *wq, struct work_struct *work);
bool flush_work(struct work_struct *work);
bool cancel_work_sync(struct work_struct *work);
void flush_workqueue(struct workqueue_struct *wq);

/*
 * Whether @work is queued and has not started, as the kernel's test of
 * WORK_STRUCT_PENDING: a snapshot, read atomically (the writes are under
 * the queue's mutex, atomic too, so that ThreadSanitizer sees no race).
 */
static inline bool work_pending(struct work_struct *work)
{
	PSEM_USER_POINT("work_pending", work);
	return __atomic_load_n(&work->pending, __ATOMIC_RELAXED);
}

static inline bool schedule_work(struct work_struct *work)
{
	return queue_work(system_wq, work);
}

#endif /* _PSEM_SHIM_LINUX_WORKQUEUE_H */
