// SPDX-License-Identifier: GPL-2.0
/*
 * psem_torture: the bottom layer, as kernel/torture.c is for locktorture:
 * the settings every layer reads, the run's shared state, and the helpers
 * (random numbers, delays, wait records, the invariant check, the permit
 * accounting and the pick of a step, violation reports, thread start, the
 * stutter's primitives). It calls psem and the kernel only, nothing else in
 * this module but the steps a phase hands tt_pick_step().
 *
 * Why not kernel/torture.c's torture_random(), torture_stutter() etc.:
 * none of the test kernels has CONFIG_TORTURE_TEST (only LOCK_TORTURE_TEST
 * and its siblings select it; the stock kernels build it as torture.ko,
 * which nothing here loads), and torture_random() mixes local_clock() into
 * its state every 10000 calls, so that a run could no longer be replayed
 * from its seed= parameter. Hence the private helpers below.
 */

#include "psem_torture.h"

/*
 * Settings, each read-only: tp_<name>, module parameter <name>. The
 * controller's own parameters are in psem_torture_main.c. @name is an
 * identifier and @init a constant, as in kernel/torture.h's torture_param().
 */
#define TT_PARAM(type, name, init, desc)				\
	type tp_##name = init;						\
	module_param_named(name, tp_##name, type, 0444);		\
	MODULE_PARM_DESC(name, desc)

TT_PARAM(int, permits, 8,
	 "Permits of the sem phase's psem, capacity of the life phase's (1..1024)");
TT_PARAM(int, signal_ms, 50,
	 "Send SIGUSR1 to an interruptible waiter every N ms (0=off, ..60000)");
TT_PARAM(int, flip_knobs, 1,
	 "Set each of psem's release rules in turn while paused (0/1)");
TT_PARAM(int, live_flips, 0,
	 "Flip psem's switches every N ms while the workers run (0=off, ..10000); needs single-threaded TCG under QEMU");
TT_PARAM(int, wait_bound_s, 20,
	 "Lost wake-up watchdog: longest wait with enough permits available (1..3600)");
TT_PARAM(int, stat_interval_s, 10,
	 "Print a stats line every N seconds (0=off, ..3600)");
TT_PARAM(ulong, seed, 0, "Random seed (0: a random one, printed at start)");

/* Printing: every line starts with the tag; the busted run has its own. */
const char *tt_tag = "psem_torture";

const char *const tt_how_names[TT_NR_HOW] = {
	[TT_PLAIN]	= "plain",
	[TT_INTR]	= "interruptible",
	[TT_KILL]	= "killable",
	[TT_TRY]	= "try",
	[TT_TIMEOUT]	= "timeout",
};

/* The run: set up by the controller, read by all. */
struct tt_thread *tt_thr;
int tt_nthr;
bool tt_busted;
const struct psem_torture_ops *tt_cur;	/* the running phase */
bool tt_phase_stop;
atomic_t tt_violations;
atomic64_t tt_expected_refusals;
atomic_long_t tt_held_total;	/* sum of tt_thread.held */
unsigned long tt_stutters;

DECLARE_WAIT_QUEUE_HEAD(tt_worker_wq);	/* workers wait here */
DECLARE_WAIT_QUEUE_HEAD(tt_ctl_wq);	/* the controller waits here */

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

const char *tt_phase_name(void)
{
	return tt_cur->name;
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

/*
 * How a sleeping acquire waits: plain, interruptible or killable, or a
 * quarter of the time timed; always timed while @holding, so that two
 * holders waiting for each other's permits cannot hang.
 */
enum tt_how tt_pick_how(struct tt_thread *t, bool holding)
{
	enum tt_how how = tt_rand(t, 4) ? tt_rand(t, 3) : TT_TIMEOUT;	/* PLAIN..KILL */

	return holding ? TT_TIMEOUT : how;
}

/*
 * Takes @n of @sem's permits as @how says (not TT_TRY). A timed wait lasts
 * a few jiffies at most, 0 only tries; its timeout goes to *@to, if given.
 */
int tt_acquire(struct tt_thread *t, struct psem *sem, long n, enum tt_how how,
	       long *to)
{
	long tmo;

	switch (how) {
	case TT_PLAIN:
		return psem_acquire(sem, n);
	case TT_INTR:
		return psem_acquire_interruptible(sem, n);
	case TT_KILL:
		return psem_acquire_killable(sem, n);
	default:
		tmo = tt_rand(t, 5);
		if (to)
			*to = tmo;
		return psem_acquire_timeout(sem, n, tmo);
	}
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

	spin_lock_irqsave(&sem->lock, flags);
	/* Under the queue lock: the list cannot change, no barrier needed. */
	waiters = !psem_queue_empty(sem);
	debt = psem_debt(sem);
	bal = psem_available(sem);
	spin_unlock_irqrestore(&sem->lock, flags);
	if ((waiters || debt) && bal)
		tt_viol_err("%s: balance %ld while %s (queue lock held)\n",
			    what, bal, waiters ? "a waiter is linked" : "debt is owed");
}

/*
 * A lockless peek (psem_queue_empty() reads &psem.first once): the answer
 * may be stale by the time the caller acts on it, as it would be the
 * moment a lock taken for it was dropped.
 */
bool tt_has_waiters(struct psem *sem)
{
	return !psem_queue_empty(sem);
}

/*
 * The sem and life phases' accounting: what each thread holds, and the
 * sum, which the pauses check against the psem exactly.
 */

/* @t now holds @n more; returns what all threads hold. */
long tt_hold(struct tt_thread *t, long n)
{
	atomic_long_add(n, &t->held);
	return atomic_long_add_return(n, &tt_held_total);
}

/* Gives @n of @t's permits back to @sem. The accounting drops first. */
void tt_put(struct tt_thread *t, struct psem *sem, long n, bool all_held)
{
	int ret;

	atomic_long_sub(n, &t->held);
	atomic_long_sub(n, &tt_held_total);
	ret = all_held ? psem_release_all_held(sem, n) : psem_release(sem, n);
	if (ret)
		tt_viol_err("%s: %s(%ld) returned %d\n", tt_phase_name(),
			    all_held ? "psem_release_all_held" : "psem_release", n, ret);
}

/* Gives back all that @t holds, with either release call. */
void tt_put_all(struct tt_thread *t, struct psem *sem)
{
	long n = atomic_long_read(&t->held);

	if (n)
		tt_put(t, sem, n, tt_rand(t, 2));
	t->hold_ops = 0;
}

/* Gives back some or (a quarter of the time) all that @t holds. */
void tt_put_some(struct tt_thread *t, struct psem *sem)
{
	long held = atomic_long_read(&t->held);
	long n;

	if (!held)
		return;
	n = tt_rand(t, 4) ? 1 + tt_rand(t, held) : held;
	tt_put(t, sem, n, tt_rand(t, 2));
	if (!atomic_long_read(&t->held))
		t->hold_ops = 0;
}

/*
 * The sem and life phases' step, but for their checks. A worker that has
 * held permits for 8 steps gives them all back to @sem, so that waiters
 * make progress. Otherwise a roll of 0..99 picks the step whose share it
 * falls in: while holding permits, first giving some back (a share of
 * @put), then @picks' steps in turn (their ->idle or ->holding shares,
 * as the worker holds nothing or permits); past the last, nothing.
 */
void tt_pick_step(struct tt_thread *t, struct psem *sem, u8 put,
		  const struct tt_pick *picks)
{
	bool holding = atomic_long_read(&t->held);
	u32 r = tt_rand(t, 100);
	u32 end = holding ? put : 0;

	if (holding && ++t->hold_ops > 8) {
		tt_put_all(t, sem);
		return;
	}
	if (r < end) {
		tt_put_some(t, sem);
		return;
	}
	for (; picks->fn; picks++) {
		end += holding ? picks->holding : picks->idle;
		if (r < end) {
			picks->fn(t);
			return;
		}
	}
}

/*
 * The monitor's bounds in the sem and life phases: @sem's balance and what
 * the threads hold each stay within 0..@max.
 */
void tt_monitor_bounds(struct psem *sem, long max)
{
	long avail = psem_available(sem);
	long total = atomic_long_read(&tt_held_total);

	if (avail < 0 || avail > max)
		tt_viol_err("%s: monitor: %ld permits available, at most %ld exist\n",
			    tt_phase_name(), avail, max);
	if (total < 0 || total > max)
		tt_viol_err("%s: monitor: threads hold %ld, at most %ld permits exist\n",
			    tt_phase_name(), total, max);
}

/* psem refused @n calls since its count was @before, each on purpose. */
void tt_expect_refusals(const char *what, u64 before, u64 n)
{
	u64 now = psem_warn_count();

	atomic64_add(n, &tt_expected_refusals);
	if (now != before + n)
		tt_viol_err("refusals: %s: psem counted %llu refusals, expected %llu\n",
			    what, now - before, n);
}

void tt_expect_balance(const char *what, struct psem *sem, long bal,
		       unsigned long debt)
{
	long b = psem_available(sem);
	unsigned long d = psem_debt(sem);

	if (b != bal || d != debt)
		tt_viol_err("overflow: after %s: balance %ld debt %lu, expected %ld and %lu (permit from nowhere?)\n",
			    what, b, d, bal, debt);
}

/* The @n-th online CPU, counting from 0; -1 if there are fewer. */
int tt_nth_online_cpu(int n)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (!n--)
			return cpu;
	return -1;
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

/*
 * Stutter: tt_stut is gen << 2 | stage; stage 0 runs, 1 pauses with nothing
 * held, 2 pauses after taking some permits without waiting (the phases with
 * ->take_some). Written under tt_stut_lock together with the arrival counts.
 */
static DEFINE_SPINLOCK(tt_stut_lock);
static unsigned int tt_stut;
static int tt_arrived[3];

unsigned int tt_stut_state(void)
{
	return READ_ONCE(tt_stut);
}

/* The controller: the workers go to @state (and are woken to see it). */
void tt_stut_set(unsigned int state)
{
	spin_lock(&tt_stut_lock);
	WRITE_ONCE(tt_stut, state);
	WRITE_ONCE(tt_arrived[1], 0);
	WRITE_ONCE(tt_arrived[2], 0);
	spin_unlock(&tt_stut_lock);
	wake_up_all(&tt_worker_wq);
}

/* A worker: it has reached @state (counted only if still current). */
void tt_stut_arrive(unsigned int state)
{
	spin_lock(&tt_stut_lock);
	if (tt_stut == state)
		WRITE_ONCE(tt_arrived[state & 3], tt_arrived[state & 3] + 1);
	spin_unlock(&tt_stut_lock);
	wake_up(&tt_ctl_wq);
}

/* How many workers have reached @stage of the current pause. */
int tt_stut_arrived(int stage)
{
	return READ_ONCE(tt_arrived[stage]);
}
