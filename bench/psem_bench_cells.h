/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem_bench_cells.h: the one table of benchmark cells, variants and
 * operations, shared by the in-kernel benchmark (bench/psem_bench.c,
 * kthreads under QEMU) and the native one
 * (tools/psem-user/native/bench_native.c, pthreads on real cores).
 * psem_bench_loops.h holds the loop bodies and the round runner.
 *
 * Each of the two benchmarks is an environment layer around them. It
 * defines, before including this file:
 *
 *   BENCH_NR_REFS, bench_ref_names[]  its reference primitives, in the
 *                       order they run within a round (kernel: struct
 *                       semaphore & co; native: sem_t, pthread, condvar),
 *                       variants V_REFS + 0, 1, ...
 *   BENCH_HAVE_LATENCY  (kernel) the latency table's cells exist
 *   bench_ref_sem_t, bench_ref_down(), bench_ref_up(), bench_ref_lock_t,
 *   bench_ref_lock(), bench_ref_unlock()  the semaphore and the lock of
 *                       its references' pool (struct bench_ref_pool)
 *
 * and then, before including psem_bench_loops.h:
 *
 *   BENCH_FLOOR_CONTENTION  whether the floor runs in contention cells
 *   BENCH_MAX_THREAD_SETS, BENCH_CPUS_WHAT (how its CPUs are named)
 *   struct bench_obj    with at least sem, rw, mx, pool (psem's),
 *                       word (atomic_long_t), errors (atomic_t),
 *                       pool_items[BENCH_POOL_CAP], permits and count
 *   bench_val_t, struct bench_sample { ns, cpu_pct, vcsw_1k, ivcsw_1k }
 *   the parameters table, cells, threads, gaps, variants, iters,
 *   single_iters, rounds, short_gap, long_gap and stats
 *   bench_info(fmt, ...) one record, with "psem_bench: " in front
 *   bench_err(fmt, ...) one error message
 *   bench_calloc(), bench_free(), bench_strdup(), bench_trim(),
 *   bench_parse_uint(), bench_nr_cpus()
 *
 * and after it the functions psem_bench_loops.h declares: bench_ref_loop(),
 * bench_measure(), bench_median(), bench_fmt() and bench_after_round().
 * What a loop measures is the same in both: only the primitives beside
 * psem, the threads and the clocks differ.
 */
#ifndef PSEM_BENCH_CELLS_H
#define PSEM_BENCH_CELLS_H

/* Limits, so that every buffer is bounded, and the primitives' sizes. */
#define BENCH_MAX_ROUNDS	1000
#define BENCH_POOL_CAP		8
#define BENCH_SPARE_PERMITS	8
#define BENCH_RW_MAX		PSEM_RWLOCK_MAX_READERS

enum bench_table { T_CONTENTION, T_SINGLE, T_LATENCY, NR_TABLES };

static const char *const table_names[NR_TABLES] = {
	[T_CONTENTION]	= "contention",
	[T_SINGLE]	= "single",
	[T_LATENCY]	= "latency",
};

enum bench_gap_kind { G_NONE, G_SHORT, G_LONG, NR_GAPS };

static const char *const gap_names[NR_GAPS] = {
	[G_NONE]	= "none",
	[G_SHORT]	= "short",
	[G_LONG]	= "long",
};

/*
 * psem's release rules, selected with its switches (psem_knobs.h):
 *   locked            always-locked: fast_release=0, every release takes
 *                     the queue lock
 *   positive-balance  fast_release=1, zero_release=0, contention_flag=0:
 *                     lock-free only on a positive balance, the rule of
 *                     the original Rust pull request
 *   positive-balance+flag  the same with the contention flag
 *   psem              waiters-bit, the shipped defaults (all three on):
 *                     lock-free whenever nobody waits
 * then the environment's references (bench_ref_names[]) and the floor, a
 * bare compare-exchange pair.
 */
enum bench_variant {
	V_LOCKED, V_POSITIVE, V_POSITIVE_FLAG, V_PSEM,
	V_REFS,					/* bench_ref_names[0] */
	V_FLOOR = V_REFS + BENCH_NR_REFS,
	NR_VARIANTS
};

/* The names in the records; filled by bench_names_init(). */
static const char *variant_names[NR_VARIANTS];

static void bench_names_init(void)
{
	static const char *const psem_names[] = {
		[V_LOCKED]		= "locked",
		[V_POSITIVE]		= "positive-balance",
		[V_POSITIVE_FLAG]	= "positive-balance+flag",
		[V_PSEM]		= "psem",
	};
	int i;

	for (i = 0; i < V_REFS; i++)
		variant_names[i] = psem_names[i];
	for (i = 0; i < BENCH_NR_REFS; i++)
		variant_names[V_REFS + i] = bench_ref_names[i];
	variant_names[V_FLOOR] = "floor";
}

/* What runs a variant's loop: psem (its four rules), a reference, floor. */
enum bench_impl {
	IMPL_PSEM,
	IMPL_FLOOR = V_FLOOR - V_PSEM,
	NR_IMPL
};

static inline int variant_impl(enum bench_variant v)
{
	return v <= V_PSEM ? IMPL_PSEM : v - V_PSEM;
}

/* The operation a cell's loops repeat, whatever the primitive. */
enum bench_op {
	OP_RW_READ,	/* a read lock and unlock, then the gap */
	OP_RW_HELD,	/* a read lock, the gap, the unlock */
	OP_TAKE2,	/* take and give back two permits, then the gap */
	OP_TAKE1,	/* take and give back one permit, then the gap */
	OP_R8W1,	/* eight read locks, their unlocks, a write lock pair */
	OP_WRITE,	/* a write lock and unlock */
	OP_TRY,		/* try to take one permit, give it back */
	OP_POOL,	/* get an object from a pool of 8, put it back */
	OP_MUTEX,	/* a mutex lock and unlock */
	OP_NONE,	/* no loop (the latency table's own harness) */
	NR_OPS
};

/**
 * struct bench_cell - one row of the tables
 * @name:      the cell's name in the records and CSVs
 * @table:     contention (N threads, gaps), single (one thread, no gap)
 *             or latency
 * @op:        what its loops repeat
 * @permits:   the initial permits of the psem and the reference semaphore
 * @count:     the initial count of the floor's word and the native
 *             condvar semaphore (the readers' weight in the rwlock cells)
 * @needs_gap: a gap of "none" makes no sense (the gap is the held section)
 * @floor:     the floor runs in this cell (in contention cells only where
 *             BENCH_FLOOR_CONTENTION)
 */
struct bench_cell {
	const char		*name;
	enum bench_table	table;
	enum bench_op		op;
	long			permits;
	long			count;
	bool			needs_gap;
	bool			floor;
};

static const struct bench_cell bench_cells[] = {
	{ "rwlock_read", T_CONTENTION, OP_RW_READ, 0, BENCH_RW_MAX,
	  false, true },
	{ "rwlock_read_held_across_gap", T_CONTENTION, OP_RW_HELD, 0,
	  BENCH_RW_MAX, true, true },
	{ "semaphore_64_take_2", T_CONTENTION, OP_TAKE2, 64, 64, false, true },
	{ "semaphore_2_take_1", T_CONTENTION, OP_TAKE1, 2, 2, false, true },
	{ "read_reuse", T_SINGLE, OP_RW_READ, 0, BENCH_RW_MAX, false, false },
	{ "eight_reads_then_one_write", T_SINGLE, OP_R8W1, 0, BENCH_RW_MAX,
	  false, false },
	{ "uncontended", T_SINGLE, OP_WRITE, 0, BENCH_RW_MAX, false, false },
	{ "try_acquire_release_with_spare_permits", T_SINGLE, OP_TRY,
	  BENCH_SPARE_PERMITS, BENCH_SPARE_PERMITS, false, true },
	{ "try_acquire_release", T_SINGLE, OP_TRY, 1, 1, false, false },
	/* On a semaphore of one, so that every release finds a zero balance. */
	{ "acquire_release", T_SINGLE, OP_TAKE1, 1, 1, false, false },
	{ "bounded_warm_get_and_return_with_spare_capacity", T_SINGLE,
	  OP_POOL, BENCH_POOL_CAP, BENCH_POOL_CAP, false, false },
	{ "uncontended_reuse", T_SINGLE, OP_MUTEX, 0, 1, false, false },
#ifdef BENCH_HAVE_LATENCY
	/* The release-to-grant latency (bench_latency_run(), no loops). */
	{ "release_to_grant_async", T_LATENCY, OP_NONE },
	{ "release_to_grant_sleeping", T_LATENCY, OP_NONE },
	{ "release_to_grant_hardirq", T_LATENCY, OP_NONE },
#endif
};

#define NR_CELLS ARRAY_SIZE(bench_cells)

/*
 * The references' pool of OP_POOL, as a user of the environment's own
 * primitives writes one: a semaphore counts the objects of a stack under a
 * lock. The environment initialises it.
 */
struct bench_ref_pool {
	bench_ref_sem_t		sem;
	bench_ref_lock_t	lock;	/* protects nr and obj[] */
	unsigned int		nr;
	void			*obj[BENCH_POOL_CAP];
};

static void *bench_ref_pool_get(struct bench_ref_pool *p)
{
	void *obj;

	bench_ref_down(&p->sem);
	bench_ref_lock(&p->lock);
	obj = p->obj[--p->nr];
	bench_ref_unlock(&p->lock);
	return obj;
}

static void bench_ref_pool_put(struct bench_ref_pool *p, void *obj)
{
	bench_ref_lock(&p->lock);
	p->obj[p->nr++] = obj;
	bench_ref_unlock(&p->lock);
	bench_ref_up(&p->sem);
}

#endif /* PSEM_BENCH_CELLS_H */
