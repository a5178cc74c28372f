// SPDX-License-Identifier: GPL-2.0
/*
 * psem_torture: a locktorture-style stress test for psem and the locks built
 * on it. Load it only inside a throw-away guest (scripts/torture.sh).
 *
 * Loading starts a controller thread that runs one phase after another and
 * returns at once; the test ends by itself after duration_s seconds with
 *
 *   psem_torture: End of test: SUCCESS      (or FAILURE)
 *   psem_torture: ops sem=N rwlock=N mutex=N life=N max_wait_ms=N violations=N
 *
 * and the module stays loaded until rmmod, which also stops a test early.
 *
 * Phases (torture_type):
 *
 *   sem     nthreads_per_cpu threads per CPU, each bound to its CPU, run random
 *           mixes of every psem call on one psem of @permits permits: the
 *           four acquires (plain, interruptible, killable, timeout), try,
 *           drain, reduce (re-added later by a release), release and
 *           release_all_held, with random counts and hold times. Each thread
 *           accounts what it holds; the bounds (nobody holds or sees more
 *           than @permits) are checked after every call, and conservation
 *           (held + available - debt + reduced == permits) exactly whenever
 *           all threads are paused.
 *   rwlock  readers and writers on a psem_rwlock (all lock variants and
 *           downgrade): a writer never overlaps a reader or another writer,
 *           checked in every critical section, which also checks shared data
 *           written only by writers.
 *   mutex   the same for psem_mutex: never two holders, no lost update.
 *   life    a psem with a capacity of @permits: workers use every acquire
 *           (the sleeping ones, try, drain and psem_acquire_async(), which
 *           they wait for or cancel at a random moment) with random counts,
 *           some above the capacity, while a churn thread resizes it (grow
 *           and shrink, permits out), closes, reopens and quiesces it (with
 *           no wait). Each outcome is judged against what the churn did
 *           during the call: a grant never above the largest capacity seen,
 *           -E2BIG only above the smallest, -ESHUTDOWN only if a close
 *           happened; a queued async request is cancelled or called back,
 *           exactly one of the two. At each stutter the psem is reopened,
 *           resized back to @permits and quiesced, and then must be exactly
 *           whole: every permit available, no debt, no flag, nobody linked.
 *           Beside them, an owner runs the device-removal pattern every few
 *           ms on a psem of its own from kmalloc(): acquirers wait on it
 *           (signalled, timed, killable, asynchronous), then it closes,
 *           quiesces and kfree()s it while those waits are ending, checks
 *           conservation before each free, and allocates the next
 *           (psem_torture_free.c); KASAN sees any late access.
 *   all     (default) sem, rwlock, mutex and life, each for a quarter of
 *           duration_s.
 *   busted  a deliberately broken mutex (a failed trylock proceeds anyway)
 *           and rwlock (a writer takes one permit instead of all): the test
 *           must see violations and ends "FAILURE (expected)".
 *
 * Beside the workers, each phase runs a monitor (bounds, the balance/waiter
 * invariant under the queue lock, a lost wake-up watchdog, periodic stats),
 * optionally a thread that sends SIGUSR1 to interruptible waiters
 * (signal_ms), and a CPU hotplug thread (hotplug=1). Every stutter_s seconds
 * all workers pause together: that is when conservation is checked and
 * psem's switches are set to the next release rule, in turn (flip_knobs):
 *
 *   always-locked          fast_release=0: every release takes the queue lock
 *   positive-balance       fast_release=1 zero_release=0 contention_flag=0
 *   positive-balance+flag  fast_release=1 zero_release=0 contention_flag=1
 *   waiters-bit            fast_release=1 zero_release=1 contention_flag=1
 *                          (the defaults)
 *   waiters-bit-noflag     fast_release=1 zero_release=1 contention_flag=0
 *
 * so that every rule runs in every phase of a long enough test.
 *
 * live_flips=N adds a thread that flips one of fast_release,
 * contention_flag, zero_release and stats_enabled, at random, every N ms
 * while the workers run, as an administrator may on a live system; the
 * checks stay exact. Each flip patches kernel text (static keys): under
 * QEMU's multi-threaded TCG (7.2) that soft-locks the guest, so run it on
 * single-threaded TCG (scripts/torture.sh does).
 *
 * Every broken rule prints "psem_torture: VIOLATION: ..." (rate-limited)
 * and is counted; any violation makes the test a FAILURE.
 *
 * This file is the controller only, as locktorture.c is: each phase is a
 * struct psem_torture_ops in its own file, torture_type picks a row of
 * tt_types[], and the run calls each phase through its vector. The files
 * below it never call it (psem_torture.h shows the layers).
 */

