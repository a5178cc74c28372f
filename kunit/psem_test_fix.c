// SPDX-License-Identifier: GPL-2.0
/*
 * psem_test: the lock fixture of psem's KUnit suites and its workers
 * (struct psem_test_fix, struct psem_test_worker in psem_test.h), for the
 * suites of psem_rwlock, psem_mutex and psem_pool. kunit/Kbuild links a
 * copy of this file into each of their modules, beside psem_test_lib.c's.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/signal.h>
#include <linux/slab.h>

#include "psem_test.h"

/*
 * What psem_test_suite_init() saw, for psem_test_case_exit() to restore:
 * one copy per module, as this file is linked into each.
 */
static bool saved_fast, saved_flag, saved_zero, saved_stats;

/**
 * psem_test_suite_init() - a suite's .suite_init: note the switches
 * @suite: the suite
 *
 * Return: 0.
 */
int psem_test_suite_init(struct kunit_suite *suite)
{
	saved_fast = psem_fast_release_enabled();
	saved_flag = psem_contention_flag_enabled();
	saved_zero = psem_zero_release_enabled();
	saved_stats = psem_stats_enabled();
	return 0;
}

/**
 * psem_test_case_exit() - a suite's .exit: restore the switches
 * @test: the test case, even one that failed an assertion
 *
 * Puts back what psem_test_suite_init() saw, and loud warnings.
 */
void psem_test_case_exit(struct kunit *test)
{
	psem_set_quiet_warnings(false);
	psem_set_fast_release(saved_fast);
	psem_set_contention_flag(saved_flag);
	psem_set_zero_release(saved_zero);
	psem_set_stats(saved_stats);
}

/**
 * psem_test_fix_new() - a fixture with its rwlock and mutex initialised
 * @max_workers: the most workers it will start
 *
 * Not kunit_kzalloc(): a fixture whose worker cannot be stopped must
 * outlive the test (see psem_test_fix_free()).
 *
 * Return: the fixture, or NULL if out of memory.
 */
struct psem_test_fix *psem_test_fix_new(unsigned int max_workers)
{
	struct psem_test_fix *fix = kzalloc(sizeof(*fix), GFP_KERNEL);
	unsigned int i;

	if (!fix)
		return NULL;
	fix->t = kcalloc(max_workers, sizeof(*fix->t), GFP_KERNEL);
	if (!fix->t) {
		kfree(fix);
		return NULL;
	}
	fix->max = max_workers;
	psem_rwlock_init(&fix->rw);
	psem_mutex_init(&fix->mx);
	spin_lock_init(&fix->atomic_lock);
	for (i = 0; i < PSEM_TEST_NR_OBJS; i++)
		fix->objp[i] = &fix->obj[i];
	return fix;
}

/**
 * psem_test_pool_init() - initialise the fixture's pool on its objects
 * @fix:      the fixture
 * @capacity: the pool's capacity, PSEM_TEST_NR_OBJS at most
 *
 * Return: psem_pool_init()'s result.
 */
int psem_test_pool_init(struct psem_test_fix *fix, unsigned int capacity)
{
	int ret = psem_pool_init(&fix->pool, fix->objp, capacity, GFP_KERNEL);

	fix->pool_live = !ret;
	return ret;
}

/**
 * psem_test_fix_free() - free a fixture, unless a stuck worker may use it
 * @test: the test case
 * @fix:  the fixture, its workers stopped by psem_test_stop_all()
 */
void psem_test_fix_free(struct kunit *test, struct psem_test_fix *fix)
{
	if (fix->leak) {
		kunit_err(test, "leaking the fixture of a stuck kthread\n");
		return;
	}
	if (fix->pool_live)
		psem_pool_destroy(&fix->pool);
	kfree(fix->t);
	kfree(fix);
}

