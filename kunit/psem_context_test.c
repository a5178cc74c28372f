// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for releases from contexts where the queue lock, a
 * spinlock_t, may not be taken: hard-only interrupts (a _HARD hrtimer, a
 * hard irq_work) on every kernel, as lockdep's PROVE_RAW_LOCK_NESTING and
 * PREEMPT_RT see them.
 *
 *   psem_context  a release that must hand permits to a waiter, from a
 *                 _HARD hrtimer and from a hard irq_work: the waiter is
 *                 served through the deferred hand-off, exactly, and
 *                 lockdep reports nothing; a lock-free release there
 *                 defers nothing; a rwlock write trylock and unlock in
 *                 one hard-only interrupt with a reader queued meanwhile;
 *                 the calls that cannot defer refuse such a context,
 *                 counted, with one line and no backtrace; a deferred
 *                 release that pays a resize's debt; a parked permit in
 *                 flight (not available, held, not taken by a try); a
 *                 pool destroyed and freed right after a put from such
 *                 an interrupt handed its object over
 *
 * NMI, the other such context, has its own suite, psem_nmi.
 */

#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/module.h>
#include <linux/smp.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_pool.h"
#include "psem_rwlock.h"
#include "psem_sem.h"
#include "psem_test.h"

/*
 * Whether psem defers a locked release from a hard-only interrupt on this
 * kernel (kmod/psem_queue.h, psem_lock_forbidden()).
 */
static bool context_defers(void)
{
	return IS_ENABLED(CONFIG_PREEMPT_RT) ||
	       IS_ENABLED(CONFIG_PROVE_RAW_LOCK_NESTING);
}

/* A hard-only interrupt that runs @fn once: a _HARD hrtimer or a hard irq_work. */
struct context_irq {
	struct hrtimer	timer;
	struct irq_work	work;
	struct psem	*sem;
	struct psem_rwlock *lock;
	void		*obj;		/* what a pool put puts */
	long		n;
	int		ret;
	int		ret2;
	bool		hard;		/* in_hardirq() when it ran */
	bool		ready;		/* the reader spins, release-published */
	bool		locked;		/* the writer holds, release-published */
	bool		fired;		/* release-published */
	void		(*fn)(struct context_irq *p);
};

static void context_fire(struct context_irq *p)
{
	p->hard = in_hardirq();
	p->fn(p);
	smp_store_release(&p->fired, true);	/* pairs with context_wait() */
}

static enum hrtimer_restart context_timer_fn(struct hrtimer *timer)
{
	context_fire(container_of(timer, struct context_irq, timer));
	return HRTIMER_NORESTART;
}

static void context_work_fn(struct irq_work *work)
{
	context_fire(container_of(work, struct context_irq, work));
}

static bool context_wait(struct context_irq *p)
{
	/* Pairs with context_fire(). */
	return psem_test_wait_for(smp_load_acquire(&p->fired));
}

static struct context_irq *context_irq(struct kunit *test, struct psem *sem, long n,
				       void (*fn)(struct context_irq *p))
{
	struct context_irq *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->sem = sem;
	p->n = n;
	p->fn = fn;
	hrtimer_setup(&p->timer, context_timer_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_HARD);
	p->work = IRQ_WORK_INIT_HARD(context_work_fn);
	return p;
}

/*
 * A millisecond, not less: with the timer re-armed a microsecond ahead,
 * over and over, make check's guests on a loaded host hung silently in
 * this suite (no watchdog fired), which points at the emulated local APIC
 * timer rather than psem; a millisecond ahead they did not.
 */
#define PCT_DELAY_NS	NSEC_PER_MSEC

static void context_start_timer(struct context_irq *p)
{
	hrtimer_start(&p->timer, ns_to_ktime(PCT_DELAY_NS), HRTIMER_MODE_REL_HARD);
}

