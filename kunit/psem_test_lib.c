// SPDX-License-Identifier: GPL-2.0
/*
 * psem_test: the helper library of psem's KUnit suites (see psem_test.h for
 * the rules its helpers follow); the lock fixture is in psem_test_fix.c.
 *
 * With the fixture, this is one module, psem_kunit_lib.ko, that exports its
 * functions in namespace PSEM_KUNIT: compiled once, not once per suite, and
 * loaded before the suites (the guest loads it first, modprobe by its
 * symbols). As KUnit's own helper modules do (drm_kunit_helpers), it holds
 * no suite.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/hardirq.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/signal.h>

#include "psem_test.h"

/* ==== helper threads of a test case ==== */

/*
 * A preemption point between two rounds of a helper that may never sleep.
 * User-mode Linux preempts kernel code only where preemption is enabled
 * again, never on the return from an interrupt: with one CPU, such a
 * helper keeps the test thread off it for good (KUnit's default run, UML
 * with one CPU, hung in psem_async_race). cond_resched() is empty on a
 * PREEMPT kernel.
 */
static void psem_test_yield(void)
{
	if (need_resched())
		schedule();
}

/*
 * The work of a helper without @fn: once the test posts step 1, @round
 * for passes 1 to @iters, and then on until the test posts @until (if
 * set); each pass counts as progress. It stops early once the test gives
 * up, and returns the first error a pass returned.
 */
static int psem_test_loop(struct psem_test_thread *t)
{
	unsigned int i;
	int err = 0;

	if (!psem_test_wait_step(t, 1))
		return -EINTR;
	for (i = 1; i <= t->iters ||
	     (t->until && !psem_test_step_posted(t, t->until)); i++) {
		if (psem_test_aborted(t))
			break;
		psem_test_note(&err, t->round(t, i));
		psem_test_progress(t);
		psem_test_yield();
	}
	return err;
}

