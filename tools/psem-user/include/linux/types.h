/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: the kernel's fixed-size types and friends. */
#ifndef _PSEM_SHIM_LINUX_TYPES_H
#define _PSEM_SHIM_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include_next <linux/types.h>	/* __u32 and friends, for UAPI headers */

#include <linux/compiler.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef unsigned int gfp_t;
typedef long long loff_t_shim;

typedef struct {
	int counter;
} atomic_t;

typedef struct {
	long counter;
} atomic_long_t;

typedef struct {
	s64 counter;
} atomic64_t;

struct list_head {
	struct list_head *next, *prev;
};

#endif /* _PSEM_SHIM_LINUX_TYPES_H */
