// SPDX-License-Identifier: GPL-2.0
/* The scenarios' shared helpers: scen.h. */
#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/workqueue.h>

#include "scen.h"

struct psem *xs_sem;

/* Weak: older sources have no psem_sync(). */
void psem_sync(struct psem *sem) __attribute__((weak));
extern atomic64_t psem_refusals;

int xs_acquire_async_work(struct psem *sem, long n,
			  struct psem_async_work *aww, work_func_t fn)
{
#ifdef psem_init_async_work
	/* Once per owner and function: never while the work may run. */
	if (aww->work.func != fn)
		psem_init_async_work(aww, fn);
	return psem_acquire_async_work(sem, n, aww);
#else
	return psem_acquire_async_work(sem, n, aww, fn);
#endif
}

bool xs_cancel_async_work_sync(struct psem *sem, struct psem_async_work *aww)
{
#ifdef PSEM_HAVE_CANCEL_ASYNC_WORK_SYNC
	return psem_cancel_async_work_sync(sem, aww);
#else
	if (psem_cancel_async(sem, &aww->aw))
		return true;
	cancel_work_sync(&aww->work);
	flush_work(&aww->work);
	return false;
#endif
}

void xs_sync(struct psem *sem)
{
	if (psem_sync)
		psem_sync(sem);
}

long xs_refusals(void)
{
	return (long)atomic64_read(&psem_refusals);
}

struct psem *xs_psem(long permits)
{
	struct psem *sem = kzalloc(sizeof(*sem), GFP_KERNEL);

	if (!sem)
		ex_fail("out of memory");
	psem_init(sem, permits);
	xs_sem = sem;
	return sem;
}

struct psem *xs_psem_cap(long capacity, long out)
{
	struct psem *sem = kzalloc(sizeof(*sem), GFP_KERNEL);

	if (!sem || psem_init_capacity(sem, capacity))
		ex_fail("psem_init_capacity(%ld)", capacity);
	if (out && !psem_try_acquire(sem, out))
		ex_fail("could not take %ld of %ld", out, capacity);
	xs_sem = sem;
	return sem;
}

bool xs_linked(struct psem *sem, struct task_struct *t)
{
	struct wait_queue_entry *e;

	list_for_each_entry(e, &sem->wq.head, entry)
		if (e->private == t)
			return true;
	return false;
}

bool xs_async_linked(struct psem *sem, struct psem_async *aw)
{
	struct wait_queue_entry *e;

	list_for_each_entry(e, &sem->wq.head, entry)
		if (e == &aw->w.wq_entry)
			return true;
	return false;
}

long xs_nr_waiters(struct psem *sem)
{
	struct wait_queue_entry *e;
	long n = 0;

	list_for_each_entry(e, &sem->wq.head, entry)
		n++;
	return n;
}

bool xs_tid_linked(void *tid)
{
	return xs_linked(xs_sem, ex_task((int)(long)tid));
}

bool xs_tid_linked_or_done(void *tid)
{
	return ex_thread_done((int)(long)tid) || xs_tid_linked(tid);
}

bool xs_any_waiter(void *sem)
{
	return xs_nr_waiters(sem) > 0;
}

void xs_conserved(struct psem *sem, long held, long total)
{
	long avail = psem_available(sem);
	long debt = (long)psem_debt(sem);

	ex_assert(held + avail - debt == total,
		  "held %ld + available %ld - debt %ld != %ld", held, avail,
		  debt, total);
}
