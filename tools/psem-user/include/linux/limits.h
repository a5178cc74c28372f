/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: glibc's own headers include <linux/limits.h> (the UAPI
 * one), so this one passes through to it and adds what the kernel's
 * version provides (LONG_MAX and friends).
 */
#ifndef _PSEM_SHIM_LINUX_LIMITS_H
#define _PSEM_SHIM_LINUX_LIMITS_H

#include_next <linux/limits.h>
#include <limits.h>
#include <stdint.h>

#ifndef S64_MAX
#define S64_MAX		INT64_MAX
#define S64_MIN		INT64_MIN
#define U64_MAX		UINT64_MAX
#define U32_MAX		UINT32_MAX
#endif

#endif /* _PSEM_SHIM_LINUX_LIMITS_H */
