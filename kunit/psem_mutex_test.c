// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for psem_mutex, the sleeping mutex built on psem: exclusion
 * under stress, FIFO hand-over, cancelled waiters, trylock in atomic
 * context and its refusal in hard IRQ, and unlocks by a task that does not
 * own the mutex (one whose recorded owner has exited among them).
 *
 * The fixture (struct psem_test_fix), the step and stress kthreads and the hang
 * guards are in psem_test.h, shared with the rwlock's and the pool's
 * suites; how the cases are built is described there.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/refcount.h>
#include <linux/sched/signal.h>

#include "psem_test.h"

#define MX_ITERS	1000

/* The mutex's recorded owner; NULL where it is not tracked. */
static struct task_struct *mx_owner(struct psem_mutex *mx)
{
#ifdef CONFIG_DEBUG_MUTEXES
	return READ_ONCE(mx->owner);
#else
	return NULL;
#endif
}

/* ---- trylock sequences, run with interrupts off or in hard IRQ ---- */

static bool mx_try_undo(struct psem_mutex *mx)
{
	if (!psem_mutex_trylock(mx))
		return false;
	psem_mutex_unlock(mx);
	return true;
}

/* On a free mutex: trylock, is_locked, a second trylock fails, unlock. */
static unsigned long mx_try_steps(struct psem_test_fix *fix)
{
	struct psem_mutex *mx = &fix->mx;
	unsigned long bad = 0;
	bool got;

	got = psem_mutex_trylock(mx);
	if (!got)
		bad |= BIT(0);
	if (!psem_mutex_is_locked(mx))
		bad |= BIT(1);
	if (mx_try_undo(mx))
		bad |= BIT(2);
	if (got)
		psem_mutex_unlock(mx);
	if (psem_mutex_is_locked(mx))
		bad |= BIT(3);
	return bad;
}

/* A stress worker's @i-th lock call, each of the four ways in turn. */
static void mx_stress_once(struct psem_test_worker *t, unsigned int i)
{
	struct psem_test_fix *fix = t->fix;
	struct psem_mutex *mx = &fix->mx;

	if (PSEM_TEST_LOCK_AS(psem_mutex_, mx, (i + t->id) % 4)) {
		t->errors++;	/* nobody sends a signal here */
		return;
	}
	if (atomic_inc_return(&fix->inside) != 1 ||
	    !psem_mutex_is_locked(mx))
		t->errors++;
	if (IS_ENABLED(CONFIG_DEBUG_MUTEXES) &&
	    mx_owner(mx) != current)
		t->errors++;
	fix->count++;	/* plain: only the holder is here */
	t->got++;
	psem_test_hold(t);
	atomic_dec(&fix->inside);
	psem_mutex_unlock(mx);
}

/* Two kthreads per online CPU bump a plain counter under the mutex. */
static void psem_mutex_test_exclusion(struct kunit *test)
{
	unsigned int per_cpu = 2, n = per_cpu * num_online_cpus();
	struct psem_test_fix *fix = psem_test_fix_new(test, n);
	struct psem_test_sums sums;

	if (psem_test_stress(test, fix, mx_stress_once, MX_ITERS, per_cpu,
			     &sums)) {
		KUNIT_EXPECT_EQ(test, sums.got, (unsigned long)n * MX_ITERS);
		KUNIT_EXPECT_EQ(test, fix->count, sums.got);
		KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&fix->mx));
	}
	psem_test_finish(test, fix, &fix->mx.sem, 1);
}

/* Waiters that queued one after another get the mutex in that order. */
static void psem_mutex_test_fifo(struct kunit *test)
{
	static const enum psem_test_lock_op ops[] = {
		PSEM_TEST_MUTEX, PSEM_TEST_MUTEX_INTR, PSEM_TEST_MUTEX_KILL, PSEM_TEST_MUTEX,
	};
	struct psem_test_worker *t[ARRAY_SIZE(ops)];
	struct psem_test_fix *fix = psem_test_fix_new(test, ARRAY_SIZE(ops));
	unsigned int i;

	psem_test_take(fix, PSEM_TEST_MUTEX);
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		t[i] = psem_test_queue(test, fix, ops[i], i + 1);
		if (!t[i])
			goto out;
		psem_test_go(t[i]);	/* unlock as soon as it holds */
	}
	KUNIT_EXPECT_FALSE(test, mx_try_undo(&fix->mx));

	psem_test_drop(fix);
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		if (!psem_test_await(test, psem_test_state(t[i]) == PSEM_TEST_FINISHED))
			goto out;
		KUNIT_EXPECT_EQ(test, t[i]->ret, 0);
		KUNIT_EXPECT_EQ(test, t[i]->order, (int)i + 1);
	}
	KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&fix->mx));
