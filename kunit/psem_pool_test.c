// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for psem_pool, the object pool built on psem: stress with
 * fewer and with more objects than getters, FIFO hand-over to sleeping
 * getters, cancelled getters, refused input, the lock-free put and the
 * double put.
 *
 * The fixture (struct psem_test_fix), the step and stress kthreads and the hang
 * guards are in psem_test.h, shared with the rwlock's and the mutex's
 * suites; how the cases are built is described there.
 */

#include <kunit/test.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched/signal.h>

#include "psem_test.h"

#define POOL_ITERS	1000	/* with few objects: gets sleep, slowly */
#define POOL_PLENTY_ITERS	5000	/* with many: gets race each other */
#define POOL_SCARCE_CAP	3	/* fewer objects than stress kthreads */

/* The index of @obj among the fixture's first @n objects, or -1. */
static int pool_obj_index(struct psem_test_fix *fix, void *obj, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (obj == &fix->obj[i])
			return i;
	return -1;
}

/* The pool's slots that hold an object (white box). */
static unsigned int pool_full_slots(struct psem_pool *pool)
{
	unsigned int i, n = 0;

	for (i = 0; i < pool->capacity; i++)
		n += !!atomic_long_read(&pool->slots[i]);
	return n;
}

/*
 * Empties a pool of capacity @cap with try_get: it must yield exactly the
 * first @cap objects, once each, then NULL. Puts them back.
 */
static void pool_expect_full(struct kunit *test, struct psem_test_fix *fix,
			     unsigned int cap)
{
	unsigned long seen = 0, all = GENMASK(cap - 1, 0);
	void *got[PSEM_TEST_NR_OBJS];
	unsigned int i, n = 0;
	void *extra;
	int idx;

	/*
	 * A get that holds a permit spins until it finds a full slot: with an
	 * object lost, draining would spin forever. Check the count first.
	 */
	KUNIT_EXPECT_EQ(test, psem_available(&fix->pool.sem), (long)cap);
	if (pool_full_slots(&fix->pool) != cap) {
		KUNIT_FAIL(test, "%u of %u slots full",
			   pool_full_slots(&fix->pool), cap);
		return;
	}
	for (i = 0; i < cap; i++) {
		got[n] = psem_pool_try_get(&fix->pool);
		idx = pool_obj_index(fix, got[n], cap);
		if (idx < 0 || (seen & BIT(idx))) {
			KUNIT_FAIL(test, "try_get %u: bad object %p", i, got[n]);
			continue;
		}
		seen |= BIT(idx);
		n++;
	}
	KUNIT_EXPECT_EQ(test, seen, all);
	extra = psem_pool_try_get(&fix->pool);
	KUNIT_EXPECT_NULL(test, extra);
	if (pool_obj_index(fix, extra, cap) >= 0)
		got[n++] = extra;
	while (n--)
		KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, got[n]), 0);
	KUNIT_EXPECT_EQ(test, psem_available(&fix->pool.sem), (long)cap);
}

static void *pool_get_once(struct psem_test_worker *t, unsigned int i)
{
	struct psem_pool *pool = &t->fix->pool;
	void *obj = NULL;

	switch ((i + t->id) % 3) {
	case 0:
		obj = psem_pool_get(pool);
		break;
	case 1:
		obj = psem_pool_try_get(pool);
		if (!obj) {
			t->misses++;
			obj = psem_pool_get(pool);
		}
		break;
	default:
		if (psem_pool_get_interruptible(pool, &obj))
			obj = NULL;	/* nobody sends a signal here */
		break;
	}
	return obj;
}

/* A stress worker's @i-th get and put. */
static void pool_stress_once(struct psem_test_worker *t, unsigned int i)
{
	struct psem_test_fix *fix = t->fix;
	void *obj = pool_get_once(t, i);
	struct psem_test_obj *o;

	if (pool_obj_index(fix, obj, fix->cap) < 0) {
		t->errors++;	/* not ours: cannot put it back */
		return;
	}
	o = obj;
	if (atomic_cmpxchg(&o->taken, 0, 1))
		t->errors++;	/* handed out twice */
	if (atomic_inc_return(&fix->out) > fix->cap)
		t->errors++;
	o->stamp = t->id;	/* plain: KCSAN reports a second holder */
	t->got++;
	if (fix->nap)
		psem_test_hold(t);
	if (o->stamp != t->id)
		t->errors++;
	atomic_dec(&fix->out);
	atomic_set(&o->taken, 0);
	if (psem_pool_put(&fix->pool, o))
		t->errors++;
}

