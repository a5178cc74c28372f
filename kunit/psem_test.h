/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem_test: the helper library of psem's KUnit suites. Its functions live
 * in kunit/psem_test_lib.c and psem_test_fix.c, one module of their own
 * (psem_kunit_lib.ko) exporting them in namespace PSEM_KUNIT, which every
 * suite defined below imports; here are the types, the declarations,
 * and what must be a macro (a condition to poll, an expectation that names
 * the expression it checks) or is a one-line accessor.
 *
 * Two kinds of helper kthread, for two shapes of test:
 *
 *  - struct psem_test_thread runs a function of the test's choosing (a
 *    waiter, a loop of a race). The test case's context (struct
 *    psem_test_ctx, set up by psem_test_init()) registers every one, so
 *    that psem_test_exit() reaps it even after an assertion aborted the
 *    test, and posts steps (psem_test_post_step()) that helpers wait for.
 *  - struct psem_test_worker takes one lock of a fixture (struct
 *    psem_test_fix: a psem_rwlock, a psem_mutex and a psem_pool on the
 *    heap), holds it until told to go, and records the order it got in; or
 *    runs a stress loop on every online CPU. The suites of psem_rwlock,
 *    psem_mutex and psem_pool use these with psem_test_suite_init() and
 *    psem_test_case_exit(), which restore the switches a case changed.
 *
 * The rules both follow:
 *
 *  - Helper kthreads never use KUNIT_EXPECT or KUNIT_ASSERT: they record
 *    what happened and publish it with a RELEASE store; the test thread
 *    reads it with an ACQUIRE load once the helper is done, then asserts.
 *  - Everything a helper touches outlives an aborted test function: a
 *    thread's state comes from kunit_kzalloc(), freed after the exit hook;
 *    a fixture is leaked, with the library's module and the suite's
 *    pinned, if one of its workers cannot be stopped. Not yet so for a
 *    struct psem_test_thread that cannot be stopped: psem_test_reap()
 *    fails the test and leaks the task, but its state is freed and no
 *    module is pinned (a known gap: such a helper that wakes later
 *    writes freed memory, or runs unloaded code).
 *  - Waits are bounded polls that fail the test when a generous bound
 *    (PSEM_TEST_HANG_GUARD) passes without progress: hang guards, not
 *    timing assertions. They poll once a jiffy with psem_test_nap().
 *  - "A kthread now sleeps in the psem" is known white-box, by counting the
 *    waiters linked on its queue (psem_test_nr_waiters()). Linking is what
 *    fixes a waiter's place in the FIFO, so once the count says so the
 *    order of the waiters is deterministic.
 *  - Calls refused on purpose assert that psem_warn_count() rose by exactly
 *    one, so that any other WARNING on the console is a real failure.
 */
#ifndef _PSEM_TEST_H
#define _PSEM_TEST_H

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_mutex.h"
#include "psem_pool.h"
#include "psem_rwlock.h"

/*
 * Longest wait without progress before a test declares a hang. Well below
 * the test kernels' 30 s hung-task timeout, which the KUnit runner, asleep
 * for the whole case, is subject to.
 */
#define PSEM_TEST_HANG_GUARD	(10 * HZ)

/*
 * How long a race test goes on looking for the interleaving it needs: on
 * a loaded host the virtual CPUs may seldom run at once, on an idle one
 * they may seldom collide. A bound on the search, not a timing assertion.
 */
#define PSEM_TEST_RACE_SEARCH	(5 * HZ)

#define PSEM_TEST_MAX_THREADS	64

/* The largest request of a stress helper; its initial balance covers it. */
#define PSEM_TEST_MAX_TAKE	4

#define PSEM_TEST_HOLD_MS	60000	/* a worker gives up waiting to be told */
#define PSEM_TEST_STRESS_MS	60000	/* a stress run this long livelocks */
#define PSEM_TEST_NR_OBJS	16	/* pool objects, BITS_PER_LONG at most */

/*
 * Cases that make psem warn on purpose (its refusal WARNING, not a quiet
 * count: psem_mutex's and psem_sem's) print a "psem-expect-splat: begin
 * refusal" window around it, which scripts/lib.sh accepts (its splat kind
 * "refusal"). They run by default; build with -DPSEM_TEST_LOUD_CASES=0 to
 * compile them in but skip them, for a log scanner that does not know the
 * kind. (A module parameter cannot switch them: Linux 6.1 runs a module's
 * suites before it parses its parameters.)
 */
#ifndef PSEM_TEST_LOUD_CASES
#define PSEM_TEST_LOUD_CASES 1
#endif

