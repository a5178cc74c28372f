// SPDX-License-Identifier: GPL-2.0
/*
 * bench_native: the contention probe and single-thread rows of the original
 * Rust pull request on this machine's real cores, with the unmodified kmod/
 * sources built against the userspace shim, for psem's four release rules
 * side by side with the primitives a userspace developer would pick
 * instead: glibc's sem_t, pthread_rwlock and pthread_mutex, a textbook
 * mutex+condvar counting semaphore, and the floor (a bare compare-exchange
 * pair). The cells, psem's loops and the round runner are
 * bench/psem_bench_cells.h and psem_bench_loops.h, shared with
 * bench/psem_bench.c; this file is the native environment (its references,
 * options and output; its threads are bench_native_workers.h). It prints
 * the kernel benchmark's records, which scripts/bench_table.py --native
 * reads:
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
 * switches (psem_knobs.h, as in the kernel) between measurements, never
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

/* The environment layer of psem_bench_cells.h (see there). */
#define BENCH_NR_REFS		3
static const char *const bench_ref_names[BENCH_NR_REFS] = {
	"sem_t", "pthread", "condvar"
};
/* The sem_t pool: the kernel benchmark's down + locked stack + up. */
#define bench_ref_sem_t		sem_t
#define bench_ref_down(s)	do { } while (sem_wait(s))
#define bench_ref_up(s)		sem_post(s)
#define bench_ref_lock_t	pthread_mutex_t
#define bench_ref_lock(l)	pthread_mutex_lock(l)
#define bench_ref_unlock(l)	pthread_mutex_unlock(l)

#include "psem_bench_cells.h"

/* glibc's sem_t, pthread_rwlock or pthread_mutex, the condvar semaphore */
enum { V_SEMT = V_REFS, V_PTHREAD, V_CONDVAR };

#define BENCH_MAX_THREADS	256
#define BENCH_MAX_THREAD_SETS	16
#define BENCH_LINE		64
#define BENCH_FLOOR_CONTENTION	true
#define BENCH_CPUS_WHAT		"CPUs of the affinity mask"
#ifndef OPTIMIZER_HIDE_VAR
#define OPTIMIZER_HIDE_VAR(x)	do { __asm__ ("" : "+r" (x)); } while (0)
#endif
#ifndef BIT
#define BIT(n)			(1UL << (n))
#endif

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
/* Parameters (the kernel benchmark's module parameters)              */
/* ------------------------------------------------------------------ */

static const char *table = "contention,single";
static const char *cells = "all";
static const char *threads = "2";
static const char *gaps = "none,short,long";
static const char *variants = "all";
static unsigned int iters = 200000;
static unsigned int single_iters = 200000;
static unsigned int rounds = 15;
static unsigned int short_gap = 50;
static unsigned int long_gap = 200;
static bool count_insns;
static bool stats;

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

/* Waits, under m, until @n are there, and takes them. */
static void cv_take_locked(struct cv_sem *s, long n)
{
	while (s->count < n) {
		s->waiters++;
		pthread_cond_wait(&s->c, &s->m);
		s->waiters--;
	}
	s->count -= n;
}

static void cv_acquire(struct cv_sem *s, long n)
{
	pthread_mutex_lock(&s->m);
	cv_take_locked(s, n);
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
	cv_take_locked(s, 1);
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
	struct bench_ref_pool	upool ____cacheline_aligned_in_smp;
	struct cv_sem		cv ____cacheline_aligned_in_smp;
	atomic_long_t		word ____cacheline_aligned_in_smp;
	atomic_t		errors ____cacheline_aligned_in_smp;
	unsigned long		pool_items[BENCH_POOL_CAP];
	long			permits;	/* psem's and sem_t's */
	long			count;		/* the condvar's and the floor's */
};

struct bench_sample {
	double	ns;		/* per iteration, mean over the threads */
	double	cpu_pct;
	double	vcsw_1k;
	double	ivcsw_1k;
	double	insns;		/* per iteration; < 0: not counted */
};

#define bench_val_t		double

/* @num / @den times @scale, in bench_val_t */
#define bench_ratio(num, den, scale)	((double)(num) * (scale) / (den))

#define bench_info(fmt, ...)	printf("psem_bench: " fmt, ##__VA_ARGS__)
#define bench_err(fmt, ...)	fprintf(stderr, "bench_native: " fmt, ##__VA_ARGS__)
#define bench_calloc(n, size)	calloc(n, size)
#define bench_free(p)		free(p)
#define bench_strdup(s)		strdup(s)
#define bench_trim(s)		(s)
#define bench_nr_cpus()		((unsigned int)nr_cpus)

static int nr_cpus;

static int bench_parse_uint(const char *s, unsigned int *n)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *s == '-' || *end || v > 100000000UL)
		return -EINVAL;
	*n = v;
	return 0;
}