out:
	psem_test_finish(test, fix, &fix->mx.sem, 1);
}

/*
 * A waiter whose wait a signal ends gets -EINTR and holds nothing: the
 * test still owns the mutex, and once it unlocks the mutex is free.
 */
static void mx_cancel(struct kunit *test, enum psem_test_lock_op op, int sig)
{
	struct psem_test_fix *fix = psem_test_fix_new(test, 1);
	struct psem_test_worker *t;

	psem_test_take(fix, PSEM_TEST_MUTEX);

	t = psem_test_queue(test, fix, op, 1);
	if (!t)
		goto out;
	if (sig == SIGKILL) {
		/* A killable wait ignores other signals (can only miss). */
		send_sig(SIGUSR1, t->task, 1);
		msleep(20);
		KUNIT_EXPECT_EQ(test, psem_test_state(t), PSEM_TEST_WAITING);
	}
	send_sig(sig, t->task, 1);
	if (!psem_test_await(test, psem_test_state(t) == PSEM_TEST_FINISHED))
		goto out;
	KUNIT_EXPECT_EQ(test, t->ret, -EINTR);
	KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(&fix->mx.sem), 0U);
	KUNIT_EXPECT_TRUE(test, psem_mutex_is_locked(&fix->mx));
	if (IS_ENABLED(CONFIG_DEBUG_MUTEXES))
		KUNIT_EXPECT_PTR_EQ(test, mx_owner(&fix->mx), current);

	psem_test_drop(fix);
	KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&fix->mx));
	/* Still usable. */
	if (psem_mutex_trylock(&fix->mx))
		psem_mutex_unlock(&fix->mx);
	else
		KUNIT_FAIL(test, "mutex not free after the cancelled wait");
out:
	psem_test_finish(test, fix, &fix->mx.sem, 1);
}

PSEM_TEST_CANCEL_CASES(psem_mutex_test, mx_cancel,
		       PSEM_TEST_MUTEX_INTR, PSEM_TEST_MUTEX_KILL)

/*
 * In hard IRQ: a trylock is refused, as mutex_trylock() must not be called
 * there (the interrupted task would become the owner). It fails on a free
 * mutex; if it took it anyway, it gives it back so the case can go on.
 */
static unsigned long mx_try_irq(struct psem_test_fix *fix)
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
	struct psem_test_fix *fix = psem_test_fix_new(test, 1);
	struct psem_test_worker *t;
	unsigned long flags;
	u64 warns;

	KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&fix->mx));
	KUNIT_EXPECT_EQ(test, psem_test_run_atomic(fix, mx_try_steps), 0UL);

	/* From interrupt context: refused, counted once, nothing changed. */
	warns = psem_warn_count();
	psem_set_quiet_warnings(true);
	KUNIT_EXPECT_EQ(test, psem_test_run_hardirq(test, fix, mx_try_irq), 0UL);
	psem_set_quiet_warnings(false);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns + 1);
	KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&fix->mx));
	KUNIT_EXPECT_PTR_EQ(test, mx_owner(&fix->mx), NULL);
	KUNIT_EXPECT_EQ(test, mx_try_steps(fix), 0UL);

	t = psem_test_start(test, fix, psem_test_step_fn, PSEM_TEST_MUTEX);
	if (!t || !psem_test_await(test, psem_test_state(t) == PSEM_TEST_HOLDING))
		goto out;
	spin_lock_irqsave(&fix->atomic_lock, flags);
	KUNIT_EXPECT_TRUE(test, psem_mutex_is_locked(&fix->mx));
	KUNIT_EXPECT_FALSE(test, mx_try_undo(&fix->mx));
	spin_unlock_irqrestore(&fix->atomic_lock, flags);
out:
	psem_test_finish(test, fix, &fix->mx.sem, 1);
}

static int mx_unlock_fn(void *arg)
{
	struct psem_test_worker *t = arg;

	psem_mutex_unlock(&t->fix->mx);
	psem_test_set_state(t, PSEM_TEST_FINISHED);
	return 0;
}

/*
 * A fixture for a case about the owner, which is recorded only with
 * CONFIG_DEBUG_MUTEXES: without it, the case is skipped. The test holds
 * the mutex.
 */