/**
 * psem_test_nap() - sleep until the next tick
 *
 * One poll interval, and a short sleep inside a critical section. Not
 * usleep_range(): the hrtimer sleeper behind it clears its task pointer
 * with a plain store (hrtimer_wakeup()) that KCSAN reports as a data race
 * on a 6.1 kernel.
 */
static inline void psem_test_nap(void)
{
	schedule_timeout_uninterruptible(1);
}

/**
 * psem_test_wait_until() - poll a condition once a jiffy
 * @cond:    the condition, evaluated in the caller's context
 * @timeout: jiffies to wait at most
 *
 * Return: whether @cond held (it is evaluated once more at the end).
 */
#define psem_test_wait_until(cond, timeout)				\
({									\
	unsigned long __end = jiffies + (timeout);			\
	bool __ok;							\
									\
	for (;;) {							\
		__ok = (cond);						\
		if (__ok || time_after(jiffies, __end))			\
			break;						\
		psem_test_nap();					\
	}								\
	__ok;								\
})

/* psem_test_wait_until() for PSEM_TEST_HANG_GUARD: false means a hang. */
#define psem_test_wait_for(cond)	\
	psem_test_wait_until(cond, PSEM_TEST_HANG_GUARD)

/**
 * psem_test_await() - psem_test_wait_for() that fails the test on a hang
 * @test: the test case
 * @cond: the condition
 *
 * Return: whether @cond held.
 */