/* Creates a worker, bound to @cpu unless it is negative; does not wake it. */
static struct psem_test_worker *
psem_test_create(struct kunit *test, struct psem_test_fix *fix,
		 int (*fn)(void *), enum psem_test_lock_op op, int cpu)
{
	struct task_struct *task;
	struct psem_test_worker *w;

	if (fix->nr == fix->max) {
		KUNIT_FAIL(test, "no room for kthread %u", fix->nr);
		return NULL;
	}
	w = &fix->t[fix->nr];
	w->fix = fix;
	w->op = op;
	w->id = fix->nr;
	w->obj = PSEM_TEST_NO_OBJ;
	if (cpu < 0)
		task = kthread_create(fn, w, "psem_pt/%u", w->id);
	else
		task = kthread_create_on_cpu(fn, w, cpu, "psem_pt/%u");
	if (IS_ERR(task)) {
		KUNIT_FAIL(test, "kthread_create: %ld", PTR_ERR(task));
		return NULL;
	}
	/* It may exit before kthread_stop(): keep its task_struct. */
	get_task_struct(task);
	w->task = task;
	fix->nr++;
	return w;
}

/**
 * psem_test_start() - start a worker
 * @test: the test case
 * @fix:  the fixture it works on
 * @fn:   its function, such as psem_test_step_fn(); gets the worker
 * @op:   what a step worker does
 *
 * Return: the worker, running; NULL (and the test failed) if it could not
 * be started.
 */
struct psem_test_worker *psem_test_start(struct kunit *test,
					 struct psem_test_fix *fix,
					 int (*fn)(void *),
					 enum psem_test_lock_op op)
{
	struct psem_test_worker *w = psem_test_create(test, fix, fn, op, -1);

	if (w)
		wake_up_process(w->task);
	return w;
}

/**
 * psem_test_start_per_cpu() - start stress workers on every online CPU
 * @test:    the test case
 * @fix:     the fixture they work on
 * @fn:      their function; gets the worker
 * @per_cpu: how many on each CPU
 *
 * Return: true if all of them started; if not, the test has failed and
 * those that did start run anyway, for psem_test_stop_all() to wait for.
 */
bool psem_test_start_per_cpu(struct kunit *test, struct psem_test_fix *fix,
			     int (*fn)(void *), unsigned int per_cpu)
{
	unsigned int cpu, i;
	bool ok = true;

	for_each_online_cpu(cpu)
		for (i = 0; ok && i < per_cpu; i++)
			ok = psem_test_create(test, fix, fn, PSEM_TEST_NO_LOCK,
					      cpu);
	for (i = 0; i < fix->nr; i++)
		wake_up_process(fix->t[i].task);
	return ok;
}

static bool psem_test_all_finished(struct psem_test_fix *fix)
{
	unsigned int i;

	for (i = 0; i < fix->nr; i++)
		if (psem_test_state(&fix->t[i]) != PSEM_TEST_FINISHED)
			return false;
	return true;
}

/* Waits up to the hang guard in all for every worker to be finished. */
static bool psem_test_all_finished_within(struct psem_test_fix *fix)
{
	return psem_test_wait_for(psem_test_all_finished(fix));
}

/**
 * psem_test_stop_all() - tell every worker to finish, and reap it
 * @test: the test case
 * @fix:  the fixture
 *
 * Workers that do not finish fail the case and get a SIGKILL (every worker
 * allows it) in case they are stuck in a killable wait. Any still stuck
 * after that are leaked, fixture and all, and pin this module: they sleep
 * with return addresses in it.
 */
void psem_test_stop_all(struct kunit *test, struct psem_test_fix *fix)
{
	unsigned int i;

	for (i = 0; i < fix->nr; i++)
		psem_test_go(&fix->t[i]);
	if (!psem_test_all_finished_within(fix)) {
		KUNIT_FAIL(test, "kthreads do not finish");
		for (i = 0; i < fix->nr; i++)
			if (fix->t[i].task &&
			    psem_test_state(&fix->t[i]) != PSEM_TEST_FINISHED)
				send_sig(SIGKILL, fix->t[i].task, 1);
		psem_test_all_finished_within(fix);
	}
	for (i = 0; i < fix->nr; i++) {
		struct psem_test_worker *w = &fix->t[i];

		if (!w->task)
			continue;
		if (psem_test_state(w) != PSEM_TEST_FINISHED) {
			if (!fix->leak)
				__module_get(THIS_MODULE);
			fix->leak = true;
			continue;
		}
		kthread_stop(w->task);
		put_task_struct(w->task);
		w->task = NULL;
	}
}