static struct psem_test_fix *mx_owned_fix(struct kunit *test)
{
	struct psem_test_fix *fix;

	if (!IS_ENABLED(CONFIG_DEBUG_MUTEXES))
		kunit_skip(test, "owner is tracked only with CONFIG_DEBUG_MUTEXES");
	fix = psem_test_fix_new(test, 1);
	psem_test_take(fix, PSEM_TEST_MUTEX);
	return fix;
}

/*
 * With CONFIG_DEBUG_MUTEXES an unlock by a task that does not own the
 * mutex, or of a free mutex, is refused and counted, and changes nothing:
 * the owner still holds it and can still unlock it.
 */
static void psem_mutex_test_non_owner_unlock(struct kunit *test)
{
	struct psem_test_fix *fix = mx_owned_fix(test);
	struct psem_test_worker *t;
	u64 warns;

	warns = psem_warn_count();
	psem_set_quiet_warnings(true);
	t = psem_test_start(test, fix, mx_unlock_fn, PSEM_TEST_NO_LOCK);
	if (!t || !psem_test_await(test, psem_test_state(t) == PSEM_TEST_FINISHED))
		goto out;
	psem_set_quiet_warnings(false);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns + 1);
	KUNIT_EXPECT_TRUE(test, psem_mutex_is_locked(&fix->mx));
	KUNIT_EXPECT_PTR_EQ(test, mx_owner(&fix->mx), current);
	KUNIT_EXPECT_FALSE(test, mx_try_undo(&fix->mx));

	psem_test_drop(fix);
	KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&fix->mx));
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns + 1);

	/* Unlocking a free mutex would let two holders in next. */
	psem_set_quiet_warnings(true);
	psem_mutex_unlock(&fix->mx);
	psem_set_quiet_warnings(false);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns + 2);
	KUNIT_EXPECT_EQ(test, psem_available(&fix->mx.sem), 1L);

	KUNIT_EXPECT_EQ(test, mx_try_steps(fix), 0UL);
out:
	psem_set_quiet_warnings(false);
	psem_test_finish(test, fix, &fix->mx.sem, 1);
}

static int mx_idle_fn(void *arg)
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
 * the owner's name only to print it), so the case needs PSEM_TEST_LOUD_CASES and
 * prints its expected-splat window.
 */
static void psem_mutex_test_stale_owner_unlock(struct kunit *test)
{
	struct task_struct *gone;
	struct psem_test_fix *fix;
	u64 warns;

	if (!PSEM_TEST_LOUD_CASES)
		kunit_skip(test, "its refusal must warn: build with PSEM_TEST_LOUD_CASES 1");
	fix = mx_owned_fix(test);

	gone = kthread_run(mx_idle_fn, NULL, "psem_pt_gone");
	if (IS_ERR(gone)) {
		KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(gone));
		goto out;
	}
	get_task_struct(gone);
	kthread_stop(gone);
	/* Until the exit's own references are dropped, ours is not the last. */
	if (!psem_test_await(test, refcount_read(&gone->usage) == 1)) {
		put_task_struct(gone);
		goto out;
	}

#ifdef CONFIG_DEBUG_MUTEXES
	WRITE_ONCE(fix->mx.owner, gone);
#endif
	put_task_struct(gone);	/* frees it: "gone" is now a stale pointer */

	warns = psem_warn_count();
	pr_notice("psem-expect-splat: begin refusal psem_mutex_unlock() by a task that does not own it\n");
	psem_mutex_unlock(&fix->mx);
	pr_notice("psem-expect-splat: end refusal\n");
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns + 1);
	KUNIT_EXPECT_TRUE(test, psem_mutex_is_locked(&fix->mx));

#ifdef CONFIG_DEBUG_MUTEXES
	WRITE_ONCE(fix->mx.owner, current);
#endif
	psem_test_drop(fix);
	KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&fix->mx));
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns + 1);
out:
	psem_test_finish(test, fix, &fix->mx.sem, 1);
}

PSEM_TEST_FIX_SUITE("psem_mutex", "KUnit tests for psem's mutex",
		    psem_mutex_test_exclusion, psem_mutex_test_fifo,
		    psem_mutex_test_interruptible, psem_mutex_test_killable,
		    psem_mutex_test_trylock_atomic,
		    psem_mutex_test_non_owner_unlock,
		    psem_mutex_test_stale_owner_unlock);