/*
 * @per_cpu kthreads on each online CPU get and put @iters times from a pool
 * of @cap objects. Nobody gets an object another holds, no more than @cap
 * are ever out, and at the end the pool holds each object exactly once.
 */
static void pool_stress(struct kunit *test, unsigned int per_cpu,
			unsigned int cap, unsigned int iters, bool nap)
{
	unsigned int n = per_cpu * num_online_cpus();
	struct psem_test_fix *fix = psem_test_fix_new(test, n);
	struct psem_test_sums sums;
	unsigned int i;
	u64 warns;

	fix->cap = cap;
	fix->nap = nap;
	KUNIT_ASSERT_EQ(test, psem_test_pool_init(fix, cap), 0);
	if (psem_test_stress(test, fix, pool_stress_once, iters, per_cpu,
			     &sums)) {
		KUNIT_EXPECT_EQ(test, sums.got, (unsigned long)n * iters);
		KUNIT_EXPECT_EQ(test, atomic_read(&fix->out), 0);
		for (i = 0; i < cap; i++)
			KUNIT_EXPECT_EQ(test, atomic_read(&fix->obj[i].taken), 0);
		pool_expect_full(test, fix, cap);
		kunit_info(test, "%u kthreads, %lu gets, %lu empty try_gets\n",
			   fix->nr, sums.got, sums.misses);
	}
	psem_test_stop_all(test, fix);
	if (!fix->leak) {
		KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(&fix->pool.sem), 0U);
		warns = psem_warn_count();
		psem_pool_destroy(&fix->pool);
		fix->pool_live = false;
		KUNIT_EXPECT_EQ(test, psem_warn_count(), warns);
	}
	psem_test_fix_free(test, fix);
}

/*
 * More kthreads than objects, which holders sometimes keep while asleep:
 * gets sleep, and puts hand objects over to them.
 */
static void psem_pool_test_stress_scarce(struct kunit *test)
{
	pool_stress(test, 4, POOL_SCARCE_CAP, POOL_ITERS, true);
}

/*
 * More objects than kthreads (up to 4 CPUs), held only briefly: gets rarely
 * wait, so they claim and fill slots at the same time, walking into each
 * other's slots. This is where a non-atomic claim or fill would show.
 */
static void psem_pool_test_stress_plenty(struct kunit *test)
{
	pool_stress(test, 4, PSEM_TEST_NR_OBJS, POOL_PLENTY_ITERS, false);
}

/*
 * With the pool empty, getters G1 then G2 sleep; try_get finds nothing.
 * Each put wakes the oldest sleeper, which gets the object just put.
 */
static void psem_pool_test_get_sleeps_fifo(struct kunit *test)
{
	static const enum psem_test_lock_op ops[] = {
		PSEM_TEST_GET, PSEM_TEST_GET_INTR,
	};
	struct psem_test_fix *fix = psem_test_fix_new(test, 2);
	struct psem_test_worker *g[ARRAY_SIZE(ops)];
	void *a, *b, *first;

	KUNIT_ASSERT_EQ(test, psem_test_pool_init(fix, 2), 0);
	a = psem_pool_try_get(&fix->pool);
	b = psem_pool_try_get(&fix->pool);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_PTR_NE(test, a, b);
	KUNIT_EXPECT_NULL(test, psem_pool_try_get(&fix->pool));

	if (!psem_test_queue_all(test, fix, ops, ARRAY_SIZE(ops), g))
		goto out;
	KUNIT_EXPECT_NULL(test, psem_pool_try_get(&fix->pool));

	/* The only object in the pool now is the one put: G1 gets it. */
	first = a;
	a = NULL;
	KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, first), 0);
	if (!psem_test_await(test, psem_test_state(g[0]) == PSEM_TEST_HOLDING))
		goto out;
	KUNIT_EXPECT_PTR_EQ(test, g[0]->obj, first);
	KUNIT_EXPECT_EQ(test, psem_test_state(g[1]), PSEM_TEST_WAITING);
	KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(&fix->pool.sem), 1U);

	KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, b), 0);
	if (!psem_test_await(test, psem_test_state(g[1]) == PSEM_TEST_HOLDING))
		goto out;
	KUNIT_EXPECT_PTR_EQ(test, g[1]->obj, b);
	b = NULL;
	KUNIT_EXPECT_EQ(test, g[0]->order, 1);
	KUNIT_EXPECT_EQ(test, g[1]->order, 2);
