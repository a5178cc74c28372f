// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for psem_mutex, the sleeping mutex built on psem: exclusion
 * under stress, FIFO hand-over, cancelled waiters, trylock in atomic
 * context and its refusal in hard IRQ, and unlocks by a task that does not
 * own the mutex (one whose recorded owner has exited among them).
 *
 * The fixture (struct pt_fix), the step and stress kthreads and the hang
 * guards are in psem_test.h, shared with the rwlock's and the pool's
 * suites; how the cases are built is described there.
 */

#include <kunit/test.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/refcount.h>
#include <linux/sched/signal.h>

#include "psem_test.h"

#define PT_MX_ITERS	1000

/*
 * Cases that make psem warn on purpose (its refusal WARNING, not a quiet
 * count) print a "psem-expect-splat: begin refusal" window around it, which
 * scripts/lib.sh accepts (its splat kind "refusal"). They run by default;
 * build with PT_LOUD_CASES 0 to compile them in but skip them, for a log
 * scanner that does not know the kind. (A module parameter cannot switch
 * them: Linux 6.1 runs a module's suites before it parses its parameters.)
 */
#ifndef PT_LOUD_CASES
#define PT_LOUD_CASES 1
#endif

/* The mutex's recorded owner; NULL where it is not tracked. */
static struct task_struct *pt_mx_owner(struct psem_mutex *mx)
{
#ifdef CONFIG_DEBUG_MUTEXES
	return READ_ONCE(mx->owner);
#else
	return NULL;
#endif
}

/* ---- trylock sequences, run with interrupts off or in hard IRQ ---- */

static bool pt_mx_try_undo(struct psem_mutex *mx)
{
	if (!psem_mutex_trylock(mx))
		return false;
	psem_mutex_unlock(mx);
	return true;
}

/* On a free mutex: trylock, is_locked, a second trylock fails, unlock. */
static unsigned long pt_mx_try_steps(struct pt_fix *fix)
{
	struct psem_mutex *mx = &fix->mx;
	unsigned long bad = 0;
	bool got;

	got = psem_mutex_trylock(mx);
	if (!got)
		bad |= BIT(0);
	if (!psem_mutex_is_locked(mx))
		bad |= BIT(1);
	if (pt_mx_try_undo(mx))
		bad |= BIT(2);
	if (got)
		psem_mutex_unlock(mx);
	if (psem_mutex_is_locked(mx))
		bad |= BIT(3);
	return bad;
}

static int pt_mx_stress_fn(void *arg)
{
	struct pt_thread *t = arg;
	struct pt_fix *fix = t->fix;
	struct psem_mutex *mx = &fix->mx;
	unsigned int i;
	int ret;

	for (i = 0; i < PT_MX_ITERS; i++, atomic_long_inc(&fix->progress)) {
		ret = 0;
		switch ((i + t->id) % 4) {
		case 0:
			psem_mutex_lock(mx);
			break;
		case 1:
			ret = psem_mutex_lock_interruptible(mx);
			break;
		case 2:
			ret = psem_mutex_lock_killable(mx);
			break;
		default:
			if (!psem_mutex_trylock(mx))
				psem_mutex_lock(mx);
			break;
		}
		if (ret) {	/* nobody sends a signal here */
			t->errors++;
			continue;
		}
		if (atomic_inc_return(&fix->inside) != 1 ||
		    !psem_mutex_is_locked(mx))
			t->errors++;
		if (IS_ENABLED(CONFIG_DEBUG_MUTEXES) &&
		    pt_mx_owner(mx) != current)
			t->errors++;
		fix->count++;	/* plain: only the holder is here */
		t->got++;
		pt_hold(t);
		atomic_dec(&fix->inside);
		psem_mutex_unlock(mx);
	}
	pt_set_state(t, PT_DONE);
	return 0;
}

