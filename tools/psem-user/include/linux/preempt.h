/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: the context a task runs in, as preempt_count() bits of
 * its own (struct task_struct.preempt_count). A harness thread is in task
 * context; the irq_work thread runs its functions in hard-IRQ context
 * (shim.c); psem_user_set_context() (psem-user.h) lets a case pretend to
 * be in another. Spinlocks do not count here: in_atomic() says whether the
 * context bits are set, and might_sleep() checks the spinlocks held.
 * Interrupts are never really disabled: irqs_disabled() is true only in a
 * hard-IRQ context.
 */
#ifndef _PSEM_SHIM_LINUX_PREEMPT_H
#define _PSEM_SHIM_LINUX_PREEMPT_H

#include <linux/kernel.h>

#define HARDIRQ_BITS		4
#define NMI_BITS		4
#define PREEMPT_MASK		0x000000ffUL
#define SOFTIRQ_OFFSET		0x00000100UL
#define SOFTIRQ_MASK		0x0000ff00UL
#define HARDIRQ_OFFSET		0x00010000UL
#define HARDIRQ_MASK		0x000f0000UL
#define NMI_OFFSET		0x00100000UL
#define NMI_MASK		0x00f00000UL

int psem_user_preempt_count(void);

#define preempt_count()		((unsigned long)psem_user_preempt_count())
#define hardirq_count()		(preempt_count() & HARDIRQ_MASK)
#define softirq_count()		(preempt_count() & SOFTIRQ_MASK)
#define irq_count()		(preempt_count() & (NMI_MASK | HARDIRQ_MASK | \
						    SOFTIRQ_MASK))
#define in_nmi()		(!!(preempt_count() & NMI_MASK))
#define in_hardirq()		(!!hardirq_count())
#define in_irq()		in_hardirq()
#define in_softirq()		(!!softirq_count())
#define in_serving_softirq()	(!!(softirq_count() & SOFTIRQ_OFFSET))
#define in_interrupt()		(!!irq_count())
#define in_task()		(!(preempt_count() & (NMI_MASK | HARDIRQ_MASK | \
						      SOFTIRQ_OFFSET)))
#define in_atomic()		(preempt_count() != 0)
#define irqs_disabled()		(in_hardirq() || in_nmi())
#define preemptible()		(!in_atomic())

#define preempt_disable()	barrier()
#define preempt_enable()	barrier()
#define preempt_disable_notrace()	barrier()
#define preempt_enable_notrace()	barrier()
#define migrate_disable()	barrier()
#define migrate_enable()	barrier()

/* Last: <linux/spinlock.h> includes this header for the tests above. */
#include <linux/spinlock.h>

#endif /* _PSEM_SHIM_LINUX_PREEMPT_H */
