/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The native benchmark: the shim's <linux/sched.h> (tasks that sleep and
 * wake through a futex on their state word), with two changes that make
 * the hot paths cost what they do in the kernel:
 *
 *  - current is a function that returns the same task every time it is
 *    called in a thread: declared __const__, so that the compiler drops a
 *    call whose result is unused (the kernel's current is a per-CPU load
 *    that the compiler drops likewise; psem_mutex_lock() evaluates current
 *    for an owner field that exists only with CONFIG_DEBUG_MUTEXES) and
 *    merges repeated ones;
 *  - the CPU number is a thread-local variable that the harness sets when
 *    it pins the thread, read in one instruction as the kernel's per-CPU
 *    cpu_number is (the shim's goes through current).
 */
#ifndef _PSEM_NATIVE_LINUX_SCHED_H
#define _PSEM_NATIVE_LINUX_SCHED_H

#include_next <linux/sched.h>

struct task_struct *psem_user_current(void) __attribute_const__;

extern __thread int psem_native_cpu;

#undef raw_smp_processor_id
#undef smp_processor_id
#define raw_smp_processor_id()	(psem_native_cpu)
#define smp_processor_id()	(psem_native_cpu)

#endif /* _PSEM_NATIVE_LINUX_SCHED_H */
