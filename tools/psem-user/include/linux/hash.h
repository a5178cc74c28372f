/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: the multiplicative hash of include/linux/hash.h. */
#ifndef _PSEM_SHIM_LINUX_HASH_H
#define _PSEM_SHIM_LINUX_HASH_H

#include <linux/types.h>

#define GOLDEN_RATIO_64 0x61C8864680B583EBull

static inline u64 hash_64(u64 val, unsigned int bits)
{
	return val * GOLDEN_RATIO_64 >> (64 - bits);
}

#define hash_long(val, bits)	hash_64((u64)(val), bits)
#define hash_ptr(p, bits)	hash_64((u64)(unsigned long)(p), bits)

#endif /* _PSEM_SHIM_LINUX_HASH_H */
