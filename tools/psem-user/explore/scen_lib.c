// SPDX-License-Identifier: GPL-2.0
/* The scenarios' shared helpers: scen.h. */
#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/workqueue.h>

#include "psem_mutex.h"
#include "psem_pool.h"
#include "psem_rwlock.h"
#include "scen.h"

struct psem *xs_sem;

/* Weak: older sources have no psem_sync(), nor the teardown calls. */
void psem_sync(struct psem *sem) __attribute__((weak));
void psem_mutex_destroy(struct psem_mutex *lock) __attribute__((weak));
void psem_rwlock_destroy(struct psem_rwlock *lock) __attribute__((weak));
extern atomic64_t psem_refusals;

int xs_acquire_async_work(struct psem *sem, long n,
			  struct psem_async_work *aww, work_func_t fn)
{
#ifdef psem_init_async_work
	/* Once per owner and function: never while the work may run. */
	if (aww->work.func != fn)
		psem_init_async_work(aww, fn);
	return psem_acquire_async_work(sem, n, aww);
#else
	return psem_acquire_async_work(sem, n, aww, fn);
#endif
}

bool xs_cancel_async_work_sync(struct psem *sem, struct psem_async_work *aww)
{
#ifdef PSEM_HAVE_CANCEL_ASYNC_WORK_SYNC
	return psem_cancel_async_work_sync(sem, aww);
#else
	if (psem_cancel_async(sem, &aww->aw))
		return true;
	cancel_work_sync(&aww->work);
	flush_work(&aww->work);
	return false;
#endif
}

void xs_sync(struct psem *sem)
{
	if (psem_sync)
		psem_sync(sem);
}

void xs_mutex_free(struct psem_mutex **lockp)
{
	if (psem_mutex_destroy)
		psem_mutex_destroy(*lockp);
	kfree(*lockp);
	*lockp = NULL;
}

void xs_rwlock_free(struct psem_rwlock **lockp)
{
	if (psem_rwlock_destroy)
		psem_rwlock_destroy(*lockp);
	kfree(*lockp);
	*lockp = NULL;
}

long xs_refusals(void)
{
	return (long)atomic64_read(&psem_refusals);
}

struct psem *xs_psem(long permits)
{
	struct psem *sem = kzalloc(sizeof(*sem), GFP_KERNEL);

	if (!sem)
		ex_fail("out of memory");
	psem_init(sem, permits);
	xs_sem = sem;
	return sem;
}

struct psem *xs_psem_ext(long permits)
{
	struct psem_ext *ext = kzalloc(sizeof(*ext), GFP_KERNEL);

	if (!ext)
		ex_fail("out of memory");
	psem_init_ext(ext, permits);
	xs_sem = &ext->sem;
	return &ext->sem;
}

struct psem *xs_psem_cap(long capacity, long out)
{
	struct psem_ext *cs = kzalloc(sizeof(*cs), GFP_KERNEL);
	struct psem *sem = &cs->sem;

	if (!cs || psem_init_capacity(cs, capacity))
		ex_fail("psem_init_capacity(%ld)", capacity);
	if (out && !psem_try_acquire(sem, out))
		ex_fail("could not take %ld of %ld", out, capacity);
	xs_sem = sem;
	return sem;
}

/*
 * The queue walks: a first-waiter list since the footprint work (issue
 * 24), a wait_queue_head_t before it, which --old builds still meet.
 */
#ifdef psem_for_each_waiter
#define xs_for_each_waiter(w, sem)	psem_for_each_waiter(w, sem)
#define xs_waiter_task(w)		((w)->task)
#else
#define xs_for_each_waiter(w, sem)	\
	list_for_each_entry(w, &(sem)->wq.head, wq_entry.entry)
#define xs_waiter_task(w)		((w)->wq_entry.private)
#endif

bool xs_linked(struct psem *sem, struct task_struct *t)
{
	struct psem_waiter *w;

	xs_for_each_waiter(w, sem)
		if (xs_waiter_task(w) == t)
			return true;
	return false;
}

bool xs_async_linked(struct psem *sem, struct psem_async *aw)
{
	struct psem_waiter *w;

	xs_for_each_waiter(w, sem)
		if (w == &aw->w)
			return true;
	return false;
}

long xs_nr_waiters(struct psem *sem)
{
	struct psem_waiter *w;
	long n = 0;

	xs_for_each_waiter(w, sem)
		n++;
	return n;
}

#ifdef psem_for_each_waiter
/*
 * I1 (psem.h, at PSEM_WAITERS) on the scenario's psem, at every unlock of
 * its queue lock while still held, in every scenario: with PSEM_WAITERS
 * clear no waiter is linked. The word is read with no scheduling point,
 * as the walk of the queue under its lock is.
 */
