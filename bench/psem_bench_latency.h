/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem_bench_latency.h: the in-kernel benchmark's latency table,
 * semaphore::async::release_to_grant. Kernel-only (kthreads, irq_work,
 * struct semaphore), so not in the shared psem_bench_loops.h; like it,
 * included once, by bench/psem_bench.c, after its environment layer (it
 * uses bench_cpu(), bench_median(), bench_fmt() and the parameters).
 */
#ifndef PSEM_BENCH_LATENCY_H
#define PSEM_BENCH_LATENCY_H

/* ------------------------------------------------------------------ */
/* Latency: from a release to the grant, async waiter against sleeping */
/* ------------------------------------------------------------------ */

/*
 * One psem (and one struct semaphore) of zero permits. A releaser kthread
 * stamps ktime_get_ns() just before psem_release(sem, 1) (up() for the
 * kernel's semaphore); the waiter stamps it when it runs:
 *
 *   async     the releaser queues a struct psem_async with
 *             psem_acquire_async() (-EINPROGRESS: the balance is zero),
 *             then releases one permit; the callback stamps on entry. It
 *             runs in the release's own context, after the queue lock is
 *             dropped, on the releaser's CPU.
 *   sleeping  a waiter kthread sleeps in psem_acquire(sem, 1); the
 *             releaser waits until it is queued and off its CPU, releases,
 *             and the waiter stamps on return from psem_acquire(). With
 *             two or more CPUs the waiter runs on another CPU than the
 *             releaser (the wake-up is remote); with one, the figure
 *             includes the switch from the releaser to the waiter.
 *   kernel    the same with down() and up() on a struct semaphore.
 *   hardirq   the same with psem_release() from a hard irq_work
 *             (IRQ_WORK_INIT_HARD) the releaser queues on its CPU: where the
 *             queue lock may not be taken there (PREEMPT_RT, lockdep's
 *             PROVE_RAW_LOCK_NESTING) the release is deferred to psem's own
 *             irq_work, so set beside "sleeping" this is the hand-off's cost;
 *             elsewhere the hard IRQ takes the lock itself.
 *
 * Every grant keeps its permit (the waiter holds it), so the balance is
 * zero before each release. A round measures @grants grants of each kind,
 * kinds interleaved round by round; the value of a round is the median of
 * its grants. Under QEMU's -icount the ns are instructions.
 */
enum lat_kind { LAT_ASYNC, LAT_SLEEP, LAT_SLEEP_KERNEL, LAT_HARDIRQ, NR_LAT };

/* Both semaphores start empty: every release grants to a queued waiter. */
#define LAT_PERMITS	0

/* The CSV's cell, threads and variant per kind. */
static const struct {
	const char		*cell;
	unsigned int		threads;
	enum bench_variant	variant;
} lat_kinds[NR_LAT] = {
	[LAT_ASYNC]		= { "release_to_grant_async", 1, V_PSEM },
	[LAT_SLEEP]		= { "release_to_grant_sleeping", 2, V_PSEM },
	[LAT_SLEEP_KERNEL]	= { "release_to_grant_sleeping", 2, V_KERNEL },
	[LAT_HARDIRQ]		= { "release_to_grant_hardirq", 2, V_PSEM },
};

struct lat_run {
	struct psem_ext		ext ____cacheline_aligned_in_smp;
	struct semaphore	ksem ____cacheline_aligned_in_smp;
	struct psem_async	aw ____cacheline_aligned_in_smp;
	struct irq_work		irq;		/* LAT_HARDIRQ's release */
	int			irq_ret;
	u64			t0 ____cacheline_aligned_in_smp;
	enum lat_kind		kind;
	unsigned int		n;
	u64			*samples;
	unsigned int		done;		/* grants recorded */
	int			result;		/* the callback's */
	bool			queued;		/* aw is psem's */
	int			ret;
	bool			single;		/* one CPU for both */
	struct task_struct	*waiter;
	struct completion	got;		/* the waiter recorded a grant */
	struct completion	finished;	/* the releaser is done */
	unsigned long		nvcsw, nivcsw;	/* the waiter's */
};