/**
 * psem_test_finish() - end a fixture's case
 * @test: the test case
 * @fix:  the fixture; freed, unless leaked
 * @sem:  the psem under the lock the case used
 * @full: the balance @sem must be back to
 *
 * Stops the workers, expects @sem to hold @full with no waiter, and frees
 * the fixture.
 */
void psem_test_finish(struct kunit *test, struct psem_test_fix *fix,
		      struct psem *sem, long full)
{
	psem_test_stop_all(test, fix);
	if (!fix->leak) {
		KUNIT_EXPECT_EQ(test, psem_available(sem), full);
		KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(sem), 0U);
	}
	psem_test_fix_free(test, fix);
}

static int psem_test_lock(struct psem_test_worker *w)
{
	struct psem_test_fix *fix = w->fix;

	switch (w->op) {
	case PSEM_TEST_READ:
		psem_read_lock(&fix->rw);
		return 0;
	case PSEM_TEST_READ_INTR:
		return psem_read_lock_interruptible(&fix->rw);
	case PSEM_TEST_READ_KILL:
		return psem_read_lock_killable(&fix->rw);
	case PSEM_TEST_WRITE:
		psem_write_lock(&fix->rw);
		return 0;
	case PSEM_TEST_WRITE_INTR:
		return psem_write_lock_interruptible(&fix->rw);
	case PSEM_TEST_WRITE_KILL:
		return psem_write_lock_killable(&fix->rw);
	case PSEM_TEST_MUTEX:
		psem_mutex_lock(&fix->mx);
		return 0;
	case PSEM_TEST_MUTEX_INTR:
		return psem_mutex_lock_interruptible(&fix->mx);
	case PSEM_TEST_MUTEX_KILL:
		return psem_mutex_lock_killable(&fix->mx);
	case PSEM_TEST_GET:
		w->obj = psem_pool_get(&fix->pool);
		return 0;
	case PSEM_TEST_GET_INTR:
		return psem_pool_get_interruptible(&fix->pool, &w->obj);
	case PSEM_TEST_GET_KILL:
		return psem_pool_get_killable(&fix->pool, &w->obj);
	default:
		return -EINVAL;
	}
}

static void psem_test_unlock(struct psem_test_worker *w)
{
	struct psem_test_fix *fix = w->fix;

	switch (w->op) {
	case PSEM_TEST_READ:
	case PSEM_TEST_READ_INTR:
	case PSEM_TEST_READ_KILL:
		psem_read_unlock(&fix->rw);
		break;
	case PSEM_TEST_WRITE:
	case PSEM_TEST_WRITE_INTR:
	case PSEM_TEST_WRITE_KILL:
		psem_write_unlock(&fix->rw);
		break;
	case PSEM_TEST_MUTEX:
	case PSEM_TEST_MUTEX_INTR:
	case PSEM_TEST_MUTEX_KILL:
		psem_mutex_unlock(&fix->mx);
		break;
	default:
		if (psem_pool_put(&fix->pool, w->obj))
			w->errors++;
		break;
	}
}

/* Holds until the test says go; bounded in case the test died. */
static void psem_test_wait_go(struct psem_test_worker *w)
{
	unsigned long end = jiffies + msecs_to_jiffies(PSEM_TEST_HOLD_MS);

	while (!atomic_read_acquire(&w->go) && time_before(jiffies, end))
		psem_test_nap();
}

/**
 * psem_test_step_fn() - a step worker: one lock call, recorded
 * @arg: the worker
 *
 * Takes the lock its @op names, records the result and, if it got in,
 * the order it got in; holds the lock until psem_test_go(); releases it.
 *
 * Return: 0.
 */
int psem_test_step_fn(void *arg)
{
	struct psem_test_worker *w = arg;

	/* A kthread ignores every signal it does not allow. */
	allow_signal(SIGUSR1);
	allow_signal(SIGKILL);
	w->ret = psem_test_lock(w);
	if (!w->ret) {
		w->order = atomic_inc_return(&w->fix->seq);
		psem_test_set_state(w, PSEM_TEST_HOLDING);
		psem_test_wait_go(w);
		psem_test_unlock(w);
	}
	psem_test_set_state(w, PSEM_TEST_FINISHED);
	return 0;
}