#include "psem_torture.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Torture test for psem, psem_rwlock and psem_mutex");
MODULE_AUTHOR("The psem developers");
MODULE_IMPORT_NS(PSEM_NS);
MODULE_IMPORT_NS(PSEM_KNOBS_NS);

/* The controller's parameters; those every layer reads are in _lib.c. */
static char *torture_type = "all";
module_param(torture_type, charp, 0444);
MODULE_PARM_DESC(torture_type, "all (default), sem, rwlock, mutex, life or busted");

static int duration_s = 60;
module_param(duration_s, int, 0444);
MODULE_PARM_DESC(duration_s, "Length of the whole test in seconds (1..3600)");

static int nthreads_per_cpu = 2;
module_param(nthreads_per_cpu, int, 0444);
MODULE_PARM_DESC(nthreads_per_cpu, "Worker threads per online CPU (1..16)");

static int stutter_s = 5;
module_param(stutter_s, int, 0444);
MODULE_PARM_DESC(stutter_s, "Pause all workers every N seconds and check conservation (0=off, ..3600)");

static int hotplug;
module_param(hotplug, int, 0444);
MODULE_PARM_DESC(hotplug, "Offline and online a CPU every few seconds (0/1)");

static int hardirq_release;
module_param(hardirq_release, int, 0444);
MODULE_PARM_DESC(hardirq_release, "Release from an HRTIMER_MODE_REL_HARD timer to waiting tasks, in every phase (0/1; default 0: PROVE_RAW_LOCK_NESTING kernels report an invalid wait context until psem defers that hand-off)");

/*
 * The phases, by id: the id also seeds the workers (tt_phase_init()), so
 * that a seed= replays the same phase the same way.
 */
enum tt_phase_id {
	TT_SEM,
	TT_RWLOCK,
	TT_MUTEX,
	TT_LIFE,
	TT_BUSTED_MUTEX,
	TT_BUSTED_RWLOCK,
	TT_NR_PHASES,
};

static const struct psem_torture_ops *const tt_phases_by_id[TT_NR_PHASES] = {
	[TT_SEM]		= &tt_sem_ops,
	[TT_RWLOCK]		= &tt_rwlock_ops,
	[TT_MUTEX]		= &tt_mutex_ops,
	[TT_LIFE]		= &tt_life_ops,
	[TT_BUSTED_MUTEX]	= &tt_busted_mutex_ops,
	[TT_BUSTED_RWLOCK]	= &tt_busted_rwlock_ops,
};

#define TT_MAX_TYPE_PHASES	4

/**
 * struct tt_type - a value of torture_type: the phases it runs, in order
 * @name:   the value
 * @phases: the phases' ids; TT_NR_PHASES ends a shorter list
 * @busted: the deliberately broken locks: violations are expected
 */
struct tt_type {
	const char *name;
	enum tt_phase_id phases[TT_MAX_TYPE_PHASES];
	bool busted;
};

#define TT_END	TT_NR_PHASES
static const struct tt_type tt_types[] = {
	{ "all",	{ TT_SEM, TT_RWLOCK, TT_MUTEX, TT_LIFE } },
	{ "sem",	{ TT_SEM, TT_END } },
	{ "rwlock",	{ TT_RWLOCK, TT_END } },
	{ "mutex",	{ TT_MUTEX, TT_END } },
	{ "life",	{ TT_LIFE, TT_END } },
	{ "busted",	{ TT_BUSTED_MUTEX, TT_BUSTED_RWLOCK, TT_END }, true },
};

/* The run. */
static struct task_struct *tt_ctl;
static const struct tt_type *tt_run_type;
static int tt_nphases;
static bool tt_abandoned;	/* workers left stuck in a broken psem */
static atomic_t tt_finished;
static int tt_ncpus;
static unsigned long tt_phase_ops[TT_NR_PHASES];
static unsigned long tt_max_wait;	/* jiffies, over all phases */
static unsigned int tt_gen;		/* the stutter's generation */

/* ---------------------------------------------------------------------- */
/* Workers and stutter.                                                    */

static bool tt_all_arrived(int stage)
{
	return tt_stut_arrived(stage) >= tt_nthr || kthread_should_stop();
}