/* The callback: stamp first. Runs in psem_release()'s context. */
static void lat_async_fn(struct psem_async *aw, int result)
{
	u64 t1 = ktime_get_ns();
	struct lat_run *r = container_of(aw, struct lat_run, aw);

	r->samples[r->done] = t1 - r->t0;
	r->done++;
	r->result = result;
	r->queued = false;
}

/* LAT_HARDIRQ: the release, in a hard irq_work on the releaser's CPU. */
static void lat_irq_release(struct irq_work *work)
{
	struct lat_run *r = container_of(work, struct lat_run, irq);

	WRITE_ONCE(r->irq_ret, psem_release(&r->ext.sem, 1));
}

static int lat_waiter(void *data)
{
	struct lat_run *r = data;
	unsigned long nv0 = current->nvcsw, niv0 = current->nivcsw;
	unsigned int i;

	for (i = 0; i < r->n; i++) {
		int ret = 0;
		u64 t1;

		if (r->kind != LAT_SLEEP_KERNEL)
			ret = psem_acquire(&r->ext.sem, 1);
		else
			down(&r->ksem);
		t1 = ktime_get_ns();
		if (ret) {
			WRITE_ONCE(r->ret, ret);
			complete(&r->got);
			break;
		}
		/* t0 was written before the release that granted this. */
		r->samples[i] = t1 - READ_ONCE(r->t0);
		WRITE_ONCE(r->done, i + 1);
		complete(&r->got);
	}
	r->nvcsw = current->nvcsw - nv0;
	r->nivcsw = current->nivcsw - niv0;
	return 0;
}

static bool lat_off_cpu(struct task_struct *t)
{
#ifdef CONFIG_SMP
	return !READ_ONCE(t->on_cpu);
#else
	return true;
#endif
}

/* Until the waiter is queued, asleep and off its CPU; a 10 s hang guard. */
static int lat_wait_asleep(struct lat_run *r)
{
	unsigned long end = jiffies + 10 * HZ;
	struct task_struct *t = r->waiter;

	for (;;) {
		/*
		 * Lockless peeks, no barrier needed: the waiter linked itself
		 * under the queue lock before it slept, and a stale answer
		 * only costs another turn of this loop. struct semaphore's
		 * wait list is its own (it changed shape in 7.1): its waiter
		 * asleep in down() is queued.
		 */
		bool queued = r->kind == LAT_SLEEP_KERNEL ||
			!psem_queue_empty(&r->ext.sem);	/* a peek: see above */

		if (queued && READ_ONCE(t->__state) == TASK_UNINTERRUPTIBLE &&
		    lat_off_cpu(t))
			return 0;
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
		if (r->single)
			schedule();	/* still running: let the waiter get to its sleep */
		else
			cpu_relax();
	}
}

static int lat_releaser(void *data)
{
	struct lat_run *r = data;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < r->n && !ret; i++) {
		if (r->kind == LAT_ASYNC) {
			ret = psem_acquire_async(&r->ext.sem, 1, &r->aw,
						 lat_async_fn);
			if (ret != -EINPROGRESS) {
				ret = ret ?: -EIO;	/* 0: took a permit */
				break;
			}
			r->queued = true;
			WRITE_ONCE(r->t0, ktime_get_ns());
			ret = psem_release(&r->ext.sem, 1);
			if (!ret && (r->done != i + 1 || r->result))
				ret = -EIO;
			continue;
		}
		ret = lat_wait_asleep(r);
		if (ret)
			break;
		WRITE_ONCE(r->t0, ktime_get_ns());
		if (r->kind == LAT_SLEEP) {
			ret = psem_release(&r->ext.sem, 1);
		} else if (r->kind == LAT_HARDIRQ) {
			irq_work_queue(&r->irq);
			irq_work_sync(&r->irq);
			ret = READ_ONCE(r->irq_ret);
		} else {
			up(&r->ksem);
		}
		if (!ret)
			wait_for_completion(&r->got);
		ret = ret ?: READ_ONCE(r->ret);
	}
	r->ret = ret;
	complete(&r->finished);
	return 0;
}

