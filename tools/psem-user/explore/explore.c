// SPDX-License-Identifier: GPL-2.0
/*
 * psem-explore's runtime: the threads of a scenario as coroutines (switch.c
 * switches between them), the scheduler that runs them one at a time, and
 * happens-before. kernel.c puts the kernel shim (the API shim.c implements
 * on pthreads) on these threads; explore.h describes the model; main.c is
 * the search that drives it.
 *
 * A thread runs until its next scheduling point (psem_explore_point(), or
 * a lock, sleep, wake or queue of the shim), where it hands control to the
 * scheduler, which picks the next choice: run a thread, fire a sleeping
 * thread's timeout, or deliver an interrupt to a thread. The choices made
 * are recorded in a buffer shared with the parent (struct ex_record),
 * which replays a prefix of them and then lets the default policy (keep
 * running the current thread, else the first one that can run) or PCT's
 * priorities decide.
 *
 * Memory is sequentially consistent here: one thread runs at a time and
 * every access of the code under test is a plain one of one CPU. The
 * orders psem names are herd7's to check (model/litmus/).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/preempt.h>
#include <linux/sched.h>

#include "psem-user.h"
#include "explore.h"
#include "explore_int.h"
#include "switch.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#define EX_ASAN 1
#else
#define EX_ASAN 0
/* Never called without ASan (each call is under if (EX_ASAN)); they compile. */
static inline void __sanitizer_start_switch_fiber(void **fake,
						  const void *bottom,
						  size_t size) {}
static inline void __sanitizer_finish_switch_fiber(void *fake,
						   const void **bottom,
						   size_t *size) {}
#endif

#define EX_STACK	(64 * 1024)

enum { EX_NEW, EX_READY, EX_BLOCKED, EX_DONE };

struct ex_thread {
	int		id;
	const char	*name;
	struct ex_ctx	ctx;
	void		*stack;
	void		(*fn)(void *);
	void		*arg;
	struct task_struct *task;
	int		state;
	bool		service;	/* irq_work, kworker: never done */
	unsigned long	ctx_bits;	/* context of its whole run */
	/* At a scheduling point: what it does next, and from where. */
	const char	*op;
	uintptr_t	pc;
	uintptr_t	addr;
	/* EX_BLOCKED: runnable once @pred(@pred_arg); or by timeout. */
	bool		(*pred)(void *);
	void		*pred_arg;
	bool		timed;
	bool		timed_out;
	/* An interrupt the scheduler may deliver here. */
	void		(*irq_fn)(void *);
	void		*irq_arg;
	unsigned long	irq_ctx;
	int		irq_left;
	bool		irq_due;
	int		in_irq;
	bool		yielded;	/* runs again once another has */
	void		*fake_stack;	/* ASan's, while switched out */
};

struct ex_record *ex_rec;
/*
 * The threads' stacks: in the parent's bss, which it never touches, so a
 * child faults in fresh zero pages for the little of each it uses, with
 * no allocation of its own.
 */
static char ex_stacks[EX_MAX_THREADS][EX_STACK] __attribute__((aligned(4096)));
static const struct ex_scenario *ex_sc;
static struct ex_thread ex_threads[EX_MAX_THREADS];
static int ex_nthreads;
static struct ex_thread *ex_cur;	/* NULL: the scheduler's context */
static int ex_prev = -1;		/* the thread that ran last */
static struct ex_ctx ex_main_ctx;
static const void *ex_main_bottom;
static size_t ex_main_size;
static unsigned long ex_warn_count;
unsigned long ex_jiffies = 300000;
static struct task_struct ex_main_task = { .comm = "main", .pid = 0 };
static int ex_next_pid = 1;
static const char *ex_where = "the setup";	/* when no thread runs */

/* PCT: a priority per choice that runs something; higher runs first. */
static int ex_prio[EX_CHOICES];
static unsigned int ex_change[EX_PCT_DEPTH];
static unsigned long long ex_rng;

static unsigned int ex_rand(void)
{
	ex_rng = ex_rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned int)(ex_rng >> 33);
}

extern char __executable_start;

/* Leaks are the scenario's business; switching stacks is ours. */
const char *__asan_default_options(void)
{
	return "detect_leaks=0:detect_stack_use_after_return=0";
}

