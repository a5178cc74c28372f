// SPDX-License-Identifier: GPL-2.0
/*
 * psem_test: the lock fixture of psem's KUnit suites and its workers
 * (struct psem_test_fix, struct psem_test_worker in psem_test.h), for the
 * suites of psem_rwlock, psem_mutex and psem_pool. Part of the library
 * module, psem_kunit_lib.ko, with psem_test_lib.c.
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
 * one copy for every suite, which is enough because the suites run one
 * module at a time (each during its insmod).
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
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_suite_init);

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
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_case_exit);

/**
 * __psem_test_fix_new() - a fixture with its rwlock and mutex initialised
 * @test:        the test case; out of memory fails it and ends it here
 * @max_workers: the most workers it will start
 * @owner:       the calling suite's module (psem_test_fix_new() passes it)
 *
 * Not kunit_kzalloc(): a fixture whose worker cannot be stopped must
 * outlive the test (see psem_test_fix_free()).
 *
 * Return: the fixture.
 */
struct psem_test_fix *__psem_test_fix_new(struct kunit *test,
					  unsigned int max_workers,
					  struct module *owner)
{
	struct psem_test_fix *fix;
	unsigned int i;

	fix = kzalloc(struct_size(fix, t, max_workers), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fix);
	fix->max = max_workers;
	fix->owner = owner;
	psem_rwlock_init(&fix->rw);
	psem_mutex_init(&fix->mx);
	spin_lock_init(&fix->atomic_lock);
	for (i = 0; i < PSEM_TEST_NR_OBJS; i++)
		fix->objp[i] = &fix->obj[i];
	return fix;
}
EXPORT_SYMBOL_PSEM_KUNIT(__psem_test_fix_new);

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
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_pool_init);

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
	kfree(fix);
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_fix_free);

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
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_start);

/* The psem under the lock that @op takes. */
static struct psem *psem_test_op_sem(struct psem_test_fix *fix,
				     enum psem_test_lock_op op)
{
	if (op <= PSEM_TEST_WRITE_KILL)
		return &fix->rw.sem;
	if (op <= PSEM_TEST_MUTEX_KILL)
		return &fix->mx.sem;
	return &fix->pool.sem;
}

/**
 * psem_test_queue() - start a step worker and wait until it waits
 * @test: the test case
 * @fix:  the fixture it works on
 * @op:   the lock call it makes, which must make it wait
 * @nr:   the waiters the lock must then have, the worker the last
 *
 * Return: the worker, waiting in @op; NULL (and the test failed) if it
 * could not be started or did not queue.
 */
struct psem_test_worker *psem_test_queue(struct kunit *test,
					 struct psem_test_fix *fix,
					 enum psem_test_lock_op op,
					 unsigned int nr)
{
	struct psem *sem = psem_test_op_sem(fix, op);
	struct psem_test_worker *w;

	w = psem_test_start(test, fix, psem_test_step_fn, op);
	if (!w || !psem_test_await(test, psem_test_nr_waiters(sem) == nr))
		return NULL;
	return w;
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_queue);

/**
 * psem_test_queue_all() - queue step workers, one after another
 * @test: the test case
 * @fix:  the fixture they work on, whose lock nobody waits for yet
 * @ops:  the lock call of each, in FIFO order; each must make it wait
 * @n:    how many
 * @w:    the workers: @w[i] makes @ops[i] and is waiter i + 1
 *
 * Return: true if all of them wait, in that order; false (and the test
 * failed) if one could not be started or did not queue.
 */
bool psem_test_queue_all(struct kunit *test, struct psem_test_fix *fix,
			 const enum psem_test_lock_op ops[], unsigned int n,
			 struct psem_test_worker *w[])
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		w[i] = psem_test_queue(test, fix, ops[i], i + 1);
		if (!w[i])
			return false;
	}
	return true;
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_queue_all);

/*
 * Starts @per_cpu stress workers running @fn on every online CPU. Returns
 * true if all of them started; if not, the test has failed and those that
 * did start run anyway, for psem_test_stop_all() to wait for.
 */
static bool psem_test_start_per_cpu(struct kunit *test,
				    struct psem_test_fix *fix,
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
 * after that are leaked, fixture and all, and pin this module and the
 * suite's: they sleep with return addresses in either.
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
			if (!fix->leak) {
				__module_get(THIS_MODULE);
				__module_get(fix->owner);
			}
			fix->leak = true;
			continue;
		}
		kthread_stop(w->task);
		put_task_struct(w->task);
		w->task = NULL;
	}
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_stop_all);

/**
 * psem_test_finish() - end a fixture's case
 * @test: the test case
 * @fix:  the fixture; freed, unless leaked
 * @sem:  the psem under the lock the case used
 * @full: the balance @sem must be back to
 *
 * Drops what the test still holds (psem_test_take()), stops the workers,
 * expects @sem to hold @full with no waiter, and frees the fixture.
 */
void psem_test_finish(struct kunit *test, struct psem_test_fix *fix,
		      struct psem *sem, long full)
{
	psem_test_drop(fix);
	psem_test_stop_all(test, fix);
	if (!fix->leak) {
		KUNIT_EXPECT_EQ(test, psem_available(sem), full);
		KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(sem), 0U);
	}
	psem_test_fix_free(test, fix);
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_finish);

/* Takes @fix's lock as @op says; a pool get stores its object in @obj. */
static int psem_test_lock(struct psem_test_fix *fix,
			  enum psem_test_lock_op op, void **obj)
{
	enum psem_test_wait how = psem_test_op_wait(op);

