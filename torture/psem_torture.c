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

#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/kcsan-checks.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/ratelimit.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_mutex.h"
#include "psem_rwlock.h"

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

static int permits = 8;
module_param(permits, int, 0444);
MODULE_PARM_DESC(permits, "Permits of the sem phase's psem, capacity of the life phase's (1..1024)");

static int stutter_s = 5;
module_param(stutter_s, int, 0444);
MODULE_PARM_DESC(stutter_s, "Pause all workers every N seconds and check conservation (0=off, ..3600)");

static int signal_ms = 50;
module_param(signal_ms, int, 0444);
MODULE_PARM_DESC(signal_ms, "Send SIGUSR1 to an interruptible waiter every N ms (0=off, ..60000)");

static int hotplug;
module_param(hotplug, int, 0444);
MODULE_PARM_DESC(hotplug, "Offline and online a CPU every few seconds (0/1)");

static int flip_knobs = 1;
module_param(flip_knobs, int, 0444);
MODULE_PARM_DESC(flip_knobs, "Set each of psem's release rules in turn while paused (0/1)");

static int live_flips;
module_param(live_flips, int, 0444);
MODULE_PARM_DESC(live_flips, "Flip psem's switches every N ms while the workers run (0=off, ..10000); needs single-threaded TCG under QEMU");

static int wait_bound_s = 20;
module_param(wait_bound_s, int, 0444);
MODULE_PARM_DESC(wait_bound_s, "Lost wake-up watchdog: longest wait with enough permits available (1..3600)");

static int stat_interval_s = 10;
module_param(stat_interval_s, int, 0444);
MODULE_PARM_DESC(stat_interval_s, "Print a stats line every N seconds (0=off, ..3600)");

static ulong seed;
module_param(seed, ulong, 0444);
MODULE_PARM_DESC(seed, "Random seed (0: a random one, printed at start)");

/* Printing: every line starts with the tag; the busted run has its own. */
static const char *tt_tag = "psem_torture";

#define tt_alert(fmt, ...) pr_alert("%s: " fmt, tt_tag, ##__VA_ARGS__)
#define tt_info(fmt, ...) pr_info("%s: " fmt, tt_tag, ##__VA_ARGS__)

enum tt_phase_id {
	TT_SEM,
	TT_RWLOCK,
	TT_MUTEX,
	TT_LIFE,
	TT_BUSTED_MUTEX,
	TT_BUSTED_RWLOCK,
	TT_NR_PHASES,
};

static const char *const tt_phase_names[TT_NR_PHASES] = {
	[TT_SEM]		= "sem",
	[TT_RWLOCK]		= "rwlock",
	[TT_MUTEX]		= "mutex",
	[TT_LIFE]		= "life",
	[TT_BUSTED_MUTEX]	= "mutex",
	[TT_BUSTED_RWLOCK]	= "rwlock",
};

/* How a worker takes a lock or permits. */
enum tt_how {
	TT_PLAIN,
	TT_INTR,
	TT_KILL,
	TT_TRY,
	TT_TIMEOUT,
	TT_NR_HOW,
};

static const char *const tt_how_names[TT_NR_HOW] = {
	[TT_PLAIN]	= "plain",
	[TT_INTR]	= "interruptible",
	[TT_KILL]	= "killable",
	[TT_TRY]	= "try",
	[TT_TIMEOUT]	= "timeout",
};

/**
 * struct tt_life_req - a worker's asynchronous acquire (life phase)
 * @aw:     the waiter handed to psem
 * @wq:     the worker waits here for the callback
 * @n:      the permits asked for
 * @result: what the callback said
 * @queued: set before psem_acquire_async(), cleared once the request is over
 * @done:   callbacks run for this request (must end 0 or 1)
 */
struct tt_life_req {
	struct psem_async	aw;
	wait_queue_head_t	wq;
	long			n;
	int			result;
	bool			queued;
	atomic_t		done;
};

/**
 * struct tt_thread - one worker
 * @task:       the kthread
 * @id:         index in tt_thr[]
 * @rnd:        its own pseudo-random state
 * @held:       sem phase: permits it holds now
 * @hold_ops:   sem phase: steps since it last held nothing
 * @taken:      busted mutex: whether its "lock" got the permit
 * @waiting:    in a sleeping acquire now (for the monitor and signaller)
 * @wait_intr:  ... and that acquire is interruptible
 * @wait_sem:   the psem it waits on
 * @wait_need:  the permits it asked for
 * @wait_start: jiffies when the wait began
 * @wait_t0:    the same, private to the thread
 * @wd_start:   monitor only: the wait it last looked at
 * @wd_strikes: monitor only: consecutive looks at an overdue wait with
 *              enough permits available
 * @wd_flags:   monitor only: what it already reported about that wait
 * @ops:        completed steps
 * @eintr:     interruptible waits ended by a signal
 * @etime:      timed waits that ran out
 * @busy:       trylocks and try_acquires that failed
 * @ovf:        overflow checks done
 * @max_wait:   the longest completed wait, in jiffies
 * @req:        life phase: its asynchronous request
 */
struct tt_thread {
	struct task_struct	*task;
	int			id;
	struct rnd_state	rnd;
	atomic_long_t		held;
	unsigned int		hold_ops;
	bool			taken;
	bool			waiting;
	bool			wait_intr;
	struct psem		*wait_sem;
	long			wait_need;
	unsigned long		wait_start;
	unsigned long		wait_t0;
	unsigned long		wd_start;
	unsigned int		wd_strikes;
	unsigned int		wd_flags;
	unsigned long		ops;
	unsigned long		eintr;
	unsigned long		etime;
	unsigned long		busy;
	unsigned long		ovf;
	unsigned long		max_wait;
	struct tt_life_req	req;
};

#define TT_WD_LONG	1	/* printed that the wait is long */
#define TT_WD_LOST	2	/* reported a lost wake-up */

/* The objects under test. */
static struct psem tt_sem;		/* sem phase */
static struct psem_rwlock tt_rw;	/* rwlock phase */
static struct psem_mutex tt_mx;		/* mutex phase */
static struct psem tt_bsem;		/* busted phases */
static struct psem tt_ovf;		/* overflow checks: balance near the top */
static struct psem tt_ovf_debt;		/* overflow checks: debt near the top */
static struct psem tt_lsem;		/* life phase */

#define TT_OVF_SLACK		3
#define TT_BUSTED_RW_FULL	0x100000L	/* 2^20 */
#define TT_DATA_WORDS		4

/* What the critical sections share. */
static unsigned long tt_data[TT_DATA_WORDS];	/* written by exclusive holders */
static unsigned long tt_cs_count;		/* ++ in each exclusive section */
static atomic_long_t tt_cs_expected;		/* exclusive sections entered */
static atomic_t tt_readers;
static atomic_t tt_writers;
static bool tt_marked;	/* busted: marked accesses, so that KCSAN stays quiet */

/* Sem phase accounting. */
static atomic_long_t tt_held_total;	/* sum of tt_thread.held */
static atomic_long_t tt_reduced;	/* reduced and not yet re-added */

/* The run. */
static struct task_struct *tt_ctl;
static struct tt_thread *tt_thr;
static int tt_nthr;
static int tt_phases[TT_NR_PHASES];
static int tt_nphases;
static bool tt_busted;
static enum tt_phase_id tt_phase;
static const struct tt_lock_ops *tt_ops;
static bool tt_phase_stop;
static bool tt_abandoned;	/* workers left stuck in a broken psem */
static atomic_t tt_finished;
static struct rnd_state tt_ctl_rnd;	/* the controller's */
static struct rnd_state tt_sig_rnd;	/* the signaller's */
static int tt_ncpus;

static atomic_t tt_violations;
static atomic64_t tt_expected_refusals;
static atomic_long_t tt_signals;
static atomic_long_t tt_hotplug_off;
static atomic_long_t tt_hotplug_fail;
static unsigned long tt_phase_ops[TT_NR_PHASES];
static unsigned long tt_max_wait;	/* jiffies, over all phases */
static unsigned long tt_stutters;
static unsigned long tt_knob_flips;
static atomic_long_t tt_live_flips;

/* The release rules set in turn at the stutters (see the top). */
enum tt_rule {
	TT_RULE_LOCKED,
	TT_RULE_SEED,
	TT_RULE_SEED_FLAG,
	TT_RULE_PSEM,
	TT_RULE_PSEM_NOFLAG,
	TT_NR_RULES,
};

static const char *const tt_rule_names[TT_NR_RULES] = {
	[TT_RULE_LOCKED]	= "locked",
	[TT_RULE_SEED]		= "seed",
	[TT_RULE_SEED_FLAG]	= "seed+flag",
	[TT_RULE_PSEM]		= "psem",
	[TT_RULE_PSEM_NOFLAG]	= "psem-noflag",
};

static unsigned long tt_rule_runs[TT_NR_RULES];

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
static __printf(1, 2) void tt_viol_err(const char *fmt, ...)
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

static u32 tt_rand(struct tt_thread *t, u32 n)
{
	return prandom_u32_state(&t->rnd) % n;
}

static void tt_inc(unsigned long *counter)
{
	WRITE_ONCE(*counter, *counter + 1);
}

static unsigned int tt_j2ms(unsigned long j)
{
	return jiffies_to_msecs(j);
}

/* A short random pause inside a critical section or while holding permits. */
static void tt_hold_delay(struct tt_thread *t)
{
	u32 r = tt_rand(t, 64);

	if (!r)
		msleep(1 + tt_rand(t, 4));	/* jiffies-based: no hrtimer */
	else if (r < 8)
		cond_resched();
	else
		udelay(tt_rand(t, 20));
}