void ex_fail(const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(ex_rec->msg, sizeof(ex_rec->msg), "in %s: ",
		     ex_cur ? ex_cur->name : ex_where);
	va_start(ap, fmt);
	vsnprintf(ex_rec->msg + n, sizeof(ex_rec->msg) - n, fmt, ap);
	va_end(ap);
	ex_rec->failed = 1;
	_exit(EX_EXIT_FAIL);
}

void psem_user_warn(const char *file, int line, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (++ex_warn_count > ex_sc->warnings)
		ex_fail("warning %lu (%u expected): %s:%d: %s", ex_warn_count,
			ex_sc->warnings, file, line, buf);
}

unsigned long psem_user_warnings(void)
{
	return ex_warn_count;
}

unsigned long ex_warnings(void)
{
	return ex_warn_count;
}

/*
 * ---- happens-before ----------------------------------------------------
 *
 * The runtime is sequentially consistent, so a missing ACQUIRE or RELEASE
 * changes no value any thread reads. What it changes is happens-before,
 * which this tracks with vector clocks, as loom and ThreadSanitizer do:
 * each thread (and the setup, as one more) has a clock; every atomic
 * operation the code under test makes carries the order its name says
 * (<linux/atomic.h>: _acquire, _release, _relaxed, none for a fully
 * ordered value-returning RMW, relaxed for read, set and the void RMWs;
 * smp_load_acquire(), smp_store_release()); a location's clock collects
 * the releases into it (every RMW continues a release sequence, and a
 * relaxed store is taken not to break one: both only add edges), and an
 * acquire from it joins it. A failed cmpxchg orders nothing, as in the
 * LKMM (psem_explore_point_cas()), so that an ordering that only a failed
 * exchange supplied, such as that of a release retried after one, is
 * found missing. Spinlocks, irq_work
 * and work items add the kernel's edges; wake-ups, sleeps, signals and
 * fences add none, as in the ThreadSanitizer build, so that the hand-off
 * is psem's to order.
 *
 * A scenario checks what that buys with an ex_guard: the data a permit
 * guards. ex_guard_read() fails the schedule unless the guard's last
 * ex_guard_write() happens before it.
 */
#define EX_VC		(EX_MAX_THREADS + 1)	/* the last: the setup */
#define EX_LOCS		1024

struct ex_vc {
	uint32_t	c[EX_VC];
};

static struct ex_vc ex_clock[EX_VC];
/*
 * The locations, appended in the order they are first met, and a hash
 * index into them: a child touches a page or two of each, not pages all
 * over a sparse table.
 */
static struct {
	uintptr_t	addr;
	struct ex_vc	vc;
} ex_locs[EX_LOCS];
static unsigned int ex_nlocs;
static uint16_t ex_loc_index[2 * EX_LOCS];	/* slot + 1; 0: empty */

static int ex_self(void)
{
	return ex_cur ? ex_cur->id : EX_MAX_THREADS;
}

static struct ex_vc *ex_loc(uintptr_t a)
{
	unsigned int h = (unsigned int)((a * 0x9E3779B97F4A7C15ULL) >> 53), i;

	for (i = 0; i < 2 * EX_LOCS; i++, h = (h + 1) % (2 * EX_LOCS)) {
		unsigned int slot = ex_loc_index[h];

		if (slot && ex_locs[slot - 1].addr == a)
			return &ex_locs[slot - 1].vc;
		if (!slot)
			break;
	}
	if (ex_nlocs >= EX_LOCS)
		ex_fail("more than %d synchronising locations", EX_LOCS);
	ex_locs[ex_nlocs].addr = a;
	ex_loc_index[h] = (uint16_t)++ex_nlocs;
	return &ex_locs[ex_nlocs - 1].vc;
}

static void ex_join(struct ex_vc *to, const struct ex_vc *from)
{
	int i;

	for (i = 0; i < EX_VC; i++)
		if (from->c[i] > to->c[i])
			to->c[i] = from->c[i];
}

void ex_sync(const volatile void *addr, int ord)
{
	struct ex_vc *me = &ex_clock[ex_self()], *loc;

	if (!ord || !addr)
		return;
	loc = ex_loc((uintptr_t)addr);
	if (ord & EX_ORD_ACQ)
		ex_join(me, loc);
	if (ord & EX_ORD_REL) {
		ex_join(loc, me);
		me->c[ex_self()]++;	/* later writes are not covered */
	}
}

static bool ex_ends(const char *op, size_t n, const char *sfx)
{
	size_t m = strlen(sfx);

	return n >= m && !memcmp(op + n - m, sfx, m);
}

