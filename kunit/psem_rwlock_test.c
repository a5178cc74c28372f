// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for psem_rwlock, the reader-writer lock built on psem:
 * exclusion under stress, writer fairness, downgrade, cancelled writers,
 * trylocks in atomic context and hard IRQ, the reader limit, the lock-free
 * read unlock and non-owner releases.
 *
 * The fixture (struct psem_test_fix), the step and stress kthreads and the hang
 * guards are in psem_test.h, shared with the mutex's and the pool's suites;
 * how the cases are built is described there.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched/signal.h>

#include "psem_test.h"

#define RW_MAX		PSEM_RWLOCK_MAX_READERS

#define RW_ITERS	1000	/* stress iterations per kthread */

/* ---- trylock sequences, run with interrupts off or in hard IRQ ---- */

/* A trylock that should fail; undoes it if it did not. */
static bool rw_try_undo(struct psem_rwlock *rw, bool write)
{
	if (write) {
		if (!psem_write_trylock(rw))
			return false;
		psem_write_unlock(rw);
	} else {
		if (!psem_read_trylock(rw))
			return false;
		psem_read_unlock(rw);
	}
	return true;
}

/*
 * On a free rwlock: two readers share it and keep a writer out, then a
 * writer keeps everybody out. Returns a mask of the steps that went wrong
 * and leaves the lock free.
 */
static unsigned long rw_try_steps(struct psem_test_fix *fix)
{
	struct psem_rwlock *rw = &fix->rw;
	unsigned long bad = 0;
	bool r1, r2, w;

	r1 = psem_read_trylock(rw);
	r2 = psem_read_trylock(rw);
	if (!r1 || !r2)
		bad |= BIT(0);
	if (psem_available(&rw->sem) != RW_MAX - r1 - r2)
		bad |= BIT(1);
	if (rw_try_undo(rw, true))
		bad |= BIT(2);
	if (r1)
		psem_read_unlock(rw);
	if (r2)
		psem_read_unlock(rw);
	w = psem_write_trylock(rw);
	if (!w || psem_available(&rw->sem))
		bad |= BIT(3);
	if (rw_try_undo(rw, false))
		bad |= BIT(4);
	if (rw_try_undo(rw, true))
		bad |= BIT(5);
	if (w)
		psem_write_unlock(rw);
	if (psem_available(&rw->sem) != RW_MAX)
		bad |= BIT(6);
	return bad;
}

/*
 * Iteration @i's lock call, for writing if @write: the four ways of
 * &enum psem_test_wait in turn, four iterations each. Returns the call's
 * result; nobody sends a signal here, so a nonzero one is an error.
 */
static int rw_lock_once(struct psem_rwlock *rw, unsigned int i, bool write)
{
	unsigned int how = i / 4 % 4;

	return write ? PSEM_TEST_LOCK_AS(psem_write_, rw, how) :
		       PSEM_TEST_LOCK_AS(psem_read_, rw, how);
}

static void rw_read_once(struct psem_test_worker *t, unsigned int i)
{
	struct psem_test_fix *fix = t->fix;
	int in;

	if (rw_lock_once(&fix->rw, i, false)) {
		t->errors++;
		return;
	}
	in = atomic_inc_return(&fix->readers);
	t->max_readers = max(t->max_readers, in);
	if (atomic_read(&fix->writers))
		t->errors++;
	t->seen = fix->count;	/* plain: KCSAN reports a writer inside */
	psem_test_hold(t);
	atomic_dec(&fix->readers);
	psem_read_unlock(&fix->rw);
}

static void rw_write_once(struct psem_test_worker *t, unsigned int i)
{
	struct psem_test_fix *fix = t->fix;

	if (rw_lock_once(&fix->rw, i, true)) {
		t->errors++;
		return;
	}
	if (atomic_inc_return(&fix->writers) != 1 ||
	    atomic_read(&fix->readers))
		t->errors++;
	fix->count++;		/* plain: only one writer may be here */
	t->got++;
	psem_test_hold(t);
	if (atomic_read(&fix->readers))
		t->errors++;
	atomic_dec(&fix->writers);
	psem_write_unlock(&fix->rw);
}

/* One write in four, at a different phase per kthread. */
static void rw_stress_once(struct psem_test_worker *t, unsigned int i)
{
	if ((i + t->id) % 4 == 0)
		rw_write_once(t, i);
	else
		rw_read_once(t, i);
}

