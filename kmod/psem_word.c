// SPDX-License-Identifier: GPL-2.0
/*
 * The read-modify-writes of psem's word beyond the inlined fast paths: the
 * lock-free take and release of a credit, and, under the queue lock, the
 * take that marks PSEM_WAITERS, the addition to a balance nobody waits on,
 * and the capacity they are checked against. The locked ones race the
 * lock-free paths of psem_word.h, which is why each is a compare-exchange
 * loop.
 */

#include <linux/export.h>
#include <linux/minmax.h>
#include <linux/spinlock.h>

#include "psem_word.h"

/**
 * psem_capacity - the capacity of a psem
 * @sem: the semaphore
 *
 * A snapshot, like psem_available().
 *
 * Return: the capacity, or PSEM_MAX_PERMITS for a psem created without
 * one (psem_init(), DEFINE_PSEM(), psem_init_ext(), DEFINE_PSEM_EXT()).
 */
long psem_capacity(const struct psem *sem)
{
	/* Relaxed: PSEM_EXT never changes once the psem is shared. */
	return psem_word_capacity(sem, atomic_long_read(&sem->count));
}
EXPORT_SYMBOL_PSEM(psem_capacity);

/*
 * Takes between @min and @max permits lock-free, as many as there are, from
 * the balance of a clean word or the credit of a waiting one (I3): the
 * paths that must not miss a credit (a try, a drain) call it where the
 * inlined psem_take() failed. Never from a closed psem. Returns how many it
 * took, or 0 if fewer than @min were there.
 */
long psem_take_range(struct psem *sem, long min, long max)
{
	long cur = atomic_long_read(&sem->count);	/* relaxed: rechecked */
	long take, new;

	do {
		if (psem_word_closed(cur))
			return 0;
		take = min(psem_word_balance(cur), max);
		if (take < min || !take)
			return 0;
		new = cur & PSEM_WAITERS ?
		      psem_credit_settled(cur - take * PSEM_HIGH_ONE) :
		      cur - take * PSEM_ONE;
		/*
		 * ACQUIRE: as in psem_take(); a credit was left by a
		 * release RMW (psem_add_locked(), psem_release_credit()).
		 */
	} while (!atomic_long_try_cmpxchg_acquire(&sem->count, &cur, new));
	return take;
}

/*
 * A release of @n onto a word with a credit (I3), lock-free: adds to the
 * credit, within the capacity, and settles the word if it can
 * (psem_credit_settled()). Returns whether it landed; false sends the
 * release to the locked path, which hands it to a waiter or a debt, or
 * refuses it over the capacity.
 */
bool psem_release_credit(struct psem *sem, long n)
{
	/*
	 * ACQUIRE: orders the read of the limit after it, pairing with the
	 * smp_wmb() of a shrinking psem_resize() between its write of the
	 * limit and its change of the word: a credit shrunk by a resize is
	 * never checked against the capacity from before it. A growing one
	 * changes the word first, then the limit: a limit read as grown
	 * means the exchange below finds the grown word, or fails
	 * (model/litmus/MP+grow+creditrelease).
	 */
	long cur = atomic_long_read_acquire(&sem->count);

	for (;;) {
		long new = psem_credit_settled(cur + n * PSEM_HIGH_ONE);

		if (!psem_word_has_credit(cur) ||
		    n > psem_word_capacity(sem, cur) - psem_word_high(cur))
			return false;
		/*
		 * RELEASE: orders the caller's critical section before the
		 * credit, and the balance it may become; pairs with the
		 * ACQUIRE of a taker (psem_take_range(), psem_take_or_mark(),
		 * or psem_take() once settled). As a RELEASE it also orders
		 * the read of the limit before its write, which must then
		 * come after a growth's change of the word.
		 */
		if (atomic_long_try_cmpxchg_release(&sem->count, &cur, new))
			return true;
		/*
		 * The failed exchange read @cur and orders nothing: smp_rmb()
		 * orders that read before the next read of the limit, as the
		 * ACQUIRE above does for the first
		 * (model/litmus/MP+resize+retriedrelease).
		 */
		smp_rmb();
	}
}