/* The order of an operation of the code under test, from its name. */
static int ex_order(const char *op)
{
	size_t n = strlen(op);

	if (ex_ends(op, n, "_acquire"))
		return EX_ORD_ACQ;
	if (ex_ends(op, n, "_release"))
		return EX_ORD_REL;
	if (ex_ends(op, n, "_relaxed"))
		return EX_ORD_NONE;
	if (!strcmp(op, "xchg") || !strcmp(op, "cmpxchg") ||
	    !strcmp(op, "try_cmpxchg"))
		return EX_ORD_FULL;	/* the scalar forms: unknown, so full */
	if (strncmp(op, "atomic", 6))
		return EX_ORD_NONE;	/* READ_ONCE() and the shim's own */
	/* atomic*_: the value-returning RMWs without a suffix. */
	if (strstr(op, "_return") || strstr(op, "_fetch_") ||
	    strstr(op, "xchg"))
		return EX_ORD_FULL;
	return EX_ORD_NONE;	/* read, set, the void RMWs */
}

void ex_guard_write(struct ex_guard *g)
{
	int me = ex_self();

	g->writer = me + 1;
	g->epoch = ex_clock[me].c[me];
}

void ex_guard_read(struct ex_guard *g)
{
	int me = ex_self(), w = g->writer - 1;

	if (g->writer && ex_clock[me].c[w] < g->epoch)
		ex_fail("data race on %s: the write by %s does not happen before this read (an ACQUIRE or RELEASE too weak?)",
			g->what ? g->what : "guarded data",
			w == EX_MAX_THREADS ? "the setup" : ex_threads[w].name);
}

/* ---- switching ------------------------------------------------------ */

static void ex_to_thread(struct ex_thread *t)
{
	void *fake = NULL;

	ex_cur = t;
	if (EX_ASAN)
		__sanitizer_start_switch_fiber(&fake, t->stack, EX_STACK);
	ex_ctx_switch(&ex_main_ctx, &t->ctx);
	if (EX_ASAN)
		__sanitizer_finish_switch_fiber(fake, NULL, NULL);
	ex_cur = NULL;
}

/* The calling thread gives control back to the scheduler. */
static void ex_to_main(bool dying)
{
	struct ex_thread *t = ex_cur;

	if (EX_ASAN)
		__sanitizer_start_switch_fiber(dying ? NULL : &t->fake_stack,
					       ex_main_bottom, ex_main_size);
	ex_ctx_switch(&t->ctx, &ex_main_ctx);
	if (EX_ASAN)
		__sanitizer_finish_switch_fiber(t->fake_stack, NULL, NULL);
}

static void ex_run_irq(struct ex_thread *t)
{
	unsigned long old = t->task->preempt_count;

	t->irq_due = false;
	t->in_irq++;
	t->task->preempt_count = old | t->irq_ctx;
	t->irq_fn(t->irq_arg);
	t->task->preempt_count = old;
	t->in_irq--;
}

/* A scheduling point of the running thread, before it does @op. */
static void ex_point_at(const char *op, uintptr_t pc, const volatile void *addr)
{
	struct ex_thread *t = ex_cur;

	t->op = op;
	t->pc = pc;
	t->addr = (uintptr_t)addr;
	t->state = EX_READY;
	ex_to_main(false);
	if (t->irq_due)
		ex_run_irq(t);
}

void ex_point(const char *op, uintptr_t pc, const volatile void *addr)
{
	if (ex_cur)
		ex_point_at(op, pc, addr);
}

noinline
void psem_explore_point(const char *op, const volatile void *addr)
{
	int ord = ex_order(op);

	if (ex_cur)
		ex_point_at(op, (uintptr_t)__builtin_return_address(0), addr);
	/* Right before the operation: nothing runs in between. */
	ex_sync(addr, ord);
}

/*
 * A compare-exchange's point: as psem_explore_point(), but the order
 * applies only if the exchange will succeed, which, with nothing run
 * between this and the operation, is whether the @size-byte value at
 * @addr is @expected now. A failed one is a relaxed read.
 */
