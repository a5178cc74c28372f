/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_native_workers.h: the native benchmark's threads, one pinned per
 * CPU of the affinity mask and reused by every measurement, and
 * bench_measure(), the environment half that psem_bench_loops.h calls.
 * Included once, by bench_native.c, after struct bench_obj and its
 * bench_obj_init() and bench_obj_check().
 */
#ifndef BENCH_NATIVE_WORKERS_H
#define BENCH_NATIVE_WORKERS_H

/* ------------------------------------------------------------------ */
/* Workers: one pinned thread per CPU, reused by every measurement    */
/* ------------------------------------------------------------------ */

struct bench_worker {
	pthread_t	th;
	int		cpu;
	int		perf_fd;	/* instructions:u, or -1 */
	u64		seen;		/* the last job it looked at */
	/* Results of the last job, read by the main thread after it. */
	struct bench_figures fig;
};

static struct bench_worker workers[BENCH_MAX_THREADS];

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
	w->perf_fd = count_insns ? perf_open_insns() : -1;

	for (;;) {
		struct rusage r0, r1;
		u64 cpu0, w0, t0, t1, w1;
		struct bench_obj *o;
		unsigned int iters, steps;
		bench_loop_t loop;
		bool counting;
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
		counting = job.insns && w->perf_fd >= 0;
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
		if (counting) {
			ioctl(w->perf_fd, PERF_EVENT_IOC_RESET, 0);
			ioctl(w->perf_fd, PERF_EVENT_IOC_ENABLE, 0);
		}
		t0 = now_ns(CLOCK_MONOTONIC);
		w->fig.sink = loop(o, iters, steps, t0);
		t1 = now_ns(CLOCK_MONOTONIC);
		w->fig.insns = 0;
		if (counting) {
			ioctl(w->perf_fd, PERF_EVENT_IOC_DISABLE, 0);
			if (read(w->perf_fd, &w->fig.insns,
				 sizeof(w->fig.insns)) != sizeof(w->fig.insns))
				w->fig.insns = 0;
		}
		w->fig.cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
		getrusage(RUSAGE_THREAD, &r1);
		w1 = now_ns(CLOCK_MONOTONIC);
		w->fig.loop_ns = t1 - t0;
		w->fig.win_ns = w1 - w0;
		w->fig.nvcsw = r1.ru_nvcsw - r0.ru_nvcsw;
		w->fig.nivcsw = r1.ru_nivcsw - r0.ru_nivcsw;

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

static int bench_measure(const struct bench_cell *c, enum bench_variant v,
			 unsigned int nthreads, unsigned int n,
			 unsigned int steps, struct bench_sample *s)
{
	struct bench_figures sum = { 0 };
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
	count = count_insns && c->table == T_SINGLE && workers[first].perf_fd >= 0;

	pthread_mutex_lock(&job_lock);
	job.loop = bench_loop(c, v);
	job.obj = o;
	job.first = first;
	job.n = nthreads;
	job.iters = n;
	job.steps = steps;
	job.insns = count;
	job.left = nthreads;
	__atomic_store_n(&job_arrived, 0, __ATOMIC_RELAXED);
	job_gen++;
	pthread_cond_broadcast(&job_more);
	while (job.left)
		pthread_cond_wait(&job_done, &job_lock);
	pthread_mutex_unlock(&job_lock);

	for (i = first; i < first + (int)nthreads; i++)
		bench_figures_add(&sum, &workers[i].fig);
	bench_sample_set(s, &sum, n, nthreads);
	s->insns = count ? bench_ratio(sum.insns, (u64)n * nthreads, 1) : -1;
	ret = bench_obj_check(o, c);
	free(o);
	return ret;
}

#endif /* BENCH_NATIVE_WORKERS_H */
