// SPDX-License-Identifier: GPL-2.0
/*
 * psem_sem.c - psem as a drop-in for struct semaphore: the void down().
 * See psem_sem.h.
 */
#include <linux/bug.h>
#include <linux/export.h>
#include <linux/sched/debug.h>

#include "psem_sem.h"

/**
 * psem_down - take one permit, sleeping uninterruptibly, as down()
 * @sem: the semaphore
 *
 * psem_acquire(@sem, 1), for callers that, like those of down(), have no
 * way to handle a failure. Process context only; waits in FIFO order.
 *
 * psem_acquire() fails only on a psem that a semaphore never is: closed
 * (-ESHUTDOWN), capped below one permit (-E2BIG), or, for a count out of
 * range, -EINVAL, which one permit never is. Each is a bug in the caller,
 * reported once with WARN_ONCE() and the error. psem_down() then returns
 * holding nothing: psem_acquire() gave back any permits assigned to the
 * wait, so no permit is lost, and the balance is as the failure left it.
 * The caller's psem_up() that follows adds a permit the psem never handed
 * out (a capped psem at capacity refuses it with -EOVERFLOW).
 */
void __sched psem_down(struct psem *sem)
{
	int ret = psem_acquire(sem, 1);

	WARN_ONCE(ret, "%s: psem_acquire() failed (%d); returning without the permit\n",
		  __func__, ret);
}
EXPORT_SYMBOL_PSEM(psem_down);