noinline
void psem_explore_point_cas(const char *op, const volatile void *addr,
			    unsigned long expected, int size)
{
	int ord = ex_order(op);
	unsigned long now;

	if (ex_cur)
		ex_point_at(op, (uintptr_t)__builtin_return_address(0), addr);
	switch (size) {
	case 1:
		now = *(const volatile uint8_t *)addr;
		expected = (uint8_t)expected;
		break;
	case 2:
		now = *(const volatile uint16_t *)addr;
		expected = (uint16_t)expected;
		break;
	case 4:
		now = *(const volatile uint32_t *)addr;
		expected = (uint32_t)expected;
		break;
	default:
		now = *(const volatile unsigned long *)addr;
		break;
	}
	ex_sync(addr, now == expected ? ord : EX_ORD_NONE);
}

/*
 * A plain marked access (READ_ONCE(), WRITE_ONCE()) under a spinlock is no
 * point: what the lock protects changes only under it, and the lock-free
 * readers of such a field meet the writer at the lock's own points and at
 * the atomics around it. That keeps the tree to the choices that matter.
 */
noinline
void psem_explore_plain(const char *op, const volatile void *addr)
{
	if (!ex_cur || ex_cur->task->locks_held)
		return;
	ex_point_at(op, (uintptr_t)__builtin_return_address(0), addr);
}

/*
 * A yield: the thread steps aside until another has run a step, so that a
 * harness loop that polls (or a spin of the code under test) cannot keep
 * the search on itself.
 */
noinline void ex_yield(const char *what)
{
	if (!ex_cur)
		return;
	ex_cur->yielded = true;
	ex_point_at(what, (uintptr_t)__builtin_return_address(0), NULL);
}

/*
 * Blocks the running thread until @pred(@arg) holds, or, if @timed, until
 * the scheduler fires its timeout (then returns true). A wait from the
 * scheduler's own context cannot block: the setup and the check must not.
 */
bool ex_block(const char *op, uintptr_t pc, bool (*pred)(void *), void *arg,
	      bool timed)
{
	struct ex_thread *t = ex_cur;
	bool fired;

	if (!t) {
		if (pred(arg))
			return false;
		ex_fail("%s would block in the scheduler's context", op);
	}
	t->op = op;
	t->pc = pc;
	t->addr = 0;
	t->pred = pred;
	t->pred_arg = arg;
	t->timed = timed;
	t->timed_out = false;
	t->state = EX_BLOCKED;
	ex_to_main(false);
	t->pred = NULL;
	t->timed = false;
	fired = t->timed_out;
	t->timed_out = false;
	if (t->irq_due)
		ex_run_irq(t);
	return fired;
}

void ex_wait_until(bool (*cond)(void *), void *arg)
{
	while (!cond(arg))
		ex_block("ex_wait_until", (uintptr_t)__builtin_return_address(0),
			 cond, arg, false);
}

static void ex_trampoline(void)
{
	struct ex_thread *t = ex_cur;

	if (EX_ASAN)
		__sanitizer_finish_switch_fiber(NULL, &ex_main_bottom,
						&ex_main_size);
	t->fn(t->arg);
	t->state = EX_DONE;
	t->op = "return";
	ex_to_main(true);
	abort();	/* never resumed */
}

static struct task_struct *ex_new_task(const char *comm, int cpu)
{
	return psem_user_task_alloc(comm, cpu, ex_next_pid++);
}

static int ex_add_thread(const char *name, void (*fn)(void *), void *arg,
			 unsigned long ctx, bool service)
{
	struct ex_thread *t;

	if (ex_nthreads >= EX_MAX_THREADS)
		ex_fail("more than %d threads", EX_MAX_THREADS);
	t = &ex_threads[ex_nthreads];
	memset(t, 0, sizeof(*t));
	t->id = ex_nthreads++;
	t->name = name;
	t->fn = fn;
	t->arg = arg;
	t->service = service;
	t->ctx_bits = ctx;
	t->task = ex_new_task(name, t->id);
	ex_clock[t->id].c[t->id] = 1;	/* its first epoch: unseen by others */
	t->task->preempt_count = (int)ctx;
	t->stack = ex_stacks[t->id];
	ex_ctx_new(&t->ctx, t->stack, EX_STACK, ex_trampoline);
	t->state = EX_NEW;
	t->op = "start";
	return t->id;
}

int ex_spawn(const char *name, void (*fn)(void *), void *arg)
{
	return ex_add_thread(name, fn, arg, 0, false);
}

int ex_spawn_ctx(const char *name, void (*fn)(void *), void *arg,
		 unsigned long ctx)
{
	return ex_add_thread(name, fn, arg, ctx, false);
}

