/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: include/linux/threads.h's limits, 64-bit values. NR_CPUS
 * is the shim's (linux/percpu.h: one per-CPU copy).
 */
#ifndef _PSEM_SHIM_LINUX_THREADS_H
#define _PSEM_SHIM_LINUX_THREADS_H

#include <linux/percpu.h>

#define PID_MAX_LIMIT	(4 * 1024 * 1024)

#endif /* _PSEM_SHIM_LINUX_THREADS_H */