/* On the CPU it is called on, by smp_call_function_single(). */
static void context_start_pinned(void *data)
{
	struct context_irq *p = data;

	hrtimer_start(&p->timer, ns_to_ktime(PCT_DELAY_NS),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

/*
 * Fires @p once, from its _HARD hrtimer if @timer, else from its hard
 * irq_work, and waits until it has run and returned.
 */
static void context_run(struct kunit *test, struct context_irq *p, bool timer)
{
	WRITE_ONCE(p->fired, false);
	if (timer)
		context_start_timer(p);
	else
		KUNIT_ASSERT_TRUE(test, irq_work_queue(&p->work));
	KUNIT_ASSERT_TRUE(test, context_wait(p));
	if (timer)
		hrtimer_cancel(&p->timer);
	else
		irq_work_sync(&p->work);
}

static void context_release(struct context_irq *p)
{
	p->ret = psem_release(p->sem, p->n);
}

/*
 * A task waits for @n; a hard-only interrupt, from a _HARD hrtimer if
 * @timer, else from a hard irq_work, releases @n. The release must hand
 * them over, which needs the queue lock: it defers to the irq_work, which
 * serves the waiter. Before the deferral lockdep printed "BUG: Invalid
 * wait context" here (make check fails on any such report).
 */
static void context_release_to_waiter(struct kunit *test, long n, bool timer)
{
	struct psem *sem = psem_test_sem(test, 0);
	struct context_irq *p = context_irq(test, sem, n, context_release);
	struct psem_test_thread *w;

	psem_test_stats_start();
	w = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, n, 1);
	context_run(test, p, timer);
	KUNIT_EXPECT_TRUE(test, p->hard);
	KUNIT_EXPECT_EQ(test, p->ret, 0);
	PSEM_TEST_EXPECT_RETURNS(test, w, 0);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_DEFERRED, context_defers() ? 1 : 0);
	psem_sync(sem);
	KUNIT_EXPECT_EQ(test, psem_release(sem, n), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, n);
}

PSEM_TEST_CASE_OF(psem_test_release_hard_timer, context_release_to_waiter,
		  2, true)
/* The same from a hard irq_work (IRQ_WORK_INIT_HARD). */
PSEM_TEST_CASE_OF(psem_test_release_hard_irq_work, context_release_to_waiter,
		  1, false)

/*
 * Nobody waits: the release is one lock-free exchange, legal anywhere, and
 * defers nothing.
 */
static void psem_test_release_hard_lock_free(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 1);
	struct context_irq *p = context_irq(test, sem, 3, context_release);

	psem_test_stats_start();
	context_run(test, p, true);
	KUNIT_EXPECT_EQ(test, p->ret, 0);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 1);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_DEFERRED, 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 4);
}

/*
 * Twenty hard releases racing a waiter that keeps coming back: every permit
 * arrives exactly once, whether lock-free, locked or deferred.
 */
static void psem_test_release_hard_many(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 0);
	struct context_irq *p = context_irq(test, sem, 1, context_release);
	const struct psem_test_thread tmpl = {
		.fn = psem_test_waiter_fn, .sem = sem, .n = 1, .op = PSEM_TEST_ACQUIRE,
	};
	int i;

	for (i = 0; i < 20; i++) {
		struct psem_test_thread *w = psem_test_spawn(test, &tmpl, -1);

		context_run(test, p, true);
		KUNIT_EXPECT_EQ(test, p->ret, 0);
		PSEM_TEST_EXPECT_RETURNS(test, w, 0);
		psem_test_reap(test, w);
	}
	psem_sync(sem);
	PSEM_TEST_EXPECT_IDLE(test, sem, 0);
}

static void context_write_trylock_unlock(struct context_irq *p)
{
	unsigned long end = jiffies + 5 * HZ;

	p->ret = psem_write_trylock(p->lock);
	if (!p->ret)
		return;
	smp_store_release(&p->locked, true);	/* pairs with context_reader_fn() */
	/* The reader on the other CPU queues behind the writer meanwhile. */
	while (!(atomic_long_read(&p->lock->sem.count) & PSEM_WAITERS) &&
	       time_before(jiffies, end))
		cpu_relax();
	p->ret2 = !!(atomic_long_read(&p->lock->sem.count) & PSEM_WAITERS);
	psem_write_unlock(p->lock);
}

/* Spins until the interrupt holds the write lock, then reads. */
static int context_reader_fn(struct psem_test_thread *t)
{
	struct context_irq *p = t->arg;
	unsigned long end = jiffies + PSEM_TEST_HANG_GUARD;

	smp_store_release(&p->ready, true);	/* pairs with the test */
	/* Pairs with the store in context_write_trylock_unlock(). */
	while (!smp_load_acquire(&p->locked) && time_before(jiffies, end))
		cpu_relax();
	psem_read_lock(p->lock);
	psem_read_unlock(p->lock);
	return 0;
}

/*
 * The rwlock's trylocks are legal in a hard-only interrupt; so is the
 * unlock, even when a reader has queued meanwhile and the unlock must hand
 * it the lock: it defers that hand-off.
 */
