/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: min()/max() without the kernel's type checks. */
#ifndef _PSEM_SHIM_LINUX_MINMAX_H
#define _PSEM_SHIM_LINUX_MINMAX_H

#define __shim_cmp(x, y, op)						\
({									\
	__typeof__(x) __x = (x);					\
	__typeof__(y) __y = (y);					\
	__x op __y ? __x : __y;						\
})
#define min(x, y)		__shim_cmp(x, y, <)
#define max(x, y)		__shim_cmp(x, y, >)
#define min_t(t, x, y)		__shim_cmp((t)(x), (t)(y), <)
#define max_t(t, x, y)		__shim_cmp((t)(x), (t)(y), >)
#define clamp(v, lo, hi)	min(max(v, lo), hi)
#define clamp_t(t, v, lo, hi)	min_t(t, max_t(t, v, lo), hi)
#define swap(a, b)							\
	do { __typeof__(a) __t = (a); (a) = (b); (b) = __t; } while (0)

#endif /* _PSEM_SHIM_LINUX_MINMAX_H */
