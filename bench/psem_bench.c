// SPDX-License-Identifier: GPL-2.0
/*
 * psem_bench: the contention probe and single-thread rows of the original
 * Rust pull request, in the kernel, for psem's four release rules side by
 * side with the kernel's own semaphore, rw_semaphore and mutex, all in one
 * boot; and the release-to-grant latency table.
 *
 * The cells, psem's loops and the round runner are psem_bench_cells.h and
 * psem_bench_loops.h, shared with the native benchmark
 * (tools/psem-user/native/bench_native.c); this file is the kernel's
 * environment: its references, kthreads, clocks and module parameters, and
 * the latency table (psem_bench_latency.h).
 *
 * Loading the module runs the benchmark selected by its parameters in the
 * context of insmod and prints one line per measurement to the kernel log;
 * scripts/bench_table.py turns that log into CSV, tables and a plot. Never
 * load it on a machine doing real work: it occupies every CPU it is given.
 *
 *   insmod psem_bench.ko table=contention cells=rwlock_read threads=2 \
 *          gaps=none,short variants=locked,positive-balance,psem,kernel \
 *          iters=200000 rounds=15
 *
 * Method. A measurement runs N kthreads, each bound to its own online CPU.
 * They sleep on a completion until all exist, then spin on a counter until
 * all have woken, and then run the same loop of @iters iterations on one
 * primitive, timing it with ktime_get_ns(). The value of a round is the
 * mean over the threads of their wall-clock ns per iteration. Variants are
 * interleaved within each round (A B C D, A B C D, ...) so that drift hits
 * all of them alike; psem's variants are switched with its static keys
 * between measurements, never during one.
 *
 * Each thread also reports its CPU time (se.sum_exec_runtime, brought up
 * to date by a short sleep after the loop) as a share of its wall time,
 * and its voluntary and involuntary context switches per 1,000 iterations.
 *
 * The latency table (bench_latency_run()) times the release-to-grant
 * latency of an asynchronous waiter (its callback) against a sleeping one
 * (its wake-up), in one boot.
 *
 * Output, one record per line, prefixed "psem_bench: ":
 *   round,TABLE,CELL,THREADS,GAP,VARIANT,ROUND,NS,CPU_PCT,VCSW_1K,IVCSW_1K
 *   csv,TABLE,CELL,THREADS,GAP,VARIANT,MEDIAN,MIN,MAX,ROUNDS,CPU_PCT,CSW_1K,
 *   dist,latency,CELL,THREADS,GAP,VARIANT,GRANTS,MIN,P10,P50,P90,P99,MAX
 * the second in the column order of bench/results/ *.csv, insns_per_iter
 * left empty (the host script fills it from a run under QEMU's -icount).
 * In the latency table a round's NS is the median of its grants, CPU_PCT
 * is not measured (0.00) and the context switches are the waiter's per
 * 1,000 grants.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/task.h>
#include <linux/semaphore.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/utsname.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_mutex.h"
#include "psem_pool.h"
#include "psem_rwlock.h"

/* The environment layer of psem_bench_cells.h (see there). */
#define BENCH_NR_REFS		1
static const char *const bench_ref_names[BENCH_NR_REFS] = { "kernel" };
#define BENCH_HAVE_LATENCY
#define bench_ref_sem_t		struct semaphore
#define bench_ref_down(s)	down(s)
#define bench_ref_up(s)		up(s)
#define bench_ref_lock_t	spinlock_t
#define bench_ref_lock(l)	spin_lock(l)
#define bench_ref_unlock(l)	spin_unlock(l)
#include "psem_bench_cells.h"

/* struct semaphore, rw_semaphore or mutex */
#define V_KERNEL		V_REFS

#define BENCH_MAX_THREAD_SETS	8
#define BENCH_MAX_GRANTS	100000
#define BENCH_FLOOR_CONTENTION	false
#define BENCH_CPUS_WHAT		"online CPUs"

/*
 * The parameters, read-only: a list (comma-separated names or numbers,
 * parsed by parse_params()) or a count, each described with its default.
 * @name is an identifier, @init a constant: neither has side effects.
 */
#define BENCH_PARAM_LIST(name, init, desc)				\
	static char *name = init;					\
	module_param(name, charp, 0444);				\
	MODULE_PARM_DESC(name, "comma-separated " desc			\
			 " (default " __stringify(init) ")")

#define BENCH_PARAM_UINT(name, init, desc)				\
	static unsigned int name = init;				\
	module_param(name, uint, 0444);					\
	MODULE_PARM_DESC(name, desc " (default " __stringify(init) ")")