/* Two kthreads per online CPU bump a plain counter under the mutex. */
static void psem_mutex_test_exclusion(struct kunit *test)
{
	unsigned int per_cpu = 2, n = per_cpu * num_online_cpus();
	unsigned long errors, got, misses;
	struct pt_fix *fix = pt_fix_new(n);
	int unused;

	KUNIT_ASSERT_NOT_NULL(test, fix);
	if (pt_start_per_cpu(test, fix, pt_mx_stress_fn, per_cpu) &&
	    pt_wait_stress(test, fix)) {
		pt_sum(fix, &errors, &got, &misses, &unused);
		KUNIT_EXPECT_EQ(test, errors, 0UL);
		KUNIT_EXPECT_EQ(test, got, (unsigned long)n * PT_MX_ITERS);
		KUNIT_EXPECT_EQ(test, fix->count, got);
		KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&fix->mx));
	}
	pt_finish(test, fix, &fix->mx.sem, 1);
}

/* Waiters that queued one after another get the mutex in that order. */
static void psem_mutex_test_fifo(struct kunit *test)
{
	static const enum pt_op ops[] = {
		PT_MUTEX, PT_MUTEX_INTR, PT_MUTEX_KILL, PT_MUTEX,
	};
	struct pt_thread *t[ARRAY_SIZE(ops)];
	struct pt_fix *fix = pt_fix_new(ARRAY_SIZE(ops));
	bool locked;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fix);
	psem_mutex_lock(&fix->mx);
	locked = true;
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		t[i] = pt_start(test, fix, pt_step_fn, ops[i]);
		if (!t[i] || !pt_wait(test, pt_waiters(&fix->mx.sem) == i + 1))
			goto out;
		pt_go(t[i]);	/* unlock as soon as it holds */
	}
	KUNIT_EXPECT_FALSE(test, pt_mx_try_undo(&fix->mx));

	psem_mutex_unlock(&fix->mx);
	locked = false;
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		if (!pt_wait(test, pt_state(t[i]) == PT_DONE))
			goto out;
		KUNIT_EXPECT_EQ(test, t[i]->ret, 0);
		KUNIT_EXPECT_EQ(test, t[i]->order, (int)i + 1);
	}
	KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&fix->mx));
out:
	if (locked)
		psem_mutex_unlock(&fix->mx);
	pt_finish(test, fix, &fix->mx.sem, 1);
}

/*
 * A waiter whose wait a signal ends gets -EINTR and holds nothing: the
 * test still owns the mutex, and once it unlocks the mutex is free.
 */
static void pt_mx_cancel(struct kunit *test, enum pt_op op, int sig)
{
	struct pt_fix *fix = pt_fix_new(1);
	struct pt_thread *t;
	bool locked;

	KUNIT_ASSERT_NOT_NULL(test, fix);
	psem_mutex_lock(&fix->mx);
	locked = true;

	t = pt_start(test, fix, pt_step_fn, op);
	if (!t || !pt_wait(test, pt_waiters(&fix->mx.sem) == 1))
		goto out;
	if (sig == SIGKILL) {
		/* A killable wait ignores other signals (can only miss). */
		send_sig(SIGUSR1, t->task, 1);
		msleep(20);
		KUNIT_EXPECT_EQ(test, pt_state(t), PT_WAIT);
	}
	send_sig(sig, t->task, 1);
	if (!pt_wait(test, pt_state(t) == PT_DONE))
		goto out;
	KUNIT_EXPECT_EQ(test, t->ret, -EINTR);
	KUNIT_EXPECT_EQ(test, pt_waiters(&fix->mx.sem), 0U);
	KUNIT_EXPECT_TRUE(test, psem_mutex_is_locked(&fix->mx));
	if (IS_ENABLED(CONFIG_DEBUG_MUTEXES))
		KUNIT_EXPECT_PTR_EQ(test, pt_mx_owner(&fix->mx), current);

	psem_mutex_unlock(&fix->mx);
	locked = false;
	KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&fix->mx));
	/* Still usable. */
	if (psem_mutex_trylock(&fix->mx))
		psem_mutex_unlock(&fix->mx);
	else
		KUNIT_FAIL(test, "mutex not free after the cancelled wait");
out:
	if (locked)
		psem_mutex_unlock(&fix->mx);
	pt_finish(test, fix, &fix->mx.sem, 1);
}

static void psem_mutex_test_interruptible(struct kunit *test)
{
	pt_mx_cancel(test, PT_MUTEX_INTR, SIGUSR1);
}

