// SPDX-License-Identifier: GPL-2.0
/*
 * psem_torture: the deliberately broken mutex and rwlock of torture_type=busted,
 * which the checks of the lock phases must catch.
 */

#include "psem_torture.h"

struct psem tt_bsem;		/* busted phases */
/* Busted mutex: a trylock that goes ahead even when it fails. */
static int tt_busted_mx_lock(struct tt_thread *t, enum tt_how how)
{
	t->taken = psem_try_acquire(&tt_bsem, 1);
	return 0;
}

static void tt_busted_mx_unlock(struct tt_thread *t)
{
	if (t->taken)
		psem_release(&tt_bsem, 1);
	t->taken = false;
}

const struct tt_lock_ops tt_busted_mutex_ops = {
	.wlock		= tt_busted_mx_lock,
	.wunlock	= tt_busted_mx_unlock,
	.sem		= &tt_bsem,
	.full		= 1,
	.busted		= true,
};

/* Busted rwlock: readers and writers alike take one permit. */
static int tt_busted_rw_lock(struct tt_thread *t, enum tt_how how)
{
	int ret = 0;

	if (how == TT_TRY)
		return psem_try_acquire(&tt_bsem, 1) ? 0 : -EBUSY;
	tt_wait_begin(t, &tt_bsem, 1, how == TT_INTR);
	if (how == TT_INTR)
		ret = psem_acquire_interruptible(&tt_bsem, 1);
	else if (how == TT_KILL)
		ret = psem_acquire_killable(&tt_bsem, 1);
	else
		ret = psem_acquire(&tt_bsem, 1);
	tt_wait_end(t);
	return ret;
}

static void tt_busted_rw_unlock(struct tt_thread *t)
{
	psem_release(&tt_bsem, 1);
}

const struct tt_lock_ops tt_busted_rwlock_ops = {
	.wlock		= tt_busted_rw_lock,
	.wunlock	= tt_busted_rw_unlock,
	.rlock		= tt_busted_rw_lock,
	.runlock	= tt_busted_rw_unlock,
	.sem		= &tt_bsem,
	.full		= TT_BUSTED_RW_FULL,
	.busted		= true,
};
