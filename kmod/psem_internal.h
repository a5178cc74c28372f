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
DECLARE_STATIC_KEY_TRUE(psem_zero_release_key);
/* On exactly when both of the above are: psem's own rule, the default. */
DECLARE_STATIC_KEY_TRUE(psem_rule_key);
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
extern atomic64_t psem_warn_sites;
extern bool psem_quiet_warnings;

bool psem_first_refusal(unsigned long ip);

/*
 * psem_refuse_ip - count a refused call and warn once per caller @ip (the
 * return address of the psem entry point that refused it), unless a test
 * asked for quiet refusals. Evaluates to true so that callers can write
 * "if (bad && psem_refuse(...)) return -EINVAL;".
 */
#define psem_refuse_ip(ip, fmt, ...)					\
({									\
	atomic64_inc(&psem_refusals);	/* a counter: unordered */	\
	if (psem_first_refusal(ip) && !READ_ONCE(psem_quiet_warnings))	\
		WARN(1, "psem: " fmt, ##__VA_ARGS__);			\
	true;								\
})

/* From an exported function: its caller is the consumer. */
#define psem_refuse(fmt, ...) psem_refuse_ip(_RET_IP_, fmt, ##__VA_ARGS__)

/*
 * The lock-free fast paths, inlined into psem_core.c and into the
 * primitives (the rwlock and the mutex), so that their hot paths pay no
 * call into the exported functions.
 *
 * The invariant they rely on (Documentation/design.rst, "The invariant"):
 *
 *   I1: PSEM_WAITERS clear => no waiter is linked and no debt is owed;
 *   I2: PSEM_WAITERS set   => the word is PSEM_WAITERS, or'ed with
 *                             PSEM_CLOSED if the psem is closed.
 *
 * A closed word is negative, so each lock-free path below fails its first
 * test on it at no cost: a take needs cur >= n * PSEM_ONE, a release
 * needs an unsigned sum within @limit, the full-word paths compare exactly.
 *
 * The bit is set only under the queue lock, by the compare-exchange that
 * drains the balance to zero before a waiter links or a debt is recorded,
 * and cleared only under the lock, by the read-modify-write that adds what
 * is left once the last waiter is served or gone and no debt remains.
 */

/* Lock-free: takes @n permits if the balance holds them. */
static __always_inline bool psem_take(struct psem *sem, long n)
{
	long cur, want = n * PSEM_ONE;

	/*
	 * No test for n == 0: it exchanges the word with itself, changing
	 * nothing, and fails on a closed (negative) word like any take.
	 */
	cur = atomic_long_read(&sem->count);	/* relaxed: rechecked */
	for (;;) {
		/*
		 * With PSEM_WAITERS set the word is PSEM_WAITERS, below any
		 * want: a try never overtakes a waiter. A closed word is
		 * negative. PSEM_CONTENDED rides along in the low bits.
		 */
		if (cur < want)
			return false;
		/*
		 * ACQUIRE: orders the caller's critical section after the
		 * release (a fast cmpxchg_release, or a locked RMW _release)
		 * that wrote the value read here, and after every release
		 * in the chain of RMWs before it (LKMM rmw-sequences, v6.3+;
		 * see Documentation/design.rst).
		 */
		if (atomic_long_try_cmpxchg_acquire(&sem->count, &cur, cur - want))
			return true;
	}
}

/* Counts and traces a lock-free release's exchange, which @landed or not. */
static __always_inline bool psem_fast_landed(struct psem *sem, long n,
					     bool landed)
{
	if (likely(landed)) {
		psem_stat(PSEM_STAT_FAST_RELEASE);
		if (trace_psem_release_enabled())
			trace_psem_release(sem, n, true);
		return true;
	}
	psem_stat(PSEM_STAT_FAST_CAS_FAIL);
	return false;
}

/*
 * The fast path: one strong compare-exchange while nobody waits. No retry
 * loop: a failure means another CPU is writing the word, and retrying here
 * only adds to that traffic; the locked path retries once serialised.
 */
static __always_inline bool psem_release_fast(struct psem *sem, long n)
{
	long cur;

	/*
	 * ACQUIRE (a plain load on x86): orders the read of @limit after
	 * it, so that a word written after a shrinking psem_resize() is
	 * never checked against the larger capacity before it; pairs with
	 * the RELEASE RMW with which the resize changed the word. Anything
	 * else is rechecked by the exchange.
	 */
	if (static_branch_likely(&psem_rule_key)) {
		/* psem's rule: nobody waits, the flag is clear; any balance. */
		cur = atomic_long_read_acquire(&sem->count);
		if (unlikely(cur & PSEM_FLAGS))
			goto slow;
	} else {
		/* The seed's rule (a positive balance), or always locked. */
		if (!static_branch_likely(&psem_fast_release_key))
			return false;
		cur = atomic_long_read_acquire(&sem->count);
		if (cur < PSEM_ONE || (cur & PSEM_CONTENDED))
			goto slow;
	}
	/*
	 * Over the capacity (or closed: a negative word is a huge unsigned
	 * one): the locked path refuses or handles it. Both terms are at
	 * most LONG_MAX, so the unsigned sum cannot wrap. The read of
	 * @limit is ordered after the ACQUIRE load of the word above,
	 * pairing with the smp_wmb() in psem_resize().
	 */
	if (unlikely((unsigned long)cur + n * PSEM_ONE > READ_ONCE(sem->limit)))
		return false;
	/*
	 * RELEASE: orders the caller's critical section before the new
	 * count; pairs with the ACQUIRE in psem_take() and in the locked
	 * drain. Succeeds only if the word is still @cur, so only while
	 * PSEM_WAITERS is clear: a waiter that sets it first makes this
	 * fail, and one that sets it later reads what this added.
	 */
	return psem_fast_landed(sem, n,
				atomic_long_try_cmpxchg_release(&sem->count, &cur,
								cur + n * PSEM_ONE));
slow:
	if (cur & PSEM_CONTENDED)
		psem_stat(PSEM_STAT_FLAG_HONOURED);
	return false;
}

/*
 * Returns the @n permits of a holder that took the whole balance (a mutex
 * owner, a rwlock writer): the word is then zero unless somebody waits or
 * owes, so one compare-exchange from zero, which fails whenever a flag is
 * set. Under the seed's rule (zero_release off) this is never lock-free, as
 * in the seed. The caller falls back to the locked path.
 */
static __always_inline bool psem_release_all_fast(struct psem *sem, long n)
{
	long cur = 0;

	if (!static_branch_likely(&psem_rule_key))
		return false;
	/* RELEASE: as in psem_release_fast(). */
	return psem_fast_landed(sem, n,
				atomic_long_try_cmpxchg_release(&sem->count, &cur,
								n * PSEM_ONE));
}

/*
 * Takes every one of the @n permits of a psem that holds at most @n (a
 * mutex, a rwlock taken for writing): one compare-exchange from a full,
 * flag-free word to zero.
 */
static __always_inline bool psem_take_all_fast(struct psem *sem, long n)
{
	long cur = n * PSEM_ONE;

	/* ACQUIRE: as in psem_take(). */
	return atomic_long_try_cmpxchg_acquire(&sem->count, &cur, 0);
}

/* The balance in a word, whatever its flags and closed state. */
static inline long psem_word_balance(long cur)
{
	return (cur & LONG_MAX) >> PSEM_SHIFT;
}

/* The slow paths, shared by psem_core.c and the primitives. */
int psem_add_balance(struct psem *sem, long cur, long n, unsigned long ip);
int __psem_release_locked(struct psem *sem, long n, unsigned long ip);
#define psem_release_locked(sem, n) __psem_release_locked(sem, n, _RET_IP_)
int psem_acquire_slow(struct psem *sem, long n, unsigned int state,
		      long timeout);

/* ---- the waiter queue (psem_queue.c), all under the queue lock ---- */

int psem_add_locked(struct psem *sem, long n, struct list_head *wake,
		    unsigned long ip);
long psem_take_or_mark(struct psem *sem, long n);
void psem_wake_served(struct list_head *wake);
int psem_wait_queued(struct psem *sem, struct psem_waiter *w, long n,
		     enum psem_wait_kind kind, unsigned int state,
		     long timeout) __releases(&sem->wq.lock);
void psem_link(struct psem *sem, struct psem_waiter *w, long n,
	       enum psem_wait_kind kind, struct task_struct *task);
bool psem_cancel(struct psem *sem, struct psem_waiter *w);
int psem_refuse_wait(struct psem *sem, long n);
long psem_fail_waiter(struct psem *sem, struct psem_waiter *w, int result,
		      struct list_head *wake);

int psem_debugfs_init(void);
void psem_debugfs_exit(void);
struct dentry;
void psem_views_init(struct dentry *parent);
void psem_views_exit(void);

#endif /* _PSEM_INTERNAL_H */
