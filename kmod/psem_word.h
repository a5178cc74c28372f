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
 * call into the exported functions. They rest on I1 and I2 (at
 * PSEM_WAITERS in psem.h), and each fails its first test on a blocked
 * (negative) word.
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
		 * With PSEM_WAITERS set the word is negative (a debt) or
		 * below PSEM_ONE, under any want: a try never overtakes a
		 * waiter. A closed word is negative. PSEM_CONTENDED rides
		 * along in the low bits.
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
 * The exchange of a lock-free release of @n: from @cur, a word the release
 * rule let through, to @sum, unless @sum is over the capacity (@over): the
 * locked path refuses that.
 */
static __always_inline bool psem_release_exchange(struct psem *sem, long cur,
						  unsigned long sum, long n,
						  bool over)
{
	if (unlikely(over))
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
 * A release onto @cur, a word the rule let through with PSEM_EXT set:
 * the sum within the psem_ext's limit. The limit is read after the
 * ACQUIRE load of @cur, pairing with the smp_wmb() in psem_resize() between
 * its write of the limit and its change of the word: a word shrunk by a
 * resize is never checked against the capacity from before it. @cur is
 * non-negative and PSEM_EXT is below PSEM_ONE, so the comparison is
 * that of the balances.
 */
static __always_inline bool psem_release_capped(struct psem *sem, long cur,
						long n)
{
	unsigned long sum = (unsigned long)cur + (unsigned long)n * PSEM_ONE;

	return psem_release_exchange(sem, cur, sum, n,
				     sum > (psem_ext_limit(sem) | PSEM_EXT));
}

/*
 * A release onto @cur, a word the rule let through without PSEM_EXT: a
 * non-negative multiple of PSEM_ONE, whose limit is PSEM_MAX_PERMITS. Both
 * terms of the sum are at most LONG_MAX, so the unsigned sum cannot wrap,
 * and one above PSEM_MAX_PERMITS * PSEM_ONE is at least 2^63: a sign test,
 * with no load.
 */
static __always_inline bool psem_release_uncapped(struct psem *sem, long cur,
						  long n)
{
	unsigned long sum = (unsigned long)cur + (unsigned long)n * PSEM_ONE;

	return psem_release_exchange(sem, cur, sum, n, (long)sum < 0);
}

/*
 * The rest of a waiters-bit release of @n whose exchange lost to another
 * lock-free release or take: @cur is the word that exchange returned.
 * Retries the exchange on the word each failure returns, for as long as
 * that word still passes the rule's test and the sum fits, so that a
 * release loses no race to another lock-free call; it goes to the lock
 * only for a waiter, a debt, a close, the contention flag or an overflow,
 * which the locked path handles. Lock-free: each failure means another
 * CPU's RMW of the word succeeded. No ACQUIRE is needed for the words a
 * failure returns: without PSEM_EXT no limit is read after them. Returns
 * whether the permits were added.
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
		if ((cur & (PSEM_FLAGS | PSEM_EXT | PSEM_BLOCKED)) ||
		    (long)sum < 0)	/* as in psem_release_uncapped() */
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
 * The waiters-bit rule's release onto @cur, a word without a psem_ext that
 * the rule let through: the seed's one exchange, and, if another lock-free
 * call changed the word first, psem_release_retry() from the word the
 * exchange returned.
 */
static __always_inline bool psem_release_clean(struct psem *sem, long cur,
					       long n)
{
	unsigned long sum = (unsigned long)cur + (unsigned long)n * PSEM_ONE;

	/* A sign test, as in psem_release_uncapped(). */
	if (unlikely((long)sum < 0))
		return false;
	/* RELEASE: as in psem_release_exchange(). */
	if (likely(atomic_long_try_cmpxchg_release(&sem->count, &cur,
						   (long)sum)))
		return psem_account_fast_release(sem, n, true);
	return psem_release_retry(sem, cur, n);
}

/*
 * The waiters-bit rule's release onto @cur, a word with PSEM_EXT that the
 * rule let through: psem_release_capped()'s exchange, retried as
 * psem_release_retry() retries, with the limit read again for each word a
 * failure returns. Returns whether the permits were added; false sends
 * the release to the locked path, which refuses one over the capacity.
 */
static __always_inline bool psem_release_capped_clean(struct psem *sem,
						      long cur, long n)
{
	for (;;) {
		unsigned long sum = (unsigned long)cur +
				    (unsigned long)n * PSEM_ONE;

		/* The limit, as in psem_release_capped(). */
		if (sum > (psem_ext_limit(sem) | PSEM_EXT))
			return false;
		/* RELEASE: as in psem_release_exchange() and the retry. */
		if (likely(atomic_long_try_cmpxchg_release(&sem->count, &cur,
							   (long)sum)))
			return psem_account_fast_release(sem, n, true);
		psem_stat(PSEM_STAT_FAST_CAS_FAIL);
		if (cur & (PSEM_FLAGS | PSEM_BLOCKED))
			break;
		/*
		 * The failed exchange read @cur and orders nothing: smp_rmb()
		 * orders that read before the next read of the limit, pairing
		 * with the smp_wmb() in psem_resize() as the ACQUIRE load in
		 * psem_release_fast() does for the first word, so that a word
		 * shrunk by a resize is never checked against the capacity
		 * from before it (model/litmus/MP+resize+retriedrelease).
		 */
		smp_rmb();
	}
	/* Sent to the lock by the flag: counted as psem_release_fast() does. */
	if ((cur & PSEM_FLAGS) == PSEM_CONTENDED)
		psem_stat(PSEM_STAT_FLAG_HONOURED);
	return false;
}

/*
 * The fast path while nobody waits: under the waiters-bit rule, the
 * exchange of psem_release_clean() (psem_release_capped_clean() on a
 * psem with PSEM_EXT), retried while the word stays clean;
 * under the positive-balance rule, the seed's one strong compare-exchange,
 * tried once: a failure goes to the locked path, which retries once
 * serialised.
 */
static __always_inline bool psem_release_fast(struct psem *sem, long n)
{
	long cur;

	if (static_branch_likely(&psem_waiters_bit_rule_key)) {
		/*
		 * The waiters-bit rule: nobody waits, the flag is clear, not
		 * closed, no debt; any balance. One test of the bits
		 * (PSEM_EXT among them, for the uncapped psem's shorter
		 * path).
		 * ACQUIRE (a plain load on x86): orders the read of a
		 * capacity after it (psem_release_capped_clean()). Anything
		 * else is rechecked by the exchange.
		 */
		cur = atomic_long_read_acquire(&sem->count);
		if (likely(!(cur & (PSEM_FLAGS | PSEM_EXT | PSEM_BLOCKED))))
			return psem_release_clean(sem, cur, n);
		if (!(cur & (PSEM_FLAGS | PSEM_BLOCKED)))
			return psem_release_capped_clean(sem, cur, n);
	} else {
		/* The positive-balance rule, or the always-locked one. */
		if (!static_branch_likely(&psem_fast_release_key))
			return false;
		cur = atomic_long_read_acquire(&sem->count);	/* as above */
		if (cur >= PSEM_ONE && !(cur & (PSEM_CONTENDED | PSEM_EXT)))
			return psem_release_uncapped(sem, cur, n);
		if (cur >= PSEM_ONE && !(cur & PSEM_CONTENDED))
			return psem_release_capped(sem, cur, n);
	}
	/*
	 * Not PSEM_DEBT_CLOSED, the same bit with PSEM_WAITERS. The
	 * test only while statistics are on: this is every locked release's
	 * way in.
	 */
	if (static_branch_unlikely(&psem_stats_key) &&
	    (cur & PSEM_FLAGS) == PSEM_CONTENDED)
		psem_stat(PSEM_STAT_FLAG_HONOURED);
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
 * The balance in a word, closed or not; zero while PSEM_WAITERS is set
 * (I2), when the bits above PSEM_ONE hold the debt.
 */
static inline long psem_word_balance(long cur)
{
	return cur & PSEM_WAITERS ? 0 : (cur & LONG_MAX) >> PSEM_SHIFT;
}

/* The locked paths' operations on the word (psem_word.c). */
long psem_take_or_mark(struct psem *sem, long n);
int psem_add_balance(struct psem *sem, long cur, long n, unsigned long ip);

#endif /* _PSEM_WORD_H */
