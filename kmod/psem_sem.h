/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem_sem.h - psem as a drop-in for struct semaphore.
 *
 * The calls of <linux/semaphore.h> that have no one-line psem equivalent:
 * a void down() and an "is it held" query for a binary semaphore. The rest
 * map directly (Documentation/api.rst, "Porting from struct semaphore"):
 *
 *	sema_init(s, n)			psem_init(s, n)
 *	down(s)				psem_down(s)
 *	down_interruptible(s)		psem_acquire_interruptible(s, 1)
 *	down_killable(s)		psem_acquire_killable(s, 1)
 *	down_timeout(s, j)		psem_acquire_timeout(s, 1, j)
 *	down_trylock(s) == 0		psem_try_acquire(s, 1)
 *	up(s)				psem_up(s)
 *	s->count <= 0			psem_is_held(s)
 */
#ifndef _PSEM_SEM_H
#define _PSEM_SEM_H

#include "psem.h"

void psem_down(struct psem *sem);

/**
 * psem_up - return one permit, as up()
 * @sem: the semaphore
 *
 * psem_release(@sem, 1): lock-free while nobody waits, otherwise hands the
 * permit to the oldest waiter. Any context, hard IRQ and NMI included, on
 * every kernel (PREEMPT_RT too): where the queue lock may not be taken,
 * the permit is parked and handed over by an irq_work (psem_sync()).
 *
 * The only failure is -EOVERFLOW, a release that would raise the balance
 * above PSEM_MAX_PERMITS or a capped psem's capacity: an unbalanced up().
 * psem_release() has then warned and changed nothing, so there is nothing
 * left to report and, like up(), this returns nothing.
 */
static inline void psem_up(struct psem *sem)
{
	int ret = psem_release(sem, 1);

	/* psem_release() warned about a refusal and changed nothing. */
	(void)ret;
}

/**
 * psem_is_held - whether no permit is available: a binary psem is held
 * @sem: the semaphore
 *
 * For a psem used as a binary semaphore (one permit, taken and returned
 * by psem_down()/psem_try_acquire() and psem_up()): true while the permit
 * is out, as the ``count <= 0`` test some users of struct semaphore make,
 * e.g. XFS's xfs_buf_islocked(). Exact while waiters are queued: a
 * queued waiter keeps the balance at zero until it is served, so the
 * psem reads held, and a release that serves a waiter hands the permit
 * over without the balance ever leaving zero. A permit that a psem_up()
 * from NMI or a hard-only IRQ parked for its hand-off is still on its way:
 * until the hand-off has run, the psem reads held, psem_available() does
 * not count it and psem_try_acquire() cannot take it.
 *
 * A snapshot, like psem_available(): it proves the psem is held only to a
 * caller that holds it (the use of assertions) and that it is free only
 * if nobody could have taken it since.
 *
 * Return: true if psem_available() is zero.
 */
static inline bool psem_is_held(const struct psem *sem)
{
	return psem_available(sem) == 0;
}

#endif /* _PSEM_SEM_H */