/**
 * psem_test_wait_stress() - wait for the stress workers to finish
 * @test: the test case
 * @fix:  the fixture; its @progress counts the workers' iterations
 *
 * A hang is no progress for the hang guard, or (a livelock, such as getters
 * spinning for an object that was lost) not being finished after
 * PSEM_TEST_STRESS_MS, many times what a healthy run takes. Either fails
 * the test.
 *
 * Return: whether they all finished.
 */
bool psem_test_wait_stress(struct kunit *test, struct psem_test_fix *fix)
{
	unsigned long start = jiffies, idle_since = jiffies;
	long last = -1;

	while (!psem_test_all_finished(fix)) {
		long now = atomic_long_read(&fix->progress);

		if (now != last) {
			last = now;
			idle_since = jiffies;
		}
		if (time_after(jiffies, idle_since + PSEM_TEST_HANG_GUARD) ||
		    time_after(jiffies, start +
			       msecs_to_jiffies(PSEM_TEST_STRESS_MS))) {
			KUNIT_FAIL(test, "hang guard: stuck at %ld iterations",
				   now);
			return false;
		}
		msleep(20);
	}
	return true;
}

/**
 * psem_test_sum() - sum what the stress workers recorded
 * @fix:         the fixture
 * @errors:      the sum of their @errors
 * @got:         the sum of their @got
 * @misses:      the sum of their @misses
 * @max_readers: the largest of their @max_readers
 */
void psem_test_sum(struct psem_test_fix *fix, unsigned long *errors,
		   unsigned long *got, unsigned long *misses,
		   int *max_readers)
{
	unsigned int i;

	*errors = 0;
	*got = 0;
	*misses = 0;
	*max_readers = 0;
	for (i = 0; i < fix->nr; i++) {
		*errors += fix->t[i].errors;
		*got += fix->t[i].got;
		*misses += fix->t[i].misses;
		*max_readers = max(*max_readers, fix->t[i].max_readers);
	}
}

/**
 * psem_test_run_atomic() - run a function under a spinlock, irqs off
 * @fix: the fixture, passed to @fn
 * @fn:  the function; returns how many of its checks went wrong
 *
 * Return: @fn's result.
 */
unsigned long psem_test_run_atomic(struct psem_test_fix *fix,
				   unsigned long (*fn)(struct psem_test_fix *fix))
{
	unsigned long flags, bad;

	spin_lock_irqsave(&fix->atomic_lock, flags);
	bad = fn(fix);
	spin_unlock_irqrestore(&fix->atomic_lock, flags);
	return bad;
}

static void psem_test_irq_fn(struct irq_work *work)
{
	struct psem_test_irq *p = container_of(work, struct psem_test_irq,
					       work);

	p->hardirq = in_hardirq();
	p->bad = p->fn(p->fix);
}

/**
 * psem_test_run_hardirq() - run a function in hard interrupt context
 * @test: the test case
 * @fix:  the fixture, passed to @fn
 * @fn:   the function; returns how many of its checks went wrong
 *
 * Runs @fn in an irq_work callback: hard interrupt context (a HARD
 * irq_work, also on PREEMPT_RT), which the case expects rather than
 * assumes.
 *
 * Return: @fn's result.
 */
unsigned long psem_test_run_hardirq(struct kunit *test,
				    struct psem_test_fix *fix,
				    unsigned long (*fn)(struct psem_test_fix *fix))
{
	struct psem_test_irq *p = &fix->irq;

	p->fix = fix;
	p->fn = fn;
	p->bad = ~0UL;
	/* HARD: on PREEMPT_RT a plain irq_work would run in a kthread. */
	p->work = IRQ_WORK_INIT_HARD(psem_test_irq_fn);
	irq_work_queue(&p->work);
	irq_work_sync(&p->work);
	KUNIT_EXPECT_TRUE(test, p->hardirq);
	return p->bad;
}
