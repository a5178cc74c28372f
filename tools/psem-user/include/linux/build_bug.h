/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: compile-time assertions, as include/linux/build_bug.h. */
#ifndef _PSEM_SHIM_LINUX_BUILD_BUG_H
#define _PSEM_SHIM_LINUX_BUILD_BUG_H

#define BUILD_BUG_ON_ZERO(e)	((int)(sizeof(struct { int:(-!!(e)); })))
#define BUILD_BUG_ON_MSG(cond, msg) _Static_assert(!(cond), msg)
#define BUILD_BUG_ON(cond)						\
	((void)sizeof(char[1 - 2 * !!(cond)]))
#define BUILD_BUG()		BUILD_BUG_ON(1)
#undef static_assert
#define static_assert(expr, ...) __static_assert(expr, ##__VA_ARGS__, #expr)
#define __static_assert(expr, msg, ...) _Static_assert(expr, msg)

#endif /* _PSEM_SHIM_LINUX_BUILD_BUG_H */
