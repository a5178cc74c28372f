// SPDX-License-Identifier: GPL-2.0
/*
 * psem-cases: forced interleavings and exact edge cases, one function each,
 * on the unmodified psem sources. Where a bug needs a task to be preempted
 * at one point, the shim's preemption hook (psem-user.h) stops it there,
 * as a scheduler could, and the case runs the other side meanwhile.
 *
 *   psem-cases NAME...    runs each case; prints "psem-cases: NAME: held",
 *                         or "psem-cases: NAME: FAIL: why" and exits 1
 *   psem-cases NAME/VAR   one variant of a case that has several
 *                         (close-quiesce-free/signal, /timeout, /shutdown,
 *                         /async)
 *   psem-cases -l         lists the cases
 *
 * Built natively, under ThreadSanitizer and under AddressSanitizer
 * (scripts/check-tsan.sh). A case touches no permit it does not account
 * for exactly, and fails on any warning the shim counted (a WARN, a
 * lockdep assertion, a sleep under a spinlock). The psems of the
 * use-after-free cases are on the heap and are freed where the contract
 * says the owner may free them, so that ASan reports any later access.
 *
 * No case asserts a duration: a bound only lets a stopped task go on when
 * the code under test rightly waits for it, and a wait for progress that
 * never comes fails as a hang, not as slowness.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "psem.h"
#include "psem-user.h"

extern bool psem_quiet_warnings;

/* How long a stopped task waits for the case to let it go, at most. */
#define STOP_BOUND_MS	200
/* How long a case waits for something that must happen, before failing. */
#define HANG_MS		10000

static const char *case_name;
static const char *case_variant;	/* NAME/VARIANT: that variant only */
static int case_failed;

static __printf(1, 2) void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "psem-cases: %s: FAIL: ", case_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	case_failed = 1;
}

