/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem_bench_floor.h: the floor's acquire and release, shared by the
 * benchmark loops (psem_bench_loops.h, in the kernel and natively) and
 * psem-shapes (tools/psem-user/native/shapes.c), whose release shapes are
 * set beside this one. Needs atomic_long_t and __always_inline first.
 */
#ifndef PSEM_BENCH_FLOOR_H
#define PSEM_BENCH_FLOOR_H

/*
 * The floor: the least an acquire/release pair can cost, a bare
 * compare-exchange pair on one word. Acquire on the take, release on the
 * give: the orders a semaphore needs.
 */
static __always_inline bool floor_acquire(atomic_long_t *w, long n)
{
	long cur = atomic_long_read(w);	/* relaxed: rechecked */

	do {
		if (cur < n)
			return false;
	} while (!atomic_long_try_cmpxchg_acquire(w, &cur, cur - n));
	return true;
}

static __always_inline void floor_release(atomic_long_t *w, long n)
{
	long cur = atomic_long_read(w);	/* relaxed: rechecked */

	/* Release: pairs with floor_acquire()'s acquire. */
	while (!atomic_long_try_cmpxchg_release(w, &cur, cur + n))
		;
}

#endif /* PSEM_BENCH_FLOOR_H */