static void tt_wait_begin(struct tt_thread *t, struct psem *sem, long need,
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

static void tt_wait_end(struct tt_thread *t)
{
	unsigned long waited = jiffies - t->wait_t0;

	WRITE_ONCE(t->waiting, false);
	if (waited > t->max_wait)
		WRITE_ONCE(t->max_wait, waited);
}

/* Signals are only for interruptible waits: drop any left over. */
static void tt_flush_signals(void)
{
	if (signal_pending(current))
		flush_signals(current);
}

/*
 * The design's invariant, checked exactly: under the queue lock, a linked
 * waiter or an owed debt means a zero balance (zero cannot change while the
 * lock is held). White-box: this reads psem's queue, which only a test may.
 */
static void tt_check_invariant(struct psem *sem, const char *what)
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

static bool tt_has_waiters(struct psem *sem)
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
/* Overflow and refused calls, on psems of their own.                      */

static void tt_expect_refusals(const char *what, u64 before, u64 n)
{
	u64 now = psem_warn_count();

	atomic64_add(n, &tt_expected_refusals);
	if (now != before + n)
		tt_viol_err("refusals: %s: psem counted %llu refusals, expected %llu\n",
			    what, now - before, n);
}

static void tt_expect_ret(const char *what, long ret, long want)
{
	if (ret != want)
		tt_viol_err("refusals: %s returned %ld, expected %ld\n", what, ret, want);
}

static void tt_expect_balance(const char *what, struct psem *sem, long bal,
			      unsigned long debt)
{
	long b = psem_available(sem);
	unsigned long d = psem_debt(sem);

	if (b != bal || d != debt)
		tt_viol_err("overflow: after %s: balance %ld debt %lu, expected %ld and %lu (permit from nowhere?)\n",
			    what, b, d, bal, debt);
}

/*
 * Releases that would overflow the balance, and reductions that would
 * overflow the debt, must be refused with -EOVERFLOW and change nothing;
 * negative counts with -EINVAL. Quiet warnings are on for the whole run, so
 * each refusal is only counted, and the count must match exactly.
 */
static void tt_overflow_check(struct tt_thread *t)
{
	const long base = PSEM_MAX_PERMITS - TT_OVF_SLACK;
	long n = TT_OVF_SLACK + 1 + (t ? tt_rand(t, 1000) : 0);
	u64 w;

	tt_expect_balance("(start)", &tt_ovf, base, 0);

	w = psem_warn_count();
	tt_expect_ret("psem_release(overflow)", psem_release(&tt_ovf, n), -EOVERFLOW);
	tt_expect_balance("psem_release(overflow)", &tt_ovf, base, 0);
	tt_expect_ret("psem_release_all_held(overflow)",
		      psem_release_all_held(&tt_ovf, n), -EOVERFLOW);
	tt_expect_balance("psem_release_all_held(overflow)", &tt_ovf, base, 0);
	tt_expect_ret("psem_release(PSEM_MAX_PERMITS)",
		      psem_release(&tt_ovf, PSEM_MAX_PERMITS), -EOVERFLOW);
	tt_expect_balance("psem_release(PSEM_MAX_PERMITS)", &tt_ovf, base, 0);
	tt_expect_refusals("balance overflow", w, 3);

	/* Exactly up to the top is fine; one more is not. */
	w = psem_warn_count();
	tt_expect_ret("psem_release(fill)", psem_release(&tt_ovf, TT_OVF_SLACK), 0);
	tt_expect_balance("psem_release(fill)", &tt_ovf, PSEM_MAX_PERMITS, 0);
	tt_expect_ret("psem_release(1 at the top)", psem_release(&tt_ovf, 1), -EOVERFLOW);
	tt_expect_ret("psem_release_all_held(1 at the top)",
		      psem_release_all_held(&tt_ovf, 1), -EOVERFLOW);
	tt_expect_balance("release at the top", &tt_ovf, PSEM_MAX_PERMITS, 0);
	if (!psem_try_acquire(&tt_ovf, TT_OVF_SLACK))
		tt_viol_err("overflow: try_acquire(%d) failed on a full balance\n",
			    TT_OVF_SLACK);
	tt_expect_balance("try_acquire after the top", &tt_ovf, base, 0);
	tt_expect_refusals("balance at the top", w, 2);

	/* Negative counts. */
	w = psem_warn_count();
	tt_expect_ret("psem_release(-1)", psem_release(&tt_ovf, -1), -EINVAL);
	tt_expect_ret("psem_release_all_held(-5)", psem_release_all_held(&tt_ovf, -5), -EINVAL);
	tt_expect_ret("psem_try_acquire(-1)", psem_try_acquire(&tt_ovf, -1), false);
	tt_expect_ret("psem_drain(-1)", psem_drain(&tt_ovf, -1), 0);
	tt_expect_ret("psem_reduce(-1)", psem_reduce(&tt_ovf, -1), -EINVAL);
	tt_expect_ret("psem_acquire_timeout(-1)", psem_acquire_timeout(&tt_ovf, -1, 1), -EINVAL);
	tt_expect_balance("negative counts", &tt_ovf, base, 0);
	tt_expect_refusals("negative counts", w, 6);

	/* The debt: up to PSEM_MAX_PERMITS, not one more. */
	w = psem_warn_count();
	tt_expect_balance("(debt start)", &tt_ovf_debt, 0, 0);
	tt_expect_ret("psem_reduce(MAX - 1)", psem_reduce(&tt_ovf_debt, PSEM_MAX_PERMITS - 1), 0);
	tt_expect_balance("psem_reduce(MAX - 1)", &tt_ovf_debt, 0, PSEM_MAX_PERMITS - 1);
	tt_expect_ret("psem_reduce(2) on debt MAX - 1", psem_reduce(&tt_ovf_debt, 2), -EOVERFLOW);
	tt_expect_balance("psem_reduce(2) on debt MAX - 1", &tt_ovf_debt, 0,
			  PSEM_MAX_PERMITS - 1);
	tt_expect_ret("psem_reduce(1) on debt MAX - 1", psem_reduce(&tt_ovf_debt, 1), 0);
	tt_expect_balance("psem_reduce(1) on debt MAX - 1", &tt_ovf_debt, 0, PSEM_MAX_PERMITS);
	tt_expect_ret("psem_release(MAX) paying the debt",
		      psem_release(&tt_ovf_debt, PSEM_MAX_PERMITS), 0);
	tt_expect_balance("psem_release(MAX) paying the debt", &tt_ovf_debt, 0, 0);
	tt_expect_refusals("debt overflow", w, 1);

	if (t)
		tt_inc(&t->ovf);
}

/* ---------------------------------------------------------------------- */
/* The semaphore phase.                                                    */

static void tt_sem_hold(struct tt_thread *t, long n)
{
	long total;

	if (!n)
		return;
	atomic_long_add(n, &t->held);
	total = atomic_long_add_return(n, &tt_held_total);
	if (total > permits)
		tt_viol_err("sem: threads hold %ld permits, only %d exist\n", total, permits);
}

/* Returns @n permits. The accounting drops before the release. */
static void tt_sem_put(struct tt_thread *t, long n, bool all_held)
{
	int ret;

	atomic_long_sub(n, &t->held);
	atomic_long_sub(n, &tt_held_total);
	ret = all_held ? psem_release_all_held(&tt_sem, n) : psem_release(&tt_sem, n);
	if (ret)
		tt_viol_err("sem: %s(%ld) returned %d\n",
			    all_held ? "psem_release_all_held" : "psem_release", n, ret);
}

static void tt_sem_put_all(struct tt_thread *t)
{
	long n = atomic_long_read(&t->held);

	if (n)
		tt_sem_put(t, n, tt_rand(t, 2));
	t->hold_ops = 0;
}

static void tt_sem_check(struct tt_thread *t)
{
	long avail = psem_available(&tt_sem);
	long mine = atomic_long_read(&t->held);
	long total = atomic_long_read(&tt_held_total);
	unsigned long debt = psem_debt(&tt_sem);

	if (avail < 0 || avail > permits)
		tt_viol_err("sem: %ld permits available, only %d exist\n", avail, permits);
	if (mine < 0 || mine > permits)
		tt_viol_err("sem: thread %d holds %ld of %d permits\n", t->id, mine, permits);
	if (total < 0 || total > permits)
		tt_viol_err("sem: threads hold %ld of %d permits\n", total, permits);
	/* Each thread has at most one reduction of <= permits outstanding. */
	if (debt > (unsigned long)permits * tt_nthr)
		tt_viol_err("sem: debt %lu exceeds what %d threads can owe\n", debt, tt_nthr);
}

/* A sleeping acquire: only with nothing held, except timed ones. */
static void tt_sem_acquire(struct tt_thread *t)
{
	long held = atomic_long_read(&t->held);
	long room = permits - held;
	enum tt_how how;
	long n, to = 0;
	int ret;

	how = tt_rand(t, 4) ? tt_rand(t, 3) : TT_TIMEOUT;	/* PLAIN..KILL */
	if (held)
		how = TT_TIMEOUT;
	if (how == TT_TIMEOUT && (!room || !tt_rand(t, 32)))
		n = permits + 1 + tt_rand(t, permits);	/* can never be met */
	else
		n = 1 + tt_rand(t, room);

	tt_wait_begin(t, &tt_sem, n, how == TT_INTR);
	switch (how) {
	case TT_PLAIN:
		ret = psem_acquire(&tt_sem, n);
		break;
	case TT_INTR:
		ret = psem_acquire_interruptible(&tt_sem, n);
		break;
	case TT_KILL:
		ret = psem_acquire_killable(&tt_sem, n);
		break;
	default:
		to = tt_rand(t, 5);	/* jiffies: short, 0 only tries */
		ret = psem_acquire_timeout(&tt_sem, n, to);
		break;
	}
	tt_wait_end(t);

	if (!ret) {
		if (n > room)
			tt_viol_err("sem: %s acquire of %ld succeeded while holding %ld of %d\n",
				    tt_how_names[how], n, held, permits);
		tt_sem_hold(t, n);
	} else if (ret == -EINTR && how == TT_INTR) {
		tt_inc(&t->eintr);
		tt_flush_signals();
	} else if (ret == -ETIME && how == TT_TIMEOUT) {
		tt_inc(&t->etime);
	} else {
		tt_viol_err("sem: %s acquire of %ld (timeout %ld) returned %d\n",
			    tt_how_names[how], n, to, ret);
	}
}

static void tt_sem_try(struct tt_thread *t)
{
	long room = permits - atomic_long_read(&t->held);
	long n = room && tt_rand(t, 16) ? 1 + tt_rand(t, room) : permits + 1;

	if (psem_try_acquire(&tt_sem, n)) {
		if (n > room)
			tt_viol_err("sem: try_acquire(%ld) succeeded with at most %ld free\n",
				    n, room);
		tt_sem_hold(t, n);
	} else {
		tt_inc(&t->busy);
	}
}

static void tt_sem_drain(struct tt_thread *t)
{
	long up_to = 1 + tt_rand(t, permits + 2);
	long got = psem_drain(&tt_sem, up_to);

	if (got < 0 || got > up_to || got > permits - atomic_long_read(&t->held))
		tt_viol_err("sem: psem_drain(%ld) returned %ld\n", up_to, got);
	tt_sem_hold(t, got);
}

/* Reduce, hold the reduction a little, then re-add it with a release. */
static void tt_sem_reduce(struct tt_thread *t)
{
	long n = 1 + tt_rand(t, permits);
	bool all_held = tt_rand(t, 2);
	int ret;

	atomic_long_add(n, &tt_reduced);
	ret = psem_reduce(&tt_sem, n);
	if (ret) {
		tt_viol_err("sem: psem_reduce(%ld) returned %d\n", n, ret);
		atomic_long_sub(n, &tt_reduced);
		return;
	}
	udelay(tt_rand(t, 10));
	tt_sem_check(t);
	ret = all_held ? psem_release_all_held(&tt_sem, n) : psem_release(&tt_sem, n);
	if (ret)
		tt_viol_err("sem: re-adding %ld reduced permits returned %d\n", n, ret);
	atomic_long_sub(n, &tt_reduced);
}

/* n == 0 is an immediate success that changes nothing. */
static void tt_sem_zero(struct tt_thread *t)
{
	if (!psem_try_acquire(&tt_sem, 0))
		tt_viol_err("sem: psem_try_acquire(0) failed\n");
	if (psem_release(&tt_sem, 0) || psem_release_all_held(&tt_sem, 0) ||
	    psem_reduce(&tt_sem, 0) || psem_drain(&tt_sem, 0) ||
	    psem_acquire(&tt_sem, 0) || psem_acquire_timeout(&tt_sem, 0, 0))
		tt_viol_err("sem: a call with count 0 did not return 0\n");
}

/*
 * Many single-permit try_acquire/release pairs in a row: traffic on the
 * balance word, so that fast releases race with each other and with the
 * locked path (which is what trips the contention flag).
 */
static void tt_sem_juggle(struct tt_thread *t)
{
	int i;

	for (i = 0; i < 32; i++) {
		if (!psem_try_acquire(&tt_sem, 1))
			continue;
		tt_sem_hold(t, 1);
		tt_sem_put(t, 1, !tt_rand(t, 4));
	}
}

static void tt_sem_release(struct tt_thread *t)
{
	long held = atomic_long_read(&t->held);

	if (!held)
		return;
	tt_sem_put(t, tt_rand(t, 4) ? 1 + tt_rand(t, held) : held, tt_rand(t, 2));
	if (!atomic_long_read(&t->held))
		t->hold_ops = 0;
}

static void tt_sem_step(struct tt_thread *t)
{
	long held = atomic_long_read(&t->held);
	u32 r = tt_rand(t, 100);

	if (held && ++t->hold_ops > 8) {
		tt_sem_put_all(t);	/* bounded hold: waiters make progress */
	} else if (!held) {
		if (r < 45)
			tt_sem_acquire(t);
		else if (r < 65)
			tt_sem_try(t);
		else if (r < 75)
			tt_sem_drain(t);
		else if (r < 87)
			tt_sem_reduce(t);
		else if (r < 89)
			tt_sem_zero(t);
		else if (r < 97)
			tt_sem_juggle(t);
	} else {
		if (r < 40)
			tt_sem_release(t);
		else if (r < 55)
			tt_sem_try(t);
		else if (r < 70)
			tt_sem_acquire(t);
		else if (r < 75)
			tt_sem_drain(t);
		else if (r < 85)
			tt_sem_reduce(t);
		else if (r < 95)
			tt_sem_juggle(t);
	}
	if (!t->id && !(t->ops % 128))
		tt_overflow_check(t);
	if (!(t->ops % 32))
		tt_check_invariant(&tt_sem, "sem");
	tt_sem_check(t);
	tt_hold_delay(t);
}

/* Stutter stage 2: take some permits without waiting, and keep them. */
static void tt_sem_take_some(struct tt_thread *t)
{
	long n = 1 + tt_rand(t, permits);

	switch (tt_rand(t, 3)) {
	case 0:
		break;
	case 1:
		if (psem_try_acquire(&tt_sem, n))
			tt_sem_hold(t, n);
		break;
	default:
		tt_sem_hold(t, psem_drain(&tt_sem, n));
		break;
	}
}

/* ---------------------------------------------------------------------- */
/* The life phase: capacity, resize, close, reopen, asynchronous waiters.  */

#define TT_LIFE_HIST		256	/* resizes remembered, a power of two */
#define TT_LIFE_QUIESCE_S	10	/* the stutter's quiesce: generous */

/* The churn resizes within 0..2 * permits. */
static long tt_life_cap_max(void)
{
	return 2L * permits;
}

/*
 * What the churn did, for judging each call's outcome against the window
 * it ran in. Resize i (from 1; 0 is the psem_init_capacity()) stores its
 * capacity in tt_life_hist[i % TT_LIFE_HIST], then tt_life_res_begin = i,
 * resizes, then tt_life_res_end = i. tt_life_state counts close and reopen
 * steps: state % 4 is 0 open, 1 closing, 2 closed, 3 reopening. Written
 * only under tt_life_mx (by the churn, and by the controller while the
 * workers are paused).
 */
static DEFINE_MUTEX(tt_life_mx);
static long tt_life_hist[TT_LIFE_HIST];
static unsigned long tt_life_res_begin;
static unsigned long tt_life_res_end;
static unsigned long tt_life_state;
static long tt_life_cap;	/* the capacity last set, for picking counts */

enum tt_life_count {
	TT_LA_IMMEDIATE,	/* psem_acquire_async() took all at once */
	TT_LA_QUEUED,		/* ... returned -EINPROGRESS */
	TT_LA_REF_SHUTDOWN,	/* ... refused with -ESHUTDOWN */
	TT_LA_REF_E2BIG,	/* ... refused with -E2BIG */
	TT_LA_CB_OK,		/* called back with 0 */
	TT_LA_CB_SHUTDOWN,	/* called back with -ESHUTDOWN */
	TT_LA_CB_E2BIG,		/* called back with -E2BIG */
	TT_LA_CANCELLED,	/* psem_cancel_async*() returned true */
	TT_LA_CANCEL_LATE,	/* ... returned false: the callback won */
	TT_LA_CANCEL_SYNC,	/* psem_cancel_async_sync() calls */
	TT_LA_CALLBACKS,	/* callbacks run */
	TT_LA_EXPECTED,		/* callbacks the workers saw for their requests */
	TT_LS_OK,		/* sleeping acquires: granted */
	TT_LS_SHUTDOWN,		/* ... -ESHUTDOWN */
	TT_LS_E2BIG,		/* ... -E2BIG */
	TT_LC_GROW,		/* churn: resizes up */
	TT_LC_SHRINK,		/* ... down */
	TT_LC_SHRINK_OUT,	/* ... down with permits out (a debt was left) */
	TT_LC_CLOSE,		/* ... closes */
	TT_LC_REOPEN,		/* ... reopens */
	TT_LC_QUIESCE,		/* ... psem_quiesce(0) checks */
	TT_LC_RESTORE,		/* stutters that found it closed or resized */
	TT_NR_LIFE_COUNTS,
};

static atomic_long_t tt_life_n[TT_NR_LIFE_COUNTS];

static void tt_life_inc(enum tt_life_count c)
{
	atomic_long_inc(&tt_life_n[c]);
}

static long tt_life_get(enum tt_life_count c)
{
	return atomic_long_read(&tt_life_n[c]);
}

/* Under tt_life_mx. */
static void tt_life_resize(long cap)
{
	unsigned long i = tt_life_res_begin + 1;
	long old = psem_capacity(&tt_lsem);
	int ret;

	WRITE_ONCE(tt_life_hist[i % TT_LIFE_HIST], cap);
	smp_store_release(&tt_life_res_begin, i);	/* the capacity first */
	smp_mb();	/* pairs with tt_life_win_end(): begin before the resize */
	ret = psem_resize(&tt_lsem, cap);
	if (ret)
		tt_viol_err("life: psem_resize(%ld) returned %d\n", cap, ret);
	if (cap < old && psem_debt(&tt_lsem))
		tt_life_inc(TT_LC_SHRINK_OUT);
	/* Pairs with tt_life_win_begin(): the resize is over. */
	smp_store_release(&tt_life_res_end, i);
	WRITE_ONCE(tt_life_cap, cap);
	if (psem_capacity(&tt_lsem) != cap)
		tt_viol_err("life: capacity %ld after psem_resize(%ld)\n",
			    psem_capacity(&tt_lsem), cap);
	tt_life_inc(cap < old ? TT_LC_SHRINK : TT_LC_GROW);
}

/* Under tt_life_mx: closing (1), close, closed (2). */
static void tt_life_close(void)
{
	int ret;

	WRITE_ONCE(tt_life_state, tt_life_state + 1);
	smp_mb();	/* pairs with tt_life_win_end(): closing before the close */
	ret = psem_close(&tt_lsem);
	if (ret)
		tt_viol_err("life: psem_close() returned %d\n", ret);
	if (!psem_is_closed(&tt_lsem))
		tt_viol_err("life: not closed after psem_close()\n");
	smp_mb();	/* pairs with tt_life_win_begin(): closed after the close */
	WRITE_ONCE(tt_life_state, tt_life_state + 1);
	tt_life_inc(TT_LC_CLOSE);
}

/* Under tt_life_mx: reopening (3), reopen, open (0). */
static void tt_life_reopen(void)
{
	int ret;

	WRITE_ONCE(tt_life_state, tt_life_state + 1);
	smp_mb();	/* as in tt_life_close() */
	ret = psem_reopen(&tt_lsem);
	if (ret)
		tt_viol_err("life: psem_reopen() returned %d\n", ret);
	if (psem_is_closed(&tt_lsem))
		tt_viol_err("life: closed after psem_reopen()\n");
	smp_mb();	/* as in tt_life_close() */
	WRITE_ONCE(tt_life_state, tt_life_state + 1);
	tt_life_inc(TT_LC_REOPEN);
}

/* The churn's doings around one call. */
struct tt_life_win {
	unsigned long	res0, res1;
	unsigned long	st0, st1;
};

static void tt_life_win_begin(struct tt_life_win *w)
{
	/* Pairs with tt_life_resize(): every resize up to res0 is over. */
	w->res0 = smp_load_acquire(&tt_life_res_end);
	w->st0 = READ_ONCE(tt_life_state);
	smp_mb();	/* the window opens before the call */
}

static void tt_life_win_end(struct tt_life_win *w)
{
	smp_mb();	/* the call, then the window closes */
	w->res1 = smp_load_acquire(&tt_life_res_begin);
	w->st1 = READ_ONCE(tt_life_state);
}

/* The smallest and the largest capacity during the window. */
static void tt_life_cap_range(const struct tt_life_win *w, long *lo, long *hi)
{
	unsigned long i;

	*lo = 0;
	*hi = tt_life_cap_max();
	if (w->res1 - w->res0 >= TT_LIFE_HIST / 2)
		return;
	*lo = LONG_MAX;
	*hi = 0;
	for (i = w->res0; i != w->res1 + 1; i++) {
		long c = READ_ONCE(tt_life_hist[i % TT_LIFE_HIST]);

		*lo = min(*lo, c);
		*hi = max(*hi, c);
	}
	smp_rmb();	/* the history, then whether it was overwritten meanwhile */
	if (READ_ONCE(tt_life_res_begin) - w->res0 >= TT_LIFE_HIST - 1) {
		*lo = 0;
		*hi = tt_life_cap_max();
	}
}

/*
 * Judges the result of taking @n permits over window @w; true if the
 * caller now holds them. A grant needs a capacity of at least @n at some
 * moment of the call and an open psem at some moment; -E2BIG a capacity
 * below @n at some moment; -ESHUTDOWN a close at some moment.
 */
static bool tt_life_judge(const char *what, long n, int ret,
			  const struct tt_life_win *w, bool may_intr, bool may_time)
{
	bool closing = (w->st0 & 3) || w->st1 != w->st0;
	bool closed_all = (w->st0 & 3) == 2 && w->st1 == w->st0;
	long lo, hi;

	tt_life_cap_range(w, &lo, &hi);
	switch (ret) {
	case 0:
		if (n > hi)
			tt_viol_err("life: %s of %ld granted, the capacity was at most %ld\n",
				    what, n, hi);
		if (closed_all)
			tt_viol_err("life: %s of %ld granted while closed throughout\n", what, n);
		return true;
	case -E2BIG:
		if (n <= lo)
			tt_viol_err("life: %s of %ld failed -E2BIG, the capacity was at least %ld\n",
				    what, n, lo);
		return false;
	case -ESHUTDOWN:
		if (!closing)
			tt_viol_err("life: %s of %ld failed -ESHUTDOWN with no close during the call\n",
				    what, n);
		return false;
	case -EINTR:
		if (!may_intr)
			break;
		return false;
	case -ETIME:
		if (!may_time)
			break;
		return false;
	default:
		break;
	}
	tt_viol_err("life: %s of %ld returned %d\n", what, n, ret);
	return false;
}

static void tt_life_hold(struct tt_thread *t, long n)
{
	long total;

	if (!n)
		return;
	atomic_long_add(n, &t->held);
	total = atomic_long_add_return(n, &tt_held_total);
	if (total > tt_life_cap_max())
		tt_viol_err("life: threads hold %ld permits, the capacity was never above %ld\n",
			    total, tt_life_cap_max());
}

static void tt_life_put(struct tt_thread *t, long n)
{
	bool all_held = tt_rand(t, 2);
	int ret;

	atomic_long_sub(n, &t->held);
	atomic_long_sub(n, &tt_held_total);
	ret = all_held ? psem_release_all_held(&tt_lsem, n) : psem_release(&tt_lsem, n);
	if (ret)
		tt_viol_err("life: %s(%ld) returned %d\n",
			    all_held ? "psem_release_all_held" : "psem_release", n, ret);
}

static void tt_life_put_all(struct tt_thread *t)
{
	long n = atomic_long_read(&t->held);

	if (n)
		tt_life_put(t, n);
	t->hold_ops = 0;
}

/* A count: mostly up to the capacity last set, sometimes above it. */
static long tt_life_pick(struct tt_thread *t)
{
	long cap = READ_ONCE(tt_life_cap);

	if (cap > 0 && tt_rand(t, 8))
		return 1 + tt_rand(t, cap);
	return cap + 1 + tt_rand(t, permits);
}

/*
 * Under the queue lock: the balance is within the capacity, and a linked
 * waiter or an owed debt means PSEM_WAITERS is set and the balance zero.
 */
static void tt_life_check_locked(void)
{
	unsigned long flags, debt;
	long word, bal, cap;
	bool waiters;

	spin_lock_irqsave(&tt_lsem.wq.lock, flags);
	/* Under the queue lock: the list cannot change, no barrier needed. */
	waiters = waitqueue_active(&tt_lsem.wq);
	debt = psem_debt(&tt_lsem);
	word = atomic_long_read(&tt_lsem.count);
	bal = psem_available(&tt_lsem);
	cap = psem_capacity(&tt_lsem);
	spin_unlock_irqrestore(&tt_lsem.wq.lock, flags);
	if (bal > cap)
		tt_viol_err("life: balance %ld above the capacity %ld (queue lock held)\n",
			    bal, cap);
	if ((waiters || debt) && (bal || !(word & PSEM_WAITERS)))
		tt_viol_err("life: word %#lx (balance %ld) while %s (queue lock held)\n",
			    word, bal, waiters ? "a waiter is linked" : "debt is owed");
}

static void tt_life_acquire(struct tt_thread *t, bool holding)
{
	long n = tt_life_pick(t), to = 0;
	struct tt_life_win w;
	enum tt_how how;
	int ret;

	how = tt_rand(t, 4) ? tt_rand(t, 3) : TT_TIMEOUT;	/* PLAIN..KILL */
	if (holding)
		how = TT_TIMEOUT;
	tt_wait_begin(t, &tt_lsem, n, how == TT_INTR);
	tt_life_win_begin(&w);
	switch (how) {
	case TT_PLAIN:
		ret = psem_acquire(&tt_lsem, n);
		break;
	case TT_INTR:
		ret = psem_acquire_interruptible(&tt_lsem, n);
		break;
	case TT_KILL:
		ret = psem_acquire_killable(&tt_lsem, n);
		break;
	default:
		to = tt_rand(t, 5);	/* jiffies: short, 0 only tries */
		ret = psem_acquire_timeout(&tt_lsem, n, to);
		break;
	}
	tt_life_win_end(&w);
	tt_wait_end(t);
	if (tt_life_judge(tt_how_names[how], n, ret, &w, how == TT_INTR, how == TT_TIMEOUT)) {
		tt_life_hold(t, n);
		tt_life_inc(TT_LS_OK);
	} else if (ret == -ESHUTDOWN) {
		tt_life_inc(TT_LS_SHUTDOWN);
	} else if (ret == -E2BIG) {
		tt_life_inc(TT_LS_E2BIG);
	} else if (ret == -EINTR) {
		tt_inc(&t->eintr);
		tt_flush_signals();
	} else if (ret == -ETIME) {
		tt_inc(&t->etime);
	}
}

static void tt_life_try(struct tt_thread *t)
{
	long n = tt_life_pick(t);
	struct tt_life_win w;
	bool ok;

	tt_life_win_begin(&w);
	ok = psem_try_acquire(&tt_lsem, n);
	tt_life_win_end(&w);
	if (ok && tt_life_judge("try_acquire", n, 0, &w, false, false))
		tt_life_hold(t, n);
	else
		tt_inc(&t->busy);
}

static void tt_life_drain(struct tt_thread *t)
{
	long up_to = tt_life_pick(t), got;
	struct tt_life_win w;

	tt_life_win_begin(&w);
	got = psem_drain(&tt_lsem, up_to);
	tt_life_win_end(&w);
	if (got < 0 || got > up_to)
		tt_viol_err("life: psem_drain(%ld) returned %ld\n", up_to, got);
	else if (got && tt_life_judge("drain", got, 0, &w, false, false))
		tt_life_hold(t, got);
}

/* May run in any context, hard IRQ included: records, then wakes. */
static void tt_life_callback(struct psem_async *aw, int result)
{
	struct tt_life_req *r = container_of(aw, struct tt_life_req, aw);

	if (!READ_ONCE(r->queued))
		tt_viol_err("life: callback (%d) for a request that is not queued\n", result);
	WRITE_ONCE(r->result, result);
	tt_life_inc(TT_LA_CALLBACKS);
	/* The result before done: pairs with the worker's acquire. */
	if (atomic_inc_return_release(&r->done) != 1)
		tt_viol_err("life: callback (%d) ran twice for one request\n", result);
	wake_up(&r->wq);
}

static bool tt_life_req_done(struct tt_life_req *r)
{
	return atomic_read_acquire(&r->done);
}

/* A random moment: now, soon, or after a sleep. */
static void tt_life_moment(struct tt_thread *t)
{
	switch (tt_rand(t, 4)) {
	case 0:
		break;
	case 1:
		udelay(tt_rand(t, 30));
		break;
	case 2:
		cond_resched();
		break;
	default:
		msleep(1 + tt_rand(t, 2));
		break;
	}
}

/*
 * psem_acquire_async(), then wait for the callback or cancel at a random
 * moment. With permits held, the wait is short and ends in a cancel: two
 * holders waiting for each other must not hang.
 */
static void tt_life_async(struct tt_thread *t, bool holding)
{
	struct tt_life_req *r = &t->req;
	long n = tt_life_pick(t);
	struct tt_life_win w;
	bool cancelled = false, sync = false;
	int ret, done;

	r->n = n;
	r->result = 1;
	atomic_set(&r->done, 0);
	WRITE_ONCE(r->queued, true);
	tt_life_win_begin(&w);
	ret = psem_acquire_async(&tt_lsem, n, &r->aw, tt_life_callback);
	if (ret != -EINPROGRESS) {
		tt_life_win_end(&w);
		WRITE_ONCE(r->queued, false);
		if (atomic_read(&r->done))
			tt_viol_err("life: callback ran, yet psem_acquire_async(%ld) returned %d\n",
				    n, ret);
		if (tt_life_judge("acquire_async", n, ret, &w, false, false)) {
			tt_life_hold(t, n);
			tt_life_inc(TT_LA_IMMEDIATE);
		} else if (ret == -ESHUTDOWN) {
			tt_life_inc(TT_LA_REF_SHUTDOWN);
		} else if (ret == -E2BIG) {
			tt_life_inc(TT_LA_REF_E2BIG);
		}
		return;
	}
	tt_life_inc(TT_LA_QUEUED);

	if (holding) {
		wait_event_idle_timeout(r->wq, tt_life_req_done(r), 1 + tt_rand(t, 3));
	} else if (tt_rand(t, 2)) {
		tt_wait_begin(t, &tt_lsem, n, false);
		wait_event_idle(r->wq, tt_life_req_done(r));
		tt_wait_end(t);
	} else {
		tt_life_moment(t);
	}
	if (!tt_life_req_done(r)) {
		sync = !tt_rand(t, 16);
		if (sync) {
			tt_life_inc(TT_LA_CANCEL_SYNC);
			cancelled = psem_cancel_async_sync(&tt_lsem, &r->aw);
			if (!cancelled && !tt_life_req_done(r))
				tt_viol_err("life: psem_cancel_async_sync() returned false before the callback ran\n");
		} else {
			cancelled = psem_cancel_async(&tt_lsem, &r->aw);
		}
		tt_life_inc(cancelled ? TT_LA_CANCELLED : TT_LA_CANCEL_LATE);
		if (!cancelled) {
			/* The callback has run or is running: wait for it. */
			tt_wait_begin(t, &tt_lsem, n, false);
			wait_event_idle(r->wq, tt_life_req_done(r));
			tt_wait_end(t);
		}
	}
	tt_life_win_end(&w);
	done = atomic_read_acquire(&r->done);
	WRITE_ONCE(r->queued, false);
	if (cancelled) {
		if (done)
			tt_viol_err("life: request of %ld both cancelled and called back (%d)\n",
				    n, READ_ONCE(r->result));
		return;
	}
	tt_life_inc(TT_LA_EXPECTED);
	ret = READ_ONCE(r->result);
	if (tt_life_judge("async callback", n, ret, &w, false, false)) {
		tt_life_hold(t, n);
		tt_life_inc(TT_LA_CB_OK);
	} else if (ret == -ESHUTDOWN) {
		tt_life_inc(TT_LA_CB_SHUTDOWN);
	} else if (ret == -E2BIG) {
		tt_life_inc(TT_LA_CB_E2BIG);
	}
}

static void tt_life_release(struct tt_thread *t)
{
	long held = atomic_long_read(&t->held);

	if (!held)
		return;
	tt_life_put(t, tt_rand(t, 4) ? 1 + tt_rand(t, held) : held);
	if (!atomic_long_read(&t->held))
		t->hold_ops = 0;
}

static void tt_life_step(struct tt_thread *t)
{
	long held = atomic_long_read(&t->held);
	long total;
	u32 r = tt_rand(t, 100);

	if (held && ++t->hold_ops > 8) {
		tt_life_put_all(t);	/* bounded hold: waiters make progress */
	} else if (!held) {
		if (r < 35)
			tt_life_acquire(t, false);
		else if (r < 70)
			tt_life_async(t, false);
		else if (r < 85)
			tt_life_try(t);
		else if (r < 95)
			tt_life_drain(t);
	} else {
		if (r < 35)
			tt_life_release(t);
		else if (r < 50)
			tt_life_try(t);
		else if (r < 65)
			tt_life_acquire(t, true);
		else if (r < 85)
			tt_life_async(t, true);
		else if (r < 90)
			tt_life_drain(t);
	}
	if (!(t->ops % 32))
		tt_life_check_locked();
	total = atomic_long_read(&tt_held_total);
	if (total < 0 || total > tt_life_cap_max())
		tt_viol_err("life: threads hold %ld, the capacity was never above %ld\n",
			    total, tt_life_cap_max());
	tt_hold_delay(t);
}

/* ---------------------------------------------------------------------- */
/* The lock phases.                                                        */

/**
 * struct tt_lock_ops - a lock under test
 * @wlock:        take it exclusively; 0, -EINTR, or -EBUSY (trylock failed)
 * @wunlock:      release an exclusive hold
 * @rlock:        take it shared (NULL: a mutex)
 * @runlock:      release a shared hold
 * @downgrade:    turn an exclusive hold into a shared one (NULL: none)
 * @sem:          the psem underneath, for the checks
 * @full:         its balance while nobody holds the lock
 * @busted:       a deliberately broken lock
 */
struct tt_lock_ops {
	int (*wlock)(struct tt_thread *t, enum tt_how how);
	void (*wunlock)(struct tt_thread *t);
	int (*rlock)(struct tt_thread *t, enum tt_how how);
	void (*runlock)(struct tt_thread *t);
	void (*downgrade)(struct tt_thread *t);
	struct psem *sem;
	long full;
	bool busted;
};

static int tt_rw_write_lock(struct tt_thread *t, enum tt_how how)
{
	int ret = 0;

	if (how == TT_TRY)
		return psem_write_trylock(&tt_rw) ? 0 : -EBUSY;
	tt_wait_begin(t, &tt_rw.sem, PSEM_RWLOCK_MAX_READERS, how == TT_INTR);
	if (how == TT_INTR)
		ret = psem_write_lock_interruptible(&tt_rw);
	else if (how == TT_KILL)
		ret = psem_write_lock_killable(&tt_rw);
	else
		psem_write_lock(&tt_rw);
	tt_wait_end(t);
	return ret;
}

static void tt_rw_write_unlock(struct tt_thread *t)
{
	psem_write_unlock(&tt_rw);
}

static int tt_rw_read_lock(struct tt_thread *t, enum tt_how how)
{
	int ret = 0;

	if (how == TT_TRY)
		return psem_read_trylock(&tt_rw) ? 0 : -EBUSY;
	tt_wait_begin(t, &tt_rw.sem, 1, how == TT_INTR);
	if (how == TT_INTR)
		ret = psem_read_lock_interruptible(&tt_rw);
	else if (how == TT_KILL)
		ret = psem_read_lock_killable(&tt_rw);
	else
		psem_read_lock(&tt_rw);
	tt_wait_end(t);
	return ret;
}

static void tt_rw_read_unlock(struct tt_thread *t)
{
	psem_read_unlock(&tt_rw);
}

static void tt_rw_downgrade(struct tt_thread *t)
{
	psem_downgrade_write(&tt_rw);
}

static const struct tt_lock_ops tt_rwlock_ops = {
	.wlock		= tt_rw_write_lock,
	.wunlock	= tt_rw_write_unlock,
	.rlock		= tt_rw_read_lock,
	.runlock	= tt_rw_read_unlock,
	.downgrade	= tt_rw_downgrade,
	.sem		= &tt_rw.sem,
	.full		= PSEM_RWLOCK_MAX_READERS,
};

static int tt_mx_lock(struct tt_thread *t, enum tt_how how)
{
	int ret = 0;

	if (how == TT_TRY)
		return psem_mutex_trylock(&tt_mx) ? 0 : -EBUSY;
	tt_wait_begin(t, &tt_mx.sem, 1, how == TT_INTR);
	if (how == TT_INTR)
		ret = psem_mutex_lock_interruptible(&tt_mx);
	else if (how == TT_KILL)
		ret = psem_mutex_lock_killable(&tt_mx);
	else
		psem_mutex_lock(&tt_mx);
	tt_wait_end(t);
	return ret;
}

static void tt_mx_unlock(struct tt_thread *t)
{
	psem_mutex_unlock(&tt_mx);
}

static const struct tt_lock_ops tt_mutex_ops = {
	.wlock		= tt_mx_lock,
	.wunlock	= tt_mx_unlock,
	.sem		= &tt_mx.sem,
	.full		= 1,
};

/* Busted mutex: a trylock that goes ahead even when it fails. */
static int tt_busted_mx_lock(struct tt_thread *t, enum tt_how how)
{
	t->taken = psem_try_acquire(&tt_bsem, 1);
	return 0;
}

static void tt_busted_mx_unlock(struct tt_thread *t)
{
	if (t->taken)
		psem_release(&tt_bsem, 1);
	t->taken = false;
}

static const struct tt_lock_ops tt_busted_mutex_ops = {
	.wlock		= tt_busted_mx_lock,
	.wunlock	= tt_busted_mx_unlock,
	.sem		= &tt_bsem,
	.full		= 1,
	.busted		= true,
};

/* Busted rwlock: readers and writers alike take one permit. */
static int tt_busted_rw_lock(struct tt_thread *t, enum tt_how how)
{
	int ret = 0;

	if (how == TT_TRY)
		return psem_try_acquire(&tt_bsem, 1) ? 0 : -EBUSY;
	tt_wait_begin(t, &tt_bsem, 1, how == TT_INTR);
	if (how == TT_INTR)
		ret = psem_acquire_interruptible(&tt_bsem, 1);
	else if (how == TT_KILL)
		ret = psem_acquire_killable(&tt_bsem, 1);
	else
		ret = psem_acquire(&tt_bsem, 1);
	tt_wait_end(t);
	return ret;
}

static void tt_busted_rw_unlock(struct tt_thread *t)
{
	psem_release(&tt_bsem, 1);
}

static const struct tt_lock_ops tt_busted_rwlock_ops = {
	.wlock		= tt_busted_rw_lock,
	.wunlock	= tt_busted_rw_unlock,
	.rlock		= tt_busted_rw_lock,
	.runlock	= tt_busted_rw_unlock,
	.sem		= &tt_bsem,
	.full		= TT_BUSTED_RW_FULL,
	.busted		= true,
};

/* Plain accesses for the real locks (KCSAN checks them), marked if busted. */
static unsigned long tt_data_get(int i)
{
	return tt_marked ? READ_ONCE(tt_data[i]) : tt_data[i];
}

static void tt_data_set(int i, unsigned long v)
{
	if (tt_marked)
		WRITE_ONCE(tt_data[i], v);
	else
		tt_data[i] = v;
}

static void tt_cs_count_inc(void)
{
	if (tt_marked)
		WRITE_ONCE(tt_cs_count, READ_ONCE(tt_cs_count) + 1);
	else
		tt_cs_count++;
}

static const char *tt_phase_name(void)
{
	return tt_phase_names[tt_phase];
}

/* All words equal: a reader must never see a writer's half-done update. */
static unsigned long tt_data_check(const char *who)
{
	unsigned long v = tt_data_get(0);
	int i;

	for (i = 1; i < TT_DATA_WORDS; i++) {
		unsigned long w = tt_data_get(i);

		if (w != v) {
			tt_viol_err("%s: %s saw torn data: word 0 is %lu, word %d is %lu\n",
				    tt_phase_name(), who, v, i, w);
			break;
		}
	}
	return v;
}

static void tt_write_cs(struct tt_thread *t)
{
	const struct tt_lock_ops *ops = tt_ops;
	int w = atomic_inc_return(&tt_writers);
	int r = atomic_read(&tt_readers);
	unsigned long v;
	int i;

	if (w != 1 || r)
		tt_viol_err("%s: writer %d entered with %d writers and %d readers inside\n",
			    tt_phase_name(), t->id, w - 1, r);
	if (!ops->busted) {
		long avail = psem_available(ops->sem);

		if (avail)
			tt_viol_err("%s: writer %d holds the lock, yet %ld permits are available\n",
				    tt_phase_name(), t->id, avail);
		ASSERT_EXCLUSIVE_ACCESS(tt_data);
	}
	v = tt_data_check("writer") + 1;
	for (i = 0; i < TT_DATA_WORDS; i++) {
		tt_data_set(i, v);
		if (i == 1)
			udelay(tt_rand(t, 5));
	}
	tt_cs_count_inc();
	atomic_long_inc(&tt_cs_expected);
	tt_hold_delay(t);
	w = atomic_read(&tt_writers);
	r = atomic_read(&tt_readers);
	if (w != 1 || r)
		tt_viol_err("%s: writer %d found %d writers and %d readers beside it\n",
			    tt_phase_name(), t->id, w - 1, r);
	atomic_dec(&tt_writers);
}

/* @counted: the reader is already in tt_readers (a downgraded writer). */
static void tt_read_cs(struct tt_thread *t, bool counted)
{
	const struct tt_lock_ops *ops = tt_ops;
	int w;
	unsigned long v;

	if (!counted)
		atomic_inc(&tt_readers);
	w = atomic_read(&tt_writers);
	if (w)
		tt_viol_err("%s: reader %d entered with %d writers inside\n",
			    tt_phase_name(), t->id, w);
	if (!ops->busted) {
		long avail = psem_available(ops->sem);

		if (avail > ops->full - 1)
			tt_viol_err("%s: reader %d holds the lock, yet %ld permits are available\n",
				    tt_phase_name(), t->id, avail);
		ASSERT_EXCLUSIVE_WRITER(tt_data);
	}
	v = tt_data_check("reader");
	tt_hold_delay(t);
	if (tt_data_check("reader") != v)
		tt_viol_err("%s: data changed under reader %d\n", tt_phase_name(), t->id);
	w = atomic_read(&tt_writers);
	if (w)
		tt_viol_err("%s: reader %d found %d writers beside it\n",
			    tt_phase_name(), t->id, w);
	atomic_dec(&tt_readers);
}

/* Checks a lock call's result; true if the lock is not held. */
static bool tt_lock_failed(struct tt_thread *t, enum tt_how how, int ret,
			   const char *side)
{
	if (!ret)
		return false;
	if (ret == -EBUSY && how == TT_TRY) {
		tt_inc(&t->busy);
	} else if (ret == -EINTR && how == TT_INTR) {
		tt_inc(&t->eintr);
		tt_flush_signals();
	} else {
		tt_viol_err("%s: %s %s lock returned %d\n", tt_phase_name(),
			    tt_how_names[how], side, ret);
	}
	return true;
}

static void tt_lock_step(struct tt_thread *t)
{
	const struct tt_lock_ops *ops = tt_ops;
	enum tt_how how = tt_rand(t, TT_TIMEOUT);	/* PLAIN..TRY */
	int ret;

	if (!ops->rlock || !tt_rand(t, 4)) {
		ret = ops->wlock(t, how);
		if (tt_lock_failed(t, how, ret, "write"))
			return;
		tt_write_cs(t);
		if (ops->downgrade && !tt_rand(t, 4)) {
			atomic_inc(&tt_readers);
			ops->downgrade(t);
			tt_read_cs(t, true);
			ops->runlock(t);
		} else {
			ops->wunlock(t);
		}
	} else {
		ret = ops->rlock(t, how);
		if (tt_lock_failed(t, how, ret, "read"))
			return;
		tt_read_cs(t, false);
		ops->runlock(t);
	}
	if (!(t->ops % 32))
		tt_check_invariant(ops->sem, tt_phase_name());
	if (!tt_rand(t, 8))
		tt_hold_delay(t);
}

/* ---------------------------------------------------------------------- */
/* Workers and stutter.                                                    */

static unsigned int tt_stut_state(void)
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
/* Monitor, signaller, hotplug.                                            */

static struct psem *tt_phase_sem(void)
{
	if (tt_phase == TT_SEM)
		return &tt_sem;
	return tt_phase == TT_LIFE ? &tt_lsem : tt_ops->sem;
}

static void tt_dump_waits(void)
{
	int i;

	for (i = 0; i < tt_nthr; i++) {
		struct tt_thread *t = &tt_thr[i];

		/* Pairs with tt_wait_begin(): the wait's fields are set. */
		if (!smp_load_acquire(&t->waiting))
			continue;
		tt_alert("thread %d waits for %ld permits since %u ms (available %ld, debt %lu)\n",
			 i, READ_ONCE(t->wait_need),
			 tt_j2ms(jiffies - READ_ONCE(t->wait_start)),
			 psem_available(READ_ONCE(t->wait_sem)),
			 psem_debt(READ_ONCE(t->wait_sem)));
	}
}

/*
 * The lost wake-up watchdog: a wait that has lasted wait_bound_s while the
 * semaphore kept enough permits for it (on three looks in a row) was not
 * woken when it should have been.
 */
static void tt_watchdog(void)
{
	unsigned long bound = (unsigned long)wait_bound_s * HZ;
	int i;

	for (i = 0; i < tt_nthr; i++) {
		struct tt_thread *t = &tt_thr[i];
		unsigned long start, waited;
		struct psem *sem;
		long need, avail;

		/* Pairs with tt_wait_begin(): the wait's fields are set. */
		if (!smp_load_acquire(&t->waiting))
			continue;
		start = READ_ONCE(t->wait_start);
		if (start != t->wd_start) {
			t->wd_start = start;
			t->wd_strikes = 0;
			t->wd_flags = 0;
		}
		waited = jiffies - start;
		if (waited < bound)
			continue;
		sem = READ_ONCE(t->wait_sem);
		need = READ_ONCE(t->wait_need);
		avail = psem_available(sem);
		if (!(t->wd_flags & TT_WD_LONG)) {
			t->wd_flags |= TT_WD_LONG;
			tt_info("%s: thread %d has waited %u ms for %ld permits (available %ld, debt %lu)\n",
				tt_phase_name(), i, tt_j2ms(waited), need, avail, psem_debt(sem));
		}
		if (avail < need) {
			t->wd_strikes = 0;
			continue;
		}
		if (++t->wd_strikes >= 3 && !(t->wd_flags & TT_WD_LOST)) {
			t->wd_flags |= TT_WD_LOST;
			tt_viol_err("%s: lost wake-up: thread %d has waited %u ms for %ld permits while %ld are available\n",
				    tt_phase_name(), i, tt_j2ms(waited), need, avail);
		}
	}
}

static void tt_sum_ops(unsigned long *ops, unsigned long *max_wait)
{
	int i;

	*ops = 0;
	*max_wait = 0;
	for (i = 0; i < tt_nthr; i++) {
		*ops += READ_ONCE(tt_thr[i].ops);
		*max_wait = max(*max_wait, READ_ONCE(tt_thr[i].max_wait));
	}
}

static void tt_print_stats(void)
{
	struct psem *sem = tt_phase_sem();
	unsigned long ops, max_wait, eintr = 0, etime = 0, busy = 0;
	int i;

	tt_sum_ops(&ops, &max_wait);
	for (i = 0; i < tt_nthr; i++) {
		eintr += READ_ONCE(tt_thr[i].eintr);
		etime += READ_ONCE(tt_thr[i].etime);
		busy += READ_ONCE(tt_thr[i].busy);
	}
	tt_info("stats %s: ops=%lu eintr=%lu etime=%lu busy=%lu signals=%ld stutters=%lu hotplug=%ld available=%ld debt=%lu held=%ld max_wait_ms=%u violations=%d\n",
		tt_phase_name(), ops, eintr, etime, busy, atomic_long_read(&tt_signals),
		READ_ONCE(tt_stutters), atomic_long_read(&tt_hotplug_off), psem_available(sem),
		psem_debt(sem), atomic_long_read(&tt_held_total), tt_j2ms(max_wait),
		atomic_read(&tt_violations));
}

static int tt_monitor(void *arg)
{
	unsigned long next_stats = jiffies + (unsigned long)stat_interval_s * HZ;

	while (!kthread_should_stop()) {
		schedule_timeout_idle(HZ / 5);
		if (tt_phase == TT_SEM) {
			long avail = psem_available(&tt_sem);
			long total = atomic_long_read(&tt_held_total);

			if (avail < 0 || avail > permits)
				tt_viol_err("sem: monitor: %ld permits available, only %d exist\n",
					    avail, permits);
			if (total < 0 || total > permits)
				tt_viol_err("sem: monitor: threads hold %ld of %d permits\n",
					    total, permits);
		} else if (tt_phase == TT_LIFE) {
			long avail = psem_available(&tt_lsem);
			long total = atomic_long_read(&tt_held_total);

			if (avail < 0 || avail > tt_life_cap_max())
				tt_viol_err("life: monitor: %ld permits available, the capacity is at most %ld\n",
					    avail, tt_life_cap_max());
			if (total < 0 || total > tt_life_cap_max())
				tt_viol_err("life: monitor: threads hold %ld, the capacity is at most %ld\n",
					    total, tt_life_cap_max());
			tt_life_check_locked();
		} else {
			int w = atomic_read(&tt_writers);

			if (w < 0 || (w > 1 && !tt_ops->busted))
				tt_viol_err("%s: monitor: %d writers inside\n",
					    tt_phase_name(), w);
			if (psem_available(tt_ops->sem) > tt_ops->full)
				tt_viol_err("%s: monitor: %ld permits available, only %ld exist\n",
					    tt_phase_name(), psem_available(tt_ops->sem),
					    tt_ops->full);
		}
		tt_check_invariant(tt_phase_sem(), tt_phase_name());
		tt_watchdog();
		if (stat_interval_s && time_after_eq(jiffies, next_stats)) {
			tt_print_stats();
			next_stats = jiffies + (unsigned long)stat_interval_s * HZ;
		}
	}
	return 0;
}

static int tt_signaller(void *arg)
{
	unsigned long period = max(msecs_to_jiffies(signal_ms), 1UL);
	int i;

	while (!kthread_should_stop()) {
		int start = prandom_u32_state(&tt_sig_rnd) % tt_nthr;

		schedule_timeout_idle(period);
		for (i = 0; i < tt_nthr; i++) {
			struct tt_thread *t = &tt_thr[(start + i) % tt_nthr];

			/* Pairs with tt_wait_begin(), as in tt_watchdog(). */
			if (smp_load_acquire(&t->waiting) && READ_ONCE(t->wait_intr)) {
				send_sig(SIGUSR1, t->task, 1);
				atomic_long_inc(&tt_signals);
				break;
			}
		}
	}
	return 0;
}

/* The @n-th online CPU, counting from 0; -1 if there are fewer. */
static int tt_nth_online_cpu(int n)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (!n--)
			return cpu;
	return -1;
}

