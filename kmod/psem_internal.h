/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What psem's own objects share: the static keys behind the debugfs
 * switches, the per-CPU counters and the refusal helper.
 */
#ifndef _PSEM_INTERNAL_H
#define _PSEM_INTERNAL_H

#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/jump_label.h>
#include <linux/overflow.h>
#include <linux/percpu.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_trace.h"

DECLARE_STATIC_KEY_TRUE(psem_fast_release_key);
DECLARE_STATIC_KEY_TRUE(psem_contention_flag_key);
DECLARE_STATIC_KEY_FALSE(psem_stats_key);

struct psem_cpu_stats {
	u64 count[PSEM_NR_STATS];
};

DECLARE_PER_CPU(struct psem_cpu_stats, psem_cpu_stats);

/* Counts @s on this CPU; a patched-out jump while statistics are off. */
static __always_inline void psem_stat(enum psem_stat s)
{
	if (static_branch_unlikely(&psem_stats_key))
		this_cpu_inc(psem_cpu_stats.count[s]);
}

extern atomic64_t psem_refusals;
extern bool psem_quiet_warnings;

/*
 * psem_refuse - count a refused call and warn once per call site, unless a
 * test asked for quiet refusals. Evaluates to true so that callers can write
 * "if (bad && psem_refuse(...)) return -EINVAL;".
 */
#define psem_refuse(fmt, ...)						\
({									\
	atomic64_inc(&psem_refusals);	/* a counter: unordered */	\
	if (!READ_ONCE(psem_quiet_warnings))				\
		WARN_ONCE(1, "psem: " fmt, ##__VA_ARGS__);		\
	true;								\
})

/*
 * The lock-free fast paths, inlined into psem_core.c and into the
 * primitives whose hot paths take or return one permit (the rwlock's read
 * side), so that those pay no call into the exported functions.
 */

/* Lock-free: takes @n permits if the balance holds them. */
static __always_inline bool psem_take(struct psem *sem, long n)
{
	long cur;

	if (unlikely(!n))
		return true;	/* no write: zero permits change nothing */
	cur = atomic_long_read(&sem->balance);	/* relaxed: rechecked */
	do {
		if (cur < n)
			return false;
		/*
		 * ACQUIRE: orders the caller's critical section after the
		 * release (fast cmpxchg_release or locked fetch_add_release)
		 * that wrote the balance read here, and after every release
		 * in the chain of RMWs before it.
		 */
	} while (!atomic_long_try_cmpxchg_acquire(&sem->balance, &cur, cur - n));
	return true;
}

/*
 * The fast path: one strong compare-exchange on a positive balance. No retry
 * loop: a failure means another CPU is writing the word, and retrying here
 * only adds to that traffic; the locked path retries once serialised.
 */
static __always_inline bool psem_release_fast(struct psem *sem, long n)
{
	long cur, new;

	if (!static_branch_likely(&psem_fast_release_key))
		return false;
	/* Relaxed: the exchange below rechecks the value it acts on. */
	cur = atomic_long_read(&sem->balance);
	if (cur <= 0 || check_add_overflow(cur, n, &new))
		return false;	/* PSEM_MAX_PERMITS is LONG_MAX */
	/* Relaxed: a hint set and cleared by psem_add_balance(). */
	if (static_branch_likely(&psem_contention_flag_key) &&
	    READ_ONCE(sem->contended)) {
		psem_stat(PSEM_STAT_FLAG_HONOURED);
		return false;
	}
	/*
	 * RELEASE: orders the caller's critical section before the new
	 * balance; pairs with the ACQUIRE in psem_take(). Succeeds only if
	 * the balance is still positive, hence only while no waiter is linked.
	 */
	if (atomic_long_try_cmpxchg_release(&sem->balance, &cur, new)) {
		psem_stat(PSEM_STAT_FAST_RELEASE);
		if (trace_psem_release_enabled())
			trace_psem_release(sem, n, true);
		return true;
	}
	psem_stat(PSEM_STAT_FAST_CAS_FAIL);
	return false;
}

/* The slow paths, shared by psem_core.c and the primitives. */
int psem_release_locked(struct psem *sem, long n);
int psem_acquire_slow(struct psem *sem, long n, unsigned int state,
		      long timeout);

int psem_debugfs_init(void);
void psem_debugfs_exit(void);

#endif /* _PSEM_INTERNAL_H */
