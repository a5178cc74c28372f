// SPDX-License-Identifier: GPL-2.0
/*
 * bench_native: the seed's contention probe and single-thread rows on this
 * machine's real cores, with the unmodified kmod/ sources built against
 * the userspace shim, for psem's four release rules side by side with the
 * primitives a userspace developer would pick instead: glibc's sem_t,
 * pthread_rwlock and pthread_mutex, a textbook mutex+condvar counting
 * semaphore, and the floor (a bare compare-exchange pair). It mirrors
 * bench/psem_bench.c cell for cell and prints the same records, so that
 * scripts/bench_table.py's parser reads them:
 *
 *   psem_bench: begin,key=value,...
 *   psem_bench: round,TABLE,CELL,THREADS,GAP,VARIANT,ROUND,NS,CPU_PCT,VCSW_1K,IVCSW_1K
 *   psem_bench: insns,TABLE,CELL,THREADS,GAP,VARIANT,ROUND,INSNS_PER_ITER
 *   psem_bench: csv,TABLE,CELL,THREADS,GAP,VARIANT,MEDIAN,MIN,MAX,ROUNDS,CPU_PCT,CSW_1K,
 *   psem_bench: stats,TABLE,CELL,THREADS,GAP,VARIANT,name=count,...
 *   psem_bench: end,ok|failed,MS ms,measurements=N,cells=N,spin_yields=N
 *
 * Method, as in the kernel benchmark: a measurement runs N threads, each
 * pinned to its own CPU of the process's affinity mask (the first N; the
 * last one for a single thread). They sleep until all have been told to
 * start, spin on a counter until all have woken, then run the same loop of
 * @iters iterations on one primitive, timed with CLOCK_MONOTONIC. The
 * value of a round is the mean over the threads of their ns per iteration.
 * Variants are interleaved within each round; psem's are switched with its
 * knobs (tools/psem-user/psem_knobs_user.c) between measurements, never
 * during one. Every measurement gets freshly initialised primitives,
 * checked afterwards (each back to its initial count, nothing held, no
 * failed try): a mismatch fails the run.
 *
 * Each thread also reports its CPU time (CLOCK_THREAD_CPUTIME_ID) as a
 * share of its wall time from wake-up to the end of the loop, and its
 * voluntary and involuntary context switches (getrusage(RUSAGE_THREAD))
 * per 1,000 iterations. With --insns, single-thread rows also count the
 * loop's user-space instructions with a perf_event_open() counter (the
 * counter perf stat -e instructions:u reads), where the machine has one.
 *
 * Usage: psem-bench-native [--table contention,single] [--cells LIST]
 *        [--threads 1,2,...] [--gaps none,short,long] [--variants LIST]
 *        [--iters N] [--single-iters N] [--rounds N] [--short-gap N]
 *        [--long-gap N] [--insns] [--stats] [--list]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <linux/kernel.h>
#include <linux/sched.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_mutex.h"
#include "psem_pool.h"
#include "psem_rwlock.h"
#include "psem-user.h"

#define BENCH_MAX_ROUNDS	1000
#define BENCH_MAX_THREADS	256
#define BENCH_MAX_THREAD_SETS	16
#define BENCH_POOL_CAP		8
#define BENCH_SPARE_PERMITS	8
#define BENCH_RW_MAX		PSEM_RWLOCK_MAX_READERS
#define BENCH_LINE		64

/* The CPU this thread is pinned to: raw_smp_processor_id() (include/). */
__thread int psem_native_cpu;

/* Spin waits that gave up their CPU once (include/linux/spinlock.h). */
unsigned long psem_native_spin_yields;

/*
 * The ticket lock's wait: spin with PAUSE until our ticket is served. A
 * holder preempted by the host's scheduler (which never happens to a
 * kernel spinlock holder) would make this spin for a whole time slice:
 * after 2^16 PAUSEs, yield once and count it.
 */
void psem_native_spin_wait(spinlock_t *lock, u16 ticket)
{
	unsigned long spins = 0;

	/* Acquire: pairs with the release store of psem_native_spin_unlock(). */
	while (__atomic_load_n(&lock->owner, __ATOMIC_ACQUIRE) != ticket) {
		__builtin_ia32_pause();
		if (unlikely(++spins == 1UL << 16)) {
			/* A statistic: orders nothing. */
			__atomic_fetch_add(&psem_native_spin_yields, 1,
					   __ATOMIC_RELAXED);
			sched_yield();
			spins = 0;
		}
	}
}

/* ------------------------------------------------------------------ */
/* Parameters                                                         */
/* ------------------------------------------------------------------ */

static const char *opt_table = "contention,single";
static const char *opt_cells = "all";
static const char *opt_threads = "2";
static const char *opt_gaps = "none,short,long";
static const char *opt_variants = "all";
static unsigned int opt_iters = 200000;
static unsigned int opt_single_iters = 200000;
static unsigned int opt_rounds = 15;
static unsigned int opt_short_gap = 50;
static unsigned int opt_long_gap = 200;
static bool opt_insns;
static bool opt_stats;

/* ------------------------------------------------------------------ */
/* The primitives under test                                          */
/* ------------------------------------------------------------------ */

/*
 * The textbook counting semaphore: a count under a pthread mutex, and a
 * condition variable to wait on while it is short. What a userspace
 * developer writes first; the textbook "locked" baseline.
 */
struct cv_sem {
	pthread_mutex_t	m;
	pthread_cond_t	c;
	long		count;		/* under m */
	long		waiters;	/* under m */
	unsigned int	nr;		/* the pool's stack, under m */
	void		*obj[BENCH_POOL_CAP];
};

static void cv_init(struct cv_sem *s, long count)
{
	pthread_mutex_init(&s->m, NULL);
	pthread_cond_init(&s->c, NULL);
	s->count = count;
	s->waiters = 0;
}

static void cv_acquire(struct cv_sem *s, long n)
{
	pthread_mutex_lock(&s->m);
	while (s->count < n) {
		s->waiters++;
		pthread_cond_wait(&s->c, &s->m);
		s->waiters--;
	}
	s->count -= n;
	pthread_mutex_unlock(&s->m);
}

static bool cv_try_acquire(struct cv_sem *s, long n)
{
	bool ok;

	pthread_mutex_lock(&s->m);
	ok = s->count >= n;
	if (ok)
		s->count -= n;
	pthread_mutex_unlock(&s->m);
	return ok;
}

static void cv_release(struct cv_sem *s, long n)
{
	pthread_mutex_lock(&s->m);
	s->count += n;
	if (s->waiters)
		pthread_cond_broadcast(&s->c);
	pthread_mutex_unlock(&s->m);
}

