// SPDX-License-Identifier: GPL-2.0
/*
 * psem-cases: the asynchronous waiters' cases. A work waiter withdrawn
 * while another callback runs; psem_cancel_async_sync() of a callback
 * that queues again; a long chain of callbacks on a small stack; cancels
 * of what is cancelled already, or was never queued.
 * cases.c runs them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kernel.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "psem.h"
#include "psem-user.h"
#include "cases.h"

/*
 * async-work-withdraw: async waiter A, whose callback is slow, is served
 * with work waiter B in one release; while A's callback runs, B is
 * withdrawn. The withdrawal must end with a known outcome: B withdrawn and
 * its work never to run, or B's work run to completion. Then B is freed.
 */
struct aww_state {
	int	a_running;	/* A's callback has started */
	int	a_go;		/* the case lets A's callback return */
	int	a_done;		/* A's callback returned (RELEASE) */
	int	b_runs;		/* B's work function ran (count) */
	int	b_done;		/* B's work function returned (RELEASE) */
	int	b_result;	/* the result B's work function read */
};

static struct aww_state aws;
static struct psem *aww_sem;

static void aww_a_fn(struct psem_async *aw, int result)
{
	st(&aws.a_running, 1);
	/* Slow: until the case lets it go, or the bound passes. */
	wait_unless(&aws.a_go, 3 * STOP_BOUND_MS / 2);
	__atomic_store_n(&aws.a_done, result == 0 ? 1 : 2, __ATOMIC_RELEASE);
}

static void aww_b_work(struct work_struct *work)
{
	struct psem_async_work *aww = container_of(work, struct psem_async_work,
						   work);

	aws.b_result = aww->result;
	__atomic_fetch_add(&aws.b_runs, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&aws.b_done, 1, __ATOMIC_RELEASE);
}

static void aww_releaser(struct thr *t)
{
	t->ret = psem_release(aww_sem, 2);
}

void case_async_work_withdraw(void)
{
	struct psem_async a;
	struct psem_async_work *b = calloc(1, sizeof(*b));
	struct thr r;
	bool withdrawn;
	int ret, held = 0;

	if (!b)
		abort();
	aww_sem = case_psem_ext(0);
	ret = psem_acquire_async(aww_sem, 1, &a, aww_a_fn);
	if (!CHECK(ret == -EINPROGRESS, "A: %d", ret))
		return;
	b->result = 12345;	/* no outcome yet */
	psem_init_async_work(b, aww_b_work);
	ret = psem_acquire_async_work(aww_sem, 1, b);
	if (!CHECK(ret == -EINPROGRESS, "B: %d", ret))
		return;
	thr_start(&r, "R", aww_releaser, NULL, 0);
	if (!CHECK(wait_flag(&aws.a_running), "A's callback never ran"))
		return;

#ifdef PSEM_HAVE_CANCEL_ASYNC_WORK_SYNC
	withdrawn = psem_cancel_async_work_sync(aww_sem, b);
	note("psem_cancel_async_work_sync() returned %s; B's work ran %d time(s)",
	     withdrawn ? "true" : "false", ld(&aws.b_runs));
#else
	/* The old documented protocol. */
	withdrawn = psem_cancel_async(aww_sem, &b->aw);
	if (!withdrawn) {
		cancel_work_sync(&b->work);
		flush_work(&b->work);
	}
	note("old protocol: psem_cancel_async() %s, then cancel_work_sync() and flush_work() returned; B's work ran %d time(s)",
	     withdrawn ? "true" : "false", ld(&aws.b_runs));
#endif
	if (withdrawn) {
		/* Withdrawn holding nothing: its work must never run. */
		CHECK(ld(&aws.b_runs) == 0, "withdrawn, but B's work ran");
	} else if (CHECK(__atomic_load_n(&aws.b_done, __ATOMIC_ACQUIRE),
			 "the withdrawal returned false with B's work not run and its result unset (%d)",
			 READ_ONCE(b->result))) {
		/* Completed: the work ran to completion and holds the permit. */
		CHECK(aws.b_result == 0, "B's work read result %d",
		      aws.b_result);
		held++;
	}
	if (case_failed) {
		/* Do not free B: the old code still uses it. */
		st(&aws.a_go, 1);
		thr_join(&r);
		flush_workqueue(system_wq);
		return;
	}
	/* The contract: psem and the work no longer use @b. */
	free(b);
	st(&aws.a_go, 1);
	if (CHECK(wait_flag(&aws.a_done) == 1, "A's callback"))
		held++;
	thr_join(&r);
	CHECK(r.ret == 0, "the release returned %ld", r.ret);
	flush_workqueue(system_wq);
	CHECK(ld(&aws.b_runs) == (withdrawn ? 0 : 1), "B's work ran %d times",
	      ld(&aws.b_runs));
	/* Exact accounting: what is held comes home; nothing is queued. */
	CHECK(psem_release(aww_sem, held) == 0, "giving back %d", held);
	CHECK(psem_available(aww_sem) == 2, "available %ld, want 2",
	      psem_available(aww_sem));
	CHECK(!linked(aww_sem), "a waiter is still linked");
	free(aww_sem);
}

