/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem_pool: a bounded pool of caller-provided objects, counted by a psem.
 */
#ifndef _PSEM_POOL_H
#define _PSEM_POOL_H

#include <linux/gfp.h>

#include "psem.h"

/**
 * struct psem_pool - a bounded pool of objects
 * @sem:      one permit per object in the pool and not yet claimed
 * @slots:    @capacity words, each an object pointer or 0 (empty)
 * @capacity: the number of objects the pool was given
 */
struct psem_pool {
	struct psem	sem;
	atomic_long_t	*slots;
	unsigned int	capacity;
};

int psem_pool_init(struct psem_pool *pool, void *const *objs,
		   unsigned int capacity, gfp_t gfp);
void psem_pool_destroy(struct psem_pool *pool);
void *psem_pool_get(struct psem_pool *pool);
int psem_pool_get_interruptible(struct psem_pool *pool, void **obj);
int psem_pool_get_killable(struct psem_pool *pool, void **obj);
void *psem_pool_try_get(struct psem_pool *pool);
int psem_pool_put(struct psem_pool *pool, void *obj);

#endif /* _PSEM_POOL_H */
