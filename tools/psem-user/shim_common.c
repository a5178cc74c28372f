// SPDX-License-Identifier: GPL-2.0
/*
 * What the two runtimes of the kernel shim share: shim.c (pthreads, for
 * psem-stress and psem-cases) and explore/ (the explorer's scheduler).
 * A new task's fields, and the calls that read or write only the calling
 * task's own fields or wrap the runtime's wake_up_state(): the same on
 * both.
 */
#include <stdio.h>
#include <stdlib.h>

#include <linux/kernel.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/wait.h>

#include "psem-user.h"

struct task_struct *psem_user_task_alloc(const char *comm, int cpu, int pid)
{
	struct task_struct *t = calloc(1, sizeof(*t));

	if (!t)
		abort();
	t->__state = TASK_RUNNING;
	t->usage = 1;
	t->cpu = cpu;
	t->pid = pid;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	return t;
}

int wake_up_process(struct task_struct *p)
{
	return wake_up_state(p, TASK_NORMAL | TASK_WAKEKILL | TASK_NOLOAD);
}

int default_wake_function(struct wait_queue_entry *wq_entry,
			  unsigned int mode, int flags, void *key)
{
	return wake_up_state(wq_entry->private, mode);
}

void psem_user_might_sleep(const char *file, int line)
{
	int held = current->locks_held;

	if (held)
		psem_user_warn(file, line, "might_sleep with %d spinlocks held\n",
			       held);
	if (current->preempt_count)
		psem_user_warn(file, line, "might_sleep in context %#x\n",
			       current->preempt_count);
}

int psem_user_preempt_count(void)
{
	return current->preempt_count;
}

int psem_user_set_context(int bits)
{
	int old = current->preempt_count;

	current->preempt_count = bits;
	return old;
}

/* What loading psem.ko runs before any call (psem_main.c): the hand-off works. */
void psem_kick_init(void);

static void __attribute__((constructor)) psem_user_module_init(void)
{
	psem_kick_init();
}