/* A random online CPU that may go offline: not the first one. */
static int tt_pick_cpu(struct rnd_state *rnd)
{
	int n = num_online_cpus() - 1;
	int cpu;

	if (n < 1)
		return -1;
	cpu = tt_nth_online_cpu(1 + prandom_u32_state(rnd) % n);
	return cpu >= 0 && cpu_is_hotpluggable(cpu) ? cpu : -1;
}

/* Offlines a CPU for a while, every few seconds; always brings it back. */
static int tt_hotplug(void *arg)
{
	struct rnd_state rnd;
	bool reported = false;
	int cpu, ret, tries;

	prandom_seed_state(&rnd, seed ^ 0x5eed);
	while (!kthread_should_stop()) {
		schedule_timeout_idle(HZ + prandom_u32_state(&rnd) % (2 * HZ));
		if (kthread_should_stop())
			break;
		cpu = tt_pick_cpu(&rnd);
		if (cpu < 0)
			continue;
		ret = remove_cpu(cpu);
		if (ret) {
			atomic_long_inc(&tt_hotplug_fail);
			if (!reported)
				tt_info("hotplug: remove_cpu(%d) returned %d\n", cpu, ret);
			reported = true;
			continue;
		}
		atomic_long_inc(&tt_hotplug_off);
		schedule_timeout_idle(HZ / 2 + prandom_u32_state(&rnd) % HZ);
		for (tries = 0; tries < 50; tries++) {
			ret = add_cpu(cpu);
			if (!ret)
				break;
			msleep(100);
		}
		if (ret)
			tt_viol_err("hotplug: add_cpu(%d) returned %d: CPU left offline\n",
				    cpu, ret);
	}
	return 0;
}