static struct task_struct *lat_thread(int (*fn)(void *), struct lat_run *r,
				      const char *name, int cpu)
{
	struct task_struct *t = kthread_create(fn, r, "psem_bench/%s", name);

	if (IS_ERR(t))
		return t;
	get_task_struct(t);
	kthread_bind(t, cpu);
	return t;
}

/* One measurement: @n grants of one kind into @samples. */
static int lat_measure(enum lat_kind kind, unsigned int n, u64 *samples,
		       unsigned long *nvcsw, unsigned long *nivcsw)
{
	bool single = num_online_cpus() < 2;
	int rcpu = single ? cpumask_last(cpu_online_mask) : bench_cpu(1, 2);
	int wcpu = single ? rcpu : bench_cpu(0, 2);
	struct task_struct *rel;
	struct lat_run *r;
	bool queued;
	int ret;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	psem_init_ext(&r->ext, LAT_PERMITS);
	sema_init(&r->ksem, LAT_PERMITS);
	r->kind = kind;
	r->n = n;
	r->samples = samples;
	r->single = single;
	r->irq = IRQ_WORK_INIT_HARD(lat_irq_release);
	init_completion(&r->got);
	init_completion(&r->finished);

	if (kind != LAT_ASYNC) {
		r->waiter = lat_thread(lat_waiter, r, "waiter", wcpu);
		if (IS_ERR(r->waiter)) {
			ret = PTR_ERR(r->waiter);
			goto out_free;
		}
	}
	rel = lat_thread(lat_releaser, r, "releaser", rcpu);
	if (IS_ERR(rel)) {
		ret = PTR_ERR(rel);
		if (r->waiter) {	/* never woken: reaped without running */
			kthread_stop(r->waiter);
			put_task_struct(r->waiter);
		}
		goto out_free;
	}
	if (r->waiter)
		wake_up_process(r->waiter);
	wake_up_process(rel);
	wait_for_completion(&r->finished);
	kthread_stop(rel);
	put_task_struct(rel);
	ret = r->ret;
	/* After a failure, take back an async waiter still queued. */
	if (r->queued && psem_cancel_async(&r->ext.sem, &r->aw))
		r->queued = false;
	if (r->waiter) {
		unsigned int left = n - READ_ONCE(r->done);

		/* After a failure, let the waiter through its remaining grants. */
		if (ret && left) {
			if (kind != LAT_SLEEP_KERNEL)
				psem_release(&r->ext.sem, left);
			else
				while (left--)
					up(&r->ksem);
		}
		kthread_stop(r->waiter);
		put_task_struct(r->waiter);
		*nvcsw = r->nvcsw;
		*nivcsw = r->nivcsw;
	} else {
		*nvcsw = 0;
		*nivcsw = 0;
	}
	/*
	 * Every grant kept its permit: nothing left, nobody queued. Both
	 * threads are gone, so the peeks race with nothing.
	 */
	psem_sync(&r->ext.sem);	/* a deferred hand-off is over */
	queued = !psem_queue_empty(&r->ext.sem);	/* no barrier: see above */
	if (!ret && (r->done != n || psem_available(&r->ext.sem) || queued ||
		     !down_trylock(&r->ksem)))	/* a permit left over */
		ret = -EIO;
out_free:
	kfree(r);
	return ret;
}

/* The @q-th per-mille of @n sorted values (nearest rank). */
static u64 permille(const u64 *v, unsigned int n, unsigned int q)
{
	u64 i = div_u64((u64)n * q + 999, 1000);

	return v[i ? i - 1 : 0];
}