/*
 * Three kthreads per online CPU mix every read and write lock call. Inside
 * each critical section they check that no writer overlaps anybody, and
 * writers bump a plain counter, so a lost update shows too.
 */
static void psem_rwlock_test_exclusion(struct kunit *test)
{
	unsigned int per_cpu = 3, n = per_cpu * num_online_cpus();
	struct psem_test_fix *fix = psem_test_fix_new(test, n);
	struct psem_test_sums sums;

	if (psem_test_stress(test, fix, rw_stress_once, RW_ITERS, per_cpu,
			     &sums)) {
		/* A writer's @got is its writes. */
		KUNIT_EXPECT_EQ(test, fix->count, sums.got);
		KUNIT_EXPECT_EQ(test, atomic_read(&fix->readers), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&fix->writers), 0);
		/* Overlap depends on scheduling: reported, not asserted. */
		kunit_info(test, "%u kthreads, %lu writes, up to %d readers at once\n",
			   fix->nr, sums.got, sums.max_readers);
	}
	psem_test_finish(test, fix, &fix->rw.sem, RW_MAX);
}

/*
 * R1 (the test) reads; writer W queues; a later reader R2 must queue
 * behind W, not join R1. When R1 leaves, W gets in before R2; when W
 * leaves, R2 gets in.
 */
static void psem_rwlock_test_writer_fairness(struct kunit *test)
{
	struct psem_test_fix *fix = psem_test_fix_new(test, 2);
	struct psem_test_worker *w, *r2;

	psem_test_take(fix, PSEM_TEST_READ);

	w = psem_test_queue(test, fix, PSEM_TEST_WRITE, 1);
	if (!w)
		goto out;
	/* W drained every permit R1 left: there is none for R2. */
	KUNIT_EXPECT_EQ(test, psem_available(&fix->rw.sem), 0L);
	KUNIT_EXPECT_FALSE(test, rw_try_undo(&fix->rw, false));

	r2 = psem_test_queue(test, fix, PSEM_TEST_READ, 2);
	if (!r2)
		goto out;
	KUNIT_EXPECT_EQ(test, psem_test_state(w), PSEM_TEST_WAITING);
	KUNIT_EXPECT_EQ(test, psem_test_state(r2), PSEM_TEST_WAITING);

	psem_test_drop(fix);
	if (!psem_test_await(test, psem_test_state(w) == PSEM_TEST_HOLDING))
		goto out;
	KUNIT_EXPECT_EQ(test, w->order, 1);
	KUNIT_EXPECT_EQ(test, psem_test_state(r2), PSEM_TEST_WAITING);
	KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(&fix->rw.sem), 1U);
	KUNIT_EXPECT_FALSE(test, rw_try_undo(&fix->rw, false));

	/*
	 * W's unlock hands over to R2 before W's thread marks itself done,
	 * so R2 may hold before W reads finished: wait for both.
	 */
	psem_test_go(w);
	if (!psem_test_await(test, psem_test_state(r2) == PSEM_TEST_HOLDING &&
			     psem_test_state(w) == PSEM_TEST_FINISHED))
		goto out;
	KUNIT_EXPECT_EQ(test, r2->order, 2);
out:
	psem_test_finish(test, fix, &fix->rw.sem, RW_MAX);
}

/*
 * The test writes, with reader R and then writer W queued. After the
 * downgrade R reads alongside the test, and W waits until both are gone.
 */