BENCH_PARAM_LIST(table, "all", "tables: contention, single, latency, or all");
BENCH_PARAM_LIST(cells, "all", "cell names, or all");
BENCH_PARAM_LIST(threads, "2", "thread counts for contention cells");
BENCH_PARAM_LIST(gaps, "none,short,long",
		 "gaps for contention cells: none, short, long");
BENCH_PARAM_LIST(variants, "all",
		 "locked, positive-balance, positive-balance+flag, psem, kernel, floor, or all");

BENCH_PARAM_UINT(iters, 200000,
		 "iterations per thread per contention measurement");
BENCH_PARAM_UINT(single_iters, 100000,
		 "iterations per single-thread measurement");
BENCH_PARAM_UINT(rounds, 15, "rounds per cell; the median is reported");
BENCH_PARAM_UINT(short_gap, 50, "multiply steps of the short gap");
BENCH_PARAM_UINT(long_gap, 200, "multiply steps of the long gap");
BENCH_PARAM_UINT(grants, 200,
		 "grants per round and kind in the latency table");

static bool stats;
module_param(stats, bool, 0444);
MODULE_PARM_DESC(stats,
		 "count psem events in psem variants and print them per cell (perturbs timing)");

/* ------------------------------------------------------------------ */
/* The primitives under test                                          */
/* ------------------------------------------------------------------ */

/*
 * Everything one measurement may use. Each primitive sits on its own cache
 * line, so that only the one under test is contended. Allocated afresh for
 * every measurement, so that no run inherits another's state.
 */
struct bench_obj {
	struct psem		sem ____cacheline_aligned_in_smp;
	struct psem_rwlock	rw ____cacheline_aligned_in_smp;
	struct psem_mutex	mx ____cacheline_aligned_in_smp;
	struct psem_pool	pool ____cacheline_aligned_in_smp;
	struct semaphore	ksem ____cacheline_aligned_in_smp;
	struct rw_semaphore	krw ____cacheline_aligned_in_smp;
	struct mutex		kmx ____cacheline_aligned_in_smp;
	struct bench_ref_pool	kpool ____cacheline_aligned_in_smp;
	atomic_long_t		word ____cacheline_aligned_in_smp;
	atomic_t		errors ____cacheline_aligned_in_smp;
	unsigned long		pool_items[BENCH_POOL_CAP];
	long			permits;	/* psem's and ksem's */
	long			count;		/* the floor's word */
};

/* Per-measurement figures, fixed point: ns and per-1k counts times 100. */
#define bench_val_t		u64

struct bench_sample {
	u64	ns;
	u64	cpu_pct;
	u64	vcsw_1k;
	u64	ivcsw_1k;
};

/* @num / @den times @scale, in bench_val_t */
#define bench_ratio(num, den, scale) \
	div64_u64((u64)(num) * ((scale) * 100), den)

#define bench_info(fmt, ...)	pr_info(fmt, ##__VA_ARGS__)
#define bench_err(fmt, ...)	pr_err(fmt, ##__VA_ARGS__)
#define bench_calloc(n, size)	kcalloc(n, size, GFP_KERNEL)
#define bench_free(p)		kfree(p)
#define bench_strdup(s)		kstrdup(s, GFP_KERNEL)
#define bench_trim(s)		strim(s)
#define bench_parse_uint(s, n)	kstrtouint(s, 10, n)
#define bench_nr_cpus()		num_online_cpus()

#include "psem_bench_loops.h"

/* ------------------------------------------------------------------ */
/* The kernel's references: one loop per operation                    */
/* ------------------------------------------------------------------ */

BENCH_LOOP(rw_read, kernel, BENCH_GAP_AFTER,
	   BENCH_OK(down_read(&o->krw)), up_read(&o->krw))
BENCH_LOOP(rw_held, kernel, BENCH_GAP_INSIDE,
	   BENCH_OK(down_read(&o->krw)), up_read(&o->krw))
/* struct semaphore takes one permit per down(): two of them take two. */
BENCH_LOOP(take2, kernel, BENCH_GAP_AFTER,
	   BENCH_OK(down(&o->ksem), down(&o->ksem)),
	   (up(&o->ksem), up(&o->ksem)))
BENCH_LOOP(take1, kernel, BENCH_GAP_AFTER,
	   BENCH_OK(down(&o->ksem)), up(&o->ksem))
BENCH_LOOP_R8W1(kernel, down_read(&o->krw), up_read(&o->krw),
		down_write(&o->krw), up_write(&o->krw))
BENCH_LOOP(write, kernel, BENCH_GAP_NONE,
	   BENCH_OK(down_write(&o->krw)), up_write(&o->krw))
BENCH_LOOP(try, kernel, BENCH_GAP_NONE,
	   !down_trylock(&o->ksem), up(&o->ksem))
BENCH_LOOP_POOL(kernel, bench_ref_pool_get(&o->kpool),
		BENCH_OK(bench_ref_pool_put(&o->kpool, obj)))
