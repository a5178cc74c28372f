/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem's atomic word: the lock-free takes and releases, inlined into every
 * caller, and the two read-modify-writes of the locked paths
 * (psem_word.c). Everything above this layer changes the word only
 * through these.
 */
#ifndef _PSEM_WORD_H
#define _PSEM_WORD_H

#include <linux/overflow.h>

#include "psem_internal.h"

/*
 * The lock-free fast paths, inlined into psem_core.c, psem_async.c and the
 * primitives (the rwlock and the mutex), so that their hot paths pay no
 * call into the exported functions. They rest on I1, I2 and I3 (at
 * PSEM_BIAS in psem.h), and each fails its first test on a negative word:
 * waiting, closed, or a psem_ext's. The release that adds first is in
 * psem_queue.h, above the locked path it falls back to.
 */

/* Lock-free: takes @n permits if the balance holds them. */
static __always_inline bool psem_take(struct psem *sem, long n)
{
	long cur, want = n * PSEM_ONE;

	/*
	 * No test for n == 0 on the way to the exchange: it exchanges the
	 * word with itself, changing nothing. A negative word fails it like
	 * any take, and then only a closed one refuses it: a debt is no
	 * reason to fail a take of nothing.
	 */
	cur = atomic_long_read(&sem->count);	/* relaxed: rechecked */
	for (;;) {
		/*
		 * With PSEM_WAITERS set the word is negative (PSEM_BIAS),
		 * under any want, whatever an add put in the field: a try
		 * never overtakes a waiter. A closed word is negative. A
		 * credit is taken by psem_take_range(), out of line, where
		 * a try needs it. PSEM_CONTENDED rides along in the low bits.
		 */
		if (cur < want)
			return unlikely(!n) && !psem_word_closed(cur);
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

/* Counts, and traces, a lock-free release's exchange: @landed or lost. */
static __always_inline bool psem_account_fast_release(struct psem *sem,
						      long n, bool landed)
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
 * A clean word's balance is at most PSEM_MAX_PERMITS * PSEM_ONE, below
 * PSEM_OVER; a sum of it and a count in range is below 2 * PSEM_OVER, so
 * this one bit (a bt) says whether the sum is over the limit.
 */
#define PSEM_OVER		((PSEM_MAX_PERMITS + 1) * PSEM_ONE)

/*
 * What the word after an add (psem_release_add()) must not show for the add
 * to be a release as it stands: PSEM_WAITERS (the add is in the field),
 * PSEM_BIAS (closed), or a balance over PSEM_MAX_PERMITS. PSEM_CONTENDED,
 * a hint for the positive-balance rule, does not matter to an add.
 */
#define PSEM_ADD_FAIL		((long)(~(PSEM_OVER - 1) | PSEM_WAITERS))

/*
 * The exchange of a lock-free release of @n: from @cur, a clean word the
 * release rule let through, to @sum, unless @sum is over PSEM_MAX_PERMITS:
 * the locked path refuses that.
 */
static __always_inline bool psem_release_exchange(struct psem *sem, long cur,
						  unsigned long sum, long n)
{
	if (unlikely(sum & PSEM_OVER))
		return false;
	/*
	 * RELEASE: orders the caller's critical section before the new
	 * count; pairs with the ACQUIRE in psem_take() and in the locked
	 * drain. Succeeds only if the word is still @cur, so only while
	 * PSEM_WAITERS is clear: a waiter that sets it first makes this
	 * fail, and one that sets it later reads what this added.
	 */
	return psem_account_fast_release(sem, n,
				atomic_long_try_cmpxchg_release(&sem->count, &cur,
								(long)sum));
}

/*
 * The rest of a waiters-bit release of @n whose exchange lost to another
 * lock-free call: @cur is the word that exchange returned. Retries the
 * exchange on the word each failure returns, for as long as that word is
 * still clean and the sum fits, so that a release loses no race to another
 * lock-free call; it goes to the lock for a waiter, a debt, a credit, a
 * close, the contention flag or an overflow, which the locked path
 * handles. Lock-free: each failure means another CPU's RMW of the word
 * succeeded. Returns whether the permits were added.
 */
static __always_inline bool psem_release_retry(struct psem *sem, long cur,
					       long n)
{
	/*
	 * So that the compiler does not share n * PSEM_ONE with the first
	 * exchange's sum, which it would compute apart for that (an lea
	 * becomes three instructions on the path that lands).
	 */
	OPTIMIZER_HIDE_VAR(n);
	do {
		unsigned long sum = (unsigned long)cur +
				    (unsigned long)n * PSEM_ONE;
		bool landed;

		psem_stat(PSEM_STAT_FAST_CAS_FAIL);
		if ((cur & (PSEM_FLAGS | PSEM_BLOCKED)) || (sum & PSEM_OVER))
			break;
		/*
		 * RELEASE: as in psem_release_exchange(); a failed attempt
		 * writes nothing and orders nothing. The attempt that lands
		 * is the release's one write to the word, and a release
		 * RMW, so a taker that reads it is ordered after this
		 * release and after the ones whose writes it read
		 * (model/litmus/RS+release+retriedrelease+take).
		 */
		landed = atomic_long_try_cmpxchg_release(&sem->count, &cur,
							 (long)sum);
		if (landed)
			return psem_account_fast_release(sem, n, true);
	} while (true);
	/* Sent to the lock by the flag: counted as psem_release_fast() does. */
	if ((cur & PSEM_FLAGS) == PSEM_CONTENDED)
		psem_stat(PSEM_STAT_FLAG_HONOURED);
	return false;
}

/*
 * The waiters-bit rule's release onto @cur, a clean word: the seed's one
 * exchange, and, if another lock-free call changed the word first,
 * psem_release_retry() from the word the exchange returned.
 */
static __always_inline bool psem_release_clean(struct psem *sem, long cur,
					       long n)
{
	unsigned long sum = (unsigned long)cur + (unsigned long)n * PSEM_ONE;

	if (unlikely(sum & PSEM_OVER))
		return false;
	/* RELEASE: as in psem_release_exchange(). */
	if (likely(atomic_long_try_cmpxchg_release(&sem->count, &cur,
						   (long)sum)))
		return psem_account_fast_release(sem, n, true);
	return psem_release_retry(sem, cur, n);
}

/*
 * Counts a release that the flag sent to the lock, found in @cur. The test
 * only while statistics are on: this is every locked release's way in.
 * Not PSEM_CREDIT, the same bit with PSEM_WAITERS.
 */
static __always_inline void psem_count_honoured(long cur)
{
	if (static_branch_unlikely(&psem_stats_key) &&
	    (cur & PSEM_FLAGS) == PSEM_CONTENDED)
		psem_stat(PSEM_STAT_FLAG_HONOURED);
}

/*
 * The positive-balance rule's release, or the always-locked one's: the
 * seed's one strong compare-exchange onto a positive word without the
 * flag, tried once: a failure goes to the locked path, which retries once
 * serialised. A psem_ext's word is never positive.
 */
static __always_inline bool psem_release_seed(struct psem *sem, long n)
{
	long cur;

	if (!static_branch_likely(&psem_fast_release_key))
		return false;
	cur = atomic_long_read(&sem->count);	/* relaxed: rechecked */
	if (cur >= PSEM_ONE && !(cur & PSEM_CONTENDED))
		return psem_release_exchange(sem, cur,
				(unsigned long)cur + (unsigned long)n * PSEM_ONE,
				n);
	psem_count_honoured(cur);
	return false;
}

/*
 * The read-first release: under the waiters-bit rule for a count above
 * PSEM_ADD_MAX, the exchange of psem_release_clean(), retried while the
 * word stays clean; under the others, psem_release_seed(). A psem_ext's
 * word is never clean: its releases take the locked path here.
 */
static __always_inline bool psem_release_fast(struct psem *sem, long n)
{
	long cur;

	if (!static_branch_likely(&psem_waiters_bit_rule_key))
		return psem_release_seed(sem, n);
	/*
	 * Nobody waits, the flag is clear, not closed, no debt, no credit;
	 * any balance. Relaxed: the exchange rechecks it.
	 */
	cur = atomic_long_read(&sem->count);
	if (likely(!(cur & (PSEM_FLAGS | PSEM_BLOCKED))))
		return psem_release_clean(sem, cur, n);
	psem_count_honoured(cur);
	return false;
}

/*
 * Returns the @n permits of a holder that took the whole balance (a mutex
 * owner, a rwlock writer): the word is then zero unless somebody waits or
 * owes, so one compare-exchange from zero, which fails whenever a flag is
 * set. Lock-free under the waiters-bit rule only: under the other two it
 * returns false. The caller falls back to the locked path.
 */
static __always_inline bool psem_release_all_fast(struct psem *sem, long n)
{
	long cur = 0;

	if (!static_branch_likely(&psem_waiters_bit_rule_key))
		return false;
	/* RELEASE: as in psem_release_fast(). */
	return psem_account_fast_release(sem, n,
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

/*
 * The capacity of @sem, whose word was read as @cur: PSEM_MAX_PERMITS
 * without PSEM_EXT, else its psem_ext's limit (a snapshot without
 * the queue lock, under which psem_resize() writes it).
 */
static __always_inline long psem_word_capacity(const struct psem *sem, long cur)
{
	if (likely(!(cur & PSEM_EXT)))
		return PSEM_MAX_PERMITS;
	return psem_ext_limit(sem) >> PSEM_SHIFT;
}

/*
 * The permits a take could have in a word, closed or not: the balance of a
 * clean word, the credit of a waiting one (I3), else zero (I2).
 */
static inline long psem_word_balance(long cur)
{
	if (!(cur & PSEM_WAITERS))
		return (cur & PSEM_NUM) >> PSEM_SHIFT;
	return psem_word_has_credit(cur) ? psem_word_high(cur) : 0;
}

/*
 * The word that @cur, with PSEM_WAITERS and PSEM_CREDIT, becomes: itself,
 * or, on a psem without PSEM_EXT whose field is empty, the clean word with
 * the credit as its balance and the closed state kept (PSEM_BIAS taken
 * once). Where nothing is in flight, a credit need not stay one (I1, I3).
 */
static inline long psem_credit_settled(long cur)
{
	if (cur & (PSEM_FIELD | PSEM_EXT))
		return cur;
	return (long)(((unsigned long)cur - PSEM_BIAS) & PSEM_BIAS) +
	       psem_word_high(cur) * PSEM_ONE;
}

/* The operations on the word beyond the inlined fast paths (psem_word.c). */
long psem_take_range(struct psem *sem, long min, long max);
bool psem_release_credit(struct psem *sem, long n);
void psem_settle(struct psem *sem);
long psem_take_or_mark(struct psem *sem, long n);
int psem_add_balance(struct psem *sem, long cur, long n, unsigned long ip);

#endif /* _PSEM_WORD_H */
