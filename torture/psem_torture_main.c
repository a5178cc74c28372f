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
 *   locked      fast_release=0: every release takes the queue lock
 *   seed        fast_release=1 zero_release=0 contention_flag=0
 *   seed+flag   fast_release=1 zero_release=0 contention_flag=1
 *   psem        fast_release=1 zero_release=1 contention_flag=1 (defaults)
 *   psem-noflag fast_release=1 zero_release=1 contention_flag=0
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
 */

#include "psem_torture.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Torture test for psem, psem_rwlock and psem_mutex");
MODULE_AUTHOR("The psem developers");
MODULE_IMPORT_NS(PSEM_NS);
MODULE_IMPORT_NS(PSEM_KNOBS_NS);

static char *torture_type = "all";
module_param(torture_type, charp, 0444);
MODULE_PARM_DESC(torture_type, "all (default), sem, rwlock, mutex, life or busted");

static int duration_s = 60;
module_param(duration_s, int, 0444);
MODULE_PARM_DESC(duration_s, "Length of the whole test in seconds (1..3600)");

static int nthreads_per_cpu = 2;
module_param(nthreads_per_cpu, int, 0444);
MODULE_PARM_DESC(nthreads_per_cpu, "Worker threads per online CPU (1..16)");

int tp_permits = 8;
module_param_named(permits, tp_permits, int, 0444);
MODULE_PARM_DESC(permits, "Permits of the sem phase's psem, capacity of the life phase's (1..1024)");

static int stutter_s = 5;
module_param(stutter_s, int, 0444);
MODULE_PARM_DESC(stutter_s, "Pause all workers every N seconds and check conservation (0=off, ..3600)");

int tp_signal_ms = 50;
module_param_named(signal_ms, tp_signal_ms, int, 0444);
MODULE_PARM_DESC(signal_ms, "Send SIGUSR1 to an interruptible waiter every N ms (0=off, ..60000)");

static int hotplug;
module_param(hotplug, int, 0444);
MODULE_PARM_DESC(hotplug, "Offline and online a CPU every few seconds (0/1)");

int tp_flip_knobs = 1;
module_param_named(flip_knobs, tp_flip_knobs, int, 0444);
MODULE_PARM_DESC(flip_knobs, "Set each of psem's release rules in turn while paused (0/1)");

int tp_live_flips;
module_param_named(live_flips, tp_live_flips, int, 0444);
MODULE_PARM_DESC(live_flips, "Flip psem's switches every N ms while the workers run (0=off, ..10000); needs single-threaded TCG under QEMU");

int tp_wait_bound_s = 20;
module_param_named(wait_bound_s, tp_wait_bound_s, int, 0444);
MODULE_PARM_DESC(wait_bound_s, "Lost wake-up watchdog: longest wait with enough permits available (1..3600)");

int tp_stat_interval_s = 10;
module_param_named(stat_interval_s, tp_stat_interval_s, int, 0444);
MODULE_PARM_DESC(stat_interval_s, "Print a stats line every N seconds (0=off, ..3600)");

static int hardirq_release;
module_param(hardirq_release, int, 0444);
MODULE_PARM_DESC(hardirq_release, "Release from an HRTIMER_MODE_REL_HARD timer to waiting tasks, in every phase (0/1; default 0: PROVE_RAW_LOCK_NESTING kernels report an invalid wait context until psem defers that hand-off)");

ulong tp_seed;
module_param_named(seed, tp_seed, ulong, 0444);
MODULE_PARM_DESC(seed, "Random seed (0: a random one, printed at start)");

/* Printing: every line starts with the tag; the busted run has its own. */
const char *tt_tag = "psem_torture";

const char *const tt_phase_names[TT_NR_PHASES] = {
	[TT_SEM]		= "sem",
	[TT_RWLOCK]		= "rwlock",
	[TT_MUTEX]		= "mutex",
	[TT_LIFE]		= "life",
	[TT_BUSTED_MUTEX]	= "mutex",
	[TT_BUSTED_RWLOCK]	= "rwlock",
};

const char *const tt_how_names[TT_NR_HOW] = {
	[TT_PLAIN]	= "plain",
	[TT_INTR]	= "interruptible",
	[TT_KILL]	= "killable",
	[TT_TRY]	= "try",
	[TT_TIMEOUT]	= "timeout",
};