static void psem_rwlock_test_downgrade(struct kunit *test)
{
	static const enum psem_test_lock_op ops[] = {
		PSEM_TEST_READ, PSEM_TEST_WRITE,
	};
	struct psem_test_fix *fix = psem_test_fix_new(test, 2);
	struct psem_test_worker *q[ARRAY_SIZE(ops)], *r, *w;

	psem_test_take(fix, PSEM_TEST_WRITE);

	if (!psem_test_queue_all(test, fix, ops, ARRAY_SIZE(ops), q))
		goto out;
	r = q[0];
	w = q[1];

	psem_downgrade_write(&fix->rw);
	fix->held = PSEM_TEST_READ;
	if (!psem_test_await(test, psem_test_state(r) == PSEM_TEST_HOLDING))
		goto out;
	/* Two readers in; W took the rest and still waits for two. */
	KUNIT_EXPECT_EQ(test, psem_available(&fix->rw.sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(&fix->rw.sem), 1U);
	KUNIT_EXPECT_EQ(test, psem_test_state(w), PSEM_TEST_WAITING);
	KUNIT_EXPECT_FALSE(test, rw_try_undo(&fix->rw, false));

	psem_test_drop(fix);
	/* R still reads: W still waits. */
	KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(&fix->rw.sem), 1U);
	KUNIT_EXPECT_EQ(test, psem_test_state(w), PSEM_TEST_WAITING);

	psem_test_go(r);
	if (!psem_test_await(test, psem_test_state(w) == PSEM_TEST_HOLDING))
		goto out;
	KUNIT_EXPECT_EQ(test, r->order, 1);
	KUNIT_EXPECT_EQ(test, w->order, 2);
out:
	psem_test_finish(test, fix, &fix->rw.sem, RW_MAX);
}

/*
 * Writer W waits behind the test's read hold with readers queued behind
 * it; a signal ends W's wait. W got every permit but the test's, and must
 * pass them on: both queued readers get in.
 */
static void rw_cancel(struct kunit *test, enum psem_test_lock_op op, int sig)
{
	const enum psem_test_lock_op ops[] = {
		op, PSEM_TEST_READ_INTR, PSEM_TEST_READ_KILL,
	};
	struct psem_test_fix *fix = psem_test_fix_new(test, ARRAY_SIZE(ops));
	struct psem_test_worker *q[ARRAY_SIZE(ops)], *w, **r = &q[1];

	psem_test_take(fix, PSEM_TEST_READ);

	if (!psem_test_queue_all(test, fix, ops, ARRAY_SIZE(ops), q))
		goto out;
	w = q[0];

	if (sig == SIGKILL) {
		/* A killable wait ignores other signals (can only miss). */
		send_sig(SIGUSR1, w->task, 1);
		msleep(20);
		KUNIT_EXPECT_EQ(test, psem_test_state(w), PSEM_TEST_WAITING);
	}
	send_sig(sig, w->task, 1);
	if (!psem_test_await(test, psem_test_state(w) == PSEM_TEST_FINISHED))
		goto out;
	KUNIT_EXPECT_EQ(test, w->ret, -EINTR);
	if (!psem_test_await(test,
			     psem_test_state(r[0]) == PSEM_TEST_HOLDING &&
			     psem_test_state(r[1]) == PSEM_TEST_HOLDING))
		goto out;
	KUNIT_EXPECT_EQ(test, psem_available(&fix->rw.sem), RW_MAX - 3);
	KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(&fix->rw.sem), 0U);
out:
	psem_test_finish(test, fix, &fix->rw.sem, RW_MAX);
}

PSEM_TEST_CANCEL_CASES(psem_rwlock_test_write, rw_cancel,
		       PSEM_TEST_WRITE_INTR, PSEM_TEST_WRITE_KILL)

/*
 * With a kthread holding @fix's rwlock as @op says, and interrupts off
 * under a spinlock: a read trylock succeeds only if @read_ok, a write
 * trylock never. Then lets the holder go. Returns false if the holder did
 * not get the lock (the test failed).
 */
static bool rw_tries_while_held(struct kunit *test, struct psem_test_fix *fix,
				enum psem_test_lock_op op, bool read_ok)
{
	struct psem_test_worker *h;
	unsigned long flags;

	h = psem_test_start(test, fix, psem_test_step_fn, op);
	if (!h || !psem_test_await(test, psem_test_state(h) == PSEM_TEST_HOLDING))
		return false;
	spin_lock_irqsave(&fix->atomic_lock, flags);
	KUNIT_EXPECT_EQ(test, rw_try_undo(&fix->rw, false), read_ok);
	KUNIT_EXPECT_FALSE(test, rw_try_undo(&fix->rw, true));
	spin_unlock_irqrestore(&fix->atomic_lock, flags);
	psem_test_go(h);
	return true;
}

/*
 * Trylocks never sleep: with interrupts off under a spinlock, and in hard
 * IRQ, on a free lock; and on one a kthread holds for writing, then on one
 * a kthread holds for reading.
 */