#include "psem_bench_loops.h"

/* ------------------------------------------------------------------ */
/* The userspace references: one loop per operation                   */
/* ------------------------------------------------------------------ */

BENCH_LOOP(rw_read, pthread, BENCH_GAP_AFTER,
	   BENCH_OK(pthread_rwlock_rdlock(&o->urw)),
	   pthread_rwlock_unlock(&o->urw))
BENCH_LOOP(rw_held, pthread, BENCH_GAP_INSIDE,
	   BENCH_OK(pthread_rwlock_rdlock(&o->urw)),
	   pthread_rwlock_unlock(&o->urw))
BENCH_LOOP(rw_held, condvar, BENCH_GAP_INSIDE,
	   BENCH_OK(cv_acquire(&o->cv, 1)), cv_release(&o->cv, 1))
BENCH_LOOP(take2, semt, BENCH_GAP_AFTER,
	   BENCH_OK(sem_wait(&o->usem), sem_wait(&o->usem)),
	   (sem_post(&o->usem), sem_post(&o->usem)))
BENCH_LOOP(take2, condvar, BENCH_GAP_AFTER,
	   BENCH_OK(cv_acquire(&o->cv, 2)), cv_release(&o->cv, 2))
BENCH_LOOP(take1, semt, BENCH_GAP_AFTER,
	   BENCH_OK(sem_wait(&o->usem)), sem_post(&o->usem))
BENCH_LOOP(take1, condvar, BENCH_GAP_AFTER,
	   BENCH_OK(cv_acquire(&o->cv, 1)), cv_release(&o->cv, 1))
BENCH_LOOP_R8W1(pthread, pthread_rwlock_rdlock(&o->urw),
		pthread_rwlock_unlock(&o->urw),
		pthread_rwlock_wrlock(&o->urw),
		pthread_rwlock_unlock(&o->urw))
BENCH_LOOP_R8W1(condvar, cv_acquire(&o->cv, 1), cv_release(&o->cv, 1),
		cv_acquire(&o->cv, BENCH_RW_MAX),
		cv_release(&o->cv, BENCH_RW_MAX))
BENCH_LOOP(write, pthread, BENCH_GAP_NONE,
	   BENCH_OK(pthread_rwlock_wrlock(&o->urw)),
	   pthread_rwlock_unlock(&o->urw))
BENCH_LOOP(write, condvar, BENCH_GAP_NONE,
	   BENCH_OK(cv_acquire(&o->cv, BENCH_RW_MAX)),
	   cv_release(&o->cv, BENCH_RW_MAX))
BENCH_LOOP(try, semt, BENCH_GAP_NONE,
	   !sem_trywait(&o->usem), sem_post(&o->usem))
BENCH_LOOP(try, condvar, BENCH_GAP_NONE,
	   cv_try_acquire(&o->cv, 1), cv_release(&o->cv, 1))
BENCH_LOOP_POOL(semt, bench_ref_pool_get(&o->upool),
		BENCH_OK(bench_ref_pool_put(&o->upool, obj)))
BENCH_LOOP_POOL(condvar, cv_pool_get(&o->cv),
		BENCH_OK(cv_pool_put(&o->cv, obj)))
BENCH_LOOP(mutex, pthread, BENCH_GAP_NONE,
	   BENCH_OK(pthread_mutex_lock(&o->umx)),
	   pthread_mutex_unlock(&o->umx))
BENCH_LOOP(mutex, condvar, BENCH_GAP_NONE,
	   BENCH_OK(cv_acquire(&o->cv, 1)), cv_release(&o->cv, 1))

#define REFS(s, p, c) { [V_SEMT - V_PSEM] = s, [V_PTHREAD - V_PSEM] = p, \
			[V_CONDVAR - V_PSEM] = c }

/* condvar's take1 loop serves OP_RW_READ too: a count, one unit. */
static const bench_loop_t native_loops[NR_OPS][NR_IMPL] = {
	[OP_RW_READ]	= REFS(NULL, loop_rw_read_pthread, loop_take1_condvar),
	[OP_RW_HELD]	= REFS(NULL, loop_rw_held_pthread, loop_rw_held_condvar),
	[OP_TAKE2]	= REFS(loop_take2_semt, NULL, loop_take2_condvar),
	[OP_TAKE1]	= REFS(loop_take1_semt, NULL, loop_take1_condvar),
	[OP_R8W1]	= REFS(NULL, loop_r8w1_pthread, loop_r8w1_condvar),
	[OP_WRITE]	= REFS(NULL, loop_write_pthread, loop_write_condvar),
	[OP_TRY]	= REFS(loop_try_semt, NULL, loop_try_condvar),
	[OP_POOL]	= REFS(loop_pool_semt, NULL, loop_pool_condvar),
	[OP_MUTEX]	= REFS(NULL, loop_mutex_pthread, loop_mutex_condvar),
};