out:
	if (a)
		psem_pool_put(&fix->pool, a);
	if (b)
		psem_pool_put(&fix->pool, b);
	psem_test_stop_all(test, fix);
	if (!fix->leak)
		pool_expect_full(test, fix, 2);
	psem_test_finish(test, fix, &fix->pool.sem, 2);
}

/* A getter whose wait a signal ends gets -EINTR and takes nothing. */
static void pool_cancel(struct kunit *test, enum psem_test_lock_op op, int sig)
{
	struct psem_test_fix *fix = psem_test_fix_new(test, 1);
	struct psem_test_worker *g;
	void *a;

	KUNIT_ASSERT_EQ(test, psem_test_pool_init(fix, 1), 0);
	a = psem_pool_try_get(&fix->pool);
	KUNIT_ASSERT_PTR_EQ(test, a, (void *)&fix->obj[0]);

	g = psem_test_queue(test, fix, op, 1);
	if (!g)
		goto out;
	send_sig(sig, g->task, 1);
	if (!psem_test_await(test, psem_test_state(g) == PSEM_TEST_FINISHED))
		goto out;
	KUNIT_EXPECT_EQ(test, g->ret, -EINTR);
	KUNIT_EXPECT_PTR_EQ(test, g->obj, PSEM_TEST_NO_OBJ);
	KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(&fix->pool.sem), 0U);
	KUNIT_EXPECT_EQ(test, psem_available(&fix->pool.sem), 0L);
out:
	KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, a), 0);
	psem_test_stop_all(test, fix);
	if (!fix->leak)
		pool_expect_full(test, fix, 1);
	psem_test_finish(test, fix, &fix->pool.sem, 1);
}

PSEM_TEST_CANCEL_CASES(psem_pool_test_get, pool_cancel,
		       PSEM_TEST_GET_INTR, PSEM_TEST_GET_KILL)

/* Each bad call is refused, counted once, and changes nothing. */
static void psem_pool_test_bad_input(struct kunit *test)
{
	struct psem_test_fix *fix = psem_test_fix_new(test, 1);
	struct psem_pool p = {};
	void *objs[2];
	void *a;
	u64 warns;

	objs[0] = &fix->obj[0];
	objs[1] = NULL;
	warns = psem_warn_count();
	psem_set_quiet_warnings(true);

	KUNIT_EXPECT_EQ(test, psem_pool_init(&p, objs, 0, GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), ++warns);
	KUNIT_EXPECT_EQ(test, psem_pool_init(&p, objs, 2, GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), ++warns);
	KUNIT_EXPECT_NULL(test, p.slots);
	KUNIT_EXPECT_EQ(test, p.capacity, 0U);

	KUNIT_EXPECT_EQ(test, psem_test_pool_init(fix, 2), 0);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns);
	if (!fix->pool_live)
		goto out;
	a = psem_pool_try_get(&fix->pool);
	KUNIT_EXPECT_NOT_NULL(test, a);
	KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), ++warns);
	KUNIT_EXPECT_EQ(test, psem_available(&fix->pool.sem), 1L);
	if (a)
		KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, a), 0);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns);

	/* Full: a third object has nowhere to go. */
	KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, &fix->obj[2]), -EINVAL);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), ++warns);
	psem_set_quiet_warnings(false);
	pool_expect_full(test, fix, 2);
out:
	psem_set_quiet_warnings(false);
	psem_test_finish(test, fix, &fix->pool.sem, 2);
}

/*
 * With nobody waiting a put is lock-free, into an empty pool too (the
 * waiters-bit rule); under the positive-balance rule (zero_release off) a
 * put into an empty pool takes the queue lock, one into a pool that holds
 * objects does not.
 */