/*
 * The latency table: every selected kind, interleaved round by round, with
 * psem's shipped rules (with a waiter queued every rule takes the lock).
 * Per kind: a round line per round, a csv line (median, min and max of the
 * round medians) and a dist line over every grant: samples, min, 10th,
 * 50th, 90th and 99th percentile, max, in ns.
 */
static int bench_latency_run(void)
{
	enum lat_kind klist[NR_LAT];
	unsigned int nk = 0, r, i, total = rounds * grants;
	char b0[FX_LEN], b1[FX_LEN], b2[FX_LEN], b3[FX_LEN];
	u64 *all, *val, *csw;
	int ret = 0;

	for (i = 0; i < NR_LAT; i++) {
		unsigned int ci;

		for (ci = 0; ci < NR_CELLS; ci++)
			if (!strcmp(bench_cells[ci].name, lat_kinds[i].cell))
				break;
		if (ci < NR_CELLS && (sel_cells & BIT(ci)) &&
		    (sel_variants & BIT(lat_kinds[i].variant)))
			klist[nk++] = i;
	}
	if (!nk)
		return 0;
	all = kvmalloc_array((size_t)NR_LAT * total, sizeof(u64),
			     GFP_KERNEL | __GFP_ZERO);
	val = kcalloc(2 * NR_LAT * rounds, sizeof(u64), GFP_KERNEL);
	if (!all || !val) {
		ret = -ENOMEM;
		goto out;
	}
	csw = val + NR_LAT * rounds;
	variant_apply(V_PSEM);

	for (r = 0; r < rounds; r++) {
		for (i = 0; i < nk; i++) {
			enum lat_kind k = klist[i];
			u64 *s = all + (size_t)k * total + (size_t)r * grants;
			unsigned long nv, niv;

			ret = lat_measure(k, grants, s, &nv, &niv);
			if (ret) {
				pr_err("latency,%s,%s: measurement failed: %d\n",
				       lat_kinds[k].cell,
				       variant_names[lat_kinds[k].variant], ret);
				goto out;
			}
			/* Sorts this round's grants in place: order is not used. */
			val[k * rounds + r] = 100 * bench_median(s, grants);
			csw[k * rounds + r] = div64_u64((u64)(nv + niv) * 100000,
							grants);
			pr_info("round,latency,%s,%u,none,%s,%u,%s,0.00,%s,%s\n",
				lat_kinds[k].cell, lat_kinds[k].threads,
				variant_names[lat_kinds[k].variant], r,
				bench_fmt(b0, val[k * rounds + r]),
				bench_fmt(b1, div64_u64((u64)nv * 100000, grants)),
				bench_fmt(b2, div64_u64((u64)niv * 100000, grants)));
			cond_resched();
		}
	}

	for (i = 0; i < nk; i++) {
		enum lat_kind k = klist[i];
		u64 *vv = val + k * rounds, *s = all + (size_t)k * total;
		u64 med = bench_median(vv, rounds);
		u64 cs = bench_median(csw + k * rounds, rounds);

		pr_info("csv,latency,%s,%u,none,%s,%s,%s,%s,%u,0.00,%s,\n",
			lat_kinds[k].cell, lat_kinds[k].threads,
			variant_names[lat_kinds[k].variant], bench_fmt(b0, med),
			bench_fmt(b1, vv[0]), bench_fmt(b2, vv[rounds - 1]), rounds,
			bench_fmt(b3, cs));
		sort(s, total, sizeof(*s), cmp_u64, NULL);
		pr_info("dist,latency,%s,%u,none,%s,%u,%llu,%llu,%llu,%llu,%llu,%llu\n",
			lat_kinds[k].cell, lat_kinds[k].threads,
			variant_names[lat_kinds[k].variant], total, s[0],
			permille(s, total, 100), permille(s, total, 500),
			permille(s, total, 900), permille(s, total, 990),
			s[total - 1]);
	}
out:
	kfree(val);
	kvfree(all);
	return ret;
}

#endif /* PSEM_BENCH_LATENCY_H */
