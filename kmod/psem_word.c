// SPDX-License-Identifier: GPL-2.0
/*
 * The read-modify-writes of psem's word that the locked paths share: the
 * take that marks PSEM_WAITERS, the addition to a balance nobody waits on,
 * and the capacity they are checked against. Under the queue lock, but
 * racing the lock-free paths of psem_word.h, which is why each is a
 * compare-exchange loop.
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
 * Under the queue lock: takes up to @n permits, and if that is fewer than
 * @n, sets PSEM_WAITERS in the same exchange that drains the balance to
 * zero, with no debt yet, so that the caller may link a waiter or record
 * a debt (I1, I2).
 * Returns how many were taken.
 */
long psem_take_or_mark(struct psem *sem, long n)
{
	/* Relaxed: the exchange below rechecks it. */
	long cur = atomic_long_read(&sem->count);
	long take, new;

	lockdep_assert_held(&sem->lock);
	do {
		if (cur & PSEM_WAITERS)
			return 0;	/* I2: nothing to take, bit set */
		take = min(psem_word_balance(cur), n);
		/* PSEM_CONTENDED is clear under the lock (psem.h). */
		new = take == n ? cur - n * PSEM_ONE :
				  (cur & (PSEM_BLOCKED | PSEM_EXT)) | PSEM_WAITERS;
		/*
		 * ACQUIRE: as in psem_take(). A lock-free release racing
		 * this changes the word and makes the exchange fail; the
		 * retry then takes what it added.
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