BENCH_LOOP(mutex, kernel, BENCH_GAP_NONE,
	   BENCH_OK(mutex_lock(&o->kmx)), mutex_unlock(&o->kmx))

static const bench_loop_t kernel_loops[NR_OPS] = BENCH_LOOPS_OF(kernel);

static bench_loop_t bench_ref_loop(enum bench_op op, int impl)
{
	return impl == V_KERNEL - V_PSEM ? kernel_loops[op] : NULL;
}

static int bench_obj_init(struct bench_obj *o, const struct bench_cell *c)
{
	int i, ret;

	ret = bench_psem_init(o, c);
	if (ret)
		return ret;
	sema_init(&o->ksem, c->permits);
	init_rwsem(&o->krw);
	mutex_init(&o->kmx);
	sema_init(&o->kpool.sem, BENCH_POOL_CAP);
	spin_lock_init(&o->kpool.lock);
	o->kpool.nr = BENCH_POOL_CAP;
	for (i = 0; i < BENCH_POOL_CAP; i++)
		o->kpool.obj[i] = &o->pool_items[i];
	return 0;
}

/*
 * Whether struct semaphore @s holds exactly @permits, through its API
 * only (its fields changed shape in 7.1): take what down_trylock() gives,
 * one more must fail, then give them all back.
 */
static bool bench_ksem_full(struct semaphore *s, long permits)
{
	long i, got = 0;
	bool extra;

	for (i = 0; i < permits; i++)
		got += !down_trylock(s);
	extra = !down_trylock(s);
	if (extra)
		up(s);
	for (i = 0; i < got; i++)
		up(s);
	return got == permits && !extra;
}

/* Every primitive must be back where it started, or the run is void. */
static int bench_obj_check(struct bench_obj *o, const struct bench_cell *c)
{
	int bad = bench_psem_check(o);

	if (!bench_ksem_full(&o->ksem, o->permits) || rwsem_is_locked(&o->krw) ||
	    mutex_is_locked(&o->kmx) || o->kpool.nr != BENCH_POOL_CAP)
		bad++;
	if (bad)
		pr_err("%s: %d failed operations or primitives left held\n",
		       c->name, bad);
	return bad ? -EIO : 0;
}

/* ------------------------------------------------------------------ */
/* One measurement: N bound kthreads, a barrier, a timed loop         */
/* ------------------------------------------------------------------ */

struct bench_run;

/* The window of the figures is in local_clock(), the loop in ktime. */
struct bench_thread {
	struct bench_run	*run;
	struct task_struct	*task;
	struct bench_figures	fig;
};

struct bench_run {
	struct bench_obj	*obj;
	bench_loop_t		loop;
	unsigned int		nthreads;
	unsigned int		iters;
	unsigned int		steps;
	struct completion	start;
	struct completion	done;
	atomic_t		arrived;
	atomic_t		left;
	struct bench_thread	th[];
};

static int bench_worker(void *data)
{
	struct bench_thread *t = data;
	struct bench_run *run = t->run;
	unsigned long nv0, niv0;
	u64 cpu0, w0, w1, t0, t1;

	/* Sleep until every thread exists, ... */
	wait_for_completion(&run->start);
	/*
	 * ... just scheduled in: sum_exec_runtime is up to date. It counts
	 * in the scheduler's clock, so the window it is compared with is
	 * measured in that clock too (under QEMU it can drift from ktime
	 * by up to a tick).
	 */
	cpu0 = current->se.sum_exec_runtime;
	nv0 = current->nvcsw;
	niv0 = current->nivcsw;
	w0 = local_clock();
	/* ... then spin until all have woken, so that they start together. */
	atomic_inc(&run->arrived);
	while (atomic_read(&run->arrived) < run->nthreads)
		cpu_relax();

	t0 = ktime_get_ns();
	t->fig.sink = run->loop(run->obj, run->iters, run->steps, t0);
	t1 = ktime_get_ns();
	w1 = local_clock();

	t->fig.nvcsw = current->nvcsw - nv0;
	t->fig.nivcsw = current->nivcsw - niv0;
	/*
	 * The scheduler brings sum_exec_runtime up to date only at a tick or
	 * a switch: sleep briefly so that it counts the whole loop.
	 */
	schedule_timeout_uninterruptible(1);
	t->fig.cpu_ns = current->se.sum_exec_runtime - cpu0;
	t->fig.loop_ns = t1 - t0;
	t->fig.win_ns = w1 - w0;
	if (atomic_dec_and_test(&run->left))
		complete(&run->done);
	return 0;
}