/*
 * The life phase's churn: every few ms a resize (grow or shrink, to any
 * capacity 0..2 * permits, with permits out), a close or a reopen, or a
 * quiesce that only checks. Not while the workers are paused: the
 * controller then owns the psem (and tt_life_mx).
 */
static void tt_life_churn_one(struct rnd_state *rnd)
{
	u32 r = prandom_u32_state(rnd) % 100;
	int ret;

	if (r < 50) {
		long cap = r < 4 ? 0 : prandom_u32_state(rnd) % (tt_life_cap_max() + 1);

		tt_life_resize(cap);
	} else if (psem_is_closed(&tt_lsem)) {
		if (r < 90)	/* closed about a tenth of the time */
			tt_life_reopen();
	} else if (r < 55) {
		tt_life_close();
	} else if (r < 65) {
		ret = psem_quiesce(&tt_lsem, 0);	/* only checks: never sleeps */
		if (ret && ret != -ETIME)
			tt_viol_err("life: psem_quiesce(0) returned %d\n", ret);
		tt_life_inc(TT_LC_QUIESCE);
	}
}

static int tt_life_churn(void *arg)
{
	struct rnd_state rnd;

	prandom_seed_state(&rnd, seed ^ 0xc4a2);
	while (!kthread_should_stop()) {
		schedule_timeout_idle(msecs_to_jiffies(1 + prandom_u32_state(&rnd) % 8));
		mutex_lock(&tt_life_mx);
		if (!(tt_stut_state() & 3) && !READ_ONCE(tt_phase_stop))
			tt_life_churn_one(&rnd);
		mutex_unlock(&tt_life_mx);
	}
	return 0;
}

