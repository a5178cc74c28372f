// SPDX-License-Identifier: GPL-2.0
/*
 * psem_pool: a bounded pool of caller-provided objects.
 *
 * The psem counts objects that are in the pool and not yet claimed; the
 * objects themselves sit in an array of slots, each a word holding an
 * object pointer or 0. No lock guards the slots:
 *
 *   get: take a permit, then claim any full slot with an exchange to 0;
 *   put: fill any empty slot with a compare-exchange from 0, then release
 *        the permit (lock-free while the pool holds other objects).
 *
 * A put fills its slot before it releases its permit and a get takes its
 * permit before it claims a slot, so at every instant the full slots
 * outnumber the permits available plus the gets between their two steps:
 * a get that holds a permit always finds an object, and a put always finds
 * an empty slot (the object it returns came out of one).
 *
 * ABA cannot bite: each exchange decides on the one word it changes and
 * reads no other. A slot that was emptied and refilled with the same object
 * between a reader's look and its exchange really does hold that object
 * when the exchange succeeds. There is no next pointer to go stale, as
 * there is in a lock-free stack such as llist_del_first(), which is why
 * that is not used here.
 *
 * Ordering: the psem orders a put's release after its slot write, and a
 * get's slot read after its acquire. The object a get finds may have been
 * put by another task than the one whose release it acquired, so the slot
 * operations order the object too: a put fills with a RELEASE
 * compare-exchange, a get claims with an ACQUIRE exchange; they pair on the
 * slot word, so what the putter wrote to the object is visible to the getter.
 */

#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "psem_queue.h"
#include "psem_pool.h"

/**
 * psem_pool_init - fill a pool with objects
 * @pool:     the pool
 * @objs:     @capacity distinct, non-NULL object pointers
 * @capacity: the number of objects, at least 1
 * @gfp:      allocation flags for the slot array
 *
 * Return: 0, -EINVAL for a zero capacity or a NULL object, or -ENOMEM.
 */
int psem_pool_init(struct psem_pool *pool, void *const *objs,
		   unsigned int capacity, gfp_t gfp)
{
	unsigned int i;

	if (!capacity && psem_refuse("pool of capacity 0\n"))
		return -EINVAL;
	for (i = 0; i < capacity; i++)
		if (!objs[i] && psem_refuse("pool object %u is NULL\n", i))
			return -EINVAL;
	pool->slots = kmalloc_array(capacity, sizeof(*pool->slots), gfp);
	if (!pool->slots)
		return -ENOMEM;
	for (i = 0; i < capacity; i++)
		/* Unordered: the pool is published by the caller. */
		atomic_long_set(&pool->slots[i], (unsigned long)objs[i]);
	pool->capacity = capacity;
	psem_init(&pool->sem, capacity);
	return 0;
}
EXPORT_SYMBOL_PSEM(psem_pool_init);

/**
 * psem_pool_destroy - free a pool's slots
 * @pool: the pool, with every object back in it
 *
 * First waits until psem has let go of the pool (psem_sync()): a put from
 * NMI or a hard-only IRQ may still be handing its object over through the
 * irq_work. Then the pool may be freed. The objects belong to the caller
 * and are not freed. Warns if some are still out. Process context; sleeps.
 */
void psem_pool_destroy(struct psem_pool *pool)
{
	long in;

	psem_sync(&pool->sem);
	in = psem_available(&pool->sem);

	if (in != pool->capacity)
		psem_refuse("pool destroyed with %ld of %u objects out\n",
			    pool->capacity - in, pool->capacity);
	kfree(pool->slots);
	pool->slots = NULL;
}
EXPORT_SYMBOL_PSEM(psem_pool_destroy);

/* Spreads CPUs over the slots so that they do not all probe slot 0. */
static unsigned int psem_pool_start(const struct psem_pool *pool)
{
	return raw_smp_processor_id() % pool->capacity;
}

/* With a permit held: claim a full slot. One exists (see the top). */
static void *psem_pool_claim(struct psem_pool *pool)
{
	unsigned int i = psem_pool_start(pool);

	for (;;) {
		atomic_long_t *slot = &pool->slots[i];

		/*
		 * A relaxed look first, so that a probe of an empty slot does
		 * not write it. ACQUIRE on the exchange: pairs with the RELEASE
		 * fill in psem_pool_put().
		 */
		if (atomic_long_read(slot)) {
			unsigned long obj = atomic_long_xchg_acquire(slot, 0);

			if (obj)
				return (void *)obj;
		}
		if (++i == pool->capacity)
			i = 0;
	}
}

/**
 * psem_pool_get - take an object, sleeping until one is free
 * @pool: the pool
 *
 * FIFO among sleepers. Process context only.
 *
 * Return: the object.
 */