static void xs_check_unlock(struct spinlock *lock)
{
	struct psem *sem = xs_sem;
	long cur;

	if (!sem || lock != &sem->lock)
		return;
	/*
	 * Relaxed, and no scheduling point: this thread holds the queue lock,
	 * under which PSEM_WAITERS and the queue change; it pairs with nothing.
	 */
	cur = __atomic_load_n(&sem->count.counter, __ATOMIC_RELAXED);
	if (!(cur & PSEM_WAITERS))
		ex_assert(!xs_nr_waiters(sem),
			  "a waiter linked, the word %#lx without PSEM_WAITERS", cur);
#ifdef PSEM_FIELD
	/* I3: a credit only with nobody queued. */
	else if (cur & PSEM_CREDIT)
		ex_assert(!xs_nr_waiters(sem),
			  "a waiter linked, the word %#lx with PSEM_CREDIT", cur);
#endif
}

static __attribute__((constructor)) void xs_install_checks(void)
{
	ex_unlock_check = xs_check_unlock;
}
#endif

bool xs_tid_linked(void *tid)
{
	return xs_linked(xs_sem, ex_task((int)(long)tid));
}

bool xs_tid_linked_or_done(void *tid)
{
	return ex_thread_done((int)(long)tid) || xs_tid_linked(tid);
}

bool xs_any_waiter(void *sem)
{
	return xs_nr_waiters(sem) > 0;
}

/*
 * Once everything has settled, the word of a release that adds first
 * (psem.h, PSEM_BIAS) is at rest: no add left in the field, and a plain
 * psem waiting only for a waiter or a debt, its credit settled.
 */
static void xs_at_rest(struct psem *sem)
{
#ifdef PSEM_FIELD
	long cur = __atomic_load_n(&sem->count.counter, __ATOMIC_RELAXED);

	if (!(cur & PSEM_WAITERS))
		return;
	ex_assert(!(cur & PSEM_FIELD), "the word %#lx at rest with an add in the field",
		  cur);
	ex_assert((cur & PSEM_EXT) || xs_nr_waiters(sem) || psem_debt(sem),
		  "the word %#lx of a plain psem waiting, with nobody queued and no debt",
		  cur);
#endif
}

void xs_conserved(struct psem *sem, long held, long total)
{
	long avail = psem_available(sem);
	long debt = (long)psem_debt(sem);

	xs_at_rest(sem);
	ex_assert(held + avail - debt == total,
		  "held %ld + available %ld - debt %ld != %ld", held, avail,
		  debt, total);
}

void xs_settled(struct psem *sem, long held, long total)
{
	xs_conserved(sem, held, total);
	ex_assert(!xs_nr_waiters(sem), "a waiter left linked");
}

void xs_quiesce_free(struct psem **semp, long home)
{
	struct psem *sem = *semp;
	int ret = psem_quiesce(sem, MAX_SCHEDULE_TIMEOUT);

	ex_assert(!ret, "quiesce: %d", ret);
	ex_assert(psem_available(sem) == home, "quiesced with %ld home, not %ld",
		  psem_available(sem), home);
	ex_assert(!xs_nr_waiters(sem), "quiesced with a waiter linked");
	kfree(sem);
	*semp = NULL;
}

static struct psem_pool *xp_pool;
static unsigned long xp_ctx;
static int xp_objs[1], xp_ret[2];
static void *xp_obj;

static void xp_getter(void *arg)
{
	xp_obj = psem_pool_get(xp_pool);
}

static void xp_irq(void *arg)
{
	ex_wait_until((bool (*)(void *))ex_thread_done, (void *)2L);
	xp_ret[0] = psem_pool_put(xp_pool, xp_obj);
}

/* The interrupt's put has returned, after the getter's get. */
static bool xp_put_done(void *arg)
{
	return ex_thread_done(3);
}

static void xp_owner(void *arg)
{
	/* A waiter for the object, so that the put must hand it over. */
	void *o = psem_pool_get(xp_pool);

	ex_assert(o == &xp_objs[0], "got %p", o);
	xp_ret[1] = psem_pool_put(xp_pool, o);
	ex_wait_until(xp_put_done, NULL);
	if (xp_ctx == HARDIRQ_OFFSET)
		ex_assert(psem_available(&xp_pool->sem) == 1,
			  "destroyed with %ld in", psem_available(&xp_pool->sem));
	psem_pool_destroy(xp_pool);
	kfree(xp_pool);
	xp_pool = NULL;
}

void xs_pool_handover(unsigned long ctx)
{
	void *ptrs[1] = { &xp_objs[0] };

	xp_ctx = ctx;
	xp_pool = kzalloc(sizeof(*xp_pool), GFP_KERNEL);
	if (!xp_pool || psem_pool_init(xp_pool, ptrs, 1, GFP_KERNEL))
		ex_fail("psem_pool_init");
	ex_spawn("getter", xp_getter, NULL);
	ex_spawn_ctx(ctx == NMI_OFFSET ? "nmi" : "hardirq", xp_irq, NULL, ctx);
	ex_spawn("owner", xp_owner, NULL);
}

void xs_pool_handover_check(void)
{
	ex_assert(!xp_ret[0] && !xp_ret[1], "puts %d %d", xp_ret[0], xp_ret[1]);
}