static void psem_test_rwlock_hard(struct kunit *test)
{
	struct psem_rwlock *lock = kunit_kzalloc(test, sizeof(*lock), GFP_KERNEL);
	struct psem_test_thread tmpl = { .fn = context_reader_fn };
	struct context_irq *p;
	struct psem_test_thread *r;
	int cpu, other;

	KUNIT_ASSERT_NOT_NULL(test, lock);
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs: the reader queues during the interrupt");
	psem_rwlock_init(lock);
	p = context_irq(test, &lock->sem, 0, context_write_trylock_unlock);
	p->lock = lock;
	tmpl.arg = p;
	cpu = cpumask_first(cpu_online_mask);
	other = cpumask_last(cpu_online_mask);
	r = psem_test_spawn(test, &tmpl, other);
	/* Pairs with the store in context_reader_fn(). */
	KUNIT_ASSERT_TRUE(test, psem_test_wait_for(smp_load_acquire(&p->ready)));
	/* The timer fires on @cpu while the reader spins on @other. */
	KUNIT_ASSERT_EQ(test, smp_call_function_single(cpu, context_start_pinned,
						       p, 1), 0);
	KUNIT_ASSERT_TRUE(test, context_wait(p));
	hrtimer_cancel(&p->timer);
	KUNIT_EXPECT_EQ(test, p->ret, 1);
	PSEM_TEST_EXPECT_RETURNS(test, r, 0);
	psem_sync(&lock->sem);
	/* The reader, spinning on the other CPU, queued within the 5 s. */
	KUNIT_EXPECT_EQ(test, p->ret2, 1);
	KUNIT_EXPECT_TRUE(test, psem_write_trylock(lock));
	psem_write_unlock(lock);
}

static void context_close(struct context_irq *p)
{
	p->ret = psem_close(p->sem);
	p->ret2 = psem_resize(p->sem, 1);
}

/*
 * psem_close() and psem_resize() take the queue lock and cannot defer:
 * where it may not be taken they refuse with -EPERM, changing nothing.
 */
static void psem_test_refuse_hard(struct kunit *test)
{
	struct psem *sem = psem_test_capped_sem(test, 2);
	struct context_irq *p;

	p = context_irq(test, sem, 0, context_close);
	psem_set_quiet_warnings(true);
	context_run(test, p, true);
	psem_set_quiet_warnings(false);
	KUNIT_EXPECT_EQ(test, p->ret, context_defers() ? -EPERM : 0);
	KUNIT_EXPECT_EQ(test, p->ret2, context_defers() ? -EPERM : 0);
	KUNIT_EXPECT_EQ(test, psem_is_closed(sem), !context_defers());
	KUNIT_EXPECT_EQ(test, psem_capacity(sem), context_defers() ? 2L : 1L);
}

/*
 * A hard-only interrupt releases 10 into a psem whose capacity a resize
 * cut from 10 to 2 with all 10 out: 8 of them pay the debt. Where the
 * release is deferred it was refused as over the capacity (-EOVERFLOW,
 * available 0, debt 8: the permits lost); it must obey the locked path's
 * rule, and does: available 2, debt 0.
 */
static void psem_test_park_pays_debt(struct kunit *test)
{
	struct psem *sem = psem_test_capped_sem(test, 10);
	struct context_irq *p;

	KUNIT_ASSERT_TRUE(test, psem_try_acquire(sem, 10));
	KUNIT_ASSERT_EQ(test, psem_resize(sem, 2), 0);
	KUNIT_ASSERT_EQ(test, psem_debt(sem), 8UL);
	p = context_irq(test, sem, 10, context_release);
	psem_test_stats_start();
	context_run(test, p, false);
	psem_sync(sem);
	KUNIT_EXPECT_EQ(test, p->ret, 0);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_DEFERRED, context_defers() ? 1 : 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 2L);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 0UL);
	KUNIT_EXPECT_EQ(test, psem_quiesce(sem, 0), 0);
}

/* What the interrupt saw of a permit it had just released. */
static void context_release_and_look(struct context_irq *p)
{
	p->ret = psem_release(p->sem, 1);
	p->n = psem_available(p->sem);
	p->ret2 = psem_is_held(p->sem) * 2 + psem_try_acquire(p->sem, 1);
}

/*
 * A task waits for the one permit; a hard-only interrupt up()s it and then
 * looks, before its hand-off can run (the irq_work cannot run while the
 * interrupt does). A parked permit is in flight: not available, the psem
 * still held, and no try can take it from the queued waiter. Before, the
 * interrupt read available 1 and not held, although a try failed.
 */