#define psem_test_await(test, cond)					\
({									\
	bool __held = psem_test_wait_for(cond);				\
									\
	if (!__held)							\
		KUNIT_FAIL(test, "hang guard: %s", #cond);		\
	__held;								\
})

/* ==== helper threads of a test case ==== */

struct psem_test_thread;

/**
 * struct psem_test_ctx - a test case's helpers and how it drives them
 * @thread:   every helper started, in start order
 * @nr:       the number of helpers started
 * @finished: ranks the helpers in the order they finished
 * @step:     the last step the test posted (see psem_test_post_step())
 * @step_wq:  where helpers wait for the next step
 * @abort:    set when the test gives up: looping helpers stop early
 */
struct psem_test_ctx {
	struct psem_test_thread	*thread[PSEM_TEST_MAX_THREADS];
	unsigned int		nr;
	atomic_t		finished;
	unsigned int		step;
	wait_queue_head_t	step_wq;
	bool			abort;
};

/* What a waiter helper calls. */
enum psem_test_op {
	PSEM_TEST_ACQUIRE,
	PSEM_TEST_INTERRUPTIBLE,
	PSEM_TEST_KILLABLE,
	PSEM_TEST_TIMEOUT,
};

/**
 * struct psem_test_thread - a helper kthread and its results
 * @fn:       the work; its return value lands in @ret. Without it the
 *            helper loops (psem_test_loop()): one @round a pass
 * @round:    for a looping helper: pass @i of the loop, from 1
 * @until:    for a looping helper: 0, or the step that it goes on past
 *            @iters passes until the test posts
 * @sem:      the psem it works on; a hung helper is sent @n permits there
 * @n:        permits to ask for (waiters) or to unblock it (stress)
 * @op:       for waiters: which acquire to call
 * @timeout:  for PSEM_TEST_TIMEOUT: the timeout in jiffies
 * @iters:    for loops: the number of iterations (passes of @round)
 * @arg:      test-specific shared state
 * @task:     the kthread, NULL once stopped
 * @ctx:      the test's context
 * @id:       the index in @ctx->thread
 * @seed:     the state of the helper's pseudo-random sequence
 * @progress: bumped by loops, so that a hang guard can tell slow from stuck
 * @ret:      @fn's result, valid once @done
 * @rank:     1 for the first helper of the test to finish, 2 for the next...
 * @done:     set with release semantics once @ret and @rank are written
 */
struct psem_test_thread {
	int			(*fn)(struct psem_test_thread *t);
	int			(*round)(struct psem_test_thread *t,
					 unsigned int i);
	unsigned int		until;
	struct psem		*sem;
	long			n;
	enum psem_test_op	op;
	long			timeout;
	unsigned int		iters;
	void			*arg;

	struct task_struct	*task;
	struct psem_test_ctx	*ctx;
	unsigned int		id;
	u32			seed;
	unsigned long		progress;
	int			ret;
	int			rank;
	bool			done;
};

int psem_test_init(struct kunit *test);
void psem_test_exit(struct kunit *test);

/*
 * __PSEM_CASES(a, b, ...): [0] = KUNIT_CASE(a), [1] = KUNIT_CASE(b), ...,
 * the entries of a suite's case array, psem_test_nr_cases of them, 20 at
 * most (a suite with more should be two). __PSEM_CASESn(c, ...) puts c in
 * the nth entry from the end, before the entries of the rest. The count is
 * the library's own: the kernel's COUNT_ARGS() stops at 12 in Linux 6.1.
 */
#define __PSEM_NR_CASES(...)						\
	__PSEM_NR_CASES_N(__VA_ARGS__, 20, 19, 18, 17, 16, 15, 14, 13, 12,	\
			  11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
#define __PSEM_NR_CASES_N(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11,	\
			  _12, _13, _14, _15, _16, _17, _18, _19, _20, n, ...) n
#define __PSEM_CASE(n, c, rest)	\
	[psem_test_nr_cases - (n)] = KUNIT_CASE(c), rest
#define __PSEM_CASES1(c)	\
	[psem_test_nr_cases - 1] = KUNIT_CASE(c),
#define __PSEM_CASES2(c, ...)	__PSEM_CASE(2, c, __PSEM_CASES1(__VA_ARGS__))
#define __PSEM_CASES3(c, ...)	__PSEM_CASE(3, c, __PSEM_CASES2(__VA_ARGS__))
#define __PSEM_CASES4(c, ...)	__PSEM_CASE(4, c, __PSEM_CASES3(__VA_ARGS__))
#define __PSEM_CASES5(c, ...)	__PSEM_CASE(5, c, __PSEM_CASES4(__VA_ARGS__))
#define __PSEM_CASES6(c, ...)	__PSEM_CASE(6, c, __PSEM_CASES5(__VA_ARGS__))
#define __PSEM_CASES7(c, ...)	__PSEM_CASE(7, c, __PSEM_CASES6(__VA_ARGS__))
#define __PSEM_CASES8(c, ...)	__PSEM_CASE(8, c, __PSEM_CASES7(__VA_ARGS__))
#define __PSEM_CASES9(c, ...)	__PSEM_CASE(9, c, __PSEM_CASES8(__VA_ARGS__))
#define __PSEM_CASES10(c, ...)	__PSEM_CASE(10, c, __PSEM_CASES9(__VA_ARGS__))
#define __PSEM_CASES11(c, ...)	__PSEM_CASE(11, c, __PSEM_CASES10(__VA_ARGS__))
#define __PSEM_CASES12(c, ...)	__PSEM_CASE(12, c, __PSEM_CASES11(__VA_ARGS__))
#define __PSEM_CASES13(c, ...)	__PSEM_CASE(13, c, __PSEM_CASES12(__VA_ARGS__))
#define __PSEM_CASES14(c, ...)	__PSEM_CASE(14, c, __PSEM_CASES13(__VA_ARGS__))
#define __PSEM_CASES15(c, ...)	__PSEM_CASE(15, c, __PSEM_CASES14(__VA_ARGS__))
#define __PSEM_CASES16(c, ...)	__PSEM_CASE(16, c, __PSEM_CASES15(__VA_ARGS__))
#define __PSEM_CASES17(c, ...)	__PSEM_CASE(17, c, __PSEM_CASES16(__VA_ARGS__))
#define __PSEM_CASES18(c, ...)	__PSEM_CASE(18, c, __PSEM_CASES17(__VA_ARGS__))
#define __PSEM_CASES19(c, ...)	__PSEM_CASE(19, c, __PSEM_CASES18(__VA_ARGS__))
#define __PSEM_CASES20(c, ...)	__PSEM_CASE(20, c, __PSEM_CASES19(__VA_ARGS__))
#define __PSEM_CASES(...)	\
	CONCATENATE(__PSEM_CASES, __PSEM_NR_CASES(__VA_ARGS__))(__VA_ARGS__)

/*
 * A module's one suite, @sname ("psem_..."; the module is @sname_kunit.ko,
 * see kunit/Kbuild), with the module's @desc, the suite's hooks (NULL for
 * none) and its cases, the test functions named after the hooks.
 * scripts/lib.sh's suites_in() reads the suite's name from the line that
 * uses one of the macros below.
 */
#define __PSEM_TEST_SUITE(sname, desc, _suite_init, _init, _exit, ...)	\
	enum { psem_test_nr_cases = __PSEM_NR_CASES(__VA_ARGS__) };		\
	static struct kunit_case psem_test_cases[] = {			\
		__PSEM_CASES(__VA_ARGS__)				\
		[psem_test_nr_cases] = {}				\
	};								\
	static struct kunit_suite psem_test_suite = {			\
		.name		= sname,				\
		.suite_init	= _suite_init,				\
		.init		= _init,				\
		.exit		= _exit,				\
		.test_cases	= psem_test_cases,			\
	};								\
	kunit_test_suites(&psem_test_suite);				\
	MODULE_IMPORT_NS(PSEM_NS);					\
	MODULE_IMPORT_NS(PSEM_KNOBS_NS);				\
	MODULE_IMPORT_NS(PSEM_KUNIT_NS);				\
	MODULE_LICENSE("GPL");						\
	MODULE_DESCRIPTION(desc)

/**
 * PSEM_TEST_SUITE - define a module's one suite, each case run in the
 *                   library's context (psem_test_init(), psem_test_exit())
 * @sname: the suite's name, a string literal
 * @desc:  the module's description
 * @...:   the test cases' functions, 20 at most, in the order they run
 */
#define PSEM_TEST_SUITE(sname, desc, ...)				\
	__PSEM_TEST_SUITE(sname, desc, NULL, psem_test_init,		\
			  psem_test_exit, __VA_ARGS__)

/**
 * PSEM_TEST_FIX_SUITE - define a module's one suite of lock fixture cases
 *                       (psem_test_suite_init(), psem_test_case_exit())
 * @sname: the suite's name, a string literal
 * @desc:  the module's description
 * @...:   the test cases' functions, 20 at most, in the order they run
 */
#define PSEM_TEST_FIX_SUITE(sname, desc, ...)				\
	__PSEM_TEST_SUITE(sname, desc, psem_test_suite_init, NULL,	\
			  psem_test_case_exit, __VA_ARGS__)

/**
 * PSEM_TEST_HOOKED_SUITE - define a module's one suite with hooks of its own
 * @sname: the suite's name, a string literal
 * @desc:  the module's description
 * @init:  the suite's .init, or NULL
 * @exit:  the suite's .exit, or NULL
 * @...:   the test cases' functions, 20 at most, in the order they run
 */
#define PSEM_TEST_HOOKED_SUITE(sname, desc, init, exit, ...)		\
	__PSEM_TEST_SUITE(sname, desc, NULL, init, exit, __VA_ARGS__)

struct psem_test_thread *psem_test_spawn(struct kunit *test,
					 const struct psem_test_thread *tmpl,
					 int cpu);
unsigned int psem_test_spawn_per_cpu(struct kunit *test,
				     const struct psem_test_thread *tmpl,
				     unsigned int per_cpu, unsigned int max);
bool psem_test_wait_done(struct psem_test_thread *t);
void psem_test_expect_all_ok(struct kunit *test);
void psem_test_unstick(struct psem_test_thread *t);
void psem_test_reap(struct kunit *test, struct psem_test_thread *t);
void psem_test_reap_all(struct kunit *test);
void psem_test_post_step(struct psem_test_ctx *ctx, unsigned int step);
bool psem_test_wait_step(struct psem_test_thread *t, unsigned int step);
u32 psem_test_rand(u32 *state);
bool psem_test_all_done(struct psem_test_thread **t, unsigned int nr);
unsigned long psem_test_progress_sum(struct psem_test_thread **t,
				     unsigned int nr);

/* Whether @t has finished; then its @ret and @rank are valid. */
static inline bool psem_test_done(struct psem_test_thread *t)
{
	/* Pairs with the release in psem_test_thread_main(). */
	return smp_load_acquire(&t->done);
}

/* Tells a hang guard that a looping helper is slow, not stuck. */
static inline void psem_test_progress(struct psem_test_thread *t)
{
	WRITE_ONCE(t->progress, t->progress + 1);
}

/* Records the first error of a helper's loop. */
static inline void psem_test_note(int *err, int ret)
{
	if (ret && !*err)
		*err = ret;
}

/* Whether the test posted @step: for helpers that poll, not sleep. */
static inline bool psem_test_step_posted(struct psem_test_thread *t,
					 unsigned int step)
{
	/* Pairs with psem_test_post_step(). */
	return smp_load_acquire(&t->ctx->step) >= step;
}

/* Whether the test gave up: a looping helper should stop. */
static inline bool psem_test_aborted(struct psem_test_thread *t)
{
	return READ_ONCE(t->ctx->abort);
}

/* ==== waiters and a psem's state ==== */

int psem_test_waiter_fn(struct psem_test_thread *t);
struct psem_test_thread *psem_test_waiter(struct kunit *test,
					  struct psem *sem,
					  enum psem_test_op op, long n,
					  long timeout);
struct psem_test_thread *psem_test_linked_waiter(struct kunit *test,
						 struct psem *sem,
						 enum psem_test_op op, long n,
						 unsigned int nr);
unsigned int psem_test_nr_waiters(struct psem *sem);
struct psem *psem_test_sem(struct kunit *test, long permits);

struct psem *psem_test_ext_sem(struct kunit *test, long permits);
struct psem *psem_test_capped_sem(struct kunit *test, long capacity);
struct psem_test_thread *psem_test_quiescer(struct kunit *test,
					    struct psem *sem, unsigned int nr);

/* The word, whole: the balance times PSEM_ONE plus the flags. */
static inline long psem_test_word(struct psem *sem)
{
	return atomic_long_read(&sem->count);
}

/**
 * struct psem_test_snapshot - what a psem holds, for a later comparison
 * @word:     the word, whole
 * @avail:    psem_available()
 * @capacity: psem_capacity()
 * @debt:     psem_debt()
 * @waiters:  psem_test_nr_waiters()
 */
struct psem_test_snapshot {
	long		word;
	long		avail;
	long		capacity;
	unsigned long	debt;
	unsigned int	waiters;
};

struct psem_test_snapshot psem_test_snapshot(struct psem *sem);
void psem_test_expect_unchanged(struct kunit *test, struct psem *sem,
				const struct psem_test_snapshot *was,
				const char *what);

/* The flags of the word: PSEM_WAITERS and PSEM_CONTENDED. */
static inline long psem_test_flags(struct psem *sem)
{
	long cur = atomic_long_read(&sem->count);

	/* A credit (psem.h, PSEM_CREDIT) is a balance: no flag a test sees. */
	if ((cur & PSEM_FLAGS) == PSEM_FLAGS)
		return 0;
	return cur & PSEM_FLAGS;
}

/* Waits for a helper to finish and expects it to have returned @want. */
#define PSEM_TEST_EXPECT_RETURNS(test, t, want)				\
do {									\
	struct kunit *__test = (test);					\
	struct psem_test_thread *__t = (t);				\
									\
	KUNIT_ASSERT_TRUE_MSG(__test, psem_test_wait_done(__t),		\
			      "helper %u hung", __t->id);		\
	KUNIT_EXPECT_EQ_MSG(__test, __t->ret, want, "helper %u", __t->id); \
} while (0)

/* @sem holds @avail permits and owes, awaits and flags nothing. */
#define PSEM_TEST_EXPECT_IDLE(test, sem, avail)				\
do {									\
	struct kunit *__test = (test);					\
	struct psem *__sem = (sem);					\
	long __flags = psem_test_flags(__sem);				\
									\
	KUNIT_EXPECT_EQ(__test, psem_available(__sem), (long)(avail));	\
	KUNIT_EXPECT_EQ(__test, psem_debt(__sem), 0UL);			\
	KUNIT_EXPECT_EQ(__test, psem_test_nr_waiters(__sem), 0U);	\
	KUNIT_EXPECT_EQ(__test, __flags, 0L);				\
} while (0)

/* A refused call: its result, one more refusal, the balance unchanged. */
#define PSEM_TEST_EXPECT_REFUSED(test, sem, call, want)			\
do {									\
	struct kunit *__test = (test);					\
	struct psem *__sem = (sem);					\
	u64 __warned = psem_warn_count();				\
	long __avail = psem_available(__sem);				\
									\
	KUNIT_EXPECT_EQ_MSG(__test, call, want, #call);			\
	KUNIT_EXPECT_EQ_MSG(__test, psem_warn_count() - __warned, 1ULL, \
			    "refusals by " #call);			\
	KUNIT_EXPECT_EQ_MSG(__test, psem_available(__sem), __avail,	\
			    "balance after " #call);			\
} while (0)

/*
 * PSEM_TEST_CASE_OF - define test case @name as @fn(test, ...): for cases
 * that run one body with different values
 */
#define PSEM_TEST_CASE_OF(name, fn, ...)				\
static void name(struct kunit *test)					\
{									\
	fn(test, __VA_ARGS__);						\
}

/**
 * PSEM_TEST_RELEASE_RULE_CASES - one test case a release rule
 * @name: the cases are @name_waiters_bit, @name_positive_balance and
 *        @name_locked
 * @fn:   the test, void @fn(struct kunit *test, bool fast, bool zero),
 *        with the fast and zero release switches of the rule to set
 *
 * The waiters-bit rule releases lock-free wherever nobody waits, an empty
 * psem included (fast and zero release on); the positive-balance rule
 * only onto a positive balance (zero release off); the always-locked rule
 * never (fast release off).
 */
#define PSEM_TEST_RELEASE_RULE_CASES(name, fn)				\
static void (*const name##_rule_fn)(struct kunit *test, bool fast,	\
				    bool zero) = fn;			\
PSEM_TEST_CASE_OF(name##_waiters_bit, name##_rule_fn, true, true)	\
PSEM_TEST_CASE_OF(name##_positive_balance, name##_rule_fn, true, false) \
PSEM_TEST_CASE_OF(name##_locked, name##_rule_fn, false, true)

/* ==== asynchronous waiters ==== */

/**
 * struct psem_test_req - an asynchronous wait, as a driver embeds it
 * @aw:         the waiter
 * @sem:        its psem, for callbacks that release into it
 * @calls:      how many times the callback ran; published with release
 * @result:     the callback's result
 * @in_hardirq: whether the callback ran in hard IRQ
 * @in_nmi:     whether the callback ran in NMI
 * @give_back:  the callback releases what it was granted, at once
 * @order:      the callback's rank among all callbacks of the test
 * @rank:       the counter that @order is taken from, if any
 * @sp:         the callback's stack depth (its frame address)
 */
struct psem_test_req {
	struct psem_async	aw;
	struct psem		*sem;
	int			calls;
	int			result;
	bool			in_hardirq;
	bool			in_nmi;
	bool			give_back;
	int			order;
	atomic_t		*rank;
	unsigned long		sp;
};

void psem_test_req_fn(struct psem_async *aw, int result);
struct psem_test_req *psem_test_req_new(struct kunit *test, struct psem *sem);

/* How many times @r's callback ran; what it recorded is visible then. */
static inline int psem_test_calls(struct psem_test_req *r)
{
	return smp_load_acquire(&r->calls);	/* pairs with psem_test_req_fn() */
}

/* ==== statistics ==== */

void psem_test_stats_start(void);
void psem_test_stats_on(void);
u64 psem_test_stat(enum psem_stat s);
void psem_test_expect_releases(struct kunit *test,
			       const struct psem_stats *before,
			       u64 fast, u64 locked);

#define PSEM_TEST_EXPECT_STAT(test, s, want)				\
do {									\
	enum psem_stat __s = (s);					\
									\
	KUNIT_EXPECT_EQ_MSG(test, psem_test_stat(__s), (u64)(want),	\
			    "stat %s", psem_stat_names[__s]);		\
} while (0)

/* Fast and locked releases since psem_test_stats_start(). */
#define PSEM_TEST_EXPECT_RELEASE_STATS(test, fast, locked)		\
do {									\
	struct kunit *__rtest = (test);					\
									\
	PSEM_TEST_EXPECT_STAT(__rtest, PSEM_STAT_FAST_RELEASE, fast);	\
	PSEM_TEST_EXPECT_STAT(__rtest, PSEM_STAT_LOCKED_RELEASE, locked); \
} while (0)

/* ==== the lock fixture and its workers ==== */

/*
 * What a step worker does: take one lock, hold it until told, release.
 * Each lock's three calls stand together, in &enum psem_test_wait's order.
 */
enum psem_test_lock_op {
	PSEM_TEST_NO_LOCK,
	PSEM_TEST_READ,
	PSEM_TEST_READ_INTR,
	PSEM_TEST_READ_KILL,
	PSEM_TEST_WRITE,
	PSEM_TEST_WRITE_INTR,
	PSEM_TEST_WRITE_KILL,
	PSEM_TEST_MUTEX,
	PSEM_TEST_MUTEX_INTR,
	PSEM_TEST_MUTEX_KILL,
	PSEM_TEST_GET,
	PSEM_TEST_GET_INTR,
	PSEM_TEST_GET_KILL,
};

/*
 * How a lock call waits: the plain, _interruptible or _killable call, or a
 * trylock, then the plain call if it fails.
 */
enum psem_test_wait {
	PSEM_TEST_PLAIN,
	PSEM_TEST_INTR,
	PSEM_TEST_KILL,
	PSEM_TEST_TRY,
};

/* The &enum psem_test_wait of a lock op other than PSEM_TEST_NO_LOCK. */
static inline enum psem_test_wait psem_test_op_wait(enum psem_test_lock_op op)
{
	/* Each lock's three ops are adjacent; none is a trylock. */
	return (op - PSEM_TEST_READ) % 3;
}

/*
 * PSEM_TEST_LOCK_AS - take a lock the way @how (&enum psem_test_wait) says
 * @pfx: what the lock's calls are named after: psem_read_, psem_write_ or
 *       psem_mutex_, for @pfx##lock, @pfx##lock_interruptible, ...
 * @l:   the lock
 * @how: which call to make
 *
 * Return: the result of an _interruptible or _killable call, else 0.
 */
#define PSEM_TEST_LOCK_AS(pfx, l, how)					\
({									\
	typeof(l) __l = (l);						\
	enum psem_test_wait __how = (how);				\
	int __ret = 0;							\
									\
	if (__how == PSEM_TEST_INTR)					\
		__ret = pfx##lock_interruptible(__l);			\
	else if (__how == PSEM_TEST_KILL)				\
		__ret = pfx##lock_killable(__l);			\
	else if (__how != PSEM_TEST_TRY || !pfx##trylock(__l))		\
		pfx##lock(__l);						\
	__ret;								\
})

/* A step worker waits in the lock, then holds it, then is finished. */
enum psem_test_worker_state {
	PSEM_TEST_WAITING,
	PSEM_TEST_HOLDING,
	PSEM_TEST_FINISHED,
};

/* What a getter's @obj holds until a get stores an object there. */
#define PSEM_TEST_NO_OBJ	ERR_PTR(-ENODATA)

struct psem_test_fix;

/**
 * struct psem_test_worker - one worker kthread and what it recorded
 * @fix:         the fixture it works on
 * @task:        the kthread, with a reference held until it is stopped
 * @op:          what a step worker does
 * @id:          its index in @fix->t
 * @state:       &enum psem_test_worker_state; RELEASE by the kthread,
 *               ACQUIRE by the test
 * @go:          set by the test: release the lock and finish
 * @ret:         the lock call's result
 * @order:       @fix->seq when it got in (1 for the first), 0 if never
 * @obj:         the pool object it got, PSEM_TEST_NO_OBJ if none
 * @holds:       critical sections so far (stress), to pace psem_test_hold()
 * @got:         acquisitions that incremented @fix->count (stress)
 * @errors:      invariant violations seen inside critical sections (stress)
 * @misses:      pool try_gets that found nothing (stress)
 * @seen:        a plain read of @fix->count under the read lock (stress)
 * @max_readers: the most readers it saw inside at once (stress)
 */
struct psem_test_worker {
	struct psem_test_fix	*fix;
	struct task_struct	*task;
	enum psem_test_lock_op	op;
	unsigned int		id;
	atomic_t		state;
	atomic_t		go;
	int			ret;
	int			order;
	void			*obj;
	unsigned long		holds;
	unsigned long		got;
	unsigned long		errors;
	unsigned long		misses;
	unsigned long		seen;
	int			max_readers;
};

/* An object for the pool: "taken" catches an object handed out twice. */
struct psem_test_obj {
	atomic_t	taken;
	unsigned int	stamp;	/* plain, written by the holder */
};

/* Runs a sequence of trylocks in hard interrupt context. */
struct psem_test_irq {
	struct irq_work		work;
	struct psem_test_fix	*fix;
	unsigned long		(*fn)(struct psem_test_fix *fix);
	unsigned long		bad;
	bool			hardirq;
};

/**
 * struct psem_test_fix - one case's locks, objects and workers, on the heap
 * @rw:        the rwlock under test
 * @mx:        the mutex under test
 * @pool:      the pool under test, live if @pool_live
 * @pool_live: @pool was initialised and is not destroyed yet
 * @obj:       the pool's objects
 * @objp:      pointers to @obj, as psem_pool_init() takes them
 * @irq:       for the cases that run in hard interrupt context
 * @atomic_lock: held, with interrupts off, around psem_test_run_atomic()'s
 *             @fn
 * @seq:       acquisition order, bumped by a step worker that got in
 * @progress:  stress iterations done by all workers, for the hang guard
 * @readers:   readers inside the rwlock (stress)
 * @writers:   writers inside the rwlock (stress)
 * @inside:    holders of the mutex (stress)
 * @out:       pool objects out (stress)
 * @count:     plain counter, written only under the lock under test
 * @cap:       the stress pool's capacity
 * @once:      a stress worker's iteration (see psem_test_stress())
 * @iters:     stress iterations per worker
 * @nap:       stress workers sometimes sleep inside a critical section
 * @held:      the lock the test itself holds (see psem_test_take()), as
 *             the plain op that takes it; PSEM_TEST_NO_LOCK if none
 * @nr:        workers started
 * @max:       workers @t has room for
 * @leak:      a worker could not be stopped: free nothing
 * @owner:     the suite's module, whose functions a worker may run
 * @t:         the workers
 */
struct psem_test_fix {
	struct psem_rwlock	rw;
	struct psem_mutex	mx;
	struct psem_pool	pool;
	bool			pool_live;
	struct psem_test_obj	obj[PSEM_TEST_NR_OBJS];
	void			*objp[PSEM_TEST_NR_OBJS];
	struct psem_test_irq	irq;
	spinlock_t		atomic_lock;	/* only held, guards nothing */
	atomic_t		seq;
	atomic_long_t		progress;
	atomic_t		readers;
	atomic_t		writers;
	atomic_t		inside;
	atomic_t		out;
	unsigned long		count;
	unsigned int		cap;
	void			(*once)(struct psem_test_worker *w,
					unsigned int i);
	unsigned int		iters;
	bool			nap;
	enum psem_test_lock_op	held;
	unsigned int		nr;
	unsigned int		max;
	bool			leak;
	struct module		*owner;
	struct psem_test_worker	t[];
};

int psem_test_suite_init(struct kunit_suite *suite);
void psem_test_case_exit(struct kunit *test);

struct psem_test_fix *__psem_test_fix_new(struct kunit *test,
					  unsigned int max_workers,
					  struct module *owner);
#define psem_test_fix_new(test, max_workers)				\
	__psem_test_fix_new(test, max_workers, THIS_MODULE)
int psem_test_pool_init(struct psem_test_fix *fix, unsigned int capacity);
void psem_test_fix_free(struct kunit *test, struct psem_test_fix *fix);
struct psem_test_worker *psem_test_start(struct kunit *test,
					 struct psem_test_fix *fix,
					 int (*fn)(void *),
					 enum psem_test_lock_op op);
int psem_test_step_fn(void *arg);
void psem_test_take(struct psem_test_fix *fix, enum psem_test_lock_op op);
void psem_test_drop(struct psem_test_fix *fix);
struct psem_test_worker *psem_test_queue(struct kunit *test,
					 struct psem_test_fix *fix,
					 enum psem_test_lock_op op,
					 unsigned int nr);
bool psem_test_queue_all(struct kunit *test, struct psem_test_fix *fix,
			 const enum psem_test_lock_op ops[], unsigned int n,
			 struct psem_test_worker *w[]);
void psem_test_stop_all(struct kunit *test, struct psem_test_fix *fix);
void psem_test_finish(struct kunit *test, struct psem_test_fix *fix,
		      struct psem *sem, long full);

/**
 * struct psem_test_sums - what a stress run's workers recorded, together
 * @got:         the sum of their @got
 * @misses:      the sum of their @misses
 * @max_readers: the largest of their @max_readers
 */
struct psem_test_sums {
	unsigned long	got;
	unsigned long	misses;
	int		max_readers;
};

bool psem_test_stress(struct kunit *test, struct psem_test_fix *fix,
		      void (*once)(struct psem_test_worker *w, unsigned int i),
		      unsigned int iters, unsigned int per_cpu,
		      struct psem_test_sums *sums);
unsigned long psem_test_run_atomic(struct psem_test_fix *fix,
				   unsigned long (*fn)(struct psem_test_fix *fix));
unsigned long psem_test_run_hardirq(struct kunit *test,
				    struct psem_test_fix *fix,
				    unsigned long (*fn)(struct psem_test_fix *fix));

/* A worker's &enum psem_test_worker_state, as the worker published it. */
static inline int psem_test_state(struct psem_test_worker *w)
{
	return atomic_read_acquire(&w->state);
}

static inline void psem_test_set_state(struct psem_test_worker *w, int state)
{
	atomic_set_release(&w->state, state);
}

/* Tells a step worker to release its lock and finish. */
static inline void psem_test_go(struct psem_test_worker *w)
{
	atomic_set_release(&w->go, 1);
}

/* Now and then, sleep inside the critical section so that others queue. */
static inline void psem_test_hold(struct psem_test_worker *w)
{
	if (++w->holds % 32 == 0)
		psem_test_nap();
}

/**
 * PSEM_TEST_CANCEL_CASES - define a suite's two cancelled-wait cases
 * @name: the cases are @name##_interruptible and @name##_killable
 * @fn:   the test, void @fn(struct kunit *test, enum psem_test_lock_op op,
 *        int sig): a step worker waits in @op and gets @sig
 * @intr: the lock's _INTR op, for @name##_interruptible with SIGUSR1
 * @kill: the lock's _KILL op, for @name##_killable with SIGKILL
 */
#define PSEM_TEST_CANCEL_CASES(name, fn, intr, kill)			\
static void (*const name##_cancel_fn)(struct kunit *test,		\
				      enum psem_test_lock_op op,	\
				      int sig) = fn;			\
PSEM_TEST_CASE_OF(name##_interruptible, name##_cancel_fn, intr, SIGUSR1) \
PSEM_TEST_CASE_OF(name##_killable, name##_cancel_fn, kill, SIGKILL)

#endif /* _PSEM_TEST_H */
