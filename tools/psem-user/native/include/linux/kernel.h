/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The native benchmark: the shim's <linux/kernel.h>, but might_sleep() is
 * empty, as in a production kernel without CONFIG_DEBUG_ATOMIC_SLEEP
 * (there it is a call to __cond_resched(), which returns at once when
 * nothing else wants the CPU: about 6 instructions the native build does
 * not pay).
 */
#ifndef _PSEM_NATIVE_LINUX_KERNEL_H
#define _PSEM_NATIVE_LINUX_KERNEL_H

#include_next <linux/kernel.h>

#undef might_sleep
#define might_sleep()		do { } while (0)

#endif /* _PSEM_NATIVE_LINUX_KERNEL_H */