static bench_loop_t bench_ref_loop(enum bench_op op, int impl)
{
	return native_loops[op][impl];
}

static int bench_obj_init(struct bench_obj *o, const struct bench_cell *c)
{
	int i, ret;

	memset(o, 0, sizeof(*o));
	ret = bench_psem_init(o, c);
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
	return 0;
}

/* Every primitive must be back where it started, or the run is void. */
static int bench_obj_check(struct bench_obj *o, const struct bench_cell *c)
{
	int bad = bench_psem_check(o), v1 = -1, v2 = -1;

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
	if (c->op == OP_POOL && o->cv.nr != BENCH_POOL_CAP)
		bad++;
	if (bad)
		bench_err("%s: %d failed operations or primitives left held\n",
			  c->name, bad);
	sem_destroy(&o->usem);
	sem_destroy(&o->upool.sem);
	pthread_rwlock_destroy(&o->urw);
	pthread_mutex_destroy(&o->umx);
	pthread_mutex_destroy(&o->upool.lock);
	pthread_mutex_destroy(&o->cv.m);
	pthread_cond_destroy(&o->cv.c);
	return bad ? -EIO : 0;
}

#include "bench_native_workers.h"

/* ------------------------------------------------------------------ */
/* Medians and records                                                */
/* ------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double bench_median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static const char *bench_fmt(char *buf, double v)
{
	snprintf(buf, FX_LEN, "%.2f", v);
	return buf;
}

static unsigned int nr_measurements;

static void bench_after_round(const struct bench_cell *c,
			      unsigned int nthreads, const char *gap,
			      enum bench_variant v, unsigned int r,
			      const struct bench_sample *s)
{
	nr_measurements++;
	if (s->insns >= 0)
		bench_info("insns,%s,%s,%u,%s,%s,%u,%.2f\n",
			   table_names[c->table], c->name, nthreads, gap,
			   variant_names[v], r, s->insns);
	fflush(stdout);
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
	unsigned int v;

	if (bench_parse_uint(s, &v)) {
		bench_err("%s: '%s' is not a count\n", what, s);
		exit(2);
	}
	return v;
}

/* The options that set a parameter: a list, a count or a switch. */
static const struct bench_opt {
	const char	*name;
	const char	**list;
	unsigned int	*count;
	bool		*on;
} bench_opts[] = {
	{ "table", &table },
	{ "cells", &cells },
	{ "threads", &threads },
	{ "gaps", &gaps },
	{ "variants", &variants },
	{ "iters", NULL, &iters },
	{ "single-iters", NULL, &single_iters },
	{ "rounds", NULL, &rounds },
	{ "short-gap", NULL, &short_gap },
	{ "long-gap", NULL, &long_gap },
	{ "insns", NULL, NULL, &count_insns },
	{ "stats", NULL, NULL, &stats },
};

#define NR_OPTS ARRAY_SIZE(bench_opts)

/*
 * Sets the parameters from the command line: 0 to run, -1 when it printed
 * the usage asked for, else the exit status of a wrong command line.
 */
static int parse_options(int argc, char **argv)
{
	struct option opts[NR_OPTS + 3] = {
		[NR_OPTS] = { "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
	};
	const struct bench_opt *o;
	int c, i;

	bench_names_init();	/* for print_usage() */
	for (i = 0; i < (int)NR_OPTS; i++) {
		o = &bench_opts[i];
		opts[i].name = o->name;
		opts[i].has_arg = o->on ? no_argument : required_argument;
	}
	while ((c = getopt_long(argc, argv, "", opts, &i)) != -1) {
		if (c == 'l' || c == 'h') {
			print_usage(stdout);
			return -1;
		}
		if (c) {
			print_usage(stderr);
			return 2;
		}
		o = &bench_opts[i];
		if (o->list)
			*o->list = optarg;
		else if (o->count)
			*o->count = parse_uint(optarg, o->name);
		else
			*o->on = true;
	}
	if (optind < argc) {
		print_usage(stderr);
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bench_switches sw;
	char model[128];
	struct utsname u;
	u64 t0;
	int ret, fd;

	ret = parse_options(argc, argv);
	if (ret)
		return ret < 0 ? 0 : ret;
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
	       u.release, nr_cpus, model, table, cells, threads,
	       gaps, variants, iters, single_iters, rounds,
	       short_gap, long_gap,
	       !count_insns ? "off" : fd >= 0 ? "perf_event" : "unsupported",
	       stats);
	fflush(stdout);

	bench_switches_save(&sw);
	t0 = now_ns(CLOCK_MONOTONIC);
	ret = bench_run_cells();
	bench_switches_restore(&sw);
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

