/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of psem_torture.ko share. The module is layered as
 * kernel/locking/locktorture.c is on kernel/torture.c: each phase is an ops
 * vector (struct psem_torture_ops), a controller runs the vectors, and a
 * helper library lies below both. A file calls only files below it:
 *
 *   main     psem_torture_main.c    the controller: parameters, the table of
 *                                   phases, the run (workers, stutter, phase
 *                                   end), module load and unload
 *   beside   psem_torture_watch.c   monitor, signaller, CPU hotplug
 *            psem_torture_flip.c    psem's release rules, set at stutters and
 *                                   live
 *            psem_torture_hardirq.c releases from a hard-IRQ timer
 *                                   (hardirq_release)
 *   phases   psem_torture_sem.c     the sem phase and the overflow checks
 *            psem_torture_busted.c  the deliberately broken locks' phases
 *            psem_torture_locks.c   the rwlock and mutex phases, and the
 *                                   lock step the busted phases share
 *            psem_torture_life.c    the life phase
 *            psem_torture_free.c    the life phase's close -> quiesce -> free
 *                                   cycles
 *   lib      psem_torture_lib.c     the run's shared settings and state, and
 *                                   the helpers (random, delays, waits, the
 *                                   invariant check, accounting, the pick
 *                                   of a step, violations, threads, the
 *                                   stutter's primitives)
 *
 * The "beside" files reach the running phase only through its vector
 * (tt_cur), never by name. See psem_torture_main.c for what the test does.
 */
#ifndef _PSEM_TORTURE_H
#define _PSEM_TORTURE_H

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

#define tt_alert(fmt, ...) pr_alert("%s: " fmt, tt_tag, ##__VA_ARGS__)
#define tt_info(fmt, ...) pr_info("%s: " fmt, tt_tag, ##__VA_ARGS__)

/* How a worker takes a lock or permits. */
enum tt_how {
	TT_PLAIN,
	TT_INTR,
	TT_KILL,
	TT_TRY,
	TT_TIMEOUT,
	TT_NR_HOW,
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
 * @held:       sem and life phases: permits it holds now
 * @hold_ops:   sem and life phases: steps since it last held nothing
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
 * @eintr:      interruptible waits ended by a signal
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

/**
 * struct tt_lock - a lock under test (the lock phases)
 * @wlock:        take it exclusively; 0, -EINTR, or -EBUSY (trylock failed)
 * @wunlock:      release an exclusive hold
 * @rlock:        take it shared (NULL: a mutex)
 * @runlock:      release a shared hold
 * @downgrade:    turn an exclusive hold into a shared one (NULL: none)
 * @sem:          the psem underneath, for the checks
 * @full:         its balance while nobody holds the lock
 * @busted:       a deliberately broken lock
 */
struct tt_lock {
	int (*wlock)(struct tt_thread *t, enum tt_how how);
	void (*wunlock)(struct tt_thread *t);
	int (*rlock)(struct tt_thread *t, enum tt_how how);
	void (*runlock)(struct tt_thread *t);
	void (*downgrade)(struct tt_thread *t);
	struct psem *sem;
	long full;
	bool busted;
};

/**
 * struct tt_pick - a step of the sem and life phases, picked at random
 * @fn:      the step
 * @idle:    its share of a hundred while the worker holds nothing
 * @holding: its share while the worker holds permits
 */
struct tt_pick {
	void (*fn)(struct tt_thread *t);
	u8 idle;
	u8 holding;
};

/**
 * struct psem_torture_ops - one phase, as struct lock_torture_ops is one
 * locktorture variant
 * @name:      the phase's name in every line about it
 * @sem:       the psem under test (the monitor's invariant, the watchdog)
 * @lock:      the lock phases: the lock under test; NULL otherwise
 * @init:      before the workers start: fresh locks and state
 * @start:     optional: start the phase's own threads beside the workers
 * @stop:      optional: stop them, before the workers end
 * @step:      one worker step
 * @put_all:   optional: give back what @t holds (stutter stage 1, the end)
 * @take_some: optional: stutter stage 2, take permits without waiting and
 *             keep them (then the controller checks conservation again)
 * @monitor:   the monitor's bounds, every 200 ms while the workers run
 * @quiescent: all workers paused at @stage (or finished: 1), nothing held
 *             unless stage 2: exact conservation
 * @rescue:    workers still stuck at the phase's end: free them
 * @finished:  optional: after the workers finished, before they are reaped
 * @report:    optional: the phase's own lines at the end of the test
 */
struct psem_torture_ops {
	const char *name;
	struct psem *sem;
	const struct tt_lock *lock;
	void (*init)(void);
	void (*start)(void);
	void (*stop)(void);
	void (*step)(struct tt_thread *t);
	void (*put_all)(struct tt_thread *t);
	void (*take_some)(struct tt_thread *t);
	void (*monitor)(void);
	void (*quiescent)(int stage);
	void (*rescue)(void);
	void (*finished)(void);
	void (*report)(void);
};

/* psem_torture_lib.c: settings (module parameters every layer reads) */
extern int tp_permits;
extern int tp_signal_ms;
extern int tp_flip_knobs;
extern int tp_live_flips;
extern int tp_wait_bound_s;
extern int tp_stat_interval_s;
extern ulong tp_seed;

/* psem_torture_lib.c: the run, set up by the controller */
extern const char *tt_tag;
extern const char *const tt_how_names[TT_NR_HOW];
extern struct tt_thread *tt_thr;
extern int tt_nthr;
extern bool tt_busted;
extern const struct psem_torture_ops *tt_cur;
extern bool tt_phase_stop;
extern atomic_t tt_violations;
extern atomic64_t tt_expected_refusals;
extern atomic_long_t tt_held_total;
extern unsigned long tt_stutters;
extern wait_queue_head_t tt_worker_wq;
extern wait_queue_head_t tt_ctl_wq;

/* psem_torture_lib.c: helpers */
__printf(1, 2) void tt_viol_err(const char *fmt, ...);
u32 tt_rand(struct tt_thread *t, u32 n);
void tt_inc(unsigned long *counter);
unsigned int tt_j2ms(unsigned long j);
const char *tt_phase_name(void);
void tt_hold_delay(struct tt_thread *t);
void tt_wait_begin(struct tt_thread *t, struct psem *sem, long need,
		   bool intr);
void tt_wait_end(struct tt_thread *t);
enum tt_how tt_pick_how(struct tt_thread *t, bool holding);
int tt_acquire(struct tt_thread *t, struct psem *sem, long n, enum tt_how how,
	       long *to);
void tt_flush_signals(void);
void tt_check_invariant(struct psem *sem, const char *what);
bool tt_has_waiters(struct psem *sem);
long tt_hold(struct tt_thread *t, long n);
void tt_put(struct tt_thread *t, struct psem *sem, long n, bool all_held);
void tt_put_all(struct tt_thread *t, struct psem *sem);
void tt_put_some(struct tt_thread *t, struct psem *sem);
void tt_pick_step(struct tt_thread *t, struct psem *sem, u8 put,
		  const struct tt_pick *picks);
void tt_monitor_bounds(struct psem *sem, long max);
void tt_expect_refusals(const char *what, u64 before, u64 n);
void tt_expect_balance(const char *what, struct psem *sem, long bal,
		       unsigned long debt);
int tt_nth_online_cpu(int n);
struct task_struct *tt_start(int (*fn)(void *), void *arg, const char *what,
			     int id, int cpu);
unsigned int tt_stut_state(void);
void tt_stut_set(unsigned int state);
void tt_stut_arrive(unsigned int state);
int tt_stut_arrived(int stage);

/*
 * The vector of a lock phase: @_lock under test, on @_sem, set up by
 * @_init; the lock step and the checks are psem_torture_locks.c's.
 */
#define TT_LOCK_PHASE_OPS(_name, _sem, _lock, _init) {			\
	.name		= _name,					\
	.sem		= _sem,						\
	.lock		= _lock,					\
	.init		= _init,					\
	.step		= tt_lock_step,					\
	.monitor	= tt_lock_monitor,				\
	.quiescent	= tt_lock_quiescent,				\
	.rescue		= tt_lock_rescue,				\
}

/* The phases' vectors: psem_torture_sem.c, _locks.c, _life.c, _busted.c */
extern const struct psem_torture_ops tt_sem_ops;
extern const struct psem_torture_ops tt_rwlock_ops;
extern const struct psem_torture_ops tt_mutex_ops;
extern const struct psem_torture_ops tt_life_ops;
extern const struct psem_torture_ops tt_busted_mutex_ops;
extern const struct psem_torture_ops tt_busted_rwlock_ops;

/* psem_torture_sem.c: beside the sem phase, also run by the controller */
void tt_overflow_init(void);
void tt_overflow_check(struct tt_thread *t);

/* psem_torture_locks.c: what the busted phases share with the real locks */
void tt_lock_reset(void);
void tt_lock_step(struct tt_thread *t);
void tt_lock_monitor(void);
void tt_lock_quiescent(int stage);
void tt_lock_rescue(void);

/* psem_torture_free.c: the life phase's free cycles */
void tt_free_start(void);
void tt_free_stop(void);
void tt_free_report(void);

/* psem_torture_watch.c */
extern atomic_long_t tt_signals;
extern atomic_long_t tt_hotplug_off;
extern atomic_long_t tt_hotplug_fail;

void tt_watch_init(void);
void tt_dump_waits(void);
void tt_sum_ops(unsigned long *ops, unsigned long *max_wait);
int tt_monitor(void *arg);
int tt_signaller(void *arg);
int tt_hotplug(void *arg);

/* psem_torture_flip.c */
void tt_flip_begin(void);
void tt_flip_knobs(void);
int tt_flipper(void *arg);
void tt_flip_report(void);
unsigned long tt_flip_count(void);

/* psem_torture_hardirq.c */
void tt_hirq_start(void);
void tt_hirq_stop(void);

/*
 * The word of a psem_ext at rest with @avail permits home and nobody
 * waiting (psem.h, PSEM_EXT): the credit above an empty field, and
 * PSEM_BIAS once more if @closed. Unsigned: the two biases wrap.
 */
static inline long tt_ext_word(long avail, bool closed)
{
	return (long)((PSEM_BIAS | PSEM_WAITERS | PSEM_CREDIT | PSEM_EXT) +
		      (closed ? PSEM_BIAS : 0) +
		      (unsigned long)avail * PSEM_HIGH_ONE);
}

#endif /* _PSEM_TORTURE_H */
