// SPDX-License-Identifier: GPL-2.0
/*
 * psem-shapes: what one take and one release cost on this machine's cores,
 * by the shape of the release's atomics, on one semaphore word. It holds
 * no psem code: it separates what the 2-permit, 2-thread cell of
 * psem-bench-native measures (Documentation/benchmarks.rst, "Where the
 * 2-permit cell's time goes").
 *
 * Every shape takes as the floor and psem_take() do: read the word, test
 * it, compare-exchange, retried from the value a failure returns. The
 * release is, by shape:
 *
 *   load+cas      read, then compare-exchange, retried: the floor's,
 *                 sem_post()'s and psem_release_fast()'s
 *   pfw+load+cas  the same after prefetchw, which asks for the line in
 *                 exclusive state before the read (x86 only)
 *   cas           no read: a first compare-exchange from a value the word
 *                 never holds, so that it fails and returns the word with
 *                 the line held, then retried from that value
 *   load+xadd     read (as a release must, to test flags), then fetch_add
 *   xadd          fetch_add alone, no read: the release issue 27 asked for
 *   xsub+xadd     the xadd release, and a take that does not read either:
 *                 a fetch_sub, given back if it overdrew the word (the
 *                 take of the old counting semaphores, "lock decl; js");
 *                 the cheapest pair of atomics one word allows
 *   sem_t         sem_wait() and sem_post()
 *
 * Method, as psem-bench-native's: @threads threads, each pinned to its
 * own CPU of the affinity mask, run @iters take+release pairs; a round's
 * value is the mean over the threads of their ns per pair, and the shapes
 * take turns within each round. Each shape gets a word of @permits that
 * must be back at @permits afterwards. Prints, per shape, the median ns
 * with the fastest and slowest round, and the median of the per-round
 * speedups over sem_t with the rounds the shape lost.
 *
 * Usage: psem-shapes [--threads N] [--rounds N] [--iters N] [--permits N]
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/atomic.h>	/* the shim's, and its <linux/compiler.h> */

/* As the kernel spells it (include/linux/compiler_attributes.h). */
#define fallthrough	__attribute__((__fallthrough__))

#define MAX_THREADS	64
#define MAX_ROUNDS	101

enum shape {
	LOAD_CAS, PFW_LOAD_CAS, CAS, LOAD_XADD, XADD, XSUB_XADD, SEM_T,
	NR_SHAPES
};

static const char * const shape_names[NR_SHAPES] = {
	"load+cas", "pfw+load+cas", "cas", "load+xadd", "xadd", "xsub+xadd",
	"sem_t",
};

/* Each on its own line: only the word is contended. */
struct shapes_obj {
	atomic_long_t	word ____cacheline_aligned_in_smp;
	sem_t		sem ____cacheline_aligned_in_smp;
	atomic_t	woken ____cacheline_aligned_in_smp;
};

static struct shapes_obj obj;

static unsigned int threads = 2, rounds = 15, iters = 200000, permits = 2;
static enum shape shape;
static pthread_barrier_t start, stop;
static double ns[MAX_THREADS];
static int cpus[MAX_THREADS];
static bool failed;

/*
 * A word or a sem_t did not balance, or a call failed: the run fails. A
 * flag, read after the threads are joined, which orders it.
 */
static void fail(void)
{
	WRITE_ONCE(failed, true);
}

/*
 * The floor's take and release, bench/psem_bench_loops.h's floor_acquire()
 * and floor_release() for one permit. Not included from there: every byte
 * of bench/ is in the key of bench/results/semaphore-unpatched.txt, which
 * a shared header would change (scripts/check-semaphore.sh).
 */
static inline void take(void)
{
	long cur = atomic_long_read(&obj.word);	/* relaxed: rechecked */

	do {
		while (cur < 1)		/* the other thread holds both */
			cur = atomic_long_read(&obj.word);	/* relaxed: rechecked */
		/* ACQUIRE: pairs with the RELEASE of each release shape. */
	} while (!atomic_long_try_cmpxchg_acquire(&obj.word, &cur, cur - 1));
}

/*
 * The xsub+xadd shape's take: subtract first; a take that overdrew the
 * word gives the permit back and waits for one. Never overdraws at 2
 * permits and 2 threads, where each thread holds at most one.
 */
static inline void take_xsub(void)
{
	/* ACQUIRE: pairs with the RELEASE of the xadd release. */
	while (atomic_long_fetch_sub_acquire(1, &obj.word) < 1) {
		/* Relaxed: it gives back what it did not take. */
		atomic_long_inc(&obj.word);
		/* Relaxed: a wait; the fetch_sub that follows rechecks. */
		while (atomic_long_read(&obj.word) < 1)
			;
	}
}

static inline void floor_release(void)
{
	long cur = atomic_long_read(&obj.word);	/* relaxed: rechecked */

	/* RELEASE: pairs with take()'s ACQUIRE. */
	while (!atomic_long_try_cmpxchg_release(&obj.word, &cur, cur + 1))
		;
}

