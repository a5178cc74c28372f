/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The native benchmark: the shim's <linux/sched.h> (tasks that sleep and
 * wake through a futex on their state word), but the CPU number is a
 * thread-local variable that the harness sets when it pins the thread,
 * read in one instruction as the kernel's per-CPU cpu_number is (the
 * shim's goes through current, a call).
 */
#ifndef _PSEM_NATIVE_LINUX_SCHED_H
#define _PSEM_NATIVE_LINUX_SCHED_H

#include_next <linux/sched.h>

extern __thread int psem_native_cpu;

#undef raw_smp_processor_id
#undef smp_processor_id
#define raw_smp_processor_id()	(psem_native_cpu)
#define smp_processor_id()	(psem_native_cpu)

#endif /* _PSEM_NATIVE_LINUX_SCHED_H */