	switch (op) {
	case PSEM_TEST_READ ... PSEM_TEST_READ_KILL:
		return PSEM_TEST_LOCK_AS(psem_read_, &fix->rw, how);
	case PSEM_TEST_WRITE ... PSEM_TEST_WRITE_KILL:
		return PSEM_TEST_LOCK_AS(psem_write_, &fix->rw, how);
	case PSEM_TEST_MUTEX ... PSEM_TEST_MUTEX_KILL:
		return PSEM_TEST_LOCK_AS(psem_mutex_, &fix->mx, how);
	case PSEM_TEST_GET:
		*obj = psem_pool_get(&fix->pool);
		return 0;
	case PSEM_TEST_GET_INTR:
		return psem_pool_get_interruptible(&fix->pool, obj);
	case PSEM_TEST_GET_KILL:
		return psem_pool_get_killable(&fix->pool, obj);
	default:
		return -EINVAL;
	}
}

/*
 * Releases what psem_test_lock() took for @op (nothing for
 * PSEM_TEST_NO_LOCK). Returns psem_pool_put()'s result for a pool op, else 0.
 */
static int psem_test_unlock(struct psem_test_fix *fix,
			    enum psem_test_lock_op op, void *obj)
{
	switch (op) {
	case PSEM_TEST_READ ... PSEM_TEST_READ_KILL:
		psem_read_unlock(&fix->rw);
		return 0;
	case PSEM_TEST_WRITE ... PSEM_TEST_WRITE_KILL:
		psem_write_unlock(&fix->rw);
		return 0;
	case PSEM_TEST_MUTEX ... PSEM_TEST_MUTEX_KILL:
		psem_mutex_unlock(&fix->mx);
		return 0;
	case PSEM_TEST_GET ... PSEM_TEST_GET_KILL:
		return psem_pool_put(&fix->pool, obj);
	default:
		return 0;
	}
}

/**
 * psem_test_take() - the test itself takes a lock of the fixture
 * @fix: the fixture
 * @op:  PSEM_TEST_READ, PSEM_TEST_WRITE or PSEM_TEST_MUTEX
 *
 * psem_test_drop() releases it, or psem_test_finish() if the test has not.
 */
void psem_test_take(struct psem_test_fix *fix, enum psem_test_lock_op op)
{
	psem_test_lock(fix, op, NULL);	/* a plain lock call: cannot fail */
	fix->held = op;
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_take);

/**
 * psem_test_drop() - release what the test holds, if anything
 * @fix: the fixture; @fix->held says what the test holds
 */
void psem_test_drop(struct psem_test_fix *fix)
{
	psem_test_unlock(fix, fix->held, NULL);
	fix->held = PSEM_TEST_NO_LOCK;
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_drop);

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
	w->ret = psem_test_lock(w->fix, w->op, &w->obj);
	if (!w->ret) {
		w->order = atomic_inc_return(&w->fix->seq);
		psem_test_set_state(w, PSEM_TEST_HOLDING);
		psem_test_wait_go(w);
		if (psem_test_unlock(w->fix, w->op, w->obj))
			w->errors++;
	}
	psem_test_set_state(w, PSEM_TEST_FINISHED);
	return 0;
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_step_fn);

/*
 * Waits for the stress workers to finish; @fix->progress counts their
 * iterations. A hang is no progress for the hang guard, or (a livelock,
 * such as getters spinning for an object that was lost) not being finished
 * after PSEM_TEST_STRESS_MS, many times what a healthy run takes. Either
 * fails the test. Returns whether they all finished.
 */
static bool psem_test_wait_stress(struct kunit *test, struct psem_test_fix *fix)
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

/* A stress worker: @fix->iters turns of @fix->once, counted in @progress. */
static int psem_test_stress_fn(void *arg)
{
	struct psem_test_worker *w = arg;
	struct psem_test_fix *fix = w->fix;
	unsigned int i;

	for (i = 0; i < fix->iters; i++) {
		fix->once(w, i);
		atomic_long_inc(&fix->progress);
	}
	psem_test_set_state(w, PSEM_TEST_FINISHED);
	return 0;
}

/**
 * psem_test_stress() - run stress workers on every CPU, and sum them up
 * @test:    the test case
 * @fix:     the fixture they work on
 * @once:    one iteration of a worker, the @i-th; counts what goes wrong in
 *           the worker's @errors
 * @iters:   iterations per worker
 * @per_cpu: how many workers on each online CPU
 * @sums:    set to what they recorded, if they all finished
 *
 * Expects none of them to have counted an error.
 *
 * Return: whether they all started and finished (if not, the test has
 * failed); the caller stops them with psem_test_stop_all() either way.
 */
bool psem_test_stress(struct kunit *test, struct psem_test_fix *fix,
		      void (*once)(struct psem_test_worker *w, unsigned int i),
		      unsigned int iters, unsigned int per_cpu,
		      struct psem_test_sums *sums)
{
	unsigned long errors = 0;
	unsigned int i;

	fix->once = once;
	fix->iters = iters;
	if (!psem_test_start_per_cpu(test, fix, psem_test_stress_fn, per_cpu) ||
	    !psem_test_wait_stress(test, fix))
		return false;
	*sums = (struct psem_test_sums){};
	for (i = 0; i < fix->nr; i++) {
		errors += fix->t[i].errors;
		sums->got += fix->t[i].got;
		sums->misses += fix->t[i].misses;
		sums->max_readers = max(sums->max_readers,
					fix->t[i].max_readers);
	}
	KUNIT_EXPECT_EQ(test, errors, 0UL);
	return true;
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_stress);

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
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_run_atomic);

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
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_run_hardirq);