/* The textbook pool: the same mutex guards the count and the stack. */
static void *cv_pool_get(struct cv_sem *s)
{
	void *obj;

	pthread_mutex_lock(&s->m);
	while (!s->count) {
		s->waiters++;
		pthread_cond_wait(&s->c, &s->m);
		s->waiters--;
	}
	s->count--;
	obj = s->obj[--s->nr];
	pthread_mutex_unlock(&s->m);
	return obj;
}

static void cv_pool_put(struct cv_sem *s, void *obj)
{
	pthread_mutex_lock(&s->m);
	s->obj[s->nr++] = obj;
	s->count++;
	if (s->waiters)
		pthread_cond_signal(&s->c);
	pthread_mutex_unlock(&s->m);
}

/* The sem_t pool: the kernel benchmark's down + locked stack + up. */
struct u_pool {
	sem_t		sem;
	pthread_mutex_t	lock;	/* protects nr and obj[] */
	unsigned int	nr;
	void		*obj[BENCH_POOL_CAP];
};

static void *u_pool_get(struct u_pool *p)
{
	void *obj;

	while (sem_wait(&p->sem))
		;
	pthread_mutex_lock(&p->lock);
	obj = p->obj[--p->nr];
	pthread_mutex_unlock(&p->lock);
	return obj;
}

static void u_pool_put(struct u_pool *p, void *obj)
{
	pthread_mutex_lock(&p->lock);
	p->obj[p->nr++] = obj;
	pthread_mutex_unlock(&p->lock);
	sem_post(&p->sem);
}

/*
 * Everything one measurement may use, each primitive on its own cache
 * line. Allocated afresh for every measurement.
 */
struct bench_obj {
	struct psem		sem ____cacheline_aligned_in_smp;
	struct psem_rwlock	rw ____cacheline_aligned_in_smp;
	struct psem_mutex	mx ____cacheline_aligned_in_smp;
	struct psem_pool	pool ____cacheline_aligned_in_smp;
	sem_t			usem ____cacheline_aligned_in_smp;
	pthread_rwlock_t	urw ____cacheline_aligned_in_smp;
	pthread_mutex_t		umx ____cacheline_aligned_in_smp;
	struct u_pool		upool ____cacheline_aligned_in_smp;
	struct cv_sem		cv ____cacheline_aligned_in_smp;
	long			word ____cacheline_aligned_in_smp;
	int			errors ____cacheline_aligned_in_smp;
	unsigned long		pool_items[BENCH_POOL_CAP];
	long			permits;	/* psem's and sem_t's */
	long			count;		/* the condvar's and the floor's */
};

/*
 * The gap: a chain of dependent multiply-adds; the empty asm keeps every
 * step opaque (the kernel's OPTIMIZER_HIDE_VAR()).
 */
static noinline u64 bench_gap(u64 x, unsigned int steps)
{
	unsigned int i;

	for (i = 0; i < steps; i++) {
		x = x * 0x5851f42d4c957f2dULL + 0x14057b7ef767814fULL;
		__asm__ ("" : "+r" (x));
	}
	return x;
}

static __always_inline u64 bench_maybe_gap(u64 x, unsigned int steps)
{
	return steps ? bench_gap(x, steps) : x;
}

/*
 * The floor: a bare compare-exchange pair on one word, each out of line as
 * psem's calls are. Acquire on the take, release on the give: the orders a
 * semaphore needs, pairing with each other.
 */
static noinline bool floor_acquire(long *w, long n)
{
	long cur = __atomic_load_n(w, __ATOMIC_RELAXED);

	do {
		if (cur < n)
			return false;
	} while (!__atomic_compare_exchange_n(w, &cur, cur - n, false,
					      __ATOMIC_ACQUIRE,
					      __ATOMIC_RELAXED));
	return true;
}