void ex_interrupt(int tid, unsigned long ctx, void (*fn)(void *), void *arg,
		  int count)
{
	struct ex_thread *t = &ex_threads[tid];

	t->irq_fn = fn;
	t->irq_arg = arg;
	t->irq_ctx = ctx;
	t->irq_left = count;
}

bool ex_thread_done(int tid)
{
	return ex_threads[tid].state == EX_DONE;
}

struct task_struct *ex_task(int tid)
{
	return ex_threads[tid].task;
}

int ex_nr_threads(void)
{
	return ex_nthreads;
}

void ex_add_service(const char *name, void (*fn)(void *),
		    bool (*pred)(void *), void *arg)
{
	struct ex_thread *t = &ex_threads[ex_add_thread(name, fn, NULL, 0, true)];

	t->state = EX_BLOCKED;
	t->pred = pred;
	t->pred_arg = arg;
}

struct task_struct *psem_user_task_init(const char *comm, int cpu)
{
	return ex_new_task(comm, cpu);
}

struct task_struct *psem_user_current(void)
{
	return ex_cur ? ex_cur->task : &ex_main_task;
}

/* ---- the scheduler --------------------------------------------------- */

static bool ex_can_run(struct ex_thread *t)
{
	switch (t->state) {
	case EX_NEW:
	case EX_READY:
		return true;
	case EX_BLOCKED:
		return t->pred(t->pred_arg);
	default:
		return false;
	}
}

static uint64_t ex_enabled(void)
{
	uint64_t en = 0, yielded = 0;
	int i;

	for (i = 0; i < ex_nthreads; i++) {
		struct ex_thread *t = &ex_threads[i];

		if (ex_can_run(t))
			*(t->yielded ? &yielded : &en) |= 1ULL << EX_RUN(i);
		else if (t->state == EX_BLOCKED && t->timed)
			en |= 1ULL << EX_TIMEOUT(i);
		/*
		 * An interrupt arrives at a point of the thread, or while it
		 * sleeps or spins (it then wakes spuriously, which every
		 * wait of the kernel's tolerates); a hard IRQ only where it
		 * holds no spinlock, all of psem's being irq-disabling.
		 */
		if (t->irq_left > 0 && !t->in_irq &&
		    (t->state == EX_READY || t->state == EX_BLOCKED) &&
		    ((t->irq_ctx & NMI_MASK) || !t->task->locks_held))
			en |= 1ULL << EX_IRQ(i);
	}
	/* Threads that yielded run only when nothing else can. */
	return en & EX_RUN_OR_TIMEOUT_MASK ? en : en | yielded;
}

static bool ex_finished(uint64_t en)
{
	int i;

	for (i = 0; i < ex_nthreads; i++) {
		struct ex_thread *t = &ex_threads[i];

		if (t->service ? ex_can_run(t) : t->state != EX_DONE)
			return false;
	}
	return true;
}

/* The default policy: the thread that ran last, else the first that can. */
static int ex_default(uint64_t en)
{
	int i;

	if (ex_prev >= 0 && (en & (1ULL << EX_RUN(ex_prev))))
		return EX_RUN(ex_prev);
	for (i = 0; i < ex_nthreads; i++)
		if (en & (1ULL << EX_RUN(i)))
			return EX_RUN(i);
	for (i = 0; i < ex_nthreads; i++)
		if (en & (1ULL << EX_TIMEOUT(i)))
			return EX_TIMEOUT(i);
	/* Nothing else: an interrupt still due comes now. */
	for (i = 0; i < ex_nthreads; i++)
		if (en & (1ULL << EX_IRQ(i)))
			return EX_IRQ(i);
	return -1;
}

/*
 * PCT (Burckhardt et al., ASPLOS 2010): the enabled choice of highest
 * priority runs; at each of the depth - 1 change points the thread that
 * ran last drops below every initial priority. Timeouts fire only when
 * nothing else can run.
 */
static int ex_pct(uint64_t en, unsigned int step)
{
	int best = -1, i, c;

	for (i = 0; i < EX_PCT_DEPTH - 1; i++)
		if (ex_change[i] == step && ex_prev >= 0)
			ex_prio[EX_RUN(ex_prev)] = -1 - i;
	for (c = 0; c < EX_CHOICES; c++) {
		if (!(en & (1ULL << c)) || EX_IS_TIMEOUT(c))
			continue;
		if (best < 0 || ex_prio[c] > ex_prio[best])
			best = c;
	}
	return best >= 0 ? best : ex_default(en);
}

