/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: ilog2() and friends, constant-folded like the kernel's. */
#ifndef _PSEM_SHIM_LINUX_LOG2_H
#define _PSEM_SHIM_LINUX_LOG2_H

#define ilog2(n)		((int)(63 - __builtin_clzll((unsigned long long)(n))))
#define is_power_of_2(n)	((n) != 0 && (((n) & ((n) - 1)) == 0))
#define roundup_pow_of_two(n)	(1ULL << (ilog2((n) - 1) + 1))

#endif /* _PSEM_SHIM_LINUX_LOG2_H */
