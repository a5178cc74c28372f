// SPDX-License-Identifier: GPL-2.0+
// psem's lock types for kernel/locking/locktorture.c: scripts/series.sh
// (patch 4) inserts what follows this header after percpu_rwsem_lock_ops.

#ifdef CONFIG_PSEM
#include <linux/psem.h>
#include <linux/psem_mutex.h>
#include <linux/psem_rwlock.h>

MODULE_IMPORT_NS("PSEM");

/*
 * psem with one permit: a binary semaphore, so that the writers' exclusion
 * check applies. Its release is the lock-free one while nobody waits and
 * the locked hand-off to the oldest waiter otherwise: both are exercised.
 */
static DEFINE_PSEM(torture_psem, 1);

static int torture_psem_lock(int tid __maybe_unused)
__acquires(torture_psem)
{
	/* Fails only on a closed psem or a bad count: neither can happen. */
	WARN_ON_ONCE(psem_acquire(&torture_psem, 1));
	return 0;
}

static void torture_psem_unlock(int tid __maybe_unused)
__releases(torture_psem)
{
	WARN_ON_ONCE(psem_release(&torture_psem, 1));
}

static struct lock_torture_ops psem_lock_ops = {
	.writelock	= torture_psem_lock,
	.write_delay	= torture_mutex_delay,
	.task_boost	= torture_rt_boost,
	.writeunlock	= torture_psem_unlock,
	.readlock	= NULL,
	.read_delay	= NULL,
	.readunlock	= NULL,
	.name		= "psem_lock"
};

static struct psem_mutex torture_psem_mutex;

static void torture_psem_mutex_init(void)
{
	psem_mutex_init(&torture_psem_mutex);
}

static void torture_psem_mutex_exit(void)
{
	psem_mutex_destroy(&torture_psem_mutex);
}

static int torture_psem_mutex_lock(int tid __maybe_unused)
__acquires(torture_psem_mutex)
{
	psem_mutex_lock(&torture_psem_mutex);
	return 0;
}

static void torture_psem_mutex_unlock(int tid __maybe_unused)
__releases(torture_psem_mutex)
{
	psem_mutex_unlock(&torture_psem_mutex);
}

static struct lock_torture_ops psem_mutex_lock_ops = {
	.init		= torture_psem_mutex_init,
	.exit		= torture_psem_mutex_exit,
	.writelock	= torture_psem_mutex_lock,
	.write_delay	= torture_mutex_delay,
	.task_boost	= torture_rt_boost,
	.writeunlock	= torture_psem_mutex_unlock,
	.readlock	= NULL,
	.read_delay	= NULL,
	.readunlock	= NULL,
	.name		= "psem_mutex_lock"
};

static struct psem_rwlock torture_psem_rwlock;

static void torture_psem_rwlock_init(void)
{
	psem_rwlock_init(&torture_psem_rwlock);
}

static void torture_psem_rwlock_exit(void)
{
	psem_rwlock_destroy(&torture_psem_rwlock);
}

static int torture_psem_write_lock(int tid __maybe_unused)
__acquires(torture_psem_rwlock)
{
	psem_write_lock(&torture_psem_rwlock);
	return 0;
}

static void torture_psem_write_unlock(int tid __maybe_unused)
__releases(torture_psem_rwlock)
{
	psem_write_unlock(&torture_psem_rwlock);
}

static int torture_psem_read_lock(int tid __maybe_unused)
__acquires(torture_psem_rwlock)
{
	psem_read_lock(&torture_psem_rwlock);
	return 0;
}

static void torture_psem_read_unlock(int tid __maybe_unused)
__releases(torture_psem_rwlock)
{
	psem_read_unlock(&torture_psem_rwlock);
}

static struct lock_torture_ops psem_rwlock_ops = {
	.init		= torture_psem_rwlock_init,
	.exit		= torture_psem_rwlock_exit,
	.writelock	= torture_psem_write_lock,
	.write_delay	= torture_rwsem_write_delay,
	.task_boost	= torture_rt_boost,
	.writeunlock	= torture_psem_write_unlock,
	.readlock	= torture_psem_read_lock,
	.read_delay	= torture_rwsem_read_delay,
	.readunlock	= torture_psem_read_unlock,
	.name		= "psem_rwlock"
};
#endif /* CONFIG_PSEM */
