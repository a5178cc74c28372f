// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite showing that lockdep sees psem's owned locks: an AB-BA order
 * between a psem_rwlock taken for writing and a psem_mutex is reported.
 *
 *   psem_lockdep  one task takes rwlock then mutex, releases both, then
 *                 takes mutex then rwlock (for reading). No deadlock can
 *                 happen (one task), but the second order closes a cycle in
 *                 lockdep's graph, and because psem annotates before it
 *                 waits, as down_read() does, lockdep reports "possible
 *                 circular locking dependency" at that acquisition.
 *
 * After its first report lockdep turns itself off for the rest of the boot
 * (debug_locks goes to 0), which is also how the case sees that the report
 * happened. So the guest loads this module after every other one, and the
 * console lines
 *
 *	psem-expect-splat: begin lockdep-inversion
 *	psem-expect-splat: end lockdep-inversion
 *
 * let the host (scan_splats() in scripts/lib.sh) accept that one report
 * and fail on anything else. Without CONFIG_PROVE_LOCKING the case skips
 * and prints no markers.
 */

#include <kunit/test.h>
#include <linux/debug_locks.h>
#include <linux/module.h>
#include <linux/printk.h>

#include "psem_mutex.h"
#include "psem_rwlock.h"

static void psem_test_lockdep_inversion(struct kunit *test)
{
	struct psem_rwlock *rw;
	struct psem_mutex *mx;

	if (!IS_ENABLED(CONFIG_PROVE_LOCKING))
		kunit_skip(test, "needs CONFIG_PROVE_LOCKING");
	if (!debug_locks)
		kunit_skip(test, "lockdep is already off in this boot");

	rw = kunit_kzalloc(test, sizeof(*rw), GFP_KERNEL);
	mx = kunit_kzalloc(test, sizeof(*mx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rw);
	KUNIT_ASSERT_NOT_NULL(test, mx);
	psem_rwlock_init(rw);
	psem_mutex_init(mx);

	/* A -> B: teaches lockdep the order, silently. */
	psem_write_lock(rw);
	psem_mutex_lock(mx);
	psem_mutex_unlock(mx);
	psem_write_unlock(rw);
	KUNIT_ASSERT_TRUE(test, debug_locks);

	/* B -> A: the inversion, reported at psem_read_lock(). */
	pr_notice("psem-expect-splat: begin lockdep-inversion\n");
	psem_mutex_lock(mx);
	psem_read_lock(rw);
	psem_read_unlock(rw);
	psem_mutex_unlock(mx);
	pr_notice("psem-expect-splat: end lockdep-inversion\n");

	KUNIT_EXPECT_FALSE_MSG(test, debug_locks,
			       "lockdep did not report the AB-BA order");
	KUNIT_EXPECT_EQ(test, psem_available(&rw->sem), PSEM_RWLOCK_MAX_READERS);
	KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(mx));
}

static struct kunit_case psem_lockdep_cases[] = {
	KUNIT_CASE(psem_test_lockdep_inversion),
	{}
};

static struct kunit_suite psem_lockdep_suite = {
	.name		= "psem_lockdep",
	.test_cases	= psem_lockdep_cases,
};

kunit_test_suites(&psem_lockdep_suite);

MODULE_IMPORT_NS(PSEM_NS);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit: lockdep reports an AB-BA order on psem locks");
