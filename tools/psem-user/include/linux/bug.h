/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: WARN*() print and count (psem_user_warnings()); the
 * harness fails a run that warned. BUG() aborts.
 */
#ifndef _PSEM_SHIM_LINUX_BUG_H
#define _PSEM_SHIM_LINUX_BUG_H

#include <stdlib.h>

#include <linux/build_bug.h>
#include <linux/compiler.h>

void psem_user_warn(const char *file, int line, const char *fmt, ...)
	__printf(3, 4);

#define WARN(cond, fmt...)						\
({									\
	bool __w = !!(cond);						\
	if (unlikely(__w))						\
		psem_user_warn(__FILE__, __LINE__, fmt);		\
	__w;								\
})
#define WARN_ONCE(cond, fmt...)	WARN(cond, fmt)
#define WARN_ON(cond)		WARN(cond, "WARN_ON(%s)\n", #cond)
#define WARN_ON_ONCE(cond)	WARN_ON(cond)
#define BUG()								\
	do { psem_user_warn(__FILE__, __LINE__, "BUG\n"); abort(); } while (0)
#define BUG_ON(cond)		do { if (unlikely(cond)) BUG(); } while (0)

#endif /* _PSEM_SHIM_LINUX_BUG_H */