static void ex_pct_init(void)
{
	int c, j;

	ex_rng = ex_rec->seed * 0x9E3779B97F4A7C15ULL + 1;
	/* A random permutation of priorities 1..EX_CHOICES. */
	for (c = 0; c < EX_CHOICES; c++)
		ex_prio[c] = c + 1;
	for (c = EX_CHOICES - 1; c > 0; c--) {
		int r = ex_rand() % (c + 1), tmp = ex_prio[c];

		ex_prio[c] = ex_prio[r];
		ex_prio[r] = tmp;
	}
	/* An interrupt is rare: below every thread, so it comes when they block. */
	for (c = 0; c < EX_CHOICES; c++)
		if (EX_IS_IRQ(c))
			ex_prio[c] -= EX_CHOICES;
	for (j = 0; j < EX_PCT_DEPTH - 1; j++)
		ex_change[j] = 1 + ex_rand() % (ex_rec->pct_steps ?: 100);
}

static int ex_choose(uint64_t en, unsigned int step)
{
	int c;

	if (step < ex_rec->nprefix) {
		c = ex_rec->prefix[step];
		if (!(en & (1ULL << c)))
			ex_fail("replay diverged at step %u: choice %d not enabled (nondeterminism, or a token for other sources)",
				step, c);
		return c;
	}
	c = ex_rec->pct ? ex_pct(en, step) : ex_default(en);
	if (c < 0)
		ex_fail("nothing can run but interrupts");
	return c;
}

static void ex_describe_blocked(char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < ex_nthreads && n < len; i++) {
		struct ex_thread *t = &ex_threads[i];

		if (t->state == EX_DONE || t->service)
			continue;
		n += snprintf(buf + n, len - n, " %s (in %s)", t->name, t->op);
	}
}

static void ex_schedule(void)
{
	unsigned int step = 0;
	char why[256];

	for (;;) {
		uint64_t en = ex_enabled();
		struct ex_step *s;
		struct ex_thread *t;
		int c;

		if (ex_finished(en))
			return;
		if (!en) {
			ex_describe_blocked(why, sizeof(why));
			ex_fail("deadlock: nothing can run; blocked:%s", why);
		}
		if (step >= EX_MAX_STEPS)
			ex_fail("no end after %d steps (a livelock?)", EX_MAX_STEPS);
		c = ex_choose(en, step);
		t = &ex_threads[EX_TID(c)];
		s = &ex_rec->steps[step];
		s->en = en;
		s->choice = c;
		s->prev = ex_prev;
		s->prev_ready = ex_prev >= 0 &&
				ex_threads[ex_prev].state == EX_READY &&
				!ex_threads[ex_prev].yielded;
		s->op = EX_IS_IRQ(c) ? "interrupt" :
			EX_IS_TIMEOUT(c) ? "timeout" : t->op;
		s->pc = t->pc ? t->pc - (uintptr_t)&__executable_start : 0;
		s->addr = EX_IS_IRQ(c) || EX_IS_TIMEOUT(c) ? 0 : t->addr;
		s->in_irq = t->in_irq > 0;
		ex_rec->nsteps = ++step;
		if (EX_IS_TIMEOUT(c))
			t->timed_out = true;
		if (EX_IS_IRQ(c)) {
			t->irq_left--;
			t->irq_due = true;
		}
		for (int i = 0; i < ex_nthreads; i++)
			if (i != t->id)
				ex_threads[i].yielded = false;
		ex_prev = t->id;
		ex_to_thread(t);
	}
}

/* ---- one execution --------------------------------------------------- */

void ex_execute(const struct ex_scenario *sc)
{
	ex_clock[EX_MAX_THREADS].c[EX_MAX_THREADS] = 1;
	ex_sc = sc;
	ex_rec->nsteps = 0;
	ex_rec->failed = 0;
	ex_rec->msg[0] = 0;
	if (ex_rec->pct)
		ex_pct_init();
	ex_start_services();
	sc->setup();
	/* The threads start once the setup is done: after all of it. */
	for (int i = 0; i < ex_nthreads; i++)
		ex_join(&ex_clock[i], &ex_clock[EX_MAX_THREADS]);
	ex_where = "the scheduler";
	ex_schedule();
	ex_where = "the check";
	if (sc->check)
		sc->check();
	if (ex_warn_count != sc->warnings)
		ex_fail("%lu warnings, %u expected", ex_warn_count, sc->warnings);
}