/* The run. */
static struct task_struct *tt_ctl;
struct tt_thread *tt_thr;
int tt_nthr;
static int tt_phases[TT_NR_PHASES];
static int tt_nphases;
bool tt_busted;
enum tt_phase_id tt_phase;
const struct tt_lock_ops *tt_ops;
bool tt_phase_stop;
static bool tt_abandoned;	/* workers left stuck in a broken psem */
static atomic_t tt_finished;
static struct rnd_state tt_ctl_rnd;	/* the controller's */
struct rnd_state tt_sig_rnd;	/* the signaller's */
static int tt_ncpus;

atomic_t tt_violations;
atomic64_t tt_expected_refusals;
atomic_long_t tt_signals;
atomic_long_t tt_hotplug_off;
atomic_long_t tt_hotplug_fail;
static unsigned long tt_phase_ops[TT_NR_PHASES];
static unsigned long tt_max_wait;	/* jiffies, over all phases */
unsigned long tt_stutters;
unsigned long tt_knob_flips;
atomic_long_t tt_live_flips;

static const char *const tt_rule_names[TT_NR_RULES] = {
	[TT_RULE_LOCKED]	= "locked",
	[TT_RULE_SEED]		= "seed",
	[TT_RULE_SEED_FLAG]	= "seed+flag",
	[TT_RULE_PSEM]		= "psem",
	[TT_RULE_PSEM_NOFLAG]	= "psem-noflag",
};

unsigned long tt_rule_runs[TT_NR_RULES];

static DECLARE_WAIT_QUEUE_HEAD(tt_worker_wq);	/* workers wait here */
static DECLARE_WAIT_QUEUE_HEAD(tt_ctl_wq);	/* the controller waits here */

/*
 * Stutter: tt_stut is gen << 2 | stage; stage 0 runs, 1 pauses with nothing
 * held, 2 (sem phase) pauses after taking some permits without waiting.
 * Written under tt_stut_lock together with the arrival counts.
 */
static DEFINE_SPINLOCK(tt_stut_lock);
static unsigned int tt_stut;
static int tt_arrived[3];
static unsigned int tt_gen;

static DEFINE_RATELIMIT_STATE(tt_viol_rs, 5 * HZ, 20);

/* Counts a violation and reports it (rate-limited). */
__printf(1, 2) void tt_viol_err(const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	atomic_inc(&tt_violations);
	if (!__ratelimit(&tt_viol_rs))
		return;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_err("%s: VIOLATION: %pV", tt_tag, &vaf);
	va_end(args);
}

u32 tt_rand(struct tt_thread *t, u32 n)
{
	return prandom_u32_state(&t->rnd) % n;
}

void tt_inc(unsigned long *counter)
{
	WRITE_ONCE(*counter, *counter + 1);
}

unsigned int tt_j2ms(unsigned long j)
{
	return jiffies_to_msecs(j);
}

/* A short random pause inside a critical section or while holding permits. */
void tt_hold_delay(struct tt_thread *t)
{
	u32 r = tt_rand(t, 64);

	if (!r)
		msleep(1 + tt_rand(t, 4));	/* jiffies-based: no hrtimer */
	else if (r < 8)
		cond_resched();
	else
		udelay(tt_rand(t, 20));
}

void tt_wait_begin(struct tt_thread *t, struct psem *sem, long need,
		   bool intr)
{
	WRITE_ONCE(t->wait_sem, sem);
	WRITE_ONCE(t->wait_need, need);
	WRITE_ONCE(t->wait_intr, intr);
	t->wait_t0 = jiffies;
	WRITE_ONCE(t->wait_start, t->wait_t0);
	/* Publishes the fields above to the monitor's load-acquire. */
	smp_store_release(&t->waiting, true);
}

void tt_wait_end(struct tt_thread *t)
{
	unsigned long waited = jiffies - t->wait_t0;

	WRITE_ONCE(t->waiting, false);
	if (waited > t->max_wait)
		WRITE_ONCE(t->max_wait, waited);
}

/* Signals are only for interruptible waits: drop any left over. */
void tt_flush_signals(void)
{
	if (signal_pending(current))
		flush_signals(current);
}