/* The CPUs of the threads: the first @n online CPUs, or the last for one. */
static int bench_cpu(unsigned int i, unsigned int n)
{
	unsigned int k = 0;
	int cpu;

	if (n == 1)
		return cpumask_last(cpu_online_mask);
	for_each_online_cpu(cpu)
		if (k++ == i)
			return cpu;
	return -1;
}

static int bench_measure(const struct bench_cell *c, enum bench_variant v,
			 unsigned int nthreads, unsigned int n,
			 unsigned int steps, struct bench_sample *s)
{
	struct bench_figures sum = { 0 };
	struct bench_run *run;
	struct bench_obj *o;
	unsigned int i, created = 0;
	int ret;

	o = kzalloc(sizeof(*o), GFP_KERNEL);
	run = kzalloc(struct_size(run, th, nthreads), GFP_KERNEL);
	if (!o || !run) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = bench_obj_init(o, c);
	if (ret)
		goto out_free;

	run->obj = o;
	run->loop = bench_loop(c, v);
	run->nthreads = nthreads;
	run->iters = n;
	run->steps = steps;
	init_completion(&run->start);
	init_completion(&run->done);
	atomic_set(&run->arrived, 0);
	atomic_set(&run->left, nthreads);

	for (i = 0; i < nthreads; i++) {
		struct bench_thread *t = &run->th[i];
		int cpu = bench_cpu(i, nthreads);
		struct task_struct *task;

		t->run = run;
		task = kthread_create(bench_worker, t, "psem_bench/%u", i);
		if (IS_ERR(task)) {
			ret = PTR_ERR(task);
			break;
		}
		get_task_struct(task);
		kthread_bind(task, cpu);
		t->task = task;
		created++;
	}
	if (ret) {
		/* Never woken: kthread_stop() reaps them without running them. */
		for (i = 0; i < created; i++) {
			kthread_stop(run->th[i].task);
			put_task_struct(run->th[i].task);
		}
		goto out_obj;
	}
	for (i = 0; i < nthreads; i++)
		wake_up_process(run->th[i].task);
	complete_all(&run->start);
	wait_for_completion(&run->done);
	for (i = 0; i < nthreads; i++) {
		struct bench_thread *t = &run->th[i];

		kthread_stop(t->task);
		put_task_struct(t->task);
		bench_figures_add(&sum, &t->fig);
	}
	bench_sample_set(s, &sum, n, nthreads);
out_obj:
	if (bench_obj_check(o, c) && !ret)
		ret = -EIO;
out_free:
	kfree(run);
	kfree(o);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Medians and records                                                */
/* ------------------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n values (sorted in place); the mean of the middle two. */
static u64 bench_median(u64 *v, unsigned int n)
{
	sort(v, n, sizeof(*v), cmp_u64, NULL);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Formats a fixed-point value with two decimals into @buf (FX_LEN). */
static const char *bench_fmt(char *buf, u64 v)
{
	u32 rem;
	u64 q = div_u64_rem(v, 100, &rem);

	snprintf(buf, FX_LEN, "%llu.%02u", q, rem);
	return buf;
}

static void bench_after_round(const struct bench_cell *c,
			      unsigned int nthreads, const char *gap,
			      enum bench_variant v, unsigned int r,
			      const struct bench_sample *s)
{
	cond_resched();
}

#include "psem_bench_latency.h"

static int __init psem_bench_init(void)
{
	struct bench_switches sw;
	u64 t0;
	int ret;

	if (!grants || grants > BENCH_MAX_GRANTS) {
		pr_err("grants must be 1..%d\n", BENCH_MAX_GRANTS);
		return -EINVAL;
	}
	ret = parse_params();
	if (ret)
		return ret;

	pr_info("begin,kernel=%s,cpus=%u,table=%s,cells=%s,threads=%s,gaps=%s,variants=%s,iters=%u,single_iters=%u,rounds=%u,short_gap=%u,long_gap=%u,grants=%u\n",
		init_utsname()->release, num_online_cpus(), table, cells,
		threads, gaps, variants, iters, single_iters, rounds,
		short_gap, long_gap, grants);
	t0 = ktime_get_ns();
	bench_switches_save(&sw);
	ret = bench_run_cells();
	if (!ret && (sel_tables & BIT(T_LATENCY)))
		ret = bench_latency_run();
	/* Leave psem's switches as they were found. */
	bench_switches_restore(&sw);
	pr_info("end,%s,%llu ms\n", ret ? "failed" : "ok",
		div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC));
	return ret;
}

static void __exit psem_bench_exit(void)
{
}

module_init(psem_bench_init);
module_exit(psem_bench_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Benchmarks of psem against the kernel's semaphore, rw_semaphore and mutex");
MODULE_AUTHOR("The psem developers");
MODULE_IMPORT_NS(PSEM_NS);
MODULE_IMPORT_NS(PSEM_KNOBS_NS);
