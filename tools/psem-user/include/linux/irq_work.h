/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: irq_work run by one thread of its own (a task, "irq_work",
 * started on the first irq_work_queue()), in hard-IRQ context as
 * in_hardirq() sees it (<linux/preempt.h>). The queue is under a pthread
 * mutex, so ThreadSanitizer sees what the kernel guarantees: what happened
 * before irq_work_queue() happens before the function runs, and the
 * function happens before an irq_work_sync() that waited for it returns.
 */
#ifndef _PSEM_SHIM_LINUX_IRQ_WORK_H
#define _PSEM_SHIM_LINUX_IRQ_WORK_H

#include <linux/list.h>
#include <linux/types.h>

struct irq_work {
	struct list_head	entry;
	void			(*func)(struct irq_work *work);
	bool			pending;	/* under the queue's mutex */
	bool			busy;		/* likewise: running now */
};

#define IRQ_WORK_INIT(_func)	{ .entry = { NULL, NULL }, .func = (_func) }
#define IRQ_WORK_INIT_HARD(_func)	IRQ_WORK_INIT(_func)
#define IRQ_WORK_INIT_LAZY(_func)	IRQ_WORK_INIT(_func)
#define DEFINE_IRQ_WORK(name, _f)	struct irq_work name = IRQ_WORK_INIT(_f)

static inline void init_irq_work(struct irq_work *work,
				 void (*func)(struct irq_work *))
{
	*work = (struct irq_work)IRQ_WORK_INIT(func);
}

bool irq_work_queue(struct irq_work *work);
void irq_work_sync(struct irq_work *work);
bool irq_work_pending(struct irq_work *work);
bool irq_work_is_busy(struct irq_work *work);

static inline bool irq_work_queue_on(struct irq_work *work, int cpu)
{
	return irq_work_queue(work);
}

#endif /* _PSEM_SHIM_LINUX_IRQ_WORK_H */