/* Pause while the controller says so: stage 1, then maybe 2, then run. */
static void tt_park(struct tt_thread *t, unsigned int s)
{
	const struct psem_torture_ops *ops = tt_cur;

	while ((s & 3) && !READ_ONCE(tt_phase_stop)) {
		if ((s & 3) == 1 && ops->put_all)
			ops->put_all(t);
		else if ((s & 3) == 2 && ops->take_some)
			ops->take_some(t);
		tt_stut_arrive(s);
		wait_event_idle(tt_worker_wq,
				tt_stut_state() != s || READ_ONCE(tt_phase_stop));
		s = tt_stut_state();
	}
}

static int tt_worker(void *arg)
{
	const struct psem_torture_ops *ops = tt_cur;
	struct tt_thread *t = arg;
	unsigned int s;

	allow_signal(SIGUSR1);
	while (!READ_ONCE(tt_phase_stop)) {
		tt_flush_signals();
		s = tt_stut_state();
		if (s & 3) {
			tt_park(t, s);
			continue;
		}
		ops->step(t);
		tt_inc(&t->ops);
		cond_resched();
	}
	if (ops->put_all)
		ops->put_all(t);
	atomic_inc(&tt_finished);
	wake_up(&tt_ctl_wq);

	set_current_state(TASK_IDLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_IDLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* The controller.                                                         */

static void tt_stutter(void)
{
	unsigned int gen = ++tt_gen;
	long tmo = ((long)tp_wait_bound_s + 5) * HZ;

	tt_stut_set(gen << 2 | 1);
	if (!wait_event_idle_timeout(tt_ctl_wq, tt_all_arrived(1), tmo)) {
		tt_viol_err("%s: stutter: only %d of %d threads paused within %d s\n",
			    tt_phase_name(), tt_stut_arrived(1), tt_nthr,
			    tp_wait_bound_s + 5);
		tt_dump_waits();
		goto resume;
	}
	if (kthread_should_stop())
		goto resume;
	tt_cur->quiescent(1);
	tt_flip_knobs();
	if (tt_cur->take_some) {
		tt_stut_set(gen << 2 | 2);
		if (!wait_event_idle_timeout(tt_ctl_wq, tt_all_arrived(2), tmo)) {
			tt_viol_err("%s: stutter: only %d of %d threads took permits within %d s\n",
				    tt_phase_name(), tt_stut_arrived(2), tt_nthr,
				    tp_wait_bound_s + 5);
			goto resume;
		}
		if (!kthread_should_stop())
			tt_cur->quiescent(2);
	}
	schedule_timeout_idle(HZ / 10);
resume:
	tt_stut_set(gen << 2);
	WRITE_ONCE(tt_stutters, tt_stutters + 1);
}

static void tt_phase_init(enum tt_phase_id ph)
{
	int i;

	tt_cur = tt_phases_by_id[ph];
	atomic_long_set(&tt_held_total, 0);
	tt_cur->init();
	atomic_set(&tt_finished, 0);
	WRITE_ONCE(tt_phase_stop, false);
	tt_stut_set(++tt_gen << 2);

	memset(tt_thr, 0, sizeof(*tt_thr) * tt_nthr);
	for (i = 0; i < tt_nthr; i++) {
		tt_thr[i].id = i;
		atomic_long_set(&tt_thr[i].held, 0);
		init_waitqueue_head(&tt_thr[i].req.wq);
		prandom_seed_state(&tt_thr[i].rnd, tp_seed + (u64)ph * 1000 + i);
	}

	tt_ncpus = num_online_cpus();
}

static void tt_stop_workers(void)
{
	int i;

	for (i = 0; i < tt_nthr; i++) {
		if (tt_thr[i].task)
			kthread_stop(tt_thr[i].task);
		tt_thr[i].task = NULL;
	}
}

/*
 * Phase end: workers return what they hold and finish. A worker still
 * asleep after the watchdog's bound is a failure; the phase's ->rescue()
 * then frees it (so the module can still be unloaded), a few times. If even
 * that fails, the workers are abandoned: the test still reports, but rmmod
 * will wait for them.
 */
static void tt_phase_finish(void)
{
	long tmo = ((long)tp_wait_bound_s + 10) * HZ;
	int rescues = 0;

	WRITE_ONCE(tt_phase_stop, true);
	wake_up_all(&tt_worker_wq);
	while (!wait_event_idle_timeout(tt_ctl_wq, atomic_read(&tt_finished) >= tt_nthr,
					tmo)) {
		tt_viol_err("%s: at the end, %d of %d threads are still stuck\n",
			    tt_phase_name(), tt_nthr - atomic_read(&tt_finished), tt_nthr);
		tt_dump_waits();
		if (++rescues > 3) {
			tt_alert("%s: abandoning the stuck threads; rmmod will wait for them\n",
				 tt_phase_name());
			tt_abandoned = true;
			return;
		}
		tt_cur->rescue();
		tmo = 5 * HZ;
	}
	if (!rescues) {
		/* Only the sem and life phases hold permits outside a lock. */
		if (atomic_long_read(&tt_held_total))
			tt_viol_err("%s: at the end, threads still hold %ld\n",
				    tt_phase_name(), atomic_long_read(&tt_held_total));
		tt_cur->quiescent(1);
	}
	if (tt_cur->finished)
		tt_cur->finished();
	tt_stop_workers();
}

static void tt_phase_report(enum tt_phase_id ph)
{
	unsigned long ops, max_wait, mn = ULONG_MAX, mx = 0;
	unsigned long eintr = 0, etime = 0, busy = 0, ovf = 0;
	int i;

	tt_sum_ops(&ops, &max_wait);
	for (i = 0; i < tt_nthr; i++) {
		struct tt_thread *t = &tt_thr[i];

		mn = min(mn, t->ops);
		mx = max(mx, t->ops);
		eintr += t->eintr;
		etime += t->etime;
		busy += t->busy;
		ovf += t->ovf;
	}
	tt_phase_ops[ph] += ops;
	tt_max_wait = max(tt_max_wait, max_wait);
	tt_alert("phase %s done: ops=%lu (per thread %lu..%lu) eintr=%lu etime=%lu busy=%lu overflow_checks=%lu max_wait_ms=%u violations=%d\n",
		 tt_phase_name(), ops, mn, mx, eintr, etime, busy, ovf,
		 tt_j2ms(max_wait), atomic_read(&tt_violations));
}

/* Sleeps until @end, pausing the workers every stutter_s on the way. */
static void tt_phase_wait(unsigned long end)
{
	unsigned long next_stutter = jiffies + (unsigned long)stutter_s * HZ;
	unsigned long deadline;

	while (!kthread_should_stop() && time_before(jiffies, end)) {
		deadline = end;
		if (stutter_s && time_before(next_stutter, end))
			deadline = next_stutter;
		if (time_before(jiffies, deadline))
			schedule_timeout_idle(deadline - jiffies);
		if (stutter_s && time_after_eq(jiffies, next_stutter) &&
		    time_before(jiffies, end) && !kthread_should_stop()) {
			tt_stutter();
			next_stutter = jiffies + (unsigned long)stutter_s * HZ;
		}
	}
}

static void tt_run_phase(enum tt_phase_id ph, unsigned long dur)
{
	struct task_struct *mon, *sig = NULL, *hp = NULL, *flip = NULL;
	bool hirq = hardirq_release && !tt_busted;
	int i;

	tt_phase_init(ph);
	tt_alert("phase %s: %d threads on %d CPUs for %u s\n", tt_phase_name(),
		 tt_nthr, tt_ncpus, jiffies_to_msecs(dur) / 1000);
	for (i = 0; i < tt_nthr; i++) {
		tt_thr[i].task = tt_start(tt_worker, &tt_thr[i], "w", i,
					  tt_nth_online_cpu(i % tt_ncpus));
		if (!tt_thr[i].task)
			atomic_inc(&tt_finished);	/* never ran */
	}
	mon = tt_start(tt_monitor, NULL, "mon", 0, -1);
	if (tp_signal_ms)
		sig = tt_start(tt_signaller, NULL, "sig", 0, -1);
	if (hotplug && IS_ENABLED(CONFIG_HOTPLUG_CPU) && num_online_cpus() > 1)
		hp = tt_start(tt_hotplug, NULL, "hp", 0, -1);
	if (tp_live_flips && !tt_busted)
		flip = tt_start(tt_flipper, NULL, "flip", 0, -1);
	if (tt_cur->start)
		tt_cur->start();
	if (hirq)
		tt_hirq_start();

	tt_phase_wait(jiffies + dur);

	if (tt_cur->stop)
		tt_cur->stop();
	if (hirq)
		tt_hirq_stop();
	if (flip)
		kthread_stop(flip);
	if (hp)
		kthread_stop(hp);
	if (sig)
		kthread_stop(sig);
	tt_phase_finish();
	if (mon)
		kthread_stop(mon);
	tt_phase_report(ph);
}

/* psem's switches and warnings as the test found them, to put back. */
struct tt_saved {
	bool fast, flag, zero, stats;
};

static void tt_save_switches(struct tt_saved *sv)
{
	sv->fast = psem_fast_release_enabled();
	sv->flag = psem_contention_flag_enabled();
	sv->zero = psem_zero_release_enabled();
	sv->stats = psem_stats_enabled();
	psem_set_quiet_warnings(true);
	psem_set_stats(true);
}

static void tt_restore_switches(const struct tt_saved *sv)
{
	psem_set_fast_release(sv->fast);
	psem_set_contention_flag(sv->flag);
	psem_set_zero_release(sv->zero);
	psem_set_stats(sv->stats);
	psem_set_quiet_warnings(false);
}

/* A negative initial count is refused and leaves zero. */
static void tt_check_init_refusal(void)
{
	struct psem neg;
	u64 w = psem_warn_count();

	psem_init(&neg, -1);
	tt_expect_balance("psem_init(-1)", &neg, 0, 0);
	tt_expect_refusals("psem_init(-1)", w, 1);
}

static void tt_report(const struct psem_stats *s0, const struct psem_stats *s1)
{
	int i, v = atomic_read(&tt_violations);
	bool failed = v > 0;

	tt_alert("psem stats: %s=%llu %s=%llu %s=%llu %s=%llu %s=%llu %s=%llu %s=%llu %s=%llu %s=%llu\n",
		 psem_stat_names[0], s1->count[0] - s0->count[0],
		 psem_stat_names[1], s1->count[1] - s0->count[1],
		 psem_stat_names[2], s1->count[2] - s0->count[2],
		 psem_stat_names[3], s1->count[3] - s0->count[3],
		 psem_stat_names[4], s1->count[4] - s0->count[4],
		 psem_stat_names[5], s1->count[5] - s0->count[5],
		 psem_stat_names[6], s1->count[6] - s0->count[6],
		 psem_stat_names[7], s1->count[7] - s0->count[7],
		 psem_stat_names[8], s1->count[8] - s0->count[8]);
	tt_flip_report();
	tt_alert("signals=%ld stutters=%lu knob_flips=%lu hotplug_offlines=%ld hotplug_refused=%ld%s\n",
		 atomic_long_read(&tt_signals), tt_stutters, tt_flip_count(),
		 atomic_long_read(&tt_hotplug_off), atomic_long_read(&tt_hotplug_fail),
		 kthread_should_stop() ? " (stopped early by rmmod)" : "");
	for (i = 0; i < TT_NR_PHASES; i++)
		if (tt_phases_by_id[i]->report)
			tt_phases_by_id[i]->report();
	if (tt_busted)
		tt_alert("End of test: %s\n",
			 failed ? "FAILURE (expected)" : "SUCCESS (unexpected)");
	else
		tt_alert("End of test: %s\n", failed ? "FAILURE" : "SUCCESS");
	if (tt_busted)
		tt_alert("ops mutex=%lu rwlock=%lu max_wait_ms=%u violations=%d\n",
			 tt_phase_ops[TT_BUSTED_MUTEX], tt_phase_ops[TT_BUSTED_RWLOCK],
			 tt_j2ms(tt_max_wait), v);
	else
		tt_alert("ops sem=%lu rwlock=%lu mutex=%lu life=%lu max_wait_ms=%u violations=%d\n",
			 tt_phase_ops[TT_SEM], tt_phase_ops[TT_RWLOCK],
			 tt_phase_ops[TT_MUTEX], tt_phase_ops[TT_LIFE],
			 tt_j2ms(tt_max_wait), v);
}

static int tt_controller(void *arg)
{
	struct psem_stats s0, s1;
	struct tt_saved saved;
	unsigned long dur;
	u64 w0, refusals;
	int i;

	tt_save_switches(&saved);
	tt_flip_begin();
	psem_stats_snapshot(&s0);
	w0 = psem_warn_count();

	tt_check_init_refusal();
	tt_overflow_check(NULL);

	dur = max_t(unsigned long, (unsigned long)duration_s * HZ / tt_nphases, HZ);
	for (i = 0; i < tt_nphases && !kthread_should_stop() && !tt_abandoned; i++)
		tt_run_phase(tt_run_type->phases[i], dur);

	tt_overflow_check(NULL);
	refusals = psem_warn_count() - w0;
	if (refusals != atomic64_read(&tt_expected_refusals))
		tt_viol_err("refusals: psem refused %llu calls, the test made %lld on purpose\n",
			    refusals, atomic64_read(&tt_expected_refusals));
	psem_stats_snapshot(&s1);
	tt_restore_switches(&saved);
	tt_report(&s0, &s1);

	/* Stay until rmmod. */
	set_current_state(TASK_IDLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_IDLE);
	}
	__set_current_state(TASK_RUNNING);
	if (tt_abandoned)
		tt_stop_workers();	/* waits for as long as they are stuck */
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Module load and unload.                                                 */

static bool tt_param_ok(const char *name, int val, int lo, int hi)
{
	if (val >= lo && val <= hi)
		return true;
	pr_err("psem_torture: %s=%d is out of range %d..%d\n", name, val, lo, hi);
	return false;
}

static int tt_parse_type(void)
{
	const struct tt_type *ty;

	for (ty = tt_types; ty < tt_types + ARRAY_SIZE(tt_types); ty++) {
		if (strcmp(torture_type, ty->name))
			continue;
		tt_run_type = ty;
		tt_nphases = 0;
		while (tt_nphases < TT_MAX_TYPE_PHASES && ty->phases[tt_nphases] != TT_END)
			tt_nphases++;
		tt_busted = ty->busted;
		if (tt_busted)
			tt_tag = "psem_torture(busted)";
		return 0;
	}
	pr_err("psem_torture: unknown torture_type \"%s\": use all, sem, rwlock, mutex, life or busted\n",
	       torture_type);
	return -EINVAL;
}

static int __init tt_init(void)
{
	bool ok = true;
	int ret;

	ok &= tt_param_ok("duration_s", duration_s, 1, 3600);
	ok &= tt_param_ok("nthreads_per_cpu", nthreads_per_cpu, 1, 16);
	ok &= tt_param_ok("permits", tp_permits, 1, 1024);
	ok &= tt_param_ok("stutter_s", stutter_s, 0, 3600);
	ok &= tt_param_ok("signal_ms", tp_signal_ms, 0, 60000);
	ok &= tt_param_ok("hotplug", hotplug, 0, 1);
	ok &= tt_param_ok("flip_knobs", tp_flip_knobs, 0, 1);
	ok &= tt_param_ok("live_flips", tp_live_flips, 0, 10000);
	ok &= tt_param_ok("wait_bound_s", tp_wait_bound_s, 1, 3600);
	ok &= tt_param_ok("stat_interval_s", tp_stat_interval_s, 0, 3600);
	ok &= tt_param_ok("hardirq_release", hardirq_release, 0, 1);
	if (!ok)
		return -EINVAL;
	ret = tt_parse_type();
	if (ret)
		return ret;
	if (!tp_seed)
		tp_seed = get_random_u32() | 1;
	tt_watch_init();

	tt_nthr = nthreads_per_cpu * num_online_cpus();
	tt_thr = kcalloc(tt_nthr, sizeof(*tt_thr), GFP_KERNEL);
	if (!tt_thr)
		return -ENOMEM;
	tt_overflow_init();

	tt_alert("Start of test: torture_type=%s duration_s=%d nthreads_per_cpu=%d (%d threads) permits=%d stutter_s=%d signal_ms=%d hotplug=%d flip_knobs=%d live_flips=%d wait_bound_s=%d seed=%lu\n",
		 torture_type, duration_s, nthreads_per_cpu, tt_nthr, tp_permits, stutter_s,
		 tp_signal_ms, hotplug, tp_flip_knobs, tp_live_flips, tp_wait_bound_s, tp_seed);
	if (hotplug && (!IS_ENABLED(CONFIG_HOTPLUG_CPU) || num_online_cpus() < 2))
		tt_alert("hotplug: skipped (%s)\n", IS_ENABLED(CONFIG_HOTPLUG_CPU) ?
			 "only one CPU online" : "no CONFIG_HOTPLUG_CPU");

	tt_ctl = kthread_run(tt_controller, NULL, "psem_torture");
	if (IS_ERR(tt_ctl)) {
		ret = PTR_ERR(tt_ctl);
		kfree(tt_thr);
		return ret;
	}
	get_task_struct(tt_ctl);
	return 0;
}

static void __exit tt_exit(void)
{
	kthread_stop(tt_ctl);
	put_task_struct(tt_ctl);
	kfree(tt_thr);
}

module_init(tt_init);
module_exit(tt_exit);