static void psem_pool_test_put_fast_path(struct kunit *test)
{
	struct psem_test_fix *fix = psem_test_fix_new(test, 1);
	void *o[3] = {};
	struct psem_stats before;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, psem_test_pool_init(fix, 3), 0);
	psem_test_stats_on();

	for (i = 0; i < 3; i++)
		o[i] = psem_pool_try_get(&fix->pool);
	if (!o[0] || !o[1] || !o[2]) {
		KUNIT_FAIL(test, "pool of 3 did not give 3 objects");
		goto out;
	}

	psem_stats_snapshot(&before);
	KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, o[0]), 0);
	psem_test_expect_releases(test, &before, 1, 0);
	o[0] = psem_pool_try_get(&fix->pool);
	if (!o[0]) {
		KUNIT_FAIL(test, "the object just put is not in the pool");
		goto out;
	}

	psem_set_zero_release(false);
	psem_stats_snapshot(&before);
	KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, o[0]), 0);
	psem_test_expect_releases(test, &before, 0, 1);
	o[0] = NULL;

	psem_stats_snapshot(&before);
	KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, o[1]), 0);
	psem_test_expect_releases(test, &before, 1, 0);
	o[1] = NULL;

	psem_stats_snapshot(&before);
	KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, o[2]), 0);
	psem_test_expect_releases(test, &before, 1, 0);
	o[2] = NULL;
out:
	for (i = 0; i < 3; i++)
		if (o[i])
			psem_pool_put(&fix->pool, o[i]);
	psem_test_finish(test, fix, &fix->pool.sem, 3);
}

/*
 * With CONFIG_DEBUG_OBJECTS, putting an object that is already in the pool
 * is refused, counted once, and changes nothing. Without the check the pool
 * would hold it twice and hand it to two getters.
 */
static void psem_pool_test_double_put(struct kunit *test)
{
	struct psem_test_fix *fix;
	void *a, *b, *got[3] = {};
	unsigned int i;
	u64 warns;

	if (!IS_ENABLED(CONFIG_DEBUG_OBJECTS))
		kunit_skip(test, "the double-put check needs CONFIG_DEBUG_OBJECTS");
	fix = psem_test_fix_new(test, 1);
	KUNIT_ASSERT_EQ(test, psem_test_pool_init(fix, 3), 0);

	a = psem_pool_try_get(&fix->pool);
	b = psem_pool_try_get(&fix->pool);
	if (!a || !b) {
		KUNIT_FAIL(test, "pool of 3 did not give 2 objects");
		goto out;
	}
	KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, a), 0);

	warns = psem_warn_count();
	psem_set_quiet_warnings(true);
	KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, a), -EINVAL);
	psem_set_quiet_warnings(false);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns + 1);
	KUNIT_EXPECT_EQ(test, psem_available(&fix->pool.sem), 2L);
	KUNIT_EXPECT_EQ(test, pool_full_slots(&fix->pool), 2U);

	/* The two objects in the pool are distinct. */
	got[0] = psem_pool_try_get(&fix->pool);
	got[1] = psem_pool_try_get(&fix->pool);
	got[2] = psem_pool_try_get(&fix->pool);
	KUNIT_EXPECT_NOT_NULL(test, got[0]);
	KUNIT_EXPECT_NOT_NULL(test, got[1]);
	KUNIT_EXPECT_NULL(test, got[2]);
	KUNIT_EXPECT_PTR_NE(test, got[0], got[1]);
	for (i = 0; i < 2; i++)
		if (got[i] && (!i || got[1] != got[0]))
			KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, got[i]), 0);
	KUNIT_EXPECT_EQ(test, psem_pool_put(&fix->pool, b), 0);
	KUNIT_EXPECT_EQ(test, psem_warn_count(), warns + 1);
out:
	psem_set_quiet_warnings(false);
	psem_test_finish(test, fix, &fix->pool.sem, 3);
}

PSEM_TEST_FIX_SUITE("psem_pool", "KUnit tests for psem's object pool",
		    psem_pool_test_stress_scarce, psem_pool_test_stress_plenty,
		    psem_pool_test_get_sleeps_fifo,
		    psem_pool_test_get_interruptible,
		    psem_pool_test_get_killable, psem_pool_test_bad_input,
		    psem_pool_test_put_fast_path, psem_pool_test_double_put);