void *psem_pool_get(struct psem_pool *pool)
{
	/*
	 * One permit of a psem that nothing closes and nothing shrinks: the
	 * acquire cannot fail. Were it ever to, no object is claimed.
	 */
	if (WARN_ON_ONCE(psem_acquire(&pool->sem, 1)))
		return NULL;
	return psem_pool_claim(pool);
}
EXPORT_SYMBOL_PSEM(psem_pool_get);

/**
 * psem_pool_get_interruptible - take an object, or give up on a signal
 * @pool: the pool
 * @obj:  where to store the object
 *
 * Return: 0, or -EINTR (nothing taken, @obj untouched).
 */
int psem_pool_get_interruptible(struct psem_pool *pool, void **obj)
{
	int ret = psem_acquire_interruptible(&pool->sem, 1);

	if (!ret)
		*obj = psem_pool_claim(pool);
	return ret;
}
EXPORT_SYMBOL_PSEM(psem_pool_get_interruptible);

/**
 * psem_pool_get_killable - take an object, or give up on a fatal signal
 * @pool: the pool
 * @obj:  where to store the object
 *
 * Return: 0, or -EINTR (nothing taken, @obj untouched).
 */
int psem_pool_get_killable(struct psem_pool *pool, void **obj)
{
	int ret = psem_acquire_killable(&pool->sem, 1);

	if (!ret)
		*obj = psem_pool_claim(pool);
	return ret;
}
EXPORT_SYMBOL_PSEM(psem_pool_get_killable);

/**
 * psem_pool_try_get - take an object if one is free now
 * @pool: the pool
 *
 * Never sleeps, never locks; any context.
 *
 * Return: the object, or NULL if the pool is empty or has sleepers.
 */
void *psem_pool_try_get(struct psem_pool *pool)
{
	if (!psem_try_acquire(&pool->sem, 1))
		return NULL;
	return psem_pool_claim(pool);
}
EXPORT_SYMBOL_PSEM(psem_pool_try_get);

/*
 * Debug kernels (CONFIG_DEBUG_OBJECTS, the kernel's object state tracking)
 * catch an object put twice: a put whose object still sits in a slot is
 * refused. It reads every slot, so a kernel without it does not pay for it:
 * the check compiles away. Best effort, as DEBUG_LIST's checks are: two puts
 * of one object that race each other can both pass it; a put that follows
 * the first one is always caught.
 */
static bool psem_pool_holds(const struct psem_pool *pool, void *obj)
{
	unsigned int i;

	if (!IS_ENABLED(CONFIG_DEBUG_OBJECTS))
		return false;
	for (i = 0; i < pool->capacity; i++)
		/* Relaxed: a snapshot, as the check is. */
		if (atomic_long_read(&pool->slots[i]) == (unsigned long)obj)
			return true;
	return false;
}

/**
 * psem_pool_put - return an object to the pool
 * @pool: the pool
 * @obj:  an object taken from it
 *
 * Hands the object to the oldest sleeper, if any. Lock-free while the pool
 * holds other objects. Never sleeps; any context.
 *
 * Return: 0, or -EINVAL (with a warning, nothing changed) for a NULL
 * object, a put into a pool that holds every object already, or, with
 * CONFIG_DEBUG_OBJECTS, an object that is in the pool already (a double
 * put, which would hand one object to two getters).
 */
int psem_pool_put(struct psem_pool *pool, void *obj)
{
	unsigned int i, probed = 0;

	if (!obj && psem_refuse("put of NULL into pool %p\n", pool))
		return -EINVAL;
	if (psem_pool_holds(pool, obj) &&
	    psem_refuse("double put of %p into pool %p\n", obj, pool))
		return -EINVAL;
	i = psem_pool_start(pool);
	for (;;) {
		long empty = 0;

		/*
		 * A relaxed look first, as in psem_pool_claim(). RELEASE on
		 * the exchange: orders the caller's writes to @obj before the
		 * slot; pairs with the ACQUIRE claim in psem_pool_claim().
		 */
		if (!atomic_long_read(&pool->slots[i]) &&
		    atomic_long_try_cmpxchg_release(&pool->slots[i], &empty,
						    (unsigned long)obj))
			break;
		if (++i == pool->capacity)
			i = 0;
		/* A full pool after a whole pass: a put without a get. */
		if (++probed % pool->capacity == 0 &&
		    psem_home(&pool->sem) >= pool->capacity &&
		    psem_refuse("put into full pool %p\n", pool))
			return -EINVAL;
	}
	return psem_release(&pool->sem, 1);
}
EXPORT_SYMBOL_PSEM(psem_pool_put);
