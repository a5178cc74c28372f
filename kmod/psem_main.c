// SPDX-License-Identifier: GPL-2.0
/*
 * The psem module: a counting semaphore whose release is lock-free while
 * nobody waits, and the primitives built on it. Loading it creates the debugfs
 * directory psem/; every psem lives in its users' memory.
 */

#include <linux/init.h>
#include <linux/module.h>

#include "psem_internal.h"
#include "psem_queue.h"
#include "psem_compat.h"	/* a second time: warns, once, on a kernel newer than 7.3 */

static int __init psem_module_init(void)
{
	psem_kick_init();
	return psem_debugfs_init();
}

static void __exit psem_module_exit(void)
{
	psem_debugfs_exit();
	psem_kick_exit();
	psem_refusals_exit();
}

module_init(psem_module_init);
module_exit(psem_module_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Counting semaphore with a release that is lock-free while nobody waits");
MODULE_AUTHOR("The psem developers");