/*
 * cancel-sync-rearm: a callback that re-queues its own psem_async and then
 * keeps running; psem_cancel_async_sync() on that psem_async must not
 * return while the callback runs, and afterwards it is not queued.
 */
struct rearm_state {
	int	calls;		/* the callback ran (count) */
	int	rearm_ret;	/* psem_acquire_async() from inside it */
	int	running;	/* the first call re-armed and runs on */
	int	go;		/* the case lets it return */
	int	returned;	/* it returned (RELEASE) */
};

static struct rearm_state rs;
static struct psem *rearm_sem;

static void rearm_fn(struct psem_async *aw, int result)
{
	if (__atomic_add_fetch(&rs.calls, 1, __ATOMIC_RELAXED) != 1)
		return;
	/* Keeps the permit it was granted; waits for one more. */
	st(&rs.rearm_ret, psem_acquire_async(rearm_sem, 1, aw, rearm_fn));
	st(&rs.running, 1);
	wait_unless(&rs.go, STOP_BOUND_MS);
	__atomic_store_n(&rs.returned, 1, __ATOMIC_RELEASE);
}

static void rearm_releaser(struct thr *t)
{
	t->ret = psem_release(rearm_sem, 1);
}

void case_cancel_sync_rearm(void)
{
	static struct psem_async aw;
	struct thr r;
	bool cancelled;
	int ret, returned, held = 1;

	rearm_sem = case_psem_ext(0);
	ret = psem_acquire_async(rearm_sem, 1, &aw, rearm_fn);
	if (!CHECK(ret == -EINPROGRESS, "first wait: %d", ret))
		return;
	thr_start(&r, "R", rearm_releaser, NULL, 0);
	if (!CHECK(wait_flag(&rs.running), "the callback never re-armed"))
		return;
	cancelled = psem_cancel_async_sync(rearm_sem, &aw);
	returned = __atomic_load_n(&rs.returned, __ATOMIC_ACQUIRE);
	note("re-arm returned %d; psem_cancel_async_sync() returned %s, the callback %s",
	     ld(&rs.rearm_ret), cancelled ? "true" : "false",
	     returned ? "had returned" : "still running");
	CHECK(returned,
	      "psem_cancel_async_sync() returned %s while the callback still runs",
	      cancelled ? "true" : "false");
	CHECK(!linked(rearm_sem), "the psem_async is still queued");
	st(&rs.go, 1);
	wait_flag(&rs.returned);
	thr_join(&r);
	CHECK(r.ret == 0, "the release returned %ld", r.ret);
	CHECK(ld(&rs.calls) == 1, "the callback ran %d times", ld(&rs.calls));
	if (ld(&rs.rearm_ret) == 0)
		held++;		/* granted at once: it holds that one too */
	CHECK(psem_release(rearm_sem, held) == 0, "giving back %d", held);
	CHECK(psem_available(rearm_sem) == held, "available %ld, want %d",
	      psem_available(rearm_sem), held);
	CHECK(!linked(rearm_sem), "a waiter is linked");
	free(rearm_sem);
}

/*
 * async-chain-iterates: thousands of async waiters for one permit each;
 * each callback releases one permit into the same psem, and one release
 * starts the chain. Every callback runs exactly once, the accounting is
 * exact, and the stack does not grow per waiter: the deepest callback is
 * within CHAIN_DEPTH bytes of the first on its thread (a structural bound;
 * recursion needs hundreds of bytes per waiter). A callback that finds
 * itself deeper stops the chain, so that the old code fails cleanly, on a
 * thread whose stack is small.
 */
