/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: kmalloc and friends on the C library's allocator. */
#ifndef _PSEM_SHIM_LINUX_SLAB_H
#define _PSEM_SHIM_LINUX_SLAB_H

#include <stdlib.h>

#include <linux/gfp.h>
#include <linux/types.h>

static inline void *kmalloc(size_t size, gfp_t gfp)
{
	return (gfp & __GFP_ZERO) ? calloc(1, size) : malloc(size);
}

static inline void *kzalloc(size_t size, gfp_t gfp)
{
	return calloc(1, size);
}

static inline void *kmalloc_array(size_t n, size_t size, gfp_t gfp)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	return kmalloc(bytes, gfp);
}

static inline void *kcalloc(size_t n, size_t size, gfp_t gfp)
{
	return calloc(n, size);
}

static inline void kfree(const void *p)
{
	free((void *)p);
}

#endif /* _PSEM_SHIM_LINUX_SLAB_H */
