/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: prefetchw() of include/linux/prefetch.h. On x86 the
 * instruction itself, as the kernel's alternative patches in on every CPU
 * with it, so that the native benchmark times what the kernel runs (gcc
 * emits a plain prefetcht0 for the builtin without -mprfchw); the
 * compiler's write hint elsewhere. It orders nothing, and the explorer
 * schedules nothing at it.
 */
#ifndef _PSEM_SHIM_LINUX_PREFETCH_H
#define _PSEM_SHIM_LINUX_PREFETCH_H

static inline void prefetchw(const void *x)
{
#if defined(__x86_64__) || defined(__i386__)
	asm volatile("prefetchw %0" : : "m" (*(const char *)x));
#else
	__builtin_prefetch(x, 1);
#endif
}

#endif /* _PSEM_SHIM_LINUX_PREFETCH_H */
