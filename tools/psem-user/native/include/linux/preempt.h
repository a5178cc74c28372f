/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The native benchmark: the shim's <linux/preempt.h>, but preempt_count()
 * is 0: the benchmark simulates no interrupt context, and the shim's count
 * is a call into shim.c, which psem's locked path would pay on every
 * release (psem_lock_forbidden() tests in_nmi()); the kernel's is one
 * per-CPU load.
 */
#ifndef _PSEM_NATIVE_LINUX_PREEMPT_H
#define _PSEM_NATIVE_LINUX_PREEMPT_H

#include_next <linux/preempt.h>

#undef preempt_count
#define preempt_count()		(0UL)

#endif /* _PSEM_NATIVE_LINUX_PREEMPT_H */