/*
 * The design's invariant, checked exactly: under the queue lock, a linked
 * waiter or an owed debt means a zero balance (zero cannot change while the
 * lock is held). White-box: this reads psem's queue, which only a test may.
 */
void tt_check_invariant(struct psem *sem, const char *what)
{
	unsigned long flags, debt;
	bool waiters;
	long bal;

	spin_lock_irqsave(&sem->wq.lock, flags);
	/* Under the queue lock: the list cannot change, no barrier needed. */
	waiters = waitqueue_active(&sem->wq);
	debt = psem_debt(sem);
	bal = psem_available(sem);
	spin_unlock_irqrestore(&sem->wq.lock, flags);
	if ((waiters || debt) && bal)
		tt_viol_err("%s: balance %ld while %s (queue lock held)\n",
			    what, bal, waiters ? "a waiter is linked" : "debt is owed");
}

bool tt_has_waiters(struct psem *sem)
{
	unsigned long flags;
	bool waiters;

	spin_lock_irqsave(&sem->wq.lock, flags);
	/* Under the queue lock, as above. */
	waiters = waitqueue_active(&sem->wq);
	spin_unlock_irqrestore(&sem->wq.lock, flags);
	return waiters;
}

/* ---------------------------------------------------------------------- */
/* Workers and stutter.                                                    */

unsigned int tt_stut_state(void)
{
	return READ_ONCE(tt_stut);
}

static void tt_stut_arrive(unsigned int state)
{
	spin_lock(&tt_stut_lock);
	if (tt_stut == state)
		WRITE_ONCE(tt_arrived[state & 3], tt_arrived[state & 3] + 1);
	spin_unlock(&tt_stut_lock);
	wake_up(&tt_ctl_wq);
}

static void tt_stut_set(unsigned int state)
{
	spin_lock(&tt_stut_lock);
	WRITE_ONCE(tt_stut, state);
	WRITE_ONCE(tt_arrived[1], 0);
	WRITE_ONCE(tt_arrived[2], 0);
	spin_unlock(&tt_stut_lock);
	wake_up_all(&tt_worker_wq);
}

static bool tt_all_arrived(int stage)
{
	return READ_ONCE(tt_arrived[stage]) >= tt_nthr || kthread_should_stop();
}

/* Pause while the controller says so: stage 1, then maybe 2, then run. */
static void tt_park(struct tt_thread *t, unsigned int s)
{
	while ((s & 3) && !READ_ONCE(tt_phase_stop)) {
		if (tt_phase == TT_SEM) {
			if ((s & 3) == 1)
				tt_sem_put_all(t);
			else
				tt_sem_take_some(t);
		} else if (tt_phase == TT_LIFE) {
			tt_life_put_all(t);
		}
		tt_stut_arrive(s);
		wait_event_idle(tt_worker_wq,
				tt_stut_state() != s || READ_ONCE(tt_phase_stop));
		s = tt_stut_state();
	}
}

static int tt_worker(void *arg)
{
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
		if (tt_phase == TT_SEM)
			tt_sem_step(t);
		else if (tt_phase == TT_LIFE)
			tt_life_step(t);
		else
			tt_lock_step(t);
		tt_inc(&t->ops);
		cond_resched();
	}
	if (tt_phase == TT_SEM)
		tt_sem_put_all(t);
	else if (tt_phase == TT_LIFE)
		tt_life_put_all(t);
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

static void tt_quiescent_check(int stage)
{
	struct psem *sem = tt_phase_sem();
	long avail = psem_available(sem);
	unsigned long debt = psem_debt(sem);
	bool waiters = tt_has_waiters(sem);

	if (tt_phase == TT_LIFE) {
		tt_life_quiescent_check(stage);
		return;
	}
	if (tt_phase == TT_SEM) {
		long total = atomic_long_read(&tt_held_total);
		long reduced = atomic_long_read(&tt_reduced);
		long sum = 0;
		int i;

		for (i = 0; i < tt_nthr; i++)
			sum += atomic_long_read(&tt_thr[i].held);
		if (sum != total)
			tt_viol_err("sem: paused (stage %d): threads hold %ld, accounted %ld\n",
				    stage, sum, total);
		if (total + avail - (long)debt + reduced != tp_permits || waiters ||
		    (stage == 1 && total) || reduced || debt)
			tt_viol_err("sem: paused (stage %d): held %ld + available %ld - debt %lu + reduced %ld != %d permits (waiters: %s)\n",
				    stage, total, avail, debt, reduced, tp_permits,
				    waiters ? "yes" : "no");
		return;
	}
	if (avail != tt_ops->full || debt || waiters)
		tt_viol_err("%s: paused: available %ld (expected %ld), debt %lu, waiters: %s\n",
			    tt_phase_name(), avail, tt_ops->full, debt, waiters ? "yes" : "no");
	if (atomic_read(&tt_readers) || atomic_read(&tt_writers))
		tt_viol_err("%s: paused: %d readers and %d writers still inside\n",
			    tt_phase_name(), atomic_read(&tt_readers), atomic_read(&tt_writers));
	if (tt_cs_count != atomic_long_read(&tt_cs_expected))
		tt_viol_err("%s: lost updates: %lu exclusive sections counted, %ld entered\n",
			    tt_phase_name(), tt_cs_count, atomic_long_read(&tt_cs_expected));
}

