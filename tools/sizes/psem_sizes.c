// SPDX-License-Identifier: GPL-2.0
/*
 * The sizes of psem's public types and of the kernel locks they stand
 * beside, as a compiler lays them out for one kernel's configuration: one
 * object of each, read back from the symbol table (scripts/sizes.sh). Built,
 * never loaded.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/semaphore.h>

#include "psem.h"
#include "psem_mutex.h"
#include "psem_rwlock.h"
#include "psem_sem.h"

struct psem psem_sizeof_psem;
struct psem_ext psem_sizeof_psem_ext;
struct psem_mutex psem_sizeof_psem_mutex;
struct psem_rwlock psem_sizeof_psem_rwlock;
struct semaphore psem_sizeof_semaphore;
struct mutex psem_sizeof_mutex;	/* measured, never locked */
struct rw_semaphore psem_sizeof_rw_semaphore;

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("psem: sizes of its types (built, never loaded)");