static inline void release(void)
{
	long cur;

	switch (shape) {
	case PFW_LOAD_CAS:
#if defined(__x86_64__) || defined(__i386__)
		asm volatile("prefetchw %0" : : "m" (obj.word));
#endif
		fallthrough;
	case LOAD_CAS:
		floor_release();
		break;
	case CAS:
		cur = -1;	/* never the word: fails once, holding the line */
		/* RELEASE: pairs with take()'s ACQUIRE. */
		while (!atomic_long_try_cmpxchg_release(&obj.word, &cur, cur + 1))
			;
		break;
	case LOAD_XADD:
		/* The test a release makes (relaxed); never true here. */
		if (atomic_long_read(&obj.word) < 0)
			fail();
		fallthrough;
	case XADD:
	case XSUB_XADD:
		/* RELEASE: pairs with take()'s ACQUIRE. */
		atomic_long_fetch_add_release(1, &obj.word);
		break;
	default:
		break;
	}
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *worker(void *arg)
{
	unsigned int id = (unsigned long)arg, i;
	cpu_set_t set;
	double t0;

	CPU_ZERO(&set);
	CPU_SET(cpus[id], &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		fail();
	for (;;) {
		pthread_barrier_wait(&start);
		if (shape == NR_SHAPES)
			return NULL;
		/* All awake before any starts: no thread runs alone. */
		/*
		 * Relaxed: a start line, ordering nothing; the barrier
		 * ordered the word's and the shape's setting before it.
		 */
		atomic_inc(&obj.woken);
		while (atomic_read(&obj.woken) < (int)threads)
			;
		t0 = now_ns();
		for (i = 0; i < iters; i++) {
			if (shape == SEM_T) {
				if (sem_wait(&obj.sem) || sem_post(&obj.sem))
					fail();
				continue;
			}
			if (shape == XSUB_XADD)
				take_xsub();
			else
				take();
			release();
		}
		ns[id] = (now_ns() - t0) / iters;
		pthread_barrier_wait(&stop);
	}
}

/* One round of @s: the mean over the threads of their ns per pair. */
static double measure(enum shape s)
{
	double sum = 0;
	unsigned int i;
	int v;

	/* Before the start barrier, which orders them for the threads. */
	atomic_long_set(&obj.word, permits);
	atomic_set(&obj.woken, 0);
	if (sem_init(&obj.sem, 0, permits))
		fail();
	shape = s;
	pthread_barrier_wait(&start);
	pthread_barrier_wait(&stop);
	/* After the stop barrier: every thread's last write is seen. */
	if (atomic_long_read(&obj.word) != (long)permits || sem_getvalue(&obj.sem, &v) ||
	    v != (int)permits)
		fail();
	sem_destroy(&obj.sem);
	for (i = 0; i < threads; i++)
		sum += ns[i];
	return sum / threads;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Sorts @v's @n values in place; returns the median. */
static double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void report(double res[NR_SHAPES][MAX_ROUNDS])
{
	double v[MAX_ROUNDS], r[MAX_ROUNDS], m;
	unsigned int s, i, lost;

	printf("%-13s %26s  %s\n", "release", "ns per take+release",
	       "speedup over sem_t, rounds lost");
	for (s = 0; s < NR_SHAPES; s++) {
		lost = 0;
		for (i = 0; i < rounds; i++) {
			v[i] = res[s][i];
			r[i] = res[SEM_T][i] / res[s][i];
			lost += r[i] < 1;
		}
		m = median(v, rounds);
		printf("%-13s %8.1f [%7.1f-%7.1f]", shape_names[s], m, v[0],
		       v[rounds - 1]);
		m = median(r, rounds);
		printf("  %.3f [%.2f-%.2f], lost %u/%u\n", m, r[0],
		       r[rounds - 1], lost, rounds);
	}
}

static unsigned int parse(const char *s, unsigned int lo, unsigned int hi)
{
	char *end;
	unsigned long n = strtoul(s, &end, 10);

	if (*s < '0' || *s > '9' || *end || n < lo || n > hi) {
		fprintf(stderr, "psem-shapes: '%s' is not in %u..%u\n", s, lo,
			hi);
		exit(2);
	}
	return n;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "iters", required_argument, NULL, 'i' },
		{ "permits", required_argument, NULL, 'p' },
		{ }
	};
	static double res[NR_SHAPES][MAX_ROUNDS];
	pthread_t tid[MAX_THREADS];
	unsigned int i, s, n = 0;
	cpu_set_t mask;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 't')
			threads = parse(optarg, 1, MAX_THREADS);
		else if (c == 'r')
			rounds = parse(optarg, 1, MAX_ROUNDS);
		else if (c == 'i')
			iters = parse(optarg, 1, 1U << 30);
		else if (c == 'p')
			permits = parse(optarg, 1, 1U << 30);
		else
			return 2;
	}
	if (sched_getaffinity(0, sizeof(mask), &mask))
		return 1;
	for (c = 0; c < CPU_SETSIZE && n < threads; c++)
		if (CPU_ISSET(c, &mask))
			cpus[n++] = c;
	if (n < threads) {
		fprintf(stderr, "psem-shapes: %u threads, %u CPUs\n", threads,
			n);
		return 2;
	}
	pthread_barrier_init(&start, NULL, threads + 1);
	pthread_barrier_init(&stop, NULL, threads + 1);
	for (i = 0; i < threads; i++)
		pthread_create(&tid[i], NULL, worker, (void *)(unsigned long)i);
	for (i = 0; i < rounds; i++)
		for (s = 0; s < NR_SHAPES; s++)
			res[s][i] = measure(s);
	shape = NR_SHAPES;
	pthread_barrier_wait(&start);
	for (i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	printf("psem-shapes: %u threads, %u permits, %u rounds of %u\n",
	       threads, permits, rounds, iters);
	report(res);
	if (failed)
		fprintf(stderr, "psem-shapes: a word or sem_t did not balance\n");
	return failed;
}