static __printf(1, 2) void note(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "psem-cases: %s: ", case_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

#define CHECK(cond, fmt, ...)						\
({									\
	bool __ok = !!(cond);						\
	if (!__ok)							\
		fail("%s:%d: %s: " fmt, __FILE__, __LINE__, #cond,	\
		     ##__VA_ARGS__);					\
	__ok;								\
})

static long word(struct psem *sem)
{
	return atomic_long_read(&sem->count);
}

/* Whether any waiter is linked on @sem (under its lock). */
static bool linked(struct psem *sem)
{
	unsigned long flags;
	bool any;

	spin_lock_irqsave(&sem->wq.lock, flags);
	any = !list_empty(&sem->wq.head);
	spin_unlock_irqrestore(&sem->wq.lock, flags);
	return any;
}

static int ld(const int *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static void st(int *p, int v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/* Polls until *@p is nonzero (ACQUIRE) or HANG_MS pass; returns *@p. */
static int wait_flag(const int *p)
{
	int i;

	for (i = 0; i < HANG_MS * 10; i++) {
		int v = __atomic_load_n(p, __ATOMIC_ACQUIRE);

		if (v)
			return v;
		psem_user_usleep(100);
	}
	return 0;
}

/* Waits (up to @ms) without touching anything the case checks. */
static void wait_unless(const int *go, unsigned int ms)
{
	unsigned int i;

	for (i = 0; i < ms * 10 && !ld(go); i++)
		psem_user_usleep(100);
}

/* A thread that is a task; @stack 0: the default stack. */
struct thr {
	pthread_t		th;
	struct task_struct	*task;	/* published with RELEASE */
	void			(*fn)(struct thr *t);
	void			*arg;
	long			ret;
	const char		*comm;
};

static void *thr_main(void *p)
{
	struct thr *t = p;

	__atomic_store_n(&t->task, psem_user_task_init(t->comm, 1),
			 __ATOMIC_RELEASE);
	t->fn(t);
	return NULL;
}

static void thr_start(struct thr *t, const char *comm, void (*fn)(struct thr *),
		      void *arg, size_t stack)
{
	pthread_attr_t attr;

	t->task = NULL;
	t->fn = fn;
	t->arg = arg;
	t->comm = comm;
	pthread_attr_init(&attr);
	if (stack && pthread_attr_setstacksize(&attr, stack))
		abort();
	if (pthread_create(&t->th, &attr, thr_main, t))
		abort();
	pthread_attr_destroy(&attr);
	while (!__atomic_load_n(&t->task, __ATOMIC_ACQUIRE))
		psem_user_usleep(50);
}

static void thr_join(struct thr *t)
{
	pthread_join(t->th, NULL);
}

/* Waits until @t sleeps, linked on @sem; false after HANG_MS. */
static bool wait_asleep_on(struct thr *t, struct psem *sem)
{
	int i;

	for (i = 0; i < HANG_MS * 10; i++) {
		if (linked(sem) &&
		    __atomic_load_n(&t->task->__state, __ATOMIC_RELAXED) !=
		    TASK_RUNNING)
			return true;
		psem_user_usleep(100);
	}
	return false;
}

static const char *pre_state_name(int s)
{
	static const char * const names[] = {
		"was never armed", "had not reached its stop", "was stopped",
		"had been let go by the case", "had gone on after the bound",
	};

	return s >= 0 && s < (int)ARRAY_SIZE(names) ? names[s] : "?";
}

/*
 * close-quiesce-free: a waiter W leaves its wait (a signal, a timeout, or
 * psem_close() failing it) and is preempted before it next takes the queue
 * lock; the owner closes, brings the last permit home, quiesces and frees
 * the psem. Once psem_quiesce() has returned 0 after psem_close(), no task
 * may touch the psem: ASan reports it if W does, and the stop's bound lets
 * W go on by itself when quiesce rightly waits for it.
 */
enum cqf_kind { CQF_SIGNAL, CQF_TIMEOUT, CQF_SHUTDOWN };
static const char * const cqf_names[] = { "signal", "timeout", "shutdown" };

struct cqf {
	struct psem	*sem;
	enum cqf_kind	kind;
};

static void cqf_waiter(struct thr *t)
{
	struct cqf *c = t->arg;

	switch (c->kind) {
	case CQF_SIGNAL:
		t->ret = psem_acquire_interruptible(c->sem, 1);
		break;
	case CQF_TIMEOUT:
		t->ret = psem_acquire_timeout(c->sem, 1, 100);
		break;
	case CQF_SHUTDOWN:
		t->ret = psem_acquire_killable(c->sem, 1);
		break;
	}
}

static void close_quiesce_free_one(enum cqf_kind kind)
{
	const char * const *names = cqf_names;
	struct cqf c = { .kind = kind };
	struct thr w;
	int state, ret;

	c.sem = calloc(1, sizeof(*c.sem));
	if (!c.sem)
		abort();
	if (!CHECK(psem_init_capacity(c.sem, 1) == 0, "init"))
		return;
	if (!CHECK(psem_try_acquire(c.sem, 1), "the owner's permit"))
		return;
	thr_start(&w, "W", cqf_waiter, &c, 0);
	if (!CHECK(wait_asleep_on(&w, c.sem), "W never slept (%s)",
		   names[kind]))
		return;
	if (kind == CQF_SHUTDOWN) {
		/* W stops on its way out of schedule(), once woken by close. */
		psem_user_preempt_arm(w.task, PSEM_USER_AT_WAKE, NULL, 1,
				      STOP_BOUND_MS);
	} else {
		/* W stops before it next takes the queue lock: its cancel. */
		psem_user_preempt_arm(w.task, PSEM_USER_AT_LOCK, &c.sem->wq.lock,
				      1, STOP_BOUND_MS);
		if (kind == CQF_SIGNAL)
			psem_user_signal(w.task, false);
		/* CQF_TIMEOUT: W's 100 ms run out by themselves. */
		state = psem_user_preempt_wait_stopped(w.task, HANG_MS);
		if (state != PSEM_USER_PRE_STOPPED)
			note("%s: W %s before the close", names[kind],
			     pre_state_name(state));
	}

	ret = psem_close(c.sem);
	CHECK(ret == 0, "%s: psem_close() returned %d", names[kind], ret);
	if (kind == CQF_SHUTDOWN) {
		state = psem_user_preempt_wait_stopped(w.task, HANG_MS);
		if (state != PSEM_USER_PRE_STOPPED)
			note("%s: W %s after the close", names[kind],
			     pre_state_name(state));
	}
	ret = psem_release(c.sem, 1);
	CHECK(ret == 0, "%s: the owner's release returned %d", names[kind], ret);
	ret = psem_quiesce(c.sem, HANG_MS);
	if (!CHECK(ret == 0, "%s: psem_quiesce() returned %d", names[kind],
		   ret)) {
		psem_user_preempt_release(w.task);
		thr_join(&w);
		return;
	}
	/* The contract: the owner may free the psem now. */
	state = psem_user_preempt_state(w.task);
	free(c.sem);
	/* Old code: W resumes here, and its psem_cancel() locks freed memory. */
	psem_user_preempt_release(w.task);
	thr_join(&w);
	note("%s: W %s when quiesce returned; W returned %ld", names[kind],
	     pre_state_name(state), w.ret);
	CHECK(w.ret == -ESHUTDOWN ||
	      (kind == CQF_SIGNAL && w.ret == -EINTR) ||
	      (kind == CQF_TIMEOUT && w.ret == -ETIME),
	      "%s: W returned %ld", names[kind], w.ret);
}

/*
 * The same for an asynchronous completion: releaser R serves async waiter
 * A and calls its callback, which gives the permit back and then arms R to
 * stop before R next takes the queue lock. The owner, once the permit is
 * back, closes, quiesces and frees: R, still inside psem_release(), must
 * not touch the psem after that.
 */
static struct psem *cqa_sem;
static int cqa_given_back, cqa_release_ret;

static void cqa_fn(struct psem_async *aw, int result)
{
	st(&cqa_release_ret, result ? result : psem_release(cqa_sem, 1));
	psem_user_preempt_arm(current, PSEM_USER_AT_LOCK, &cqa_sem->wq.lock, 1,
			      STOP_BOUND_MS);
	__atomic_store_n(&cqa_given_back, 1, __ATOMIC_RELEASE);
}

static void cqa_releaser(struct thr *t)
{
	t->ret = psem_release(cqa_sem, 1);
}

static void close_quiesce_free_async(void)
{
	struct psem_async *aw = calloc(1, sizeof(*aw));
	struct thr r;
	int ret, state;

	cqa_sem = calloc(1, sizeof(*cqa_sem));
	if (!aw || !cqa_sem)
		abort();
	psem_init_capacity(cqa_sem, 1);
	CHECK(psem_try_acquire(cqa_sem, 1), "the owner's permit");
	ret = psem_acquire_async(cqa_sem, 1, aw, cqa_fn);
	if (!CHECK(ret == -EINPROGRESS, "async: A returned %d", ret))
		return;
	thr_start(&r, "R", cqa_releaser, NULL, 0);
	if (!CHECK(wait_flag(&cqa_given_back), "async: A's callback never ran"))
		return;
	CHECK(ld(&cqa_release_ret) == 0, "async: A's give-back returned %d",
	      ld(&cqa_release_ret));
	ret = psem_close(cqa_sem);
	CHECK(ret == 0, "async: psem_close() returned %d", ret);
	ret = psem_quiesce(cqa_sem, HANG_MS);
	if (!CHECK(ret == 0, "async: psem_quiesce() returned %d", ret)) {
		psem_user_preempt_release(r.task);
		thr_join(&r);
		return;
	}
	state = psem_user_preempt_state(r.task);
	free(cqa_sem);
	psem_user_preempt_release(r.task);
	thr_join(&r);
	note("async: R %s when quiesce returned; its release returned %ld",
	     pre_state_name(state), r.ret);
	CHECK(r.ret == 0, "async: R's release returned %ld", r.ret);
	free(aw);
}

static void case_close_quiesce_free(void)
{
	int k;

	for (k = CQF_SIGNAL; k <= CQF_SHUTDOWN && !case_failed; k++)
		if (!case_variant || !strcmp(case_variant, cqf_names[k]))
			close_quiesce_free_one(k);
	if (!case_failed && (!case_variant || !strcmp(case_variant, "async")))
		close_quiesce_free_async();
}

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

static void case_async_work_withdraw(void)
{
	struct psem_async a;
	struct psem_async_work *b = calloc(1, sizeof(*b));
	struct thr r;
	bool withdrawn;
	int ret, held = 0;

	if (!b)
		abort();
	aww_sem = calloc(1, sizeof(*aww_sem));
	if (!aww_sem)
		abort();
	psem_init(aww_sem, 0);
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

static void case_cancel_sync_rearm(void)
{
	static struct psem_async aw;
	struct thr r;
	bool cancelled;
	int ret, returned, held = 1;

	rearm_sem = calloc(1, sizeof(*rearm_sem));
	if (!rearm_sem)
		abort();
	psem_init(rearm_sem, 0);
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
 * closed-release-overflow: a release that overflows a closed psem is
 * refused and changes nothing; the psem stays closed.
 */
static void closed_overflow_one(long cap, long hold)
{
	struct psem sem;
	long before;
	int ret;

	if (cap < 0) {
		psem_init(&sem, 1);
	} else {
		psem_init_capacity(&sem, cap);
		CHECK(psem_try_acquire(&sem, hold), "take %ld", hold);
	}
	CHECK(psem_close(&sem) == 0, "close");
	before = word(&sem);
	ret = psem_release(&sem, PSEM_MAX_PERMITS);
	note("%s: psem_release(PSEM_MAX_PERMITS) returned %d; word %#lx -> %#lx (balance %ld), %s",
	     cap < 0 ? "uncapped, balance 1" : "capacity 10, balance 5", ret,
	     (unsigned long)before, (unsigned long)word(&sem),
	     psem_available(&sem), psem_is_closed(&sem) ? "closed" : "open");
	CHECK(ret == -EOVERFLOW, "returned %d, want -EOVERFLOW", ret);
	CHECK(word(&sem) == before, "the word changed: %#lx -> %#lx",
	      (unsigned long)before, (unsigned long)word(&sem));
	CHECK(psem_is_closed(&sem), "the psem reopened");
}

static void case_closed_release_overflow(void)
{
	closed_overflow_one(-1, 0);	/* uncapped, balance 1 */
	closed_overflow_one(10, 5);	/* capacity 10, balance 5 */
}

/*
 * release-all-held-capacity: with capacity 5 and all 5 held, releasing 10
 * "held" permits is refused and changes nothing, as psem_release() is.
 */
static void case_release_all_held_capacity(void)
{
	struct psem sem;
	long before;
	int ret;

	psem_init_capacity(&sem, 5);
	CHECK(psem_try_acquire(&sem, 5), "take 5");
	before = word(&sem);
	ret = psem_release(&sem, 10);
	CHECK(ret == -EOVERFLOW, "psem_release(10) returned %d", ret);
	ret = psem_release_all_held(&sem, 10);
	note("psem_release_all_held(10) returned %d, balance %ld",
	     ret, psem_available(&sem));
	CHECK(ret == -EOVERFLOW, "returned %d, want -EOVERFLOW", ret);
	CHECK(word(&sem) == before, "the word changed: %#lx -> %#lx",
	      (unsigned long)before, (unsigned long)word(&sem));
	if (case_failed)
		return;
	CHECK(psem_release_all_held(&sem, 5) == 0, "the real release");
	CHECK(psem_available(&sem) == 5, "available %ld",
	      psem_available(&sem));
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

static void case_async_chain_iterates(void)
{
	struct thr s;
	int i, ret, calls, stopped;

	chain = calloc(CHAIN_N, sizeof(*chain));
	chain_sem = calloc(1, sizeof(*chain_sem));
	if (!chain || !chain_sem)
		abort();
	psem_init(chain_sem, 0);
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

static void case_double_cancel(void)
{
	struct psem sem;
	struct psem_async *aw = calloc(1, sizeof(*aw));
	bool c1, c2;
	int ret;

	if (!aw)
		abort();
	psem_init_capacity(&sem, 4);
	CHECK(psem_try_acquire(&sem, 3), "take 3");
	ret = psem_acquire_async(&sem, 3, aw, dc_fn);
	if (!CHECK(ret == -EINPROGRESS, "async wait for 3: %d", ret))
		return;
	CHECK(psem_available(&sem) == 0, "available %ld after the wait",
	      psem_available(&sem));
	c1 = psem_cancel_async(&sem, aw);
	CHECK(c1, "the first cancel returned false");
	CHECK(psem_available(&sem) == 1, "available %ld after the first cancel",
	      psem_available(&sem));
	c2 = psem_cancel_async(&sem, aw);
	note("second cancel returned %s, available %ld", c2 ? "true" : "false",
	     psem_available(&sem));
	CHECK(!c2, "the second cancel returned true");
	CHECK(psem_available(&sem) == 1,
	      "available %ld after the second cancel, want 1",
	      psem_available(&sem));
	ret = psem_release(&sem, 3);
	CHECK(ret == 0, "releasing the 3 held returned %d", ret);
	CHECK(psem_available(&sem) == 4, "available %ld, want 4",
	      psem_available(&sem));
	CHECK(!ld(&dc_calls), "the callback ran");
	CHECK(!linked(&sem), "a waiter is linked");
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

static void case_cancel_never_queued(void)
{
	struct psem sem;
	struct psem_async *aw = calloc(1, sizeof(*aw));
	long before;
	bool c;
	int ret;

	if (!aw)
		abort();
	/* Granted at once, never queued. */
	psem_init_capacity(&sem, 4);
	ret = psem_acquire_async(&sem, 1, aw, cnq_fn);
	if (!CHECK(ret == 0, "async acquire of 1 of 4 returned %d", ret))
		return;
	before = word(&sem);
	c = psem_cancel_async(&sem, aw);
	note("granted at once: cancel returned %s, available %ld",
	     c ? "true" : "false", psem_available(&sem));
	CHECK(!c, "cancel of a wait granted at once returned true");
	CHECK(word(&sem) == before, "the word changed: %#lx -> %#lx",
	      (unsigned long)before, (unsigned long)word(&sem));
	CHECK(psem_release(&sem, 1) == 0 && psem_available(&sem) == 4,
	      "accounting: available %ld", psem_available(&sem));
	if (case_failed)
		return;

	/* Queued, then completed: the callback ran. */
	CHECK(psem_try_acquire(&sem, 4), "take 4");
	ret = psem_acquire_async(&sem, 1, aw, cnq_fn);
	if (!CHECK(ret == -EINPROGRESS, "async wait: %d", ret))
		return;
	CHECK(psem_release(&sem, 1) == 0, "the release that serves it");
	CHECK(ld(&cnq_calls) == 1 && cnq_result == 0, "callback: %d calls, %d",
	      ld(&cnq_calls), cnq_result);
	before = word(&sem);
	c = psem_cancel_async(&sem, aw);
	note("completed: cancel returned %s, available %ld",
	     c ? "true" : "false", psem_available(&sem));
	CHECK(!c, "cancel of a completed wait returned true");
	CHECK(word(&sem) == before, "the word changed");
	CHECK(psem_release(&sem, 4) == 0 && psem_available(&sem) == 4,
	      "accounting: available %ld", psem_available(&sem));
	CHECK(!linked(&sem), "a waiter is linked");
	free(aw);
}

/*
 * quiesce-fifo: an acquirer B queued behind a quiesce Q is served after Q
 * is: while Q, served, is stopped before it runs again, B is still queued
 * (Q holds every permit); once Q gives them back, B is granted. Whether B
 * returns before Q's caller does is recorded, not asserted: the kernel-doc
 * promises only "served after it".
 */
static struct psem *qf_sem;
static int qf_q_returned, qf_b_returned, qf_order;

static void qf_quiesce(struct thr *t)
{
	t->ret = psem_quiesce(qf_sem, MAX_SCHEDULE_TIMEOUT);
	__atomic_store_n(&qf_q_returned, __atomic_add_fetch(&qf_order, 1,
			 __ATOMIC_RELAXED), __ATOMIC_RELEASE);
}

static void qf_acquirer(struct thr *t)
{
	t->ret = psem_acquire_killable(qf_sem, 1);
	__atomic_store_n(&qf_b_returned, __atomic_add_fetch(&qf_order, 1,
			 __ATOMIC_RELAXED), __ATOMIC_RELEASE);
}

static void case_quiesce_fifo(void)
{
	struct thr q, b;
	int state;

	qf_sem = calloc(1, sizeof(*qf_sem));
	if (!qf_sem)
		abort();
	psem_init_capacity(qf_sem, 2);
	CHECK(psem_try_acquire(qf_sem, 2), "take all 2");
	thr_start(&q, "Q", qf_quiesce, NULL, 0);
	if (!CHECK(wait_asleep_on(&q, qf_sem), "Q never queued"))
		return;
	thr_start(&b, "B", qf_acquirer, NULL, 0);
	if (!CHECK(wait_asleep_on(&b, qf_sem), "B never slept"))
		return;
	/* Q stops once served, on its way out of schedule(). */
	psem_user_preempt_arm(q.task, PSEM_USER_AT_WAKE, NULL, 1, HANG_MS);
	CHECK(psem_release(qf_sem, 2) == 0, "the release");
	state = psem_user_preempt_wait_stopped(q.task, HANG_MS);
	CHECK(state == PSEM_USER_PRE_STOPPED, "Q %s", pre_state_name(state));
	/* The release served Q with every permit: B cannot have been. */
	CHECK(linked(qf_sem) && !ld(&qf_b_returned),
	      "B was served before Q ran again");
	psem_user_preempt_release(q.task);
	thr_join(&q);
	thr_join(&b);
	note("B returned %s Q's caller", ld(&qf_b_returned) < ld(&qf_q_returned) ?
	     "before" : "after");
	CHECK(q.ret == 0 && b.ret == 0, "Q returned %ld, B %ld", q.ret, b.ret);
	CHECK(psem_release(qf_sem, 1) == 0 && psem_available(qf_sem) == 2,
	      "accounting: available %ld", psem_available(qf_sem));
	free(qf_sem);
}

/*
 * nmi-release-quiesce-free: a release from NMI, where the queue lock may
 * not be taken, with a waiter queued: its permit is parked for an
 * irq_work, whose task is stopped before it takes the queue lock. From
 * NMI, psem_close() is refused (-EPERM). The owner then, in task context,
 * closes (failing the waiter), gives back its other permit, quiesces and
 * frees the psem: quiesce must have waited for the hand-off, which counts
 * the parked permit home, and nothing touches the psem after it.
 */
static struct psem *nrq_sem;

static void nrq_waiter(struct thr *t)
{
	t->ret = psem_acquire_killable(nrq_sem, 1);
}

static void case_nmi_release_quiesce_free(void)
{
	struct task_struct *irq = psem_user_irq_work_task();
	struct thr w;
	int ret, state, old;

	nrq_sem = calloc(1, sizeof(*nrq_sem));
	if (!nrq_sem)
		abort();
	psem_init_capacity(nrq_sem, 2);
	CHECK(psem_try_acquire(nrq_sem, 2), "take 2");
	thr_start(&w, "W", nrq_waiter, NULL, 0);
	if (!CHECK(wait_asleep_on(&w, nrq_sem), "W never slept"))
		return;
	psem_user_preempt_arm(irq, PSEM_USER_AT_LOCK, &nrq_sem->wq.lock, 1,
			      STOP_BOUND_MS);
	old = psem_user_set_context(NMI_OFFSET);
	ret = psem_release(nrq_sem, 1);
	CHECK(ret == 0, "the release from NMI returned %d", ret);
	ret = psem_close(nrq_sem);
	psem_user_set_context(old);
	if (!CHECK(ret == -EPERM,
		   "psem_close() from NMI returned %d, want -EPERM", ret)) {
		psem_user_preempt_disarm(irq);
		return;		/* W may hold a permit now: no quiesce */
	}
	state = psem_user_preempt_wait_stopped(irq, 2 * STOP_BOUND_MS);
	note("the irq_work task %s after the release from NMI",
	     pre_state_name(state));

	ret = psem_close(nrq_sem);
	CHECK(ret == 0, "psem_close() returned %d", ret);
	ret = psem_release(nrq_sem, 1);
	CHECK(ret == 0, "the owner's release returned %d", ret);
	ret = psem_quiesce(nrq_sem, HANG_MS);
	if (!CHECK(ret == 0, "psem_quiesce() returned %d", ret)) {
		psem_user_preempt_release(irq);
		thr_join(&w);
		return;
	}
	state = psem_user_preempt_state(irq);
	free(nrq_sem);
	psem_user_preempt_release(irq);
	thr_join(&w);
	note("the irq_work task %s when quiesce returned; W returned %ld",
	     pre_state_name(state), w.ret);
	/* W was served by the hand-off, or failed by the close. */
	if (w.ret == 0)
		fail("W was granted a permit that quiesce then counted home");
	CHECK(w.ret == -ESHUTDOWN, "W returned %ld", w.ret);
	psem_user_preempt_disarm(irq);
}

struct pcase {
	const char	*name;
	void		(*fn)(void);
};

static const struct pcase cases[] = {
	{ "close-quiesce-free",		case_close_quiesce_free },
	{ "async-work-withdraw",	case_async_work_withdraw },
	{ "cancel-sync-rearm",		case_cancel_sync_rearm },
	{ "closed-release-overflow",	case_closed_release_overflow },
	{ "release-all-held-capacity",	case_release_all_held_capacity },
	{ "async-chain-iterates",	case_async_chain_iterates },
	{ "double-cancel",		case_double_cancel },
	{ "cancel-never-queued",	case_cancel_never_queued },
	{ "quiesce-fifo",		case_quiesce_fifo },
	{ "nmi-release-quiesce-free",	case_nmi_release_quiesce_free },
};

int main(int argc, char **argv)
{
	unsigned long warn0;
	size_t i;
	int a, failed = 0;

	psem_user_task_init("case", 0);
	if (argc == 2 && !strcmp(argv[1], "-l")) {
		for (i = 0; i < ARRAY_SIZE(cases); i++)
			printf("%s\n", cases[i].name);
		return 0;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: psem-cases -l | NAME...\n");
		return 1;
	}
	/* The cases' refusals are expected: counted, not warned about. */
	psem_quiet_warnings = true;
	for (a = 1; a < argc; a++) {
		const char *slash = strchr(argv[a], '/');
		size_t len = slash ? (size_t)(slash - argv[a]) : strlen(argv[a]);

		for (i = 0; i < ARRAY_SIZE(cases); i++)
			if (strlen(cases[i].name) == len &&
			    !strncmp(argv[a], cases[i].name, len))
				break;
		if (i == ARRAY_SIZE(cases)) {
			fprintf(stderr, "psem-cases: no case %s\n", argv[a]);
			return 1;
		}
		case_name = argv[a];
		case_variant = NULL;
		if (slash)
			case_variant = slash + 1;
		case_failed = 0;
		warn0 = psem_user_warnings();
		cases[i].fn();
		if (!case_failed && psem_user_warnings() != warn0)
			fail("%lu warning(s)", psem_user_warnings() - warn0);
		if (case_failed) {
			failed = 1;
			continue;
		}
		printf("psem-cases: %s: held\n", case_name);
		fflush(stdout);
	}
	return failed;
}
