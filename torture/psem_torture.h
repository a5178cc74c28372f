/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of psem_torture.ko share. Each file has one job:
 *
 *   psem_torture_main.c    parameters, the run (phases, stutter, workers,
 *                          controller), module load and unload, helpers
 *   psem_torture_sem.c     the sem phase and the overflow checks
 *   psem_torture_life.c    the life phase
 *   psem_torture_free.c    the life phase's close -> quiesce -> free cycles
 *   psem_torture_locks.c   the rwlock and mutex phases
 *   psem_torture_busted.c  the deliberately broken locks
 *   psem_torture_watch.c   monitor, signaller, CPU hotplug
 *   psem_torture_flip.c    psem's release rules, set at stutters and live
 *   psem_torture_hardirq.c releases from a hard-IRQ timer (hardirq_release)
 *
 * See psem_torture_main.c for what the test does.
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

enum tt_phase_id {
	TT_SEM,
	TT_RWLOCK,
	TT_MUTEX,
	TT_LIFE,
	TT_BUSTED_MUTEX,
	TT_BUSTED_RWLOCK,
	TT_NR_PHASES,
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

/* Overflow checks: tt_ovf's balance is this far below PSEM_MAX_PERMITS. */
#define TT_OVF_SLACK		3
#define TT_BUSTED_RW_FULL	0x100000L	/* 2^20 */
#define TT_DATA_WORDS		4

/* The release rules set in turn at the stutters (see psem_torture_main.c). */
enum tt_rule {
	TT_RULE_LOCKED,
	TT_RULE_SEED,
	TT_RULE_SEED_FLAG,
	TT_RULE_PSEM,
	TT_RULE_PSEM_NOFLAG,
	TT_NR_RULES,
};

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

/* psem_torture_main.c */
extern int tp_permits;
extern int tp_signal_ms;
extern int tp_flip_knobs;
extern int tp_live_flips;
extern int tp_wait_bound_s;
extern int tp_stat_interval_s;
extern ulong tp_seed;
extern const char *tt_tag;
extern const char *const tt_phase_names[TT_NR_PHASES];
extern const char *const tt_how_names[TT_NR_HOW];
extern struct tt_thread *tt_thr;
extern int tt_nthr;
extern bool tt_busted;
extern enum tt_phase_id tt_phase;
extern const struct tt_lock_ops *tt_ops;
extern bool tt_phase_stop;
extern struct rnd_state tt_sig_rnd;
extern atomic_t tt_violations;
extern atomic64_t tt_expected_refusals;
extern atomic_long_t tt_signals;
extern atomic_long_t tt_hotplug_off;
extern atomic_long_t tt_hotplug_fail;
extern unsigned long tt_stutters;
extern unsigned long tt_knob_flips;
extern atomic_long_t tt_live_flips;
extern unsigned long tt_rule_runs[TT_NR_RULES];

__printf(1, 2) void tt_viol_err(const char *fmt, ...);
u32 tt_rand(struct tt_thread *t, u32 n);
void tt_inc(unsigned long *counter);
unsigned int tt_j2ms(unsigned long j);
void tt_hold_delay(struct tt_thread *t);
void tt_wait_begin(struct tt_thread *t, struct psem *sem, long need,
		   bool intr);
void tt_wait_end(struct tt_thread *t);
void tt_flush_signals(void);
void tt_check_invariant(struct psem *sem, const char *what);
bool tt_has_waiters(struct psem *sem);
unsigned int tt_stut_state(void);
struct task_struct *tt_start(int (*fn)(void *), void *arg, const char *what,
			     int id, int cpu);

/* psem_torture_sem.c */
extern struct psem tt_sem;
extern struct psem tt_ovf;
extern struct psem tt_ovf_debt;
extern atomic_long_t tt_held_total;
extern atomic_long_t tt_reduced;

void tt_expect_refusals(const char *what, u64 before, u64 n);
void tt_expect_balance(const char *what, struct psem *sem, long bal,
		       unsigned long debt);
void tt_overflow_check(struct tt_thread *t);
void tt_sem_put_all(struct tt_thread *t);
void tt_sem_step(struct tt_thread *t);
void tt_sem_take_some(struct tt_thread *t);

/* psem_torture_life.c */
extern struct psem tt_lsem;
extern bool tt_life_ran;

long tt_life_cap_max(void);
void tt_life_put_all(struct tt_thread *t);
void tt_life_check_locked(void);
void tt_life_step(struct tt_thread *t);
void tt_life_init(void);
int tt_life_churn(void *arg);
void tt_life_rescue(void);
void tt_life_quiescent_check(int stage);
void tt_life_report(void);

/* psem_torture_free.c */
void tt_free_start(void);
void tt_free_stop(void);
void tt_free_report(void);

/* psem_torture_hardirq.c */
void tt_hirq_start(void);
void tt_hirq_stop(void);

/* psem_torture_locks.c */
extern struct psem_rwlock tt_rw;
extern struct psem_mutex tt_mx;
extern unsigned long tt_data[TT_DATA_WORDS];
extern unsigned long tt_cs_count;
extern atomic_long_t tt_cs_expected;
extern atomic_t tt_readers;
extern atomic_t tt_writers;
extern bool tt_marked;
extern const struct tt_lock_ops tt_rwlock_ops;
extern const struct tt_lock_ops tt_mutex_ops;

const char *tt_phase_name(void);
void tt_lock_step(struct tt_thread *t);

/* psem_torture_busted.c */
extern struct psem tt_bsem;
extern const struct tt_lock_ops tt_busted_mutex_ops;
extern const struct tt_lock_ops tt_busted_rwlock_ops;

/* psem_torture_watch.c */
struct psem *tt_phase_sem(void);
void tt_dump_waits(void);
void tt_sum_ops(unsigned long *ops, unsigned long *max_wait);
int tt_monitor(void *arg);
int tt_signaller(void *arg);
int tt_nth_online_cpu(int n);
int tt_hotplug(void *arg);

/* psem_torture_flip.c */
void tt_set_rule(enum tt_rule rule);
void tt_flip_knobs(void);
int tt_flipper(void *arg);

#endif /* _PSEM_TORTURE_H */