static void psem_rwlock_test_trylock_atomic(struct kunit *test)
{
	struct psem_test_fix *fix = psem_test_fix_new(test, 2);

	KUNIT_EXPECT_EQ(test, psem_test_run_atomic(fix, rw_try_steps), 0UL);
	KUNIT_EXPECT_EQ(test, psem_test_run_hardirq(test, fix, rw_try_steps), 0UL);
	if (rw_tries_while_held(test, fix, PSEM_TEST_WRITE, false))
		rw_tries_while_held(test, fix, PSEM_TEST_READ, true);
	psem_test_finish(test, fix, &fix->rw.sem, RW_MAX);
}

/*
 * PSEM_RWLOCK_MAX_READERS readers fit: each takes one permit. 2^30 kthreads
 * are out of reach, so the test takes a few permits as readers and the
 * rest straight from the semaphore; then the limit is reached, the next
 * reader queues and gets in when one of the others leaves.
 */
static void psem_rwlock_test_reader_limit(struct kunit *test)
{
	struct psem_test_fix *fix = psem_test_fix_new(test, 1);
	struct psem_test_worker *r;
	long i, readers = 0, others = 0;

	KUNIT_EXPECT_EQ(test, RW_MAX, 1L << 30);
	KUNIT_EXPECT_EQ(test, psem_available(&fix->rw.sem), RW_MAX);
	for (i = 0; i < 8; i++) {
		if (!psem_read_trylock(&fix->rw)) {
			KUNIT_FAIL(test, "reader %ld refused", i);
			goto out;
		}
		readers++;
		KUNIT_EXPECT_EQ(test, psem_available(&fix->rw.sem),
				RW_MAX - readers);
		KUNIT_EXPECT_FALSE(test, rw_try_undo(&fix->rw, true));
	}

	/* Stand-ins for the other RW_MAX - 8 readers. */
	others = psem_drain(&fix->rw.sem, RW_MAX);
	KUNIT_EXPECT_EQ(test, others, RW_MAX - readers);
	KUNIT_EXPECT_FALSE(test, rw_try_undo(&fix->rw, false));

	r = psem_test_queue(test, fix, PSEM_TEST_READ, 1);
	if (!r)
		goto out;
	psem_read_unlock(&fix->rw);
	readers--;
	if (!psem_test_await(test, psem_test_state(r) == PSEM_TEST_HOLDING))
		goto out;
	KUNIT_EXPECT_EQ(test, psem_available(&fix->rw.sem), 0L);
out:
	if (others)
		psem_release(&fix->rw.sem, others);
	while (readers--)
		psem_read_unlock(&fix->rw);
	psem_test_finish(test, fix, &fix->rw.sem, RW_MAX);
}

/* Unlocks @rw (for writing if @write); expects @fast and @locked releases. */
static void rw_unlock_counted(struct kunit *test, struct psem_rwlock *rw,
			      bool write, unsigned long fast,
			      unsigned long locked)
{
	struct psem_stats before;

	psem_stats_snapshot(&before);
	if (write)
		psem_write_unlock(rw);
	else
		psem_read_unlock(rw);
	psem_test_expect_releases(test, &before, fast, locked);
}

/*
 * With nobody waiting, a read_unlock is one lock-free exchange, the last
 * reader's too, and so is a write_unlock (the waiters-bit rule; under the
 * positive-balance rule, zero_release off, the write_unlock onto a zero balance takes the queue
 * lock). A read_unlock that a writer waits for takes the queue lock.
 */