static noinline void floor_release(long *w, long n)
{
	long cur = __atomic_load_n(w, __ATOMIC_RELAXED);

	/* Release: pairs with floor_acquire()'s acquire. */
	while (!__atomic_compare_exchange_n(w, &cur, cur + n, false,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

static void bench_error(struct bench_obj *o)
{
	/* A count read after the threads are joined: orders nothing. */
	__atomic_fetch_add(&o->errors, 1, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ */
/* Loops: one per cell and implementation                             */
/* ------------------------------------------------------------------ */

enum bench_impl {
	IMPL_PSEM, IMPL_SEMT, IMPL_PTHREAD, IMPL_CONDVAR, IMPL_FLOOR, NR_IMPL
};

typedef u64 (*bench_loop_t)(struct bench_obj *o, unsigned int n,
			    unsigned int steps, u64 x);

/*
 * The loops, one per cell and implementation: @n iterations, the gap of
 * @steps between a release and the next acquire (inside the read section
 * in the held cell), @x the gap chain's value.
 */

/* contention: rwlock_read; single: read_reuse (no gap) */
static u64 loop_rw_read_psem(struct bench_obj *o, unsigned int n,
			     unsigned int steps, u64 x)
{
	while (n--) {
		psem_read_lock(&o->rw);
		psem_read_unlock(&o->rw);
		x = bench_maybe_gap(x, steps);
	}
	return x;
}

static u64 loop_rw_read_pthread(struct bench_obj *o, unsigned int n,
				unsigned int steps, u64 x)
{
	while (n--) {
		pthread_rwlock_rdlock(&o->urw);
		pthread_rwlock_unlock(&o->urw);
		x = bench_maybe_gap(x, steps);
	}
	return x;
}

static u64 loop_rw_read_condvar(struct bench_obj *o, unsigned int n,
				unsigned int steps, u64 x)
{
	while (n--) {
		cv_acquire(&o->cv, 1);
		cv_release(&o->cv, 1);
		x = bench_maybe_gap(x, steps);
	}
	return x;
}

static u64 loop_rw_read_floor(struct bench_obj *o, unsigned int n,
			      unsigned int steps, u64 x)
{
	while (n--) {
		if (unlikely(!floor_acquire(&o->word, 1))) {
			bench_error(o);
			continue;
		}
		floor_release(&o->word, 1);
		x = bench_maybe_gap(x, steps);
	}
	return x;
}

/* contention: rwlock_read_held_across_gap */
static u64 loop_rw_held_psem(struct bench_obj *o, unsigned int n,
			     unsigned int steps, u64 x)
{
	while (n--) {
		psem_read_lock(&o->rw);
		x = bench_maybe_gap(x, steps);
		psem_read_unlock(&o->rw);
	}
	return x;
}

static u64 loop_rw_held_pthread(struct bench_obj *o, unsigned int n,
				unsigned int steps, u64 x)
{
	while (n--) {
		pthread_rwlock_rdlock(&o->urw);
		x = bench_maybe_gap(x, steps);
		pthread_rwlock_unlock(&o->urw);
	}
	return x;
}

static u64 loop_rw_held_condvar(struct bench_obj *o, unsigned int n,
				unsigned int steps, u64 x)
{
	while (n--) {
		cv_acquire(&o->cv, 1);
		x = bench_maybe_gap(x, steps);
		cv_release(&o->cv, 1);
	}
	return x;
}

static u64 loop_rw_held_floor(struct bench_obj *o, unsigned int n,
			      unsigned int steps, u64 x)
{
	while (n--) {
		if (unlikely(!floor_acquire(&o->word, 1))) {
			bench_error(o);
			continue;
		}
		x = bench_maybe_gap(x, steps);
		floor_release(&o->word, 1);
	}
	return x;
}

/* contention: semaphore_64_take_2 (sem_t takes one permit per sem_wait) */
static u64 loop_take2_psem(struct bench_obj *o, unsigned int n,
			   unsigned int steps, u64 x)
{
	while (n--) {
		if (unlikely(psem_acquire(&o->sem, 2))) {
			bench_error(o);
			continue;
		}
		psem_release(&o->sem, 2);
		x = bench_maybe_gap(x, steps);
	}
	return x;
}

static u64 loop_take2_semt(struct bench_obj *o, unsigned int n,
			   unsigned int steps, u64 x)
{
	while (n--) {
		sem_wait(&o->usem);
		sem_wait(&o->usem);
		sem_post(&o->usem);
		sem_post(&o->usem);
		x = bench_maybe_gap(x, steps);
	}
	return x;
}

static u64 loop_take2_condvar(struct bench_obj *o, unsigned int n,
			      unsigned int steps, u64 x)
{
	while (n--) {
		cv_acquire(&o->cv, 2);
		cv_release(&o->cv, 2);
		x = bench_maybe_gap(x, steps);
	}
	return x;
}

static u64 loop_take2_floor(struct bench_obj *o, unsigned int n,
			    unsigned int steps, u64 x)
{
	while (n--) {
		if (unlikely(!floor_acquire(&o->word, 2))) {
			bench_error(o);
			continue;
		}
		floor_release(&o->word, 2);
		x = bench_maybe_gap(x, steps);
	}
	return x;
}

/* contention: semaphore_2_take_1; single: acquire_release (one permit) */
static u64 loop_take1_psem(struct bench_obj *o, unsigned int n,
			   unsigned int steps, u64 x)
{
	while (n--) {
		if (unlikely(psem_acquire(&o->sem, 1))) {
			bench_error(o);
			continue;
		}
		psem_release(&o->sem, 1);
		x = bench_maybe_gap(x, steps);
	}
	return x;
}

static u64 loop_take1_semt(struct bench_obj *o, unsigned int n,
			   unsigned int steps, u64 x)
{
	while (n--) {
		sem_wait(&o->usem);
		sem_post(&o->usem);
		x = bench_maybe_gap(x, steps);
	}
	return x;
}

static u64 loop_take1_condvar(struct bench_obj *o, unsigned int n,
			      unsigned int steps, u64 x)
{
	while (n--) {
		cv_acquire(&o->cv, 1);
		cv_release(&o->cv, 1);
		x = bench_maybe_gap(x, steps);
	}
	return x;
}

static u64 loop_take1_floor(struct bench_obj *o, unsigned int n,
			    unsigned int steps, u64 x)
{
	while (n--) {
		if (unlikely(!floor_acquire(&o->word, 1))) {
			bench_error(o);
			continue;
		}
		floor_release(&o->word, 1);
		x = bench_maybe_gap(x, steps);
	}
	return x;
}

/* single: eight_reads_then_one_write */
static u64 loop_r8w1_psem(struct bench_obj *o, unsigned int n,
			  unsigned int steps, u64 x)
{
	int i;

	while (n--) {
		for (i = 0; i < 8; i++)
			psem_read_lock(&o->rw);
		for (i = 0; i < 8; i++)
			psem_read_unlock(&o->rw);
		psem_write_lock(&o->rw);
		psem_write_unlock(&o->rw);
	}
	return x;
}

static u64 loop_r8w1_pthread(struct bench_obj *o, unsigned int n,
			     unsigned int steps, u64 x)
{
	int i;

	while (n--) {
		for (i = 0; i < 8; i++)
			pthread_rwlock_rdlock(&o->urw);
		for (i = 0; i < 8; i++)
			pthread_rwlock_unlock(&o->urw);
		pthread_rwlock_wrlock(&o->urw);
		pthread_rwlock_unlock(&o->urw);
	}
	return x;
}

static u64 loop_r8w1_condvar(struct bench_obj *o, unsigned int n,
			     unsigned int steps, u64 x)
{
	int i;

	while (n--) {
		for (i = 0; i < 8; i++)
			cv_acquire(&o->cv, 1);
		for (i = 0; i < 8; i++)
			cv_release(&o->cv, 1);
		cv_acquire(&o->cv, BENCH_RW_MAX);
		cv_release(&o->cv, BENCH_RW_MAX);
	}
	return x;
}

/* single: rwlock::write::uncontended */
static u64 loop_write_psem(struct bench_obj *o, unsigned int n,
			   unsigned int steps, u64 x)
{
	while (n--) {
		psem_write_lock(&o->rw);
		psem_write_unlock(&o->rw);
	}
	return x;
}

static u64 loop_write_pthread(struct bench_obj *o, unsigned int n,
			      unsigned int steps, u64 x)
{
	while (n--) {
		pthread_rwlock_wrlock(&o->urw);
		pthread_rwlock_unlock(&o->urw);
	}
	return x;
}

static u64 loop_write_condvar(struct bench_obj *o, unsigned int n,
			      unsigned int steps, u64 x)
{
	while (n--) {
		cv_acquire(&o->cv, BENCH_RW_MAX);
		cv_release(&o->cv, BENCH_RW_MAX);
	}
	return x;
}

/* single: try_acquire_release (one permit) and ..._with_spare_permits */
static u64 loop_try_psem(struct bench_obj *o, unsigned int n,
			 unsigned int steps, u64 x)
{
	while (n--) {
		if (unlikely(!psem_try_acquire(&o->sem, 1))) {
			bench_error(o);
			continue;
		}
		psem_release(&o->sem, 1);
	}
	return x;
}

static u64 loop_try_semt(struct bench_obj *o, unsigned int n,
			 unsigned int steps, u64 x)
{
	while (n--) {
		if (unlikely(sem_trywait(&o->usem))) {
			bench_error(o);
			continue;
		}
		sem_post(&o->usem);
	}
	return x;
}

static u64 loop_try_condvar(struct bench_obj *o, unsigned int n,
			    unsigned int steps, u64 x)
{
	while (n--) {
		if (unlikely(!cv_try_acquire(&o->cv, 1))) {
			bench_error(o);
			continue;
		}
		cv_release(&o->cv, 1);
	}
	return x;
}

static u64 loop_try_floor(struct bench_obj *o, unsigned int n,
			  unsigned int steps, u64 x)
{
	while (n--) {
		if (unlikely(!floor_acquire(&o->word, 1))) {
			bench_error(o);
			continue;
		}
		floor_release(&o->word, 1);
	}
	return x;
}

/* single: bounded_warm_get_and_return_with_spare_capacity */
static u64 loop_pool_psem(struct bench_obj *o, unsigned int n,
			  unsigned int steps, u64 x)
{
	void *obj;

	while (n--) {
		obj = psem_pool_get(&o->pool);
		if (unlikely(psem_pool_put(&o->pool, obj)))
			bench_error(o);
	}
	return x;
}

static u64 loop_pool_semt(struct bench_obj *o, unsigned int n,
			  unsigned int steps, u64 x)
{
	void *obj;

	while (n--) {
		obj = u_pool_get(&o->upool);
		u_pool_put(&o->upool, obj);
	}
	return x;
}

static u64 loop_pool_condvar(struct bench_obj *o, unsigned int n,
			     unsigned int steps, u64 x)
{
	void *obj;

	while (n--) {
		obj = cv_pool_get(&o->cv);
		cv_pool_put(&o->cv, obj);
	}
	return x;
}

/* single: mutex::lock::uncontended_reuse */
static u64 loop_mutex_psem(struct bench_obj *o, unsigned int n,
			   unsigned int steps, u64 x)
{
	while (n--) {
		psem_mutex_lock(&o->mx);
		psem_mutex_unlock(&o->mx);
	}
	return x;
}

static u64 loop_mutex_pthread(struct bench_obj *o, unsigned int n,
			      unsigned int steps, u64 x)
{
	while (n--) {
		pthread_mutex_lock(&o->umx);
		pthread_mutex_unlock(&o->umx);
	}
	return x;
}

static u64 loop_mutex_condvar(struct bench_obj *o, unsigned int n,
			      unsigned int steps, u64 x)
{
	while (n--) {
		cv_acquire(&o->cv, 1);
		cv_release(&o->cv, 1);
	}
	return x;
}

/* ------------------------------------------------------------------ */
/* Cells and variants                                                 */
/* ------------------------------------------------------------------ */

enum bench_table { T_CONTENTION, T_SINGLE, NR_TABLES };

static const char *const table_names[NR_TABLES] = {
	[T_CONTENTION]	= "contention",
	[T_SINGLE]	= "single",
};

enum bench_gap_kind { G_NONE, G_SHORT, G_LONG, NR_GAPS };

static const char *const gap_names[NR_GAPS] = {
	[G_NONE]	= "none",
	[G_SHORT]	= "short",
	[G_LONG]	= "long",
};

/*
 * psem's release rules, as in bench/psem_bench.c (locked, seed, seed+flag,
 * psem), then the userspace references:
 *   sem_t      glibc's semaphore (sem_wait/sem_trywait/sem_post)
 *   pthread    pthread_rwlock (rwlock cells) or pthread_mutex (mutex row)
 *   condvar    the textbook mutex+condvar counting semaphore
 *   floor      a bare compare-exchange pair
 */
enum bench_variant {
	V_LOCKED, V_SEED, V_SEED_FLAG, V_PSEM, V_SEMT, V_PTHREAD, V_CONDVAR,
	V_FLOOR, NR_VARIANTS
};

static const char *const variant_names[NR_VARIANTS] = {
	[V_LOCKED]	= "locked",
	[V_SEED]	= "seed",
	[V_SEED_FLAG]	= "seed+flag",
	[V_PSEM]	= "psem",
	[V_SEMT]	= "sem_t",
	[V_PTHREAD]	= "pthread",
	[V_CONDVAR]	= "condvar",
	[V_FLOOR]	= "floor",
};

/**
 * struct bench_cell - one row of the seed's tables
 * @name:      the cell's name in the CSV (bench/psem_bench.c's)
 * @table:     contention (N threads, gaps) or single (one thread, no gap)
 * @permits:   the initial permits of the psem and the sem_t
 * @count:     the initial count of the condvar semaphore and the floor
 * @needs_gap: a gap of "none" makes no sense (the gap is the held section)
 * @loop:      the loop per implementation; NULL where it has none
 */
struct bench_cell {
	const char		*name;
	enum bench_table	table;
	long			permits;
	long			count;
	bool			needs_gap;
	bench_loop_t		loop[NR_IMPL];
};

#define IMPLS(p, s, t, c, f)						\
	{ [IMPL_PSEM] = p, [IMPL_SEMT] = s, [IMPL_PTHREAD] = t,		\
	  [IMPL_CONDVAR] = c, [IMPL_FLOOR] = f }

static const struct bench_cell bench_cells[] = {
	{ "rwlock_read", T_CONTENTION, 0, BENCH_RW_MAX, false,
	  IMPLS(loop_rw_read_psem, NULL, loop_rw_read_pthread,
		loop_rw_read_condvar, loop_rw_read_floor) },
	{ "rwlock_read_held_across_gap", T_CONTENTION, 0, BENCH_RW_MAX, true,
	  IMPLS(loop_rw_held_psem, NULL, loop_rw_held_pthread,
		loop_rw_held_condvar, loop_rw_held_floor) },
	{ "semaphore_64_take_2", T_CONTENTION, 64, 64, false,
	  IMPLS(loop_take2_psem, loop_take2_semt, NULL,
		loop_take2_condvar, loop_take2_floor) },
	{ "semaphore_2_take_1", T_CONTENTION, 2, 2, false,
	  IMPLS(loop_take1_psem, loop_take1_semt, NULL,
		loop_take1_condvar, loop_take1_floor) },
	{ "read_reuse", T_SINGLE, 0, BENCH_RW_MAX, false,
	  IMPLS(loop_rw_read_psem, NULL, loop_rw_read_pthread,
		loop_rw_read_condvar, NULL) },
	{ "eight_reads_then_one_write", T_SINGLE, 0, BENCH_RW_MAX, false,
	  IMPLS(loop_r8w1_psem, NULL, loop_r8w1_pthread, loop_r8w1_condvar,
		NULL) },
	{ "uncontended", T_SINGLE, 0, BENCH_RW_MAX, false,
	  IMPLS(loop_write_psem, NULL, loop_write_pthread,
		loop_write_condvar, NULL) },
	{ "try_acquire_release_with_spare_permits", T_SINGLE,
	  BENCH_SPARE_PERMITS, BENCH_SPARE_PERMITS, false,
	  IMPLS(loop_try_psem, loop_try_semt, NULL, loop_try_condvar,
		loop_try_floor) },
	{ "try_acquire_release", T_SINGLE, 1, 1, false,
	  IMPLS(loop_try_psem, loop_try_semt, NULL, loop_try_condvar, NULL) },
	{ "acquire_release", T_SINGLE, 1, 1, false,
	  IMPLS(loop_take1_psem, loop_take1_semt, NULL, loop_take1_condvar,
		NULL) },
	{ "bounded_warm_get_and_return_with_spare_capacity", T_SINGLE,
	  BENCH_POOL_CAP, BENCH_POOL_CAP, false,
	  IMPLS(loop_pool_psem, loop_pool_semt, NULL, loop_pool_condvar,
		NULL) },
	{ "uncontended_reuse", T_SINGLE, 0, 1, false,
	  IMPLS(loop_mutex_psem, NULL, loop_mutex_pthread,
		loop_mutex_condvar, NULL) },
};

#define NR_CELLS ARRAY_SIZE(bench_cells)

static enum bench_impl variant_impl(enum bench_variant v)
{
	switch (v) {
	case V_SEMT:
		return IMPL_SEMT;
	case V_PTHREAD:
		return IMPL_PTHREAD;
	case V_CONDVAR:
		return IMPL_CONDVAR;
	case V_FLOOR:
		return IMPL_FLOOR;
	default:
		return IMPL_PSEM;
	}
}

/* psem's switches for @v, as bench/psem_bench.c sets them. */
static void variant_apply(enum bench_variant v)
{
	switch (v) {
	case V_LOCKED:
		psem_set_fast_release(false);
		psem_set_zero_release(false);
		psem_set_contention_flag(false);
		break;
	case V_SEED:
		psem_set_fast_release(true);
		psem_set_zero_release(false);
		psem_set_contention_flag(false);
		break;
	case V_SEED_FLAG:
		psem_set_fast_release(true);
		psem_set_zero_release(false);
		psem_set_contention_flag(true);
		break;
	case V_PSEM:
		psem_set_fast_release(true);
		psem_set_zero_release(true);
		psem_set_contention_flag(true);
		break;
	default:
		break;
	}
}

static int bench_obj_init(struct bench_obj *o, const struct bench_cell *c)
{
	void *objs[BENCH_POOL_CAP];
	int i, ret;

	memset(o, 0, sizeof(*o));
	o->permits = c->permits;
	o->count = c->count;
	psem_init(&o->sem, c->permits);
	psem_rwlock_init(&o->rw);
	psem_mutex_init(&o->mx);
	for (i = 0; i < BENCH_POOL_CAP; i++)
		objs[i] = &o->pool_items[i];
	ret = psem_pool_init(&o->pool, objs, BENCH_POOL_CAP, GFP_KERNEL);
	if (ret)
		return ret;
	if (sem_init(&o->usem, 0, c->permits) ||
	    sem_init(&o->upool.sem, 0, BENCH_POOL_CAP))
		return -errno;
	pthread_rwlock_init(&o->urw, NULL);
	pthread_mutex_init(&o->umx, NULL);
	pthread_mutex_init(&o->upool.lock, NULL);
	o->upool.nr = BENCH_POOL_CAP;
	cv_init(&o->cv, c->count);
	o->cv.nr = BENCH_POOL_CAP;
	for (i = 0; i < BENCH_POOL_CAP; i++) {
		o->upool.obj[i] = &o->pool_items[i];
		o->cv.obj[i] = &o->pool_items[i];
	}
	o->word = c->count;
	return 0;
}

/* Every primitive must be back where it started, or the run is void. */
static int bench_obj_check(struct bench_obj *o, const struct bench_cell *c)
{
	int bad = o->errors, v1 = -1, v2 = -1;

	if (psem_available(&o->sem) != o->permits)
		bad++;
	if (psem_available(&o->rw.sem) != PSEM_RWLOCK_MAX_READERS)
		bad++;
	if (psem_mutex_is_locked(&o->mx))
		bad++;
	if (psem_available(&o->pool.sem) != BENCH_POOL_CAP)
		bad++;
	sem_getvalue(&o->usem, &v1);
	sem_getvalue(&o->upool.sem, &v2);
	if (v1 != o->permits || v2 != BENCH_POOL_CAP ||
	    o->upool.nr != BENCH_POOL_CAP)
		bad++;
	if (pthread_rwlock_trywrlock(&o->urw))
		bad++;
	else
		pthread_rwlock_unlock(&o->urw);
	if (pthread_mutex_trylock(&o->umx))
		bad++;
	else
		pthread_mutex_unlock(&o->umx);
	if (o->cv.count != o->count || o->cv.waiters)
		bad++;
	if (c->loop[IMPL_CONDVAR] == loop_pool_condvar &&
	    o->cv.nr != BENCH_POOL_CAP)
		bad++;
	if (o->word != o->count)
		bad++;
	if (bad)
		fprintf(stderr, "bench_native: %s: %d failed operations or primitives left held\n",
			c->name, bad);
	psem_pool_destroy(&o->pool);
	sem_destroy(&o->usem);
	sem_destroy(&o->upool.sem);
	pthread_rwlock_destroy(&o->urw);
	pthread_mutex_destroy(&o->umx);
	pthread_mutex_destroy(&o->upool.lock);
	pthread_mutex_destroy(&o->cv.m);
	pthread_cond_destroy(&o->cv.c);
	return bad ? -EIO : 0;
}

/* ------------------------------------------------------------------ */
/* Workers: one pinned thread per CPU, reused by every measurement    */
/* ------------------------------------------------------------------ */

struct bench_sample {
	double	ns;		/* per iteration, mean over the threads */
	double	cpu_pct;
	double	vcsw_1k;
	double	ivcsw_1k;
	double	insns;		/* per iteration; < 0: not counted */
};

struct bench_worker {
	pthread_t	th;
	int		cpu;
	int		perf_fd;	/* instructions:u, or -1 */
	u64		seen;		/* the last job it looked at */
	/* Results of the last job, read by the main thread after it. */
	u64		loop_ns, win_ns, cpu_ns, insns;
	long		nvcsw, nivcsw;
	u64		sink;
};

static struct bench_worker workers[BENCH_MAX_THREADS];
static int nr_cpus;

/* The job: written under job_lock by the main thread, read under it. */
static pthread_mutex_t job_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t job_more = PTHREAD_COND_INITIALIZER;
static pthread_cond_t job_done = PTHREAD_COND_INITIALIZER;
static u64 job_gen;
static struct {
	bench_loop_t		loop;
	struct bench_obj	*obj;
	int			first, n;	/* workers [first, first + n) */
	unsigned int		iters, steps;
	bool			insns;
	int			left;		/* under job_lock */
} job;
static int job_arrived;	/* the start barrier: atomics */

static u64 now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int perf_open_insns(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static void *bench_worker_fn(void *arg)
{
	struct bench_worker *w = arg;
	int idx = w - workers;
	char comm[16];

	snprintf(comm, sizeof(comm), "bench/%d", w->cpu);
	psem_user_task_init(comm, w->cpu);
	psem_native_cpu = w->cpu;
	w->perf_fd = opt_insns ? perf_open_insns() : -1;

	for (;;) {
		struct rusage r0, r1;
		u64 cpu0, w0, t0, t1, w1;
		struct bench_obj *o;
		unsigned int iters, steps;
		bench_loop_t loop;
		bool insns;
		int n;

		pthread_mutex_lock(&job_lock);
		while (job_gen == w->seen)
			pthread_cond_wait(&job_more, &job_lock);
		w->seen = job_gen;
		if (idx < job.first || idx >= job.first + job.n) {
			pthread_mutex_unlock(&job_lock);
			continue;
		}
		loop = job.loop;
		o = job.obj;
		n = job.n;
		iters = job.iters;
		steps = job.steps;
		insns = job.insns && w->perf_fd >= 0;
		pthread_mutex_unlock(&job_lock);
		if (!loop)
			break;	/* the end */

		/* The CPU-time window lies inside the wall-clock one. */
		w0 = now_ns(CLOCK_MONOTONIC);
		getrusage(RUSAGE_THREAD, &r0);
		cpu0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		/* The start barrier: all threads run the loop together. */
		__atomic_fetch_add(&job_arrived, 1, __ATOMIC_RELAXED);
		while (__atomic_load_n(&job_arrived, __ATOMIC_RELAXED) < n)
			__builtin_ia32_pause();
		if (insns) {
			ioctl(w->perf_fd, PERF_EVENT_IOC_RESET, 0);
			ioctl(w->perf_fd, PERF_EVENT_IOC_ENABLE, 0);
		}
		t0 = now_ns(CLOCK_MONOTONIC);
		w->sink = loop(o, iters, steps, t0);
		t1 = now_ns(CLOCK_MONOTONIC);
		w->insns = 0;
		if (insns) {
			ioctl(w->perf_fd, PERF_EVENT_IOC_DISABLE, 0);
			if (read(w->perf_fd, &w->insns, sizeof(w->insns)) !=
			    sizeof(w->insns))
				w->insns = 0;
		}
		w->cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
		getrusage(RUSAGE_THREAD, &r1);
		w1 = now_ns(CLOCK_MONOTONIC);
		w->loop_ns = t1 - t0;
		w->win_ns = w1 - w0;
		w->nvcsw = r1.ru_nvcsw - r0.ru_nvcsw;
		w->nivcsw = r1.ru_nivcsw - r0.ru_nivcsw;

		pthread_mutex_lock(&job_lock);
		if (--job.left == 0)
			pthread_cond_signal(&job_done);
		pthread_mutex_unlock(&job_lock);
	}
	return NULL;
}

static int cpu_list[BENCH_MAX_THREADS];

static int workers_start(void)
{
	cpu_set_t set;
	int cpu, i;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	for (cpu = 0; cpu < CPU_SETSIZE && nr_cpus < BENCH_MAX_THREADS; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpu_list[nr_cpus++] = cpu;
	for (i = 0; i < nr_cpus; i++) {
		pthread_attr_t attr;
		cpu_set_t one;
		int ret;

		workers[i].cpu = cpu_list[i];
		CPU_ZERO(&one);
		CPU_SET(cpu_list[i], &one);
		pthread_attr_init(&attr);
		pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
		ret = pthread_create(&workers[i].th, &attr, bench_worker_fn,
				     &workers[i]);
		pthread_attr_destroy(&attr);
		if (ret)
			return -ret;
	}
	return 0;
}

static void workers_stop(void)
{
	int i;

	pthread_mutex_lock(&job_lock);
	job.loop = NULL;
	job.first = 0;
	job.n = nr_cpus;
	job_gen++;
	pthread_cond_broadcast(&job_more);
	pthread_mutex_unlock(&job_lock);
	for (i = 0; i < nr_cpus; i++)
		pthread_join(workers[i].th, NULL);
}

static u64 bench_sink;

static int bench_measure(const struct bench_cell *c, enum bench_variant v,
			 int nthreads, unsigned int iters, unsigned int steps,
			 struct bench_sample *s)
{
	u64 ns = 0, cpu = 0, win = 0, insns = 0, sink = 0;
	long nv = 0, niv = 0;
	struct bench_obj *o;
	int i, first, ret;
	bool count;

	o = aligned_alloc(BENCH_LINE, (sizeof(*o) + BENCH_LINE - 1) &
			  ~(size_t)(BENCH_LINE - 1));
	if (!o)
		return -ENOMEM;
	ret = bench_obj_init(o, c);
	if (ret) {
		free(o);
		return ret;
	}
	/* The first N CPUs, or the last one for a single thread. */
	first = nthreads == 1 ? nr_cpus - 1 : 0;
	count = opt_insns && c->table == T_SINGLE && workers[first].perf_fd >= 0;

	pthread_mutex_lock(&job_lock);
	job.loop = c->loop[variant_impl(v)];
	job.obj = o;
	job.first = first;
	job.n = nthreads;
	job.iters = iters;
	job.steps = steps;
	job.insns = count;
	job.left = nthreads;
	__atomic_store_n(&job_arrived, 0, __ATOMIC_RELAXED);
	job_gen++;
	pthread_cond_broadcast(&job_more);
	while (job.left)
		pthread_cond_wait(&job_done, &job_lock);
	pthread_mutex_unlock(&job_lock);

	for (i = first; i < first + nthreads; i++) {
		struct bench_worker *w = &workers[i];

		ns += w->loop_ns;
		cpu += w->cpu_ns;
		win += w->win_ns;
		nv += w->nvcsw;
		niv += w->nivcsw;
		insns += w->insns;
		sink ^= w->sink;
	}
	s->ns = (double)ns / ((double)iters * nthreads);
	s->cpu_pct = win ? 100.0 * cpu / win : 0;
	s->vcsw_1k = 1000.0 * nv / ((double)iters * nthreads);
	s->ivcsw_1k = 1000.0 * niv / ((double)iters * nthreads);
	s->insns = count ? (double)insns / ((double)iters * nthreads) : -1;
	/* Keep the gap chains alive: their results reach memory. */
	WRITE_ONCE(bench_sink, sink);
	ret = bench_obj_check(o, c);
	free(o);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Parameters                                                         */
/* ------------------------------------------------------------------ */

static unsigned long sel_cells, sel_gaps, sel_variants, sel_tables;
static int sel_threads[BENCH_MAX_THREAD_SETS];
static int nr_sel_threads;

static int parse_names(const char *what, const char *list,
		       const char *const *names, int nr, unsigned long *mask)
{
	char *buf = strdup(list), *p = buf, *tok;
	int ret = 0, i;

	if (!buf)
		return -ENOMEM;
	*mask = 0;
	while ((tok = strsep(&p, ",")) != NULL) {
		if (!*tok)
			continue;
		if (!strcmp(tok, "all")) {
			*mask |= (1UL << nr) - 1;
			continue;
		}
		for (i = 0; i < nr; i++)
			if (!strcmp(tok, names[i]))
				break;
		if (i == nr) {
			fprintf(stderr, "bench_native: unknown %s '%s'\n",
				what, tok);
			ret = -EINVAL;
			break;
		}
		*mask |= 1UL << i;
	}
	if (!ret && !*mask) {
		fprintf(stderr, "bench_native: %s selects nothing\n", what);
		ret = -EINVAL;
	}
	free(buf);
	return ret;
}

static int parse_threads(void)
{
	char *buf = strdup(opt_threads), *p = buf, *tok, *end;
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	while ((tok = strsep(&p, ",")) != NULL) {
		long n;

		if (!*tok)
			continue;
		n = strtol(tok, &end, 10);
		if (*end || n < 1) {
			fprintf(stderr, "bench_native: threads: '%s' is not a positive number\n",
				tok);
			ret = -EINVAL;
			break;
		}
		if (n > nr_cpus) {
			fprintf(stderr, "bench_native: threads=%ld exceeds the %d CPUs of the affinity mask: each thread needs its own CPU\n",
				n, nr_cpus);
			ret = -EINVAL;
			break;
		}
		if (nr_sel_threads == BENCH_MAX_THREAD_SETS) {
			fprintf(stderr, "bench_native: threads: at most %d counts\n",
				BENCH_MAX_THREAD_SETS);
			ret = -EINVAL;
			break;
		}
		sel_threads[nr_sel_threads++] = n;
	}
	if (!ret && !nr_sel_threads) {
		fprintf(stderr, "bench_native: threads selects nothing\n");
		ret = -EINVAL;
	}
	free(buf);
	return ret;
}

static int parse_params(void)
{
	const char *cell_names[NR_CELLS];
	unsigned int i;
	int ret;

	ret = parse_names("table", opt_table, table_names, NR_TABLES,
			  &sel_tables);
	if (ret)
		return ret;
	if (!opt_iters || !opt_single_iters) {
		fprintf(stderr, "bench_native: iters and single-iters must be at least 1\n");
		return -EINVAL;
	}
	if (!opt_rounds || opt_rounds > BENCH_MAX_ROUNDS) {
		fprintf(stderr, "bench_native: rounds must be 1..%d\n",
			BENCH_MAX_ROUNDS);
		return -EINVAL;
	}
	for (i = 0; i < NR_CELLS; i++)
		cell_names[i] = bench_cells[i].name;
	ret = parse_names("cell", opt_cells, cell_names, NR_CELLS, &sel_cells);
	if (ret)
		return ret;
	ret = parse_names("gap", opt_gaps, gap_names, NR_GAPS, &sel_gaps);
	if (ret)
		return ret;
	ret = parse_names("variant", opt_variants, variant_names, NR_VARIANTS,
			  &sel_variants);
	if (ret)
		return ret;
	return (sel_tables & (1UL << T_CONTENTION)) ? parse_threads() : 0;
}

/* ------------------------------------------------------------------ */
/* Rounds, medians, output                                            */
/* ------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static unsigned int nr_measurements, nr_cell_runs;

static unsigned long long stat_delta(const struct psem_stats *a,
				     const struct psem_stats *b, int s)
{
	return b->count[s] - a->count[s];
}

static void print_stats_delta(const struct bench_cell *c, int nthreads,
			      const char *gap, enum bench_variant v,
			      const struct psem_stats *a,
			      const struct psem_stats *b)
{
	printf("psem_bench: stats,%s,%s,%d,%s,%s,fast_release=%llu,locked_release=%llu,fast_cas_fail=%llu,flag_trip=%llu,flag_honoured=%llu,sleep=%llu,handoff=%llu\n",
	       table_names[c->table], c->name, nthreads, gap, variant_names[v],
	       stat_delta(a, b, PSEM_STAT_FAST_RELEASE), stat_delta(a, b, PSEM_STAT_LOCKED_RELEASE),
	       stat_delta(a, b, PSEM_STAT_FAST_CAS_FAIL), stat_delta(a, b, PSEM_STAT_FLAG_TRIP),
	       stat_delta(a, b, PSEM_STAT_FLAG_HONOURED), stat_delta(a, b, PSEM_STAT_SLEEP),
	       stat_delta(a, b, PSEM_STAT_HANDOFF));
}

/* One cell at one thread count and gap, every variant, interleaved. */
static int bench_cell_run(const struct bench_cell *c, int nthreads,
			  enum bench_gap_kind g)
{
	const char *tname = table_names[c->table], *gname = gap_names[g];
	unsigned int steps = g == G_SHORT ? opt_short_gap :
			     g == G_LONG ? opt_long_gap : 0;
	unsigned int iters = c->table == T_SINGLE ? opt_single_iters : opt_iters;
	unsigned int rounds = opt_rounds, nv = 0, r, i;
	enum bench_variant vlist[NR_VARIANTS];
	double *val, *cpu, *csw;
	int ret = 0;

	for (i = 0; i < NR_VARIANTS; i++)
		if ((sel_variants & (1UL << i)) && c->loop[variant_impl(i)])
			vlist[nv++] = i;
	if (!nv)
		return 0;
	val = calloc(3 * NR_VARIANTS * rounds, sizeof(*val));
	if (!val)
		return -ENOMEM;
	cpu = val + NR_VARIANTS * rounds;
	csw = cpu + NR_VARIANTS * rounds;

	for (r = 0; r < rounds; r++) {
		for (i = 0; i < nv; i++) {
			enum bench_variant v = vlist[i];
			bool st = opt_stats && variant_impl(v) == IMPL_PSEM;
			struct psem_stats a, b;
			struct bench_sample s = { 0 };

			variant_apply(v);
			if (st) {
				psem_stats_snapshot(&a);
				psem_set_stats(true);
			}
			ret = bench_measure(c, v, nthreads, iters, steps, &s);
			if (st) {
				psem_set_stats(false);
				psem_stats_snapshot(&b);
				print_stats_delta(c, nthreads, gname, v, &a, &b);
			}
			if (ret) {
				fprintf(stderr, "bench_native: %s,%s,%d,%s,%s: measurement failed: %d\n",
					tname, c->name, nthreads, gname,
					variant_names[v], ret);
				goto out;
			}
			nr_measurements++;
			val[v * rounds + r] = s.ns;
			cpu[v * rounds + r] = s.cpu_pct;
			csw[v * rounds + r] = s.vcsw_1k + s.ivcsw_1k;
			printf("psem_bench: round,%s,%s,%d,%s,%s,%u,%.2f,%.2f,%.2f,%.2f\n",
			       tname, c->name, nthreads, gname,
			       variant_names[v], r, s.ns, s.cpu_pct,
			       s.vcsw_1k, s.ivcsw_1k);
			if (s.insns >= 0)
				printf("psem_bench: insns,%s,%s,%d,%s,%s,%u,%.2f\n",
				       tname, c->name, nthreads, gname,
				       variant_names[v], r, s.insns);
		}
	}
	for (i = 0; i < nv; i++) {
		enum bench_variant v = vlist[i];
		double *vv = val + v * rounds;
		double med = median(vv, rounds);

		printf("psem_bench: csv,%s,%s,%d,%s,%s,%.2f,%.2f,%.2f,%u,%.2f,%.2f,\n",
		       tname, c->name, nthreads, gname, variant_names[v], med,
		       vv[0], vv[rounds - 1], rounds,
		       median(cpu + v * rounds, rounds),
		       median(csw + v * rounds, rounds));
	}
	nr_cell_runs++;
	fflush(stdout);
out:
	free(val);
	return ret;
}

static int bench_run_all(void)
{
	unsigned int ci;
	int ti, g, ret;

	for (ci = 0; ci < NR_CELLS; ci++) {
		const struct bench_cell *c = &bench_cells[ci];

		if (!(sel_cells & (1UL << ci)) ||
		    !(sel_tables & (1UL << c->table)))
			continue;
		if (c->table == T_SINGLE) {
			ret = bench_cell_run(c, 1, G_NONE);
			if (ret)
				return ret;
			continue;
		}
		for (ti = 0; ti < nr_sel_threads; ti++) {
			for (g = 0; g < NR_GAPS; g++) {
				if (!(sel_gaps & (1UL << g)))
					continue;
				if (g == G_NONE && c->needs_gap)
					continue;
				ret = bench_cell_run(c, sel_threads[ti], g);
				if (ret)
					return ret;
			}
		}
	}
	return 0;
}

/* The CPU model, commas made semicolons (the records are comma-separated). */
static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256], *p;

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10))
			continue;
		p = strchr(line, ':');
		if (!p)
			break;
		p += 1 + strspn(p + 1, " \t");
		p[strcspn(p, "\n")] = 0;
		snprintf(buf, len, "%s", p);
		break;
	}
	fclose(f);
	for (p = buf; *p; p++)
		if (*p == ',')
			*p = ';';
}

static void print_usage(FILE *f)
{
	unsigned int i;

	fprintf(f, "usage: psem-bench-native [--table contention,single] [--cells LIST]\n"
		"  [--threads 1,2,...] [--gaps none,short,long] [--variants LIST]\n"
		"  [--iters N] [--single-iters N] [--rounds N] [--short-gap N]\n"
		"  [--long-gap N] [--insns] [--stats] [--list]\nvariants:");
	for (i = 0; i < NR_VARIANTS; i++)
		fprintf(f, " %s", variant_names[i]);
	fprintf(f, "\ncells:");
	for (i = 0; i < NR_CELLS; i++)
		fprintf(f, " %s", bench_cells[i].name);
	fprintf(f, "\n");
}

static unsigned int parse_uint(const char *s, const char *what)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*s == '-' || *end || v > 100000000UL) {
		fprintf(stderr, "bench_native: %s: '%s' is not a count\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "table", required_argument, NULL, 't' },
		{ "cells", required_argument, NULL, 'c' },
		{ "threads", required_argument, NULL, 'n' },
		{ "gaps", required_argument, NULL, 'g' },
		{ "variants", required_argument, NULL, 'v' },
		{ "iters", required_argument, NULL, 'i' },
		{ "single-iters", required_argument, NULL, 's' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "short-gap", required_argument, NULL, 'S' },
		{ "long-gap", required_argument, NULL, 'L' },
		{ "insns", no_argument, NULL, 'I' },
		{ "stats", no_argument, NULL, 'T' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	bool fast, zero, flag;
	char model[128];
	struct utsname u;
	u64 t0;
	int c, ret, fd;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			opt_table = optarg;
			break;
		case 'c':
			opt_cells = optarg;
			break;
		case 'n':
			opt_threads = optarg;
			break;
		case 'g':
			opt_gaps = optarg;
			break;
		case 'v':
			opt_variants = optarg;
			break;
		case 'i':
			opt_iters = parse_uint(optarg, "iters");
			break;
		case 's':
			opt_single_iters = parse_uint(optarg, "single-iters");
			break;
		case 'r':
			opt_rounds = parse_uint(optarg, "rounds");
			break;
		case 'S':
			opt_short_gap = parse_uint(optarg, "short-gap");
			break;
		case 'L':
			opt_long_gap = parse_uint(optarg, "long-gap");
			break;
		case 'I':
			opt_insns = true;
			break;
		case 'T':
			opt_stats = true;
			break;
		case 'l':
			print_usage(stdout);
			return 0;
		case 'h':
			print_usage(stdout);
			return 0;
		default:
			print_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		print_usage(stderr);
		return 2;
	}
	psem_user_task_init("main", 0);
	ret = workers_start();
	if (ret) {
		fprintf(stderr, "bench_native: cannot start the workers: %s\n",
			strerror(-ret));
		return 1;
	}
	ret = parse_params();
	if (ret) {
		workers_stop();
		return 2;
	}
	/* Whether this machine counts instructions, told once. */
	fd = perf_open_insns();
	if (fd >= 0)
		close(fd);
	cpu_model(model, sizeof(model));
	uname(&u);
	printf("psem_bench: begin,kernel=native %s,cpus=%d,cpu_model=%s,table=%s,cells=%s,threads=%s,gaps=%s,variants=%s,iters=%u,single_iters=%u,rounds=%u,short_gap=%u,long_gap=%u,insns=%s,stats=%d\n",
	       u.release, nr_cpus, model, opt_table, opt_cells, opt_threads,
	       opt_gaps, opt_variants, opt_iters, opt_single_iters, opt_rounds,
	       opt_short_gap, opt_long_gap,
	       !opt_insns ? "off" : fd >= 0 ? "perf_event" : "unsupported",
	       opt_stats);
	fflush(stdout);

	fast = psem_fast_release_enabled();
	zero = psem_zero_release_enabled();
	flag = psem_contention_flag_enabled();
	t0 = now_ns(CLOCK_MONOTONIC);
	ret = bench_run_all();
	psem_set_fast_release(fast);
	psem_set_zero_release(zero);
	psem_set_contention_flag(flag);
	if (!ret && psem_user_warnings()) {
		fprintf(stderr, "bench_native: psem warned %lu times\n",
			psem_user_warnings());
		ret = -EIO;
	}
	printf("psem_bench: end,%s,%llu ms,measurements=%u,cells=%u,spin_yields=%lu\n",
	       ret ? "failed" : "ok",
	       (unsigned long long)(now_ns(CLOCK_MONOTONIC) - t0) / 1000000,
	       nr_measurements, nr_cell_runs,
	       __atomic_load_n(&psem_native_spin_yields, __ATOMIC_RELAXED));
	fflush(stdout);
	workers_stop();
	return ret ? 1 : 0;
}