static void tt_stutter(void)
{
	unsigned int gen = ++tt_gen;
	long tmo = ((long)tp_wait_bound_s + 5) * HZ;

	tt_stut_set(gen << 2 | 1);
	if (!wait_event_idle_timeout(tt_ctl_wq, tt_all_arrived(1), tmo)) {
		tt_viol_err("%s: stutter: only %d of %d threads paused within %d s\n",
			    tt_phase_name(), READ_ONCE(tt_arrived[1]), tt_nthr,
			    tp_wait_bound_s + 5);
		tt_dump_waits();
		goto resume;
	}
	if (kthread_should_stop())
		goto resume;
	tt_quiescent_check(1);
	tt_flip_knobs();
	if (tt_phase == TT_SEM) {
		tt_stut_set(gen << 2 | 2);
		if (!wait_event_idle_timeout(tt_ctl_wq, tt_all_arrived(2), tmo)) {
			tt_viol_err("sem: stutter: only %d of %d threads took permits within %d s\n",
				    READ_ONCE(tt_arrived[2]), tt_nthr, tp_wait_bound_s + 5);
			goto resume;
		}
		if (!kthread_should_stop())
			tt_quiescent_check(2);
	}
	schedule_timeout_idle(HZ / 10);
resume:
	tt_stut_set(gen << 2);
	WRITE_ONCE(tt_stutters, tt_stutters + 1);
}