static int psem_test_thread_main(void *data)
{
	struct psem_test_thread *t = data;

	/* Kthreads ignore every signal; the waiters under test must not. */
	allow_signal(SIGUSR1);
	/*
	 * allow_signal(SIGKILL) would leave a SIGKILL in the shared queue,
	 * where fatal_signal_pending() does not look: killable waits would
	 * never see it. With the default action SIGKILL is fatal, so the
	 * kernel marks it pending on this task, as for a user task.
	 */
	if (t->op == PSEM_TEST_KILLABLE)
		kernel_sigaction(SIGKILL, SIG_DFL);

	t->ret = t->fn ? t->fn(t) : psem_test_loop(t);
	t->rank = atomic_inc_return(&t->ctx->finished);
	flush_signals(current);
	/* Publishes @ret and @rank; pairs with psem_test_done(). */
	smp_store_release(&t->done, true);

	/* kthread_stop() must find this task alive: wait for it. */
	for (;;) {
		set_current_state(TASK_IDLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/**
 * psem_test_rand() - the next number of a helper's xorshift sequence
 * @state: the sequence's state, such as &psem_test_thread.seed
 *
 * Return: a pseudo-random number; the same seed gives the same sequence.
 */
u32 psem_test_rand(u32 *state)
{
	u32 x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_rand);

/**
 * psem_test_spawn() - start a helper kthread
 * @test: the test case, set up by psem_test_init()
 * @tmpl: what the helper is to do: @fn (or @round) and its inputs; copied
 * @cpu:  the CPU to bind it to, or a negative number for none
 *
 * The helper runs at once: a created kthread that never ran would make
 * kthread_stop() skip its function, and psem_test_reap() wait for nothing.
 * Fails the test if the helper cannot be started.
 *
 * Return: the helper, registered in the test's context.
 */
struct psem_test_thread *psem_test_spawn(struct kunit *test,
					 const struct psem_test_thread *tmpl,
					 int cpu)
{
	struct psem_test_ctx *ctx = test->priv;
	struct task_struct *task;
	struct psem_test_thread *t;

	KUNIT_ASSERT_LT(test, ctx->nr, PSEM_TEST_MAX_THREADS);
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	*t = *tmpl;
	t->ctx = ctx;
	t->id = ctx->nr;
	t->seed = (ctx->nr + 1) * 2654435761u;

	task = kthread_create(psem_test_thread_main, t, "psem_kt/%u", t->id);
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	if (cpu >= 0)
		kthread_bind(task, cpu);
	t->task = task;
	ctx->thread[ctx->nr++] = t;
	wake_up_process(task);
	return t;
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_spawn);

/**
 * psem_test_spawn_per_cpu() - start copies of a helper on every online CPU
 * @test:    the test case
 * @tmpl:    what each copy is to do
 * @per_cpu: how many copies to bind to each CPU
 * @max:     stop once the test has this many helpers, PSEM_TEST_MAX_THREADS
 *           at most
 *
 * Return: how many it started.
 */
unsigned int psem_test_spawn_per_cpu(struct kunit *test,
				     const struct psem_test_thread *tmpl,
				     unsigned int per_cpu, unsigned int max)
{
	struct psem_test_ctx *ctx = test->priv;
	unsigned int i, started = 0;
	int cpu;

	for_each_online_cpu(cpu)
		for (i = 0; i < per_cpu && ctx->nr < max; i++, started++)
			psem_test_spawn(test, tmpl, cpu);
	return started;
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_spawn_per_cpu);

/**
 * psem_test_wait_done() - wait for a helper to finish
 * @t: the helper
 *
 * Once the test gave up, helpers have been told to stop: this waits less
 * for each, so that a broken psem that hangs many of them fails the test
 * quickly.
 *
 * Return: true once @t is done; false if it made no progress (see
 * psem_test_progress()) for the hang guard.
 */
bool psem_test_wait_done(struct psem_test_thread *t)
{
	unsigned long guard = READ_ONCE(t->ctx->abort) ?
			      HZ : PSEM_TEST_HANG_GUARD;
	unsigned long seen = READ_ONCE(t->progress);
	unsigned long end = jiffies + guard;

	while (!psem_test_done(t)) {
		unsigned long now = READ_ONCE(t->progress);

		if (now != seen) {
			seen = now;
			end = jiffies + guard;
		} else if (time_after(jiffies, end)) {
			return false;
		}
		psem_test_nap();
	}
	return true;
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_wait_done);

/**
 * psem_test_all_done() - whether every helper of a set has finished
 * @t:  the helpers
 * @nr: how many
 *
 * Return: true once psem_test_done() holds for each.
 */
bool psem_test_all_done(struct psem_test_thread **t, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (!psem_test_done(t[i]))
			return false;
	return true;
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_all_done);

/**
 * psem_test_progress_sum() - the progress of a set of helpers, summed
 * @t:  the helpers
 * @nr: how many
 *
 * Return: the sum of their psem_test_progress() counts: it moves as long
 * as one of them does.
 */
unsigned long psem_test_progress_sum(struct psem_test_thread **t,
				     unsigned int nr)
{
	unsigned long sum = 0;
	unsigned int i;

	for (i = 0; i < nr; i++)
		sum += READ_ONCE(t[i]->progress);
	return sum;
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_progress_sum);

/**
 * psem_test_expect_all_ok() - expect every helper of the test to return 0
 * @test: the test case, its helpers reaped (psem_test_reap_all())
 */
void psem_test_expect_all_ok(struct kunit *test)
{
	struct psem_test_ctx *ctx = test->priv;
	unsigned int i;

	for (i = 0; i < ctx->nr; i++)
		KUNIT_EXPECT_EQ_MSG(test, ctx->thread[i]->ret, 0, "helper %u", i);
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_expect_all_ok);

/**
 * psem_test_unstick() - try to free a hung helper
 * @t: the helper
 *
 * Stops the loops of every helper of the test, signals @t (SIGUSR1 for an
 * interruptible wait, SIGKILL for a killable one) and releases the
 * permits it asked for on its psem.
 */
void psem_test_unstick(struct psem_test_thread *t)
{
	WRITE_ONCE(t->ctx->abort, true);
	wake_up_all(&t->ctx->step_wq);
	send_sig(SIGUSR1, t->task, 1);
	send_sig(SIGKILL, t->task, 1);
	if (t->sem && t->n > 0)
		psem_release(t->sem, t->n);
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_unstick);

/**
 * psem_test_reap() - wait for a helper to finish, and stop it
 * @test: the test case
 * @t:    the helper; nothing happens if it was reaped already
 *
 * A hung helper fails the test and is unstuck; one that stays hung is
 * leaked, since kthread_stop() would hang the test runner too.
 */
void psem_test_reap(struct kunit *test, struct psem_test_thread *t)
{
	if (!t->task)
		return;
	if (!psem_test_wait_done(t)) {
		KUNIT_FAIL(test, "helper %u hung", t->id);
		psem_test_unstick(t);
		if (!psem_test_wait_done(t)) {
			kunit_err(test, "leaking hung helper %u\n", t->id);
			t->task = NULL;
			return;
		}
	}
	kthread_stop(t->task);
	t->task = NULL;
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_reap);

/**
 * psem_test_reap_all() - psem_test_reap() every helper of the test
 * @test: the test case
 */
void psem_test_reap_all(struct kunit *test)
{
	struct psem_test_ctx *ctx = test->priv;
	unsigned int i;

	for (i = 0; i < ctx->nr; i++)
		psem_test_reap(test, ctx->thread[i]);
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_reap_all);

/**
 * psem_test_post_step() - let the helpers waiting for up to @step go on
 * @ctx:  the test's context
 * @step: the step reached; steps only grow
 */
void psem_test_post_step(struct psem_test_ctx *ctx, unsigned int step)
{
	/* Orders the test's set-up before the helpers' work on it. */
	smp_store_release(&ctx->step, step);
	wake_up_all(&ctx->step_wq);
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_post_step);

/**
 * psem_test_wait_step() - sleep until the test posts a step
 * @t:    the helper that waits
 * @step: the step to wait for
 *
 * Return: true once @step is posted; false if the test gave up instead.
 */
bool psem_test_wait_step(struct psem_test_thread *t, unsigned int step)
{
	struct psem_test_ctx *ctx = t->ctx;

	/* Pairs with psem_test_post_step(). */
	wait_event_idle(ctx->step_wq, smp_load_acquire(&ctx->step) >= step ||
			READ_ONCE(ctx->abort));
	return !READ_ONCE(ctx->abort);
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_wait_step);

/* The switches every case of a psem_test_init() suite starts from. */
static void psem_test_defaults(void)
{
	psem_set_quiet_warnings(false);
	psem_set_fast_release(true);
	psem_set_zero_release(true);
	psem_set_contention_flag(true);
	psem_set_stats(false);
}

/**
 * psem_test_init() - a suite's .init: a fresh context, default switches
 * @test: the test case
 *
 * Return: 0, or -ENOMEM.
 */
int psem_test_init(struct kunit *test)
{
	struct psem_test_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx),
						  GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	atomic_set(&ctx->finished, 0);
	init_waitqueue_head(&ctx->step_wq);
	test->priv = ctx;
	psem_test_defaults();
	return 0;
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_init);

/**
 * psem_test_exit() - a suite's .exit: reap every helper, default switches
 * @test: the test case, even one an assertion aborted
 */
void psem_test_exit(struct kunit *test)
{
	struct psem_test_ctx *ctx = test->priv;

	/* Helpers still running here mean the test was aborted. */
	WRITE_ONCE(ctx->abort, true);
	wake_up_all(&ctx->step_wq);
	psem_test_reap_all(test);
	psem_test_defaults();
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_exit);

/* ==== waiters and a psem's state ==== */

/**
 * psem_test_waiter_fn() - a helper's function: one acquire, as @t->op says
 * @t: the helper: @sem, @n, @op and, for PSEM_TEST_TIMEOUT, @timeout
 *
 * Return: the acquire's result.
 */
int psem_test_waiter_fn(struct psem_test_thread *t)
{
	switch (t->op) {
	case PSEM_TEST_ACQUIRE:
		return psem_acquire(t->sem, t->n);
	case PSEM_TEST_INTERRUPTIBLE:
		return psem_acquire_interruptible(t->sem, t->n);
	case PSEM_TEST_KILLABLE:
		return psem_acquire_killable(t->sem, t->n);
	case PSEM_TEST_TIMEOUT:
		return psem_acquire_timeout(t->sem, t->n, t->timeout);
	}
	return -EINVAL;
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_waiter_fn);

/**
 * psem_test_waiter() - start a helper that acquires once
 * @test:    the test case
 * @sem:     the psem
 * @op:      which acquire to call
 * @n:       how many permits to ask for
 * @timeout: for PSEM_TEST_TIMEOUT, in jiffies
 *
 * Return: the helper, running.
 */
struct psem_test_thread *psem_test_waiter(struct kunit *test,
					  struct psem *sem,
					  enum psem_test_op op, long n,
					  long timeout)
{
	const struct psem_test_thread tmpl = {
		.fn = psem_test_waiter_fn, .sem = sem, .n = n, .op = op,
		.timeout = timeout,
	};

	return psem_test_spawn(test, &tmpl, -1);
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_waiter);

/**
 * psem_test_nr_waiters() - the waiters linked on a psem's queue
 * @sem: the psem
 *
 * Counted under the queue lock: a linked waiter holds its FIFO place.
 *
 * Return: how many there are.
 */
unsigned int psem_test_nr_waiters(struct psem *sem)
{
	struct psem_waiter *w;
	unsigned int nr = 0;

	spin_lock_irq(&sem->lock);
	psem_for_each_waiter(w, sem)
		nr++;
	spin_unlock_irq(&sem->lock);
	return nr;
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_nr_waiters);

/**
 * psem_test_linked_waiter() - start a waiter and wait until it is linked
 * @test: the test case
 * @sem:  the psem
 * @op:   which acquire to call (it sleeps until served)
 * @n:    how many permits to ask for
 * @nr:   the number of waiters on @sem once it is linked
 *
 * The caller then knows the FIFO position the waiter holds. Fails the
 * test if the waiter is not linked within the hang guard.
 *
 * Return: the waiter.
 */
struct psem_test_thread *psem_test_linked_waiter(struct kunit *test,
						 struct psem *sem,
						 enum psem_test_op op, long n,
						 unsigned int nr)
{
	struct psem_test_thread *t;

	t = psem_test_waiter(test, sem, op, n, MAX_SCHEDULE_TIMEOUT);
	KUNIT_ASSERT_TRUE_MSG(test,
			      psem_test_wait_for(psem_test_nr_waiters(sem) == nr),
			      "waiter %u not linked", t->id);
	return t;
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_linked_waiter);

/**
 * psem_test_sem() - a psem that lives until the test case is over
 * @test:    the test case
 * @permits: its initial balance
 *
 * Return: the psem, initialised.
 */
struct psem *psem_test_sem(struct kunit *test, long permits)
{
	struct psem *sem = kunit_kzalloc(test, sizeof(*sem), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, sem);
	psem_init(sem, permits);
	return sem;
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_sem);

/* A struct psem_ext that lives until the test case is over, not set up. */
static struct psem_ext *psem_test_ext_alloc(struct kunit *test)
{
	struct psem_ext *ext = kunit_kzalloc(test, sizeof(*ext), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ext);
	return ext;
}

/**
 * psem_test_ext_sem() - psem_test_sem() that asynchronous waiters may use
 * @test:    the test case
 * @permits: its initial balance
 *
 * Return: the psem of a struct psem_ext, initialised by psem_init_ext().
 */
struct psem *psem_test_ext_sem(struct kunit *test, long permits)
{
	struct psem_ext *ext = psem_test_ext_alloc(test);

	psem_init_ext(ext, permits);
	return &ext->sem;
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_ext_sem);

/**
 * psem_test_capped_sem() - psem_test_sem() with a capacity
 * @test:     the test case
 * @capacity: its capacity, and its initial balance
 *
 * Return: the psem of a struct psem_ext, initialised by
 * psem_init_capacity().
 */
struct psem *psem_test_capped_sem(struct kunit *test, long capacity)
{
	struct psem_ext *ext = psem_test_ext_alloc(test);

	KUNIT_ASSERT_EQ(test, psem_init_capacity(ext, capacity), 0);
	return &ext->sem;
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_capped_sem);

static int psem_test_quiesce_fn(struct psem_test_thread *t)
{
	return psem_quiesce(t->sem, t->timeout);
}

/**
 * psem_test_quiescer() - start a quiesce and wait until it is linked
 * @test: the test case
 * @sem:  a psem with a capacity
 * @nr:   the number of waiters on @sem once the quiesce is linked
 *
 * The quiesce waits without a timeout. Fails the test if it is not linked
 * within the hang guard.
 *
 * Return: the helper; its @ret is psem_quiesce()'s result.
 */
struct psem_test_thread *psem_test_quiescer(struct kunit *test,
					    struct psem *sem, unsigned int nr)
{
	const struct psem_test_thread tmpl = {
		.fn = psem_test_quiesce_fn, .sem = sem,
		.n = psem_capacity(sem), .timeout = MAX_SCHEDULE_TIMEOUT,
	};
	struct psem_test_thread *t = psem_test_spawn(test, &tmpl, -1);

	KUNIT_ASSERT_TRUE_MSG(test,
			      psem_test_wait_for(psem_test_nr_waiters(sem) == nr),
			      "quiesce not linked");
	return t;
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_quiescer);

/**
 * psem_test_snapshot() - take a &struct psem_test_snapshot of a psem
 * @sem: the psem
 *
 * Return: the snapshot.
 */
struct psem_test_snapshot psem_test_snapshot(struct psem *sem)
{
	struct psem_test_snapshot s = {
		.word		= atomic_long_read(&sem->count),
		.avail		= psem_available(sem),
		.capacity	= psem_capacity(sem),
		.debt		= psem_debt(sem),
		.waiters	= psem_test_nr_waiters(sem),
	};

	return s;
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_snapshot);

/**
 * psem_test_expect_unchanged() - expect a psem to hold what it held
 * @test: the test case
 * @sem:  the psem
 * @was:  its psem_test_snapshot() from before
 * @what: names the call that was to change nothing, in the messages
 *
 * Compares after psem_sync(), so that work the call deferred has run.
 */
void psem_test_expect_unchanged(struct kunit *test, struct psem *sem,
				const struct psem_test_snapshot *was,
				const char *what)
{
	struct psem_test_snapshot now;

	psem_sync(sem);
	now = psem_test_snapshot(sem);
	KUNIT_EXPECT_EQ_MSG(test, now.word, was->word, "%s: word", what);
	KUNIT_EXPECT_EQ_MSG(test, now.avail, was->avail, "%s: available", what);
	KUNIT_EXPECT_EQ_MSG(test, now.capacity, was->capacity, "%s: capacity",
			    what);
	KUNIT_EXPECT_EQ_MSG(test, now.debt, was->debt, "%s: debt", what);
	KUNIT_EXPECT_EQ_MSG(test, now.waiters, was->waiters, "%s: waiters",
			    what);
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_expect_unchanged);

/* ==== asynchronous waiters ==== */

/**
 * psem_test_req_fn() - the callback of a &struct psem_test_req
 * @aw:     the request's waiter
 * @result: 0 if granted, or why not
 *
 * Records where and how it ran, gives the grant back if asked to, and
 * then counts the call.
 */
void psem_test_req_fn(struct psem_async *aw, int result)
{
	struct psem_test_req *r = container_of(aw, struct psem_test_req, aw);

	r->result = result;
	r->in_hardirq = in_hardirq();
	r->in_nmi = in_nmi();
	r->sp = (unsigned long)__builtin_frame_address(0);
	if (r->rank)
		r->order = atomic_inc_return(r->rank);
	if (r->give_back && !result)
		psem_release(r->sem, r->aw.w.n);
	/* Publishes the fields above; pairs with psem_test_calls(). */
	smp_store_release(&r->calls, r->calls + 1);
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_req_fn);

/**
 * psem_test_req_new() - a request that lives until the case is over
 * @test: the test case
 * @sem:  the psem it will wait on
 *
 * Return: the request, zeroed but for @sem.
 */
struct psem_test_req *psem_test_req_new(struct kunit *test, struct psem *sem)
{
	struct psem_test_req *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->sem = sem;
	return r;
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_req_new);

/* ==== statistics ==== */

/**
 * psem_test_stats_start() - count events from now on
 *
 * The counters are global: it relies on KUnit running one case at a time.
 */
void psem_test_stats_start(void)
{
	psem_set_stats(true);
	psem_stats_reset();
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_stats_start);

/**
 * psem_test_stats_on() - psem_test_stats_start() under the default rule
 *
 * For the suites that restore the switches they found rather than set
 * defaults: fast release on with zero release (the waiters-bit rule).
 */
void psem_test_stats_on(void)
{
	psem_set_fast_release(true);
	psem_set_zero_release(true);
	psem_test_stats_start();
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_stats_on);

/**
 * psem_test_stat() - one statistic counted since psem_test_stats_start()
 * @s: the statistic
 *
 * Return: its count.
 */
u64 psem_test_stat(enum psem_stat s)
{
	struct psem_stats snap;

	psem_stats_snapshot(&snap);
	return snap.count[s];
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_stat);

/**
 * psem_test_expect_releases() - expect so many releases of each kind
 * @test:   the test case
 * @before: a snapshot of the statistics taken before
 * @fast:   fast releases expected since @before
 * @locked: locked releases expected since @before
 */
void psem_test_expect_releases(struct kunit *test,
			       const struct psem_stats *before,
			       u64 fast, u64 locked)
{
	struct psem_stats now;

	psem_stats_snapshot(&now);
	KUNIT_EXPECT_EQ(test, now.count[PSEM_STAT_FAST_RELEASE] -
			before->count[PSEM_STAT_FAST_RELEASE], fast);
	KUNIT_EXPECT_EQ(test, now.count[PSEM_STAT_LOCKED_RELEASE] -
			before->count[PSEM_STAT_LOCKED_RELEASE], locked);
}
EXPORT_SYMBOL_PSEM_KUNIT(psem_test_expect_releases);

MODULE_IMPORT_NS(PSEM_NS);
MODULE_IMPORT_NS(PSEM_KNOBS_NS);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Helper library of psem's KUnit suites");
