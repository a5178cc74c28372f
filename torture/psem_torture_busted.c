// SPDX-License-Identifier: GPL-2.0
/*
 * psem_torture: the deliberately broken mutex and rwlock of torture_type=busted,
 * which the checks of the lock phases must catch. Their phases run the
 * real locks' step and checks (psem_torture_locks.c) on these.
 */

#include "psem_torture.h"

#define TT_BUSTED_RW_FULL	0x100000L	/* 2^20 */

static struct psem tt_bsem;	/* busted phases */

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

static const struct tt_lock tt_busted_mutex = {
	.wlock		= tt_busted_mx_lock,
	.wunlock	= tt_busted_mx_unlock,
	.sem		= &tt_bsem,
	.full		= 1,
	.busted		= true,
};

/* Busted rwlock: readers and writers alike take one permit. */
static int tt_busted_rw_lock(struct tt_thread *t, enum tt_how how)
{
	int ret;

	if (how == TT_TRY)
		return psem_try_acquire(&tt_bsem, 1) ? 0 : -EBUSY;
	tt_wait_begin(t, &tt_bsem, 1, how == TT_INTR);
	ret = tt_acquire(t, &tt_bsem, 1, how, NULL);
	tt_wait_end(t);
	return ret;
}

static void tt_busted_rw_unlock(struct tt_thread *t)
{
	psem_release(&tt_bsem, 1);
}

static const struct tt_lock tt_busted_rwlock = {
	.wlock		= tt_busted_rw_lock,
	.wunlock	= tt_busted_rw_unlock,
	.rlock		= tt_busted_rw_lock,
	.runlock	= tt_busted_rw_unlock,
	.sem		= &tt_bsem,
	.full		= TT_BUSTED_RW_FULL,
	.busted		= true,
};

static void tt_busted_mutex_init(void)
{
	psem_init(&tt_bsem, 1);
	tt_lock_reset();
}

static void tt_busted_rwlock_init(void)
{
	psem_init(&tt_bsem, TT_BUSTED_RW_FULL);
	tt_lock_reset();
}

/* Named as the phases they break: their lines read as the real ones. */
const struct psem_torture_ops tt_busted_mutex_ops =
	TT_LOCK_PHASE_OPS("mutex", &tt_bsem, &tt_busted_mutex, tt_busted_mutex_init);

const struct psem_torture_ops tt_busted_rwlock_ops =
	TT_LOCK_PHASE_OPS("rwlock", &tt_bsem, &tt_busted_rwlock, tt_busted_rwlock_init);
