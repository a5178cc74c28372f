/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: a per-CPU variable is one global, and this_cpu_*() are
 * relaxed atomic RMWs on it (a counter shared by all threads).
 */
#ifndef _PSEM_SHIM_LINUX_PERCPU_H
#define _PSEM_SHIM_LINUX_PERCPU_H

#include <linux/compiler.h>
#include <linux/types.h>

#define NR_CPUS				1
#define DECLARE_PER_CPU(type, name)	extern __typeof__(type) name
#define DEFINE_PER_CPU(type, name)	__typeof__(type) name
#define per_cpu_ptr(ptr, cpu)		((void)(cpu), (ptr))
#define this_cpu_ptr(ptr)		(ptr)
#define raw_cpu_ptr(ptr)		(ptr)
#define for_each_possible_cpu(cpu)	for ((cpu) = 0; (cpu) < NR_CPUS; (cpu)++)
#define for_each_online_cpu(cpu)	for_each_possible_cpu(cpu)
#define this_cpu_add(pcp, val)						\
	((void)__atomic_fetch_add(&(pcp), (val), __ATOMIC_RELAXED))
#define this_cpu_inc(pcp)		this_cpu_add(pcp, 1)
#define this_cpu_dec(pcp)		this_cpu_add(pcp, -1)
#define __this_cpu_inc(pcp)		this_cpu_inc(pcp)
#define __this_cpu_add(pcp, val)	this_cpu_add(pcp, val)
#define raw_cpu_inc(pcp)		this_cpu_inc(pcp)
#define this_cpu_read(pcp)		READ_ONCE(pcp)

#endif /* _PSEM_SHIM_LINUX_PERCPU_H */