static void psem_mutex_test_killable(struct kunit *test)
{
	pt_mx_cancel(test, PT_MUTEX_KILL, SIGKILL);
}

/*
 * In hard IRQ: a trylock is refused, as mutex_trylock() must not be called
 * there (the interrupted task would become the owner). It fails on a free
 * mutex; if it took it anyway, it gives it back so the case can go on.
 */
static unsigned long pt_mx_try_irq(struct pt_fix *fix)
{
	if (!psem_mutex_trylock(&fix->mx))
		return 0;
	/* Undo what the old code did, from the same context. */
	psem_mutex_unlock(&fix->mx);
	return BIT(0);
}

/*
 * Trylock and is_locked with interrupts off in task context, where they
 * work, and in hard IRQ, where the trylock is refused.
 */
static void psem_mutex_test_trylock_atomic(struct kunit *test)
{
	struct pt_fix *fix = pt_fix_new(1);
	struct pt_thread *t;
	unsigned long flags;
	u64 warns;

	KUNIT_ASSERT_NOT_NULL(test, fix);
	KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&fix->mx));
	KUNIT_EXPECT_EQ(test, pt_run_atomic(fix, pt_mx_try_steps), 0UL);

	/* From interrupt context: refused, counted once, nothing changed. */
	warns = psem_warn_count();
	psem_set_quiet_warnings(true);
	KUNIT_EXPECT_EQ(test, pt_run_hardirq(test, fix, pt_mx_try_irq), 0UL);
	psem_set_quiet_warnings(false);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns + 1);
	KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&fix->mx));
	KUNIT_EXPECT_PTR_EQ(test, pt_mx_owner(&fix->mx), NULL);
	KUNIT_EXPECT_EQ(test, pt_mx_try_steps(fix), 0UL);

	t = pt_start(test, fix, pt_step_fn, PT_MUTEX);
	if (!t || !pt_wait(test, pt_state(t) == PT_HOLD))
		goto out;
	spin_lock_irqsave(&fix->atomic_lock, flags);
	KUNIT_EXPECT_TRUE(test, psem_mutex_is_locked(&fix->mx));
	KUNIT_EXPECT_FALSE(test, pt_mx_try_undo(&fix->mx));
	spin_unlock_irqrestore(&fix->atomic_lock, flags);
out:
	pt_finish(test, fix, &fix->mx.sem, 1);
}

static int pt_unlock_fn(void *arg)
{
	struct pt_thread *t = arg;

	psem_mutex_unlock(&t->fix->mx);
	pt_set_state(t, PT_DONE);
	return 0;
}

/*
 * With CONFIG_DEBUG_MUTEXES an unlock by a task that does not own the
 * mutex, or of a free mutex, is refused and counted, and changes nothing:
 * the owner still holds it and can still unlock it.
 */
static void psem_mutex_test_non_owner_unlock(struct kunit *test)
{
	struct pt_fix *fix;
	struct pt_thread *t;
	bool locked;
	u64 warns;

	if (!IS_ENABLED(CONFIG_DEBUG_MUTEXES))
		kunit_skip(test, "owner is tracked only with CONFIG_DEBUG_MUTEXES");
	fix = pt_fix_new(1);
	KUNIT_ASSERT_NOT_NULL(test, fix);
	psem_mutex_lock(&fix->mx);
	locked = true;

	warns = psem_warn_count();
	psem_set_quiet_warnings(true);
	t = pt_start(test, fix, pt_unlock_fn, PT_NONE);
	if (!t || !pt_wait(test, pt_state(t) == PT_DONE))
		goto out;
	psem_set_quiet_warnings(false);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns + 1);
	KUNIT_EXPECT_TRUE(test, psem_mutex_is_locked(&fix->mx));
	KUNIT_EXPECT_PTR_EQ(test, pt_mx_owner(&fix->mx), current);
	KUNIT_EXPECT_FALSE(test, pt_mx_try_undo(&fix->mx));

	psem_mutex_unlock(&fix->mx);
	locked = false;
	KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&fix->mx));
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns + 1);

	/* Unlocking a free mutex would let two holders in next. */
	psem_set_quiet_warnings(true);
	psem_mutex_unlock(&fix->mx);
	psem_set_quiet_warnings(false);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns + 2);
	KUNIT_EXPECT_EQ(test, psem_available(&fix->mx.sem), 1L);

	KUNIT_EXPECT_EQ(test, pt_mx_try_steps(fix), 0UL);