#define CHAIN_N		5000
#define CHAIN_DEPTH	8192
#define CHAIN_STACK	(256 * 1024)

struct chain_w {
	struct psem_async	aw;
	int			calls;
	int			result;
};

static struct chain_w *chain;
static struct psem *chain_sem;
static int chain_calls, chain_stopped, chain_bad_release;
static long chain_max_depth;
static __thread uintptr_t chain_base;

static void chain_fn(struct psem_async *aw, int result)
{
	struct chain_w *c = container_of(aw, struct chain_w, aw);
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	long depth, max;
	int ret;

	c->calls++;
	c->result = result;
	__atomic_add_fetch(&chain_calls, 1, __ATOMIC_RELAXED);
	if (!chain_base)
		chain_base = sp;
	depth = (long)(chain_base - sp);
	max = __atomic_load_n(&chain_max_depth, __ATOMIC_RELAXED);
	while (depth > max &&
	       !__atomic_compare_exchange_n(&chain_max_depth, &max, depth,
					    false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
	if (depth > CHAIN_DEPTH) {
		int none = 0;

		/* Keep the permit: the chain stops here, with the stack intact. */
		__atomic_compare_exchange_n(&chain_stopped, &none,
					    (int)(c - chain) + 1, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
		return;
	}
	ret = psem_release(chain_sem, 1);
	if (ret)
		st(&chain_bad_release, ret);
}

static void chain_starter(struct thr *t)
{
	t->ret = psem_release(chain_sem, 1);
}

void case_async_chain_iterates(void)
{
	struct thr s;
	int i, ret, calls, stopped;

	chain = calloc(CHAIN_N, sizeof(*chain));
	chain_sem = case_psem_ext(0);
	if (!chain)
		abort();
	for (i = 0; i < CHAIN_N; i++) {
		ret = psem_acquire_async(chain_sem, 1, &chain[i].aw, chain_fn);
		if (!CHECK(ret == -EINPROGRESS, "waiter %d: %d", i, ret))
			return;
	}
	thr_start(&s, "chain", chain_starter, NULL, CHAIN_STACK);
	thr_join(&s);
	CHECK(s.ret == 0, "the first release returned %ld", s.ret);
	/* The chain may finish elsewhere (a deferred completion): wait for it. */
	for (i = 0; i < HANG_MS * 10; i++) {
		calls = __atomic_load_n(&chain_calls, __ATOMIC_RELAXED);
		stopped = ld(&chain_stopped);
		if (calls == CHAIN_N || stopped)
			break;
		psem_user_usleep(100);
	}
	flush_workqueue(system_wq);
	stopped = ld(&chain_stopped);
	note("%d of %d callbacks ran; the deepest ran %ld bytes below the first%s",
	     ld(&chain_calls), CHAIN_N, chain_max_depth,
	     stopped ? " (the chain stopped there)" : "");
	if (stopped) {
		fail("the stack grew per waiter: %ld bytes below the first callback at waiter %d of %d (bound %d)",
		     chain_max_depth, stopped - 1, CHAIN_N, CHAIN_DEPTH);
		return;	/* the rest is still queued */
	}
	CHECK(ld(&chain_calls) == CHAIN_N, "%d callbacks ran, want %d",
	      ld(&chain_calls), CHAIN_N);
	CHECK(!ld(&chain_bad_release), "a callback's release returned %d",
	      ld(&chain_bad_release));
	for (i = 0; i < CHAIN_N && !case_failed; i++)
		CHECK(chain[i].calls == 1 && chain[i].result == 0,
		      "waiter %d: %d calls, result %d", i, chain[i].calls,
		      chain[i].result);
	CHECK(chain_max_depth <= CHAIN_DEPTH, "depth %ld", chain_max_depth);
	CHECK(psem_available(chain_sem) == 1, "available %ld, want 1",
	      psem_available(chain_sem));
	CHECK(!linked(chain_sem), "a waiter is still linked");
	free(chain_sem);
	free(chain);
}

/*
 * double-cancel: a second cancel of a cancelled async wait is a no-op
 * that returns false; no permit is created.
 */
static int dc_calls;

static void dc_fn(struct psem_async *aw, int result)
{
	__atomic_add_fetch(&dc_calls, 1, __ATOMIC_RELAXED);
}

void case_double_cancel(void)
{
	struct psem_ext cs;
	struct psem_async *aw = calloc(1, sizeof(*aw));
	bool c1, c2;
	int ret;

	if (!aw)
		abort();
	psem_init_capacity(&cs, 4);
	CHECK(psem_try_acquire(&cs.sem, 3), "take 3");
	ret = psem_acquire_async(&cs.sem, 3, aw, dc_fn);
	if (!CHECK(ret == -EINPROGRESS, "async wait for 3: %d", ret))
		return;
	CHECK(psem_available(&cs.sem) == 0, "available %ld after the wait",
	      psem_available(&cs.sem));
	c1 = psem_cancel_async(&cs.sem, aw);
	CHECK(c1, "the first cancel returned false");
	CHECK(psem_available(&cs.sem) == 1, "available %ld after the first cancel",
	      psem_available(&cs.sem));
	c2 = psem_cancel_async(&cs.sem, aw);
	note("second cancel returned %s, available %ld", c2 ? "true" : "false",
	     psem_available(&cs.sem));
	CHECK(!c2, "the second cancel returned true");
	CHECK(psem_available(&cs.sem) == 1,
	      "available %ld after the second cancel, want 1",
	      psem_available(&cs.sem));
	ret = psem_release(&cs.sem, 3);
	CHECK(ret == 0, "releasing the 3 held returned %d", ret);
	CHECK(psem_available(&cs.sem) == 4, "available %ld, want 4",
	      psem_available(&cs.sem));
	CHECK(!ld(&dc_calls), "the callback ran");
	CHECK(!linked(&cs.sem), "a waiter is linked");
	free(aw);
}

/*
 * cancel-never-queued: cancelling an async wait that was granted at once,
 * or one whose callback already ran, is a no-op that returns false.
 */
static int cnq_calls, cnq_result;

static void cnq_fn(struct psem_async *aw, int result)
{
	__atomic_add_fetch(&cnq_calls, 1, __ATOMIC_RELAXED);
	cnq_result = result;
}

void case_cancel_never_queued(void)
{
	struct psem_ext cs;
	struct psem_async *aw = calloc(1, sizeof(*aw));
	long before;
	bool c;
	int ret;

	if (!aw)
		abort();
	/* Granted at once, never queued. */
	psem_init_capacity(&cs, 4);
	ret = psem_acquire_async(&cs.sem, 1, aw, cnq_fn);
	if (!CHECK(ret == 0, "async acquire of 1 of 4 returned %d", ret))
		return;
	before = word(&cs.sem);
	c = psem_cancel_async(&cs.sem, aw);
	note("granted at once: cancel returned %s, available %ld",
	     c ? "true" : "false", psem_available(&cs.sem));
	CHECK(!c, "cancel of a wait granted at once returned true");
	CHECK(word(&cs.sem) == before, "the word changed: %#lx -> %#lx",
	      (unsigned long)before, (unsigned long)word(&cs.sem));
	CHECK(psem_release(&cs.sem, 1) == 0 && psem_available(&cs.sem) == 4,
	      "accounting: available %ld", psem_available(&cs.sem));
	if (case_failed)
		return;

	/* Queued, then completed: the callback ran. */
	CHECK(psem_try_acquire(&cs.sem, 4), "take 4");
	ret = psem_acquire_async(&cs.sem, 1, aw, cnq_fn);
	if (!CHECK(ret == -EINPROGRESS, "async wait: %d", ret))
		return;
	CHECK(psem_release(&cs.sem, 1) == 0, "the release that serves it");
	CHECK(ld(&cnq_calls) == 1 && cnq_result == 0, "callback: %d calls, %d",
	      ld(&cnq_calls), cnq_result);
	before = word(&cs.sem);
	c = psem_cancel_async(&cs.sem, aw);
	note("completed: cancel returned %s, available %ld",
	     c ? "true" : "false", psem_available(&cs.sem));
	CHECK(!c, "cancel of a completed wait returned true");
	CHECK(word(&cs.sem) == before, "the word changed");
	CHECK(psem_release(&cs.sem, 4) == 0 && psem_available(&cs.sem) == 4,
	      "accounting: available %ld", psem_available(&cs.sem));
	CHECK(!linked(&cs.sem), "a waiter is linked");
	free(aw);
}

/*
 * refused-cancel-sync: refused, then cancelled. psem_acquire_async()'s kernel-doc and
 * api.rst ("Cancel rules"): "a teardown path may call it whatever the
 * acquire returned"; psem_cancel_async_sync() takes "a waiter given to
 * psem_acquire_async()". A waiter in kmalloc()'d memory (here poisoned as
 * SLUB's POISON_FREE, 0x6b, which kmalloc() hands back under slub_debug=P)
 * is given to psem_acquire_async() and refused with -EINVAL: (a) on a
 * plain psem, (b) on a psem_ext with a count out of range.
 * The teardown's psem_cancel_async_sync() must then return false at once.
 */
struct rc_arg {
	struct psem		*sem;
	struct psem_async	*aw;
	int			done;
};

static void rc_cb(struct psem_async *aw, int result)
{
}

static void rc_cancel(struct thr *t)
{
	struct rc_arg *a = t->arg;

	t->ret = psem_cancel_async_sync(a->sem, a->aw);
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
}

static void rc_one(const char *what, struct psem *sem, long n)
{
	struct rc_arg *a = calloc(1, sizeof(*a));
	struct thr *t = calloc(1, sizeof(*t));
	int ret, i;

	if (!a || !t)
		abort();
	a->sem = sem;
	a->aw = malloc(sizeof(*a->aw));
	if (!a->aw)
		abort();
	memset(a->aw, 0x6b, sizeof(*a->aw));
	ret = psem_acquire_async(sem, n, a->aw, rc_cb);
	if (!CHECK(ret == -EINVAL, "%s: psem_acquire_async() returned %d", what, ret))
		return;
	note("%s: refused -EINVAL; aw->w.state left %#x", what,
	     atomic_read(&a->aw->w.state));
	CHECK(!psem_cancel_async(sem, a->aw), "%s: cancel returned true", what);
	thr_start(t, "cancel-sync", rc_cancel, a, 0);
	for (i = 0; i < 20000 && !__atomic_load_n(&a->done, __ATOMIC_ACQUIRE); i++)
		psem_user_usleep(100);
	if (!CHECK(__atomic_load_n(&a->done, __ATOMIC_ACQUIRE),
		   "%s: psem_cancel_async_sync() of the refused waiter has not returned after 2 s",
		   what))
		return;	/* the thread spins on: leaked, the process exits */
	thr_join(t);
	CHECK(!t->ret, "%s: psem_cancel_async_sync() returned true", what);
}

void case_refused_cancel_sync(void)
{
	rc_one("plain psem", case_psem(3), 1);
	rc_one("psem_ext, count -1", case_psem_ext(3), -1);
}

/* static-init: DEFINE_PSEM_EXT/DEFINE_PSEM_CAPACITY against their run-time twins. */
static DEFINE_PSEM_EXT(si_ext, 3);
static DEFINE_PSEM_CAPACITY(si_cap, 5);

static void si_cmp(const char *what, struct psem_ext *s, struct psem_ext *r)
{
	CHECK(atomic_long_read(&s->sem.count) == atomic_long_read(&r->sem.count),
	      "%s: count %#lx vs %#lx", what, atomic_long_read(&s->sem.count),
	      atomic_long_read(&r->sem.count));
	CHECK(s->limit == r->limit, "%s: limit %#lx vs %#lx", what, s->limit, r->limit);
	CHECK(s->calls == r->calls && s->sem.first == r->sem.first &&
	      atomic_read(&s->sem.pending) == atomic_read(&r->sem.pending) &&
	      s->sem.kick.next == r->sem.kick.next, "%s: other fields", what);
	CHECK(psem_capacity(&s->sem) == psem_capacity(&r->sem), "%s: capacity", what);
}

void case_static_init(void)
{
	struct psem_ext *r = calloc(1, sizeof(*r));

	if (!r)
		abort();
	memset(r, 0x6b, sizeof(*r));
	psem_init_ext(r, 3);
	si_cmp("ext", &si_ext, r);
	memset(r, 0x6b, sizeof(*r));
	psem_init_capacity(r, 5);
	si_cmp("capacity", &si_cap, r);
	free(r);
}