static void psem_rwlock_test_read_unlock_fast_path(struct kunit *test)
{
	struct psem_test_fix *fix = psem_test_fix_new(test, 1);
	struct psem_test_worker *w;
	struct psem_stats before;

	psem_test_stats_on();

	/* Two readers; trylock, so that lockdep allows the second. */
	if (!psem_read_trylock(&fix->rw) || !psem_read_trylock(&fix->rw)) {
		KUNIT_FAIL(test, "read_trylock failed on a free lock");
		goto out;
	}
	rw_unlock_counted(test, &fix->rw, false, 1, 0);
	rw_unlock_counted(test, &fix->rw, false, 1, 0);

	if (!psem_write_trylock(&fix->rw)) {
		KUNIT_FAIL(test, "write_trylock failed on a free lock");
		goto out;
	}
	rw_unlock_counted(test, &fix->rw, true, 1, 0);

	psem_set_zero_release(false);
	if (!psem_write_trylock(&fix->rw)) {
		KUNIT_FAIL(test, "write_trylock failed on a free lock");
		goto out;
	}
	rw_unlock_counted(test, &fix->rw, true, 0, 1);
	psem_set_zero_release(true);

	psem_test_take(fix, PSEM_TEST_READ);
	w = psem_test_queue(test, fix, PSEM_TEST_WRITE, 1);
	if (!w)
		goto out;
	psem_stats_snapshot(&before);
	psem_test_drop(fix);
	psem_test_expect_releases(test, &before, 0, 1);
	if (!psem_test_await(test, psem_test_state(w) == PSEM_TEST_HOLDING))
		goto out;
	KUNIT_EXPECT_EQ(test, psem_available(&fix->rw.sem), 0L);
out:
	psem_test_finish(test, fix, &fix->rw.sem, RW_MAX);
}

static int rw_read_unlock_non_owner_fn(void *arg)
{
	struct psem_test_worker *t = arg;

	psem_read_unlock_non_owner(&t->fix->rw);
	psem_test_set_state(t, PSEM_TEST_FINISHED);
	return 0;
}

static unsigned long rw_unlock_non_owner(struct psem_test_fix *fix)
{
	psem_read_unlock_non_owner(&fix->rw);
	return 0;
}

static unsigned long rw_trylock_non_owner(struct psem_test_fix *fix)
{
	return !psem_read_trylock_non_owner(&fix->rw);
}

/*
 * A read hold taken by one context and released by another, through the
 * _non_owner pair: by another task, by a hard interrupt, and taken in a
 * hard interrupt for a task to release. lockdep must not see it: with the
 * owned calls (psem_read_lock() and psem_read_unlock(), which once claimed
 * "any context") it reports "bad unlock balance" and turns itself off.
 */
static void psem_rwlock_test_non_owner(struct kunit *test)
{
	struct psem_test_fix *fix = psem_test_fix_new(test, 1);
	bool locks_on = debug_locks;
	struct psem_test_worker *t;

	psem_read_lock_non_owner(&fix->rw);
	KUNIT_EXPECT_EQ(test, psem_available(&fix->rw.sem), RW_MAX - 1);
	t = psem_test_start(test, fix, rw_read_unlock_non_owner_fn, PSEM_TEST_NO_LOCK);
	if (!t || !psem_test_await(test, psem_test_state(t) == PSEM_TEST_FINISHED))
		goto out;
	KUNIT_EXPECT_EQ(test, psem_available(&fix->rw.sem), RW_MAX);

	KUNIT_ASSERT_TRUE(test, psem_read_trylock_non_owner(&fix->rw));
	KUNIT_EXPECT_EQ(test, psem_test_run_hardirq(test, fix, rw_unlock_non_owner), 0UL);
	KUNIT_EXPECT_EQ(test, psem_available(&fix->rw.sem), RW_MAX);

	KUNIT_EXPECT_EQ(test, psem_test_run_hardirq(test, fix, rw_trylock_non_owner), 0UL);
	KUNIT_EXPECT_EQ(test, psem_available(&fix->rw.sem), RW_MAX - 1);
	psem_read_unlock_non_owner(&fix->rw);
	KUNIT_EXPECT_EQ(test, psem_available(&fix->rw.sem), RW_MAX);

	/* A writer still gets in, and the owned calls still work. */
	KUNIT_EXPECT_TRUE(test, rw_try_undo(&fix->rw, true));
	KUNIT_EXPECT_EQ(test, debug_locks, locks_on);
out:
	psem_test_finish(test, fix, &fix->rw.sem, RW_MAX);
}

PSEM_TEST_FIX_SUITE("psem_rwlock", "KUnit tests for psem's rwlock",
		    psem_rwlock_test_exclusion,
		    psem_rwlock_test_writer_fairness,
		    psem_rwlock_test_downgrade,
		    psem_rwlock_test_write_interruptible,
		    psem_rwlock_test_write_killable,
		    psem_rwlock_test_trylock_atomic,
		    psem_rwlock_test_reader_limit,
		    psem_rwlock_test_read_unlock_fast_path,
		    psem_rwlock_test_non_owner);