out:
	psem_set_quiet_warnings(false);
	if (locked)
		psem_mutex_unlock(&fix->mx);
	pt_finish(test, fix, &fix->mx.sem, 1);
}

static int pt_idle_fn(void *arg)
{
	while (!kthread_should_stop())
		schedule_timeout_idle(1);
	return 0;
}

/*
 * A foreign unlock of a mutex whose recorded owner has exited: the warning
 * must not read the owner's task_struct, which is freed (KASAN reports a
 * use-after-free if it does). The owner is a kthread that has run and been
 * reaped; the test holds the mutex itself (lockdep sees a real hold) with
 * the stale pointer planted as owner, as if that task had locked it and
 * died. The refusal has to warn for the bug to show (the old code read
 * the owner's name only to print it), so the case needs PT_LOUD_CASES and
 * prints its expected-splat window.
 */
static void psem_mutex_test_stale_owner_unlock(struct kunit *test)
{
	struct task_struct *gone;
	struct pt_fix *fix;
	u64 warns;

	if (!IS_ENABLED(CONFIG_DEBUG_MUTEXES))
		kunit_skip(test, "owner is tracked only with CONFIG_DEBUG_MUTEXES");
	if (!PT_LOUD_CASES)
		kunit_skip(test, "its refusal must warn: build with PT_LOUD_CASES 1");
	fix = pt_fix_new(1);
	KUNIT_ASSERT_NOT_NULL(test, fix);

	gone = kthread_run(pt_idle_fn, NULL, "psem_pt_gone");
	if (IS_ERR(gone)) {
		KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(gone));
		goto out;
	}
	get_task_struct(gone);
	kthread_stop(gone);
	/* Until the exit's own references are dropped, ours is not the last. */
	if (!pt_wait(test, refcount_read(&gone->usage) == 1)) {
		put_task_struct(gone);
		goto out;
	}

	psem_mutex_lock(&fix->mx);
#ifdef CONFIG_DEBUG_MUTEXES
	WRITE_ONCE(fix->mx.owner, gone);
#endif
	put_task_struct(gone);	/* frees it: "gone" is now a stale pointer */

	warns = psem_warn_count();
	pr_info("psem-expect-splat: begin refusal psem_mutex_unlock() by a task that does not own it\n");
	psem_mutex_unlock(&fix->mx);
	pr_info("psem-expect-splat: end refusal\n");
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns + 1);
	KUNIT_EXPECT_TRUE(test, psem_mutex_is_locked(&fix->mx));

#ifdef CONFIG_DEBUG_MUTEXES
	WRITE_ONCE(fix->mx.owner, current);
#endif
	psem_mutex_unlock(&fix->mx);
	KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&fix->mx));
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns + 1);
out:
	pt_finish(test, fix, &fix->mx.sem, 1);
}

static struct kunit_case psem_mutex_cases[] = {
	KUNIT_CASE(psem_mutex_test_exclusion),
	KUNIT_CASE(psem_mutex_test_fifo),
	KUNIT_CASE(psem_mutex_test_interruptible),
	KUNIT_CASE(psem_mutex_test_killable),
	KUNIT_CASE(psem_mutex_test_trylock_atomic),
	KUNIT_CASE(psem_mutex_test_non_owner_unlock),
	KUNIT_CASE(psem_mutex_test_stale_owner_unlock),
	{}
};

static struct kunit_suite psem_mutex_suite = {
	.name		= "psem_mutex",
	.suite_init	= pt_suite_init,
	.exit		= pt_case_exit,
	.test_cases	= psem_mutex_cases,
};

kunit_test_suites(&psem_mutex_suite);

MODULE_IMPORT_NS(PSEM_NS);
MODULE_IMPORT_NS(PSEM_KNOBS_NS);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for psem's mutex");