/* A close that frees stuck workers (with the churn stopped). */
static void tt_life_rescue(void)
{
	mutex_lock(&tt_life_mx);
	if (!psem_is_closed(&tt_lsem))
		tt_life_close();
	mutex_unlock(&tt_life_mx);
}

/*
 * All workers paused, nothing held, every asynchronous request over: the
 * psem, reopened and resized back to @permits, must quiesce at once and
 * be exactly whole.
 */
static void tt_life_quiescent_check(int stage)
{
	long avail, word, cap, total, sum = 0, cb, exp;
	unsigned long debt;
	bool waiters;
	int i, ret;

	mutex_lock(&tt_life_mx);
	if (psem_is_closed(&tt_lsem) || psem_capacity(&tt_lsem) != permits)
		tt_life_inc(TT_LC_RESTORE);
	if (psem_is_closed(&tt_lsem))
		tt_life_reopen();
	if (psem_capacity(&tt_lsem) != permits)
		tt_life_resize(permits);
	ret = psem_quiesce(&tt_lsem, TT_LIFE_QUIESCE_S * HZ);
	if (ret)
		tt_viol_err("life: paused (stage %d): psem_quiesce() returned %d: available %ld of %d, debt %lu\n",
			    stage, ret, psem_available(&tt_lsem), permits, psem_debt(&tt_lsem));
	avail = psem_available(&tt_lsem);
	debt = psem_debt(&tt_lsem);
	word = atomic_long_read(&tt_lsem.count);
	cap = psem_capacity(&tt_lsem);
	waiters = tt_has_waiters(&tt_lsem);
	total = atomic_long_read(&tt_held_total);
	for (i = 0; i < tt_nthr; i++) {
		sum += atomic_long_read(&tt_thr[i].held);
		if (READ_ONCE(tt_thr[i].req.queued))
			tt_viol_err("life: paused (stage %d): thread %d has a request queued\n",
				    stage, i);
	}
	if (avail != permits || debt || (word & PSEM_FLAGS) || word < 0 || waiters ||
	    cap != permits || total || sum)
		tt_viol_err("life: paused (stage %d): available %ld debt %lu word %#lx capacity %ld of %d, held %ld (threads %ld), waiters: %s\n",
			    stage, avail, debt, word, cap, permits, total, sum,
			    waiters ? "yes" : "no");
	cb = tt_life_get(TT_LA_CALLBACKS);
	exp = tt_life_get(TT_LA_EXPECTED);
	if (cb != exp)
		tt_viol_err("life: paused (stage %d): %ld callbacks ran, %ld requests were called back\n",
			    stage, cb, exp);
	mutex_unlock(&tt_life_mx);
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
		if (total + avail - (long)debt + reduced != permits || waiters ||
		    (stage == 1 && total) || reduced || debt)
			tt_viol_err("sem: paused (stage %d): held %ld + available %ld - debt %lu + reduced %ld != %d permits (waiters: %s)\n",
				    stage, total, avail, debt, reduced, permits,
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

static bool tt_life_ran;

/* The life phase's outcomes and what its churn did. */
static void tt_life_report(void)
{
	tt_alert("lifecycle: async queued=%ld immediate=%ld granted=%ld shutdown=%ld e2big=%ld cancelled=%ld cancel_late=%ld cancel_sync=%ld refused_shutdown=%ld refused_e2big=%ld callbacks=%ld\n",
		 tt_life_get(TT_LA_QUEUED), tt_life_get(TT_LA_IMMEDIATE),
		 tt_life_get(TT_LA_CB_OK), tt_life_get(TT_LA_CB_SHUTDOWN),
		 tt_life_get(TT_LA_CB_E2BIG), tt_life_get(TT_LA_CANCELLED),
		 tt_life_get(TT_LA_CANCEL_LATE), tt_life_get(TT_LA_CANCEL_SYNC),
		 tt_life_get(TT_LA_REF_SHUTDOWN), tt_life_get(TT_LA_REF_E2BIG),
		 tt_life_get(TT_LA_CALLBACKS));
	tt_alert("lifecycle: sleeping granted=%ld shutdown=%ld e2big=%ld; churn grows=%ld shrinks=%ld shrinks_with_debt=%ld closes=%ld reopens=%ld quiesce_checks=%ld stutter_restores=%ld\n",
		 tt_life_get(TT_LS_OK), tt_life_get(TT_LS_SHUTDOWN), tt_life_get(TT_LS_E2BIG),
		 tt_life_get(TT_LC_GROW), tt_life_get(TT_LC_SHRINK),
		 tt_life_get(TT_LC_SHRINK_OUT), tt_life_get(TT_LC_CLOSE),
		 tt_life_get(TT_LC_REOPEN), tt_life_get(TT_LC_QUIESCE),
		 tt_life_get(TT_LC_RESTORE));
}

/* Sets psem's switches to release rule @rule. */
static void tt_set_rule(enum tt_rule rule)
{
	psem_set_fast_release(rule != TT_RULE_LOCKED);
	psem_set_zero_release(rule == TT_RULE_PSEM || rule == TT_RULE_PSEM_NOFLAG);
	psem_set_contention_flag(rule == TT_RULE_SEED_FLAG || rule == TT_RULE_PSEM);
}

/* While all workers are paused: the next release rule, in turn. */
static void tt_flip_knobs(void)
{
	enum tt_rule rule;

	if (!flip_knobs || tt_busted)
		return;
	rule = (tt_knob_flips + 1) % TT_NR_RULES;	/* the run starts on psem */
	tt_set_rule(rule);
	tt_rule_runs[rule]++;
	tt_knob_flips++;
}

/*
 * live_flips: flip one switch at random every live_flips ms while the
 * workers run. Nothing pauses for it: a release or an acquire may be
 * anywhere in its fast or locked path when the rule changes under it, and
 * the exact checks at the stutters and at the end must still hold.
 */
static int tt_flipper(void *arg)
{
	unsigned long period = max(msecs_to_jiffies(live_flips), 1UL);
	struct rnd_state rnd;

	prandom_seed_state(&rnd, seed ^ 0xf11b);
	while (!kthread_should_stop()) {
		schedule_timeout_idle(period);
		if (kthread_should_stop())
			break;
		switch (prandom_u32_state(&rnd) % 4) {
		case 0:
			psem_set_fast_release(!psem_fast_release_enabled());
			break;
		case 1:
			psem_set_contention_flag(!psem_contention_flag_enabled());
			break;
		case 2:
			psem_set_zero_release(!psem_zero_release_enabled());
			break;
		default:
			psem_set_stats(!psem_stats_enabled());
			break;
		}
		atomic_long_inc(&tt_live_flips);
	}
	return 0;
}

static void tt_stutter(void)
{
	unsigned int gen = ++tt_gen;
	long tmo = ((long)wait_bound_s + 5) * HZ;

	tt_stut_set(gen << 2 | 1);
	if (!wait_event_idle_timeout(tt_ctl_wq, tt_all_arrived(1), tmo)) {
		tt_viol_err("%s: stutter: only %d of %d threads paused within %d s\n",
			    tt_phase_name(), READ_ONCE(tt_arrived[1]), tt_nthr,
			    wait_bound_s + 5);
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
				    READ_ONCE(tt_arrived[2]), tt_nthr, wait_bound_s + 5);
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
		psem_init(&tt_sem, permits);
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
		if (psem_init_capacity(&tt_lsem, permits))
			tt_viol_err("life: psem_init_capacity(%d) failed\n", permits);
		memset(tt_life_hist, 0, sizeof(tt_life_hist));
		tt_life_hist[0] = permits;
		tt_life_res_begin = 0;
		tt_life_res_end = 0;
		tt_life_state = 0;
		tt_life_cap = permits;
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
		prandom_seed_state(&tt_thr[i].rnd, seed + (u64)ph * 1000 + i);
	}

	tt_ncpus = num_online_cpus();
}

/* Returns a started kthread, or NULL (and says why). */
static struct task_struct *tt_start(int (*fn)(void *), void *arg, const char *what,
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
	long tmo = ((long)wait_bound_s + 10) * HZ;
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
			psem_release_all_held(sem, tt_phase == TT_SEM ? permits : tt_ops->full);
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
	if (signal_ms)
		sig = tt_start(tt_signaller, NULL, "sig", 0, -1);
	if (hotplug && IS_ENABLED(CONFIG_HOTPLUG_CPU) && num_online_cpus() > 1)
		hp = tt_start(tt_hotplug, NULL, "hp", 0, -1);
	if (live_flips && !tt_busted)
		flip = tt_start(tt_flipper, NULL, "flip", 0, -1);
	if (ph == TT_LIFE)
		churn = tt_start(tt_life_churn, NULL, "churn", 0, -1);

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
	if (flip_knobs && !tt_busted) {
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
	if (tt_life_ran)
		tt_life_report();
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
	ok &= tt_param_ok("permits", permits, 1, 1024);
	ok &= tt_param_ok("stutter_s", stutter_s, 0, 3600);
	ok &= tt_param_ok("signal_ms", signal_ms, 0, 60000);
	ok &= tt_param_ok("hotplug", hotplug, 0, 1);
	ok &= tt_param_ok("flip_knobs", flip_knobs, 0, 1);
	ok &= tt_param_ok("live_flips", live_flips, 0, 10000);
	ok &= tt_param_ok("wait_bound_s", wait_bound_s, 1, 3600);
	ok &= tt_param_ok("stat_interval_s", stat_interval_s, 0, 3600);
	if (!ok)
		return -EINVAL;
	ret = tt_parse_type();
	if (ret)
		return ret;
	if (!seed)
		seed = get_random_u32() | 1;
	prandom_seed_state(&tt_ctl_rnd, seed);
	prandom_seed_state(&tt_sig_rnd, seed ^ 0x5167);

	tt_nthr = nthreads_per_cpu * num_online_cpus();
	tt_thr = kcalloc(tt_nthr, sizeof(*tt_thr), GFP_KERNEL);
	if (!tt_thr)
		return -ENOMEM;
	psem_init(&tt_ovf, PSEM_MAX_PERMITS - TT_OVF_SLACK);
	psem_init(&tt_ovf_debt, 0);

	tt_alert("Start of test: torture_type=%s duration_s=%d nthreads_per_cpu=%d (%d threads) permits=%d stutter_s=%d signal_ms=%d hotplug=%d flip_knobs=%d live_flips=%d wait_bound_s=%d seed=%lu\n",
		 torture_type, duration_s, nthreads_per_cpu, tt_nthr, permits, stutter_s,
		 signal_ms, hotplug, flip_knobs, live_flips, wait_bound_s, seed);
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