static void tt_phase_init(enum tt_phase_id ph)
{
	int i;

	tt_phase = ph;
	switch (ph) {
	case TT_SEM:
		tt_ops = NULL;
		psem_init(&tt_sem, tp_permits);
		break;
	case TT_RWLOCK:
		tt_ops = &tt_rwlock_ops;
		psem_rwlock_init(&tt_rw);
		break;
	case TT_MUTEX:
		tt_ops = &tt_mutex_ops;
		psem_mutex_init(&tt_mx);
		break;
	case TT_LIFE:
		tt_ops = NULL;
		tt_life_init();
		break;
	case TT_BUSTED_MUTEX:
		tt_ops = &tt_busted_mutex_ops;
		psem_init(&tt_bsem, 1);
		break;
	default:
		tt_ops = &tt_busted_rwlock_ops;
		psem_init(&tt_bsem, TT_BUSTED_RW_FULL);
		break;
	}
	tt_marked = tt_ops && tt_ops->busted;
	memset(tt_data, 0, sizeof(tt_data));
	tt_cs_count = 0;
	atomic_long_set(&tt_cs_expected, 0);
	atomic_set(&tt_readers, 0);
	atomic_set(&tt_writers, 0);
	atomic_long_set(&tt_held_total, 0);
	atomic_long_set(&tt_reduced, 0);
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

/* Returns a started kthread, or NULL (and says why). */
struct task_struct *tt_start(int (*fn)(void *), void *arg, const char *what,
			     int id, int cpu)
{
	struct task_struct *task;

	task = kthread_create(fn, arg, "psem_tt_%s/%d", what, id);
	if (IS_ERR(task)) {
		tt_alert("cannot start thread %s/%d: %ld\n", what, id, PTR_ERR(task));
		tt_viol_err("setup: thread %s/%d did not start\n", what, id);
		return NULL;
	}
	if (cpu >= 0)
		kthread_bind(task, cpu);
	wake_up_process(task);
	return task;
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
 * asleep after the watchdog's bound is a failure; the locked path is then
 * given extra permits to free it (so the module can still be unloaded),
 * a few times. If even that fails, the workers are abandoned: the test
 * still reports, but rmmod will wait for them.
 */
static void tt_phase_finish(void)
{
	long tmo = ((long)tp_wait_bound_s + 10) * HZ;
	int rescues = 0;

	WRITE_ONCE(tt_phase_stop, true);
	wake_up_all(&tt_worker_wq);
	while (!wait_event_idle_timeout(tt_ctl_wq, atomic_read(&tt_finished) >= tt_nthr,
					tmo)) {
		struct psem *sem = tt_phase_sem();

		tt_viol_err("%s: at the end, %d of %d threads are still stuck\n",
			    tt_phase_name(), tt_nthr - atomic_read(&tt_finished), tt_nthr);
		tt_dump_waits();
		if (++rescues > 3) {
			tt_alert("%s: abandoning the stuck threads; rmmod will wait for them\n",
				 tt_phase_name());
			tt_abandoned = true;
			return;
		}
		if (tt_phase == TT_LIFE)
			tt_life_rescue();	/* fails every wait */
		else
			psem_release_all_held(sem, tt_phase == TT_SEM ? tp_permits : tt_ops->full);
		tmo = 5 * HZ;
	}
	if (!rescues) {
		if ((tt_phase == TT_SEM || tt_phase == TT_LIFE) &&
		    atomic_long_read(&tt_held_total))
			tt_viol_err("%s: at the end, threads still hold %ld\n",
				    tt_phase_name(), atomic_long_read(&tt_held_total));
		tt_quiescent_check(1);
	}
	/* Callbacks may still be returning: they run under rcu_read_lock(). */
	if (tt_phase == TT_LIFE)
		synchronize_rcu();
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
		 tt_phase_names[ph], ops, mn, mx, eintr, etime, busy, ovf,
		 tt_j2ms(max_wait), atomic_read(&tt_violations));
}

static void tt_run_phase(enum tt_phase_id ph, unsigned long dur)
{
	struct task_struct *mon, *sig = NULL, *hp = NULL, *flip = NULL, *churn = NULL;
	unsigned long end, next_stutter, deadline;
	int i;

	tt_phase_init(ph);
	tt_alert("phase %s: %d threads on %d CPUs for %u s\n", tt_phase_names[ph],
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
	if (ph == TT_LIFE) {
		churn = tt_start(tt_life_churn, NULL, "churn", 0, -1);
		tt_free_start();
	}
	if (hardirq_release && !tt_busted)
		tt_hirq_start();

	end = jiffies + dur;
	next_stutter = jiffies + (unsigned long)stutter_s * HZ;
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

	if (churn)
		kthread_stop(churn);
	if (ph == TT_LIFE)
		tt_free_stop();
	if (hardirq_release && !tt_busted)
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

static int tt_controller(void *arg)
{
	bool fast = psem_fast_release_enabled();
	bool flag = psem_contention_flag_enabled();
	bool zero = psem_zero_release_enabled();
	bool stats = psem_stats_enabled();
	struct psem_stats s0, s1;
	unsigned long dur;
	u64 w0, refusals;
	bool failed;
	int i, v;

	psem_set_quiet_warnings(true);
	psem_set_stats(true);
	if (tp_flip_knobs && !tt_busted) {
		tt_set_rule(TT_RULE_PSEM);
		tt_rule_runs[TT_RULE_PSEM]++;
	}
	psem_stats_snapshot(&s0);
	w0 = psem_warn_count();

	/* A negative initial count is refused and leaves zero. */
	{
		struct psem neg;
		u64 w = psem_warn_count();

		psem_init(&neg, -1);
		tt_expect_balance("psem_init(-1)", &neg, 0, 0);
		tt_expect_refusals("psem_init(-1)", w, 1);
	}
	tt_overflow_check(NULL);

	dur = max_t(unsigned long, (unsigned long)duration_s * HZ / tt_nphases, HZ);
	for (i = 0; i < tt_nphases && !kthread_should_stop() && !tt_abandoned; i++) {
		tt_life_ran |= tt_phases[i] == TT_LIFE;
		tt_run_phase(tt_phases[i], dur);
	}

	tt_overflow_check(NULL);
	refusals = psem_warn_count() - w0;
	if (refusals != atomic64_read(&tt_expected_refusals))
		tt_viol_err("refusals: psem refused %llu calls, the test made %lld on purpose\n",
			    refusals, atomic64_read(&tt_expected_refusals));
	psem_stats_snapshot(&s1);
	psem_set_fast_release(fast);
	psem_set_contention_flag(flag);
	psem_set_zero_release(zero);
	psem_set_stats(stats);
	psem_set_quiet_warnings(false);

	v = atomic_read(&tt_violations);
	failed = v > 0;
	tt_alert("psem stats: %s=%llu %s=%llu %s=%llu %s=%llu %s=%llu %s=%llu %s=%llu %s=%llu %s=%llu\n",
		 psem_stat_names[0], s1.count[0] - s0.count[0],
		 psem_stat_names[1], s1.count[1] - s0.count[1],
		 psem_stat_names[2], s1.count[2] - s0.count[2],
		 psem_stat_names[3], s1.count[3] - s0.count[3],
		 psem_stat_names[4], s1.count[4] - s0.count[4],
		 psem_stat_names[5], s1.count[5] - s0.count[5],
		 psem_stat_names[6], s1.count[6] - s0.count[6],
		 psem_stat_names[7], s1.count[7] - s0.count[7],
		 psem_stat_names[8], s1.count[8] - s0.count[8]);
	tt_alert("rules: %s=%lu %s=%lu %s=%lu %s=%lu %s=%lu live_flips=%ld\n",
		 tt_rule_names[0], tt_rule_runs[0], tt_rule_names[1], tt_rule_runs[1],
		 tt_rule_names[2], tt_rule_runs[2], tt_rule_names[3], tt_rule_runs[3],
		 tt_rule_names[4], tt_rule_runs[4], atomic_long_read(&tt_live_flips));
	tt_alert("signals=%ld stutters=%lu knob_flips=%lu hotplug_offlines=%ld hotplug_refused=%ld%s\n",
		 atomic_long_read(&tt_signals), tt_stutters, tt_knob_flips,
		 atomic_long_read(&tt_hotplug_off), atomic_long_read(&tt_hotplug_fail),
		 kthread_should_stop() ? " (stopped early by rmmod)" : "");
	if (tt_life_ran) {
		tt_life_report();
		tt_free_report();
	}
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
	tt_nphases = 0;
	if (!strcmp(torture_type, "all")) {
		tt_phases[tt_nphases++] = TT_SEM;
		tt_phases[tt_nphases++] = TT_RWLOCK;
		tt_phases[tt_nphases++] = TT_MUTEX;
		tt_phases[tt_nphases++] = TT_LIFE;
	} else if (!strcmp(torture_type, "sem")) {
		tt_phases[tt_nphases++] = TT_SEM;
	} else if (!strcmp(torture_type, "rwlock")) {
		tt_phases[tt_nphases++] = TT_RWLOCK;
	} else if (!strcmp(torture_type, "mutex")) {
		tt_phases[tt_nphases++] = TT_MUTEX;
	} else if (!strcmp(torture_type, "life")) {
		tt_phases[tt_nphases++] = TT_LIFE;
	} else if (!strcmp(torture_type, "busted")) {
		tt_busted = true;
		tt_tag = "psem_torture(busted)";
		tt_phases[tt_nphases++] = TT_BUSTED_MUTEX;
		tt_phases[tt_nphases++] = TT_BUSTED_RWLOCK;
	} else {
		pr_err("psem_torture: unknown torture_type \"%s\": use all, sem, rwlock, mutex, life or busted\n",
		       torture_type);
		return -EINVAL;
	}
	return 0;
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
	prandom_seed_state(&tt_ctl_rnd, tp_seed);
	prandom_seed_state(&tt_sig_rnd, tp_seed ^ 0x5167);

	tt_nthr = nthreads_per_cpu * num_online_cpus();
	tt_thr = kcalloc(tt_nthr, sizeof(*tt_thr), GFP_KERNEL);
	if (!tt_thr)
		return -ENOMEM;
	psem_init(&tt_ovf, PSEM_MAX_PERMITS - TT_OVF_SLACK);
	psem_init(&tt_ovf_debt, 0);

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