/*
 * Under the queue lock, for a locked path that leaves the credit as it is
 * (a refusal): settles the word if it can, so that it does not stay
 * waiting for nobody when the add it waited for has been taken back.
 */
void psem_settle(struct psem *sem)
{
	long cur = atomic_long_read(&sem->count);	/* rechecked */

	lockdep_assert_held(&sem->lock);
	/* RELEASE: as in psem_release_credit(); the credit becomes balance. */
	while (psem_word_has_credit(cur) && psem_credit_settled(cur) != cur &&
	       !atomic_long_try_cmpxchg_release(&sem->count, &cur,
						psem_credit_settled(cur)))
		;
}

/*
 * Under the queue lock: takes up to @n permits, from the balance or the
 * credit, and if that is fewer than @n, leaves PSEM_WAITERS set with no
 * debt and no credit in the same exchange that drains what there was, so
 * that the caller may link a waiter or record a debt (I1, I2, I3).
 * Returns how many were taken.
 */
long psem_take_or_mark(struct psem *sem, long n)
{
	/* Relaxed: the exchange below rechecks it. */
	long cur = atomic_long_read(&sem->count);
	long take, new;

	lockdep_assert_held(&sem->lock);
	do {
		if ((cur & (PSEM_WAITERS | PSEM_CREDIT)) == PSEM_WAITERS)
			return 0;	/* I2: nothing to take, bit set */
		take = min(psem_word_balance(cur), n);
		if (cur & PSEM_WAITERS)		/* the credit (I3) */
			new = take == n ?
			      psem_credit_settled(cur - n * PSEM_HIGH_ONE) :
			      cur & ~(PSEM_HIGH | PSEM_CREDIT);
		else	/* PSEM_CONTENDED is clear under the lock (psem.h). */
			new = take == n ? cur - n * PSEM_ONE :
			      (long)((cur & PSEM_BIAS) + PSEM_BIAS + PSEM_WAITERS);
		/*
		 * ACQUIRE: as in psem_take(). A lock-free release racing
		 * this changes the word and makes the exchange fail; the
		 * retry then takes what it added. An add in flight only
		 * changes the field, which this keeps.
		 */
	} while (!atomic_long_try_cmpxchg_acquire(&sem->count, &cur, new));
	return take;
}

/*
 * Adds @n to a balance that nobody waits on (PSEM_WAITERS clear in @cur).
 * Under the queue lock no waiter can link meanwhile, but lock-free releases
 * and tries can still change the word.
 */
int psem_add_balance(struct psem *sem, long cur, long n, unsigned long ip)
{
	long cap = psem_word_capacity(sem, cur), new;
	bool tripped = false;

	for (;;) {
		if (n > cap - psem_word_balance(cur)) {
			if (tripped)	/* relaxed: a hint, see below */
				atomic_long_andnot(PSEM_CONTENDED, &sem->count);
			psem_refuse_ip(ip, "release of %ld overflows balance %ld (capacity %ld)\n",
				       n, psem_word_balance(cur), cap);
			return -EOVERFLOW;
		}
		/*
		 * RELEASE: pairs with the ACQUIRE in psem_take() of a later
		 * acquirer, ordering this caller's critical section before
		 * it. The same exchange clears the flag that only this
		 * critical section can have set.
		 */
		new = (cur + n * PSEM_ONE) & ~PSEM_CONTENDED;
		if (atomic_long_try_cmpxchg_release(&sem->count, &cur, new))
			return 0;
		/*
		 * Lost a race to a lock-free release (or a try). Send other
		 * releases to the lock until this addition lands. The flag
		 * is a hint, not a synchronisation: a relaxed RMW, which
		 * also refreshes @cur.
		 */
		if (!tripped && static_branch_likely(&psem_contention_flag_key)) {
			cur = atomic_long_fetch_or_relaxed(PSEM_CONTENDED,
							   &sem->count);
			cur |= PSEM_CONTENDED;
			tripped = true;
			psem_stat(PSEM_STAT_FLAG_TRIP);
		}
	}
}