static void psem_test_parked_in_flight(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 0);
	struct context_irq *p = context_irq(test, sem, 1, context_release_and_look);
	struct psem_test_thread *w;

	w = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 1, 1);
	context_run(test, p, false);
	KUNIT_EXPECT_EQ(test, p->ret, 0);
	KUNIT_EXPECT_EQ(test, p->n, 0L);		/* available */
	KUNIT_EXPECT_EQ(test, p->ret2, 2);		/* held, try failed */
	PSEM_TEST_EXPECT_RETURNS(test, w, 0);
	psem_sync(sem);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 1), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 1);
}

static void context_reduce(struct context_irq *p)
{
	p->ret = psem_reduce(p->sem, 1);
}

/*
 * A refusal in a hard-only interrupt, with warnings on: counted, and one
 * line on the console, not a WARN and its backtrace (make check fails on a
 * "WARNING:" outside an expected window, which this case does not open).
 */
static void psem_test_refuse_hard_quietly(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 1);
	struct context_irq *p = context_irq(test, sem, 0, context_reduce);
	u64 before = psem_warn_count();

	context_run(test, p, false);
	KUNIT_EXPECT_EQ(test, p->ret, context_defers() ? -EPERM : 0);
	KUNIT_EXPECT_EQ(test, psem_warn_count() - before,
			context_defers() ? 1ULL : 0ULL);
	/* A reduce that ran took the one permit from the balance: no debt. */
	KUNIT_EXPECT_EQ(test, psem_available(sem), context_defers() ? 1L : 0L);
	KUNIT_EXPECT_EQ(test, psem_debt(sem), 0UL);
}

/* A put from a hard-only interrupt. */
static void context_pool_put(struct context_irq *p)
{
	struct psem_pool *pool = container_of(p->sem, struct psem_pool, sem);

	p->ret = psem_pool_put(pool, p->obj);
}

static int context_pool_get_put(struct psem_test_thread *t)
{
	struct psem_pool *pool = t->arg;
	void *obj = psem_pool_get(pool);

	return psem_pool_put(pool, obj);
}

#define PCT_POOL_ROUNDS	50

/*
 * A pool of one object: a task waits for it, a hard-only interrupt puts
 * it, which hands it to the task through the deferred hand-off; the task
 * puts it back, and the owner destroys and frees the pool at once. The
 * destroy must wait for the hand-off's irq_work (KASAN sees a touch of
 * the freed pool otherwise): psem_pool_destroy() syncs first.
 */
static void psem_test_pool_destroy_hard_put(struct kunit *test)
{
	static int obj;
	void *objs[1] = { &obj };
	int i;

	for (i = 0; i < PCT_POOL_ROUNDS; i++) {
		struct psem_pool *pool = kzalloc(sizeof(*pool), GFP_KERNEL);
		struct psem_test_thread tmpl = { .fn = context_pool_get_put, .n = 1 };
		struct context_irq *p;
		struct psem_test_thread *w;

		KUNIT_ASSERT_NOT_NULL(test, pool);
		KUNIT_ASSERT_EQ(test, psem_pool_init(pool, objs, 1, GFP_KERNEL), 0);
		KUNIT_ASSERT_PTR_EQ(test, psem_pool_try_get(pool), (void *)&obj);
		tmpl.sem = &pool->sem;
		tmpl.arg = pool;
		w = psem_test_spawn(test, &tmpl, -1);
		KUNIT_ASSERT_TRUE(test, psem_test_wait_for(psem_test_nr_waiters(&pool->sem) == 1));
		p = context_irq(test, &pool->sem, 1, context_pool_put);
		p->obj = &obj;
		context_run(test, p, false);
		KUNIT_EXPECT_EQ(test, p->ret, 0);
		PSEM_TEST_EXPECT_RETURNS(test, w, 0);
		psem_pool_destroy(pool);
		kfree(pool);
	}
}

PSEM_TEST_SUITE("psem_context",
		"KUnit tests for psem releases from hard-only contexts",
		psem_test_release_hard_timer, psem_test_release_hard_irq_work,
		psem_test_release_hard_lock_free, psem_test_release_hard_many,
		psem_test_rwlock_hard, psem_test_refuse_hard,
		psem_test_park_pays_debt, psem_test_parked_in_flight,
		psem_test_refuse_hard_quietly, psem_test_pool_destroy_hard_put);
