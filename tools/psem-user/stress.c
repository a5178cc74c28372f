// SPDX-License-Identifier: GPL-2.0
/*
 * psem-stress: the unmodified psem sources, many threads, exact accounting.
 *
 * Worker threads hammer one psem of SEM_PERMITS permits with every acquire
 * variant (plain, interruptible, killable, timed, zero-timeout), try, drain,
 * reduce (a debt, paid back by a release), split releases and
 * release_all_held, while a signaller thread sends simulated signals (some
 * fatal) and a flipper thread flips the switches (fast_release,
 * zero_release, contention_flag, stats). Other workers use a psem_mutex, a
 * psem_rwlock and a psem_pool the same way.
 *
 * Every holder touches plain, non-atomic data that only the semaphore
 * orders: a holder of all SEM_PERMITS permits writes psem_stress_guarded,
 * a holder of fewer reads it. A missing ACQUIRE or RELEASE in psem is then
 * a data race that ThreadSanitizer reports. The harness's own bookkeeping
 * between workers uses relaxed atomics only, so it orders nothing for them.
 *
 * The run is cut into epochs. At the end of each, every worker finishes
 * its operation and stops; the main thread then checks, with everything
 * quiescent, that no permit was lost or created (balance, debt, the
 * primitives' state, the plain counters) and that no warning fired. A
 * worker that does not stop within the hang guard, or one that makes no
 * progress for as long while the others run, fails the run: a permit lost
 * to a waiter that nobody will serve shows up that way.
 *
 * The lifecycle has a psem of its own, with a capacity: see life_op() and
 * churn_op() below. Each stop also resizes it back, reopens it and quiesces
 * it, and checks it as exactly as the others.
 *
 * Exit status: 0 clean, 2 a conservation or exclusion failure, 3 a hang.
 */
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/sched.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_mutex.h"
#include "psem_pool.h"
#include "psem_rwlock.h"
#include "psem-user.h"

#define SEM_PERMITS	4
#define POOL_OBJS	3
#define MAX_WORKERS	64
#define LIFE_CAP	6	/* life_sem's capacity at a stop, and its most */
#define LIFE_STOP_MS	2000	/* the stop's quiesce: generous */

enum role { ROLE_SEM, ROLE_LOCKS, ROLE_POOL, ROLE_HOT, ROLE_LIFE, ROLE_CHURN };

struct worker {
	pthread_t		thread;
	struct task_struct	*task;		/* published with release */
	int			id;
	enum role		role;
	unsigned long long	rng;
	/* Relaxed atomics, read by the main thread while workers run. */
	unsigned long		ops;
	const char		*op;
	/* Plain: read by the main thread only while the worker is parked. */
	unsigned long		sem_writes, rw_writes, mx_holds, pool_gets;
	unsigned long		eintr, etime, fast_try_fail;
	unsigned long		life_writes, life_big, life_ok, life_shutdown;
	unsigned long		life_e2big, life_cancel;
	unsigned long		churn_resizes, churn_closes, churn_quiesced;
};

static struct worker workers[MAX_WORKERS];
static int nr_workers = 10;
static int nr_life = 3;		/* ROLE_LIFE workers; a churn thread if any */
static int nr_threads;		/* all workers: nr_workers, life, churn */
static unsigned int epoch_ms = 100, nr_epochs = 20, hang_ms = 3000;
static unsigned long long seed = 1;
static bool stats_always;

/* Run control: relaxed flags, and the epoch barrier (release/acquire). */
static int phase_quiesce;
static int epoch;
static int arrived;
static int stopping;

static DEFINE_PSEM(stress_sem, SEM_PERMITS);
static struct psem_mutex stress_mx;
static struct psem_rwlock stress_rw;
static struct psem_pool stress_pool;

/* Permits of stress_sem held right now: a relaxed counter. */
static long sem_held;

/* The lifecycle's psem, and what the churn thread set (seqcounts). */
static struct psem life_sem;
static unsigned long life_cap_gen, life_close_gen;
static long life_cap = LIFE_CAP;
static int life_closed;
static long life_held;		/* like sem_held */

static struct {
	unsigned long a, b, c;
} psem_stress_life_guarded;

/* The plain data psem orders. */
static struct {
	unsigned long a, b;
} psem_stress_guarded;

static unsigned long psem_stress_mx_count;

static struct {
	unsigned long a, b;
} psem_stress_rw_guarded;

struct pool_obj {
	unsigned long owner;
	unsigned long uses;
};

static struct pool_obj psem_stress_pool_objs[POOL_OBJS];

static __printf(1, 2) __attribute__((noreturn)) void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "psem-stress: FAIL: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
	_exit(2);
}

static unsigned int rnd(struct worker *w)
{
	w->rng ^= w->rng >> 12;
	w->rng ^= w->rng << 25;
	w->rng ^= w->rng >> 27;
	return (unsigned int)((w->rng * 0x2545F4914F6CDD1DULL) >> 32);
}

static void count_op(struct worker *w, const char *op)
{
	__atomic_store_n(&w->op, op, __ATOMIC_RELAXED);
	__atomic_fetch_add(&w->ops, 1, __ATOMIC_RELAXED);
}

/* A short, random pause inside a critical section. */
static void dwell(struct worker *w)
{
	unsigned int r = rnd(w) % 16;

	if (r == 0)
		sched_yield();
	else if (r == 1)
		psem_user_usleep(20);
	else
		for (r = rnd(w) % 64; r; r--)
			barrier();
}

/* -EINTR from a wait is only right with the matching signal pending. */
static void check_eintr(struct worker *w, int ret, bool killable,
			const char *fn)
{
	if (ret != -EINTR)
		die("%s returned %d\n", fn, ret);
	if (killable ? !fatal_signal_pending(current) : !signal_pending(current))
		die("%s: -EINTR without a %s signal pending\n", fn,
		    killable ? "fatal" : "");
	w->eintr++;
}

static void sem_hold(struct worker *w, long n)
{
	long held;

	if (!n)
		return;
	held = __atomic_add_fetch(&sem_held, n, __ATOMIC_RELAXED);
	if (held > SEM_PERMITS)
		die("permits created: %ld held of %d\n", held, SEM_PERMITS);
	if (n == SEM_PERMITS) {
		/* Every permit: exclusive. */
		unsigned long a = psem_stress_guarded.a;

		psem_stress_guarded.a = a + 1;
		dwell(w);
		psem_stress_guarded.b = a + 1;
		w->sem_writes++;
	} else {
		unsigned long a = psem_stress_guarded.a;

		dwell(w);
		if (psem_stress_guarded.b != a)
			die("permits created: reader holding %ld saw a=%lu b=%lu\n", n, a,
			    psem_stress_guarded.b);
	}
	__atomic_sub_fetch(&sem_held, n, __ATOMIC_RELAXED);
}

static void sem_give_back(struct worker *w, long n)
{
	int ret;

	if (!n)
		return;
	if (n == SEM_PERMITS && rnd(w) % 2) {
		count_op(w, "release_all_held");
		ret = psem_release_all_held(&stress_sem, n);
	} else if (n > 1 && rnd(w) % 2) {
		long k = 1 + rnd(w) % (n - 1);

		count_op(w, "release(split)");
		ret = psem_release(&stress_sem, k);
		if (!ret)
			ret = psem_release(&stress_sem, n - k);
	} else {
		count_op(w, "release");
		ret = psem_release(&stress_sem, n);
	}
	if (ret)
		die("release of %ld returned %d\n", n, ret);
}

static long pick_count(struct worker *w)
{
	static const long counts[] = { 1, 1, 1, 2, 3, 4, 4, 4 };

	if (rnd(w) % 64 == 0)
		return 0;
	return counts[rnd(w) % ARRAY_SIZE(counts)];
}

static void sem_op(struct worker *w)
{
	long n = pick_count(w), got = 0;
	int ret;

	switch (rnd(w) % 16) {
	case 0: case 1: case 2:
		count_op(w, "acquire");
		ret = psem_acquire(&stress_sem, n);
		if (ret)
			die("psem_acquire returned %d\n", ret);
		got = n;
		break;
	case 3: case 4:
		count_op(w, "acquire_interruptible");
		ret = psem_acquire_interruptible(&stress_sem, n);
		if (ret)
			check_eintr(w, ret, false, "acquire_interruptible");
		else
			got = n;
		break;
	case 5: case 6:
		count_op(w, "acquire_killable");
		ret = psem_acquire_killable(&stress_sem, n);
		if (ret)
			check_eintr(w, ret, true, "acquire_killable");
		else
			got = n;
		break;
	case 7: case 8:
		count_op(w, "acquire_timeout");
		ret = psem_acquire_timeout(&stress_sem, n, 1 + rnd(w) % 3);
		if (ret == -ETIME)
			w->etime++;
		else if (ret)
			die("acquire_timeout returned %d\n", ret);
		else
			got = n;
		break;
	case 9:
		count_op(w, "acquire_timeout(0)");
		ret = psem_acquire_timeout(&stress_sem, n, 0);
		if (ret == -ETIME && n)
			w->fast_try_fail++;
		else if (ret)
			die("acquire_timeout(0) of %ld returned %d\n", n, ret);
		else
			got = n;
		break;
	case 10: case 11:
		count_op(w, "try_acquire");
		if (psem_try_acquire(&stress_sem, n))
			got = n;
		else if (!n)
			die("try_acquire(0) failed\n");
		else
			w->fast_try_fail++;
		break;
	case 12: {
		long up_to = rnd(w) % (SEM_PERMITS + 1);

		count_op(w, "drain");
		got = psem_drain(&stress_sem, up_to);
		if (got < 0 || got > up_to)
			die("drain(%ld) took %ld\n", up_to, got);
		break;
	}
	case 13: case 14:
		if (!n)
			n = 1;
		count_op(w, "reduce");
		ret = psem_reduce(&stress_sem, n);
		if (ret)
			die("reduce(%ld) returned %d\n", n, ret);
		dwell(w);
		count_op(w, "release(debt)");
		ret = psem_release(&stress_sem, n);
		if (ret)
			die("release(%ld) after reduce returned %d\n", n, ret);
		return;
	default: {
		long avail = psem_available(&stress_sem);
		unsigned long debt = psem_debt(&stress_sem);

		count_op(w, "available");
		/* Each reducer owes at most SEM_PERMITS. */
		if (avail < 0 || avail > SEM_PERMITS ||
		    debt > (unsigned long)SEM_PERMITS * nr_workers)
			die("permits out of range: available %ld, debt %lu\n",
			    avail, debt);
		return;
	}
	}
	sem_hold(w, got);
	sem_give_back(w, got);
}

/*
 * Tight lock-free rounds on the same psem, with no pause: races between
 * fast releases, tries and locked releases, so that the contention flag
 * trips and the exchanges fail.
 */
static void hot_op(struct worker *w)
{
	int i;

	for (i = 0; i < 64; i++) {
		long n = 1 + (rnd(w) & 1), held;
		unsigned long a;

		/* Only the tries that succeed count as operations. */
		if (!psem_try_acquire(&stress_sem, n)) {
			/* Spin a little, but leave the CPUs to the others. */
			if (++w->fast_try_fail % 8 == 0)
				sched_yield();
			else
				cpu_relax();
			continue;
		}
		count_op(w, "hot try_acquire");
		held = __atomic_add_fetch(&sem_held, n, __ATOMIC_RELAXED);
		if (held > SEM_PERMITS)
			die("permits created: %ld held of %d\n", held,
			    SEM_PERMITS);
		a = psem_stress_guarded.a;
		if (psem_stress_guarded.b != a)
			die("permits created: reader holding %ld saw a=%lu b=%lu\n",
			    n, a, psem_stress_guarded.b);
		__atomic_sub_fetch(&sem_held, n, __ATOMIC_RELAXED);
		count_op(w, "hot release");
		if (psem_release(&stress_sem, n))
			die("release of %ld failed\n", n);
	}
}

static void rw_read_side(struct worker *w)
{
	unsigned long a = psem_stress_rw_guarded.a;

	dwell(w);
	if (psem_stress_rw_guarded.b != a)
		die("rwlock reader saw a=%lu b=%lu\n", a,
		    psem_stress_rw_guarded.b);
}

static void rw_write_side(struct worker *w)
{
	unsigned long a = psem_stress_rw_guarded.a;

	psem_stress_rw_guarded.a = a + 1;
	dwell(w);
	psem_stress_rw_guarded.b = a + 1;
	w->rw_writes++;
}

static void mx_critical(struct worker *w)
{
	unsigned long c = psem_stress_mx_count;

	dwell(w);
	psem_stress_mx_count = c + 1;
	w->mx_holds++;
}

static void locks_op(struct worker *w)
{
	int ret;

	switch (rnd(w) % 13) {
	case 0:
		count_op(w, "mutex_lock");
		psem_mutex_lock(&stress_mx);
		break;
	case 1:
		count_op(w, "mutex_lock_interruptible");
		ret = psem_mutex_lock_interruptible(&stress_mx);
		if (ret) {
			check_eintr(w, ret, false, "mutex_lock_interruptible");
			return;
		}
		break;
	case 2:
		count_op(w, "mutex_lock_killable");
		ret = psem_mutex_lock_killable(&stress_mx);
		if (ret) {
			check_eintr(w, ret, true, "mutex_lock_killable");
			return;
		}
		break;
	case 3:
		count_op(w, "mutex_trylock");
		if (!psem_mutex_trylock(&stress_mx))
			return;
		break;
	case 4:
		count_op(w, "read_lock");
		psem_read_lock(&stress_rw);
		goto read;
	case 5:
		count_op(w, "read_lock_interruptible");
		ret = psem_read_lock_interruptible(&stress_rw);
		if (ret) {
			check_eintr(w, ret, false, "read_lock_interruptible");
			return;
		}
		goto read;
	case 6:
		count_op(w, "read_lock_killable");
		ret = psem_read_lock_killable(&stress_rw);
		if (ret) {
			check_eintr(w, ret, true, "read_lock_killable");
			return;
		}
		goto read;
	case 7:
		count_op(w, "read_trylock");
		if (!psem_read_trylock(&stress_rw))
			return;
		goto read;
	case 8:
		count_op(w, "write_lock");
		psem_write_lock(&stress_rw);
		goto write;
	case 9:
		count_op(w, "write_lock_interruptible");
		ret = psem_write_lock_interruptible(&stress_rw);
		if (ret) {
			check_eintr(w, ret, false, "write_lock_interruptible");
			return;
		}
		goto write;
	case 10:
		count_op(w, "write_lock_killable");
		ret = psem_write_lock_killable(&stress_rw);
		if (ret) {
			check_eintr(w, ret, true, "write_lock_killable");
			return;
		}
		goto write;
	case 11:
		count_op(w, "write_trylock");
		if (!psem_write_trylock(&stress_rw))
			return;
		goto write;
	default:
		count_op(w, "write_lock+downgrade");
		psem_write_lock(&stress_rw);
		rw_write_side(w);
		psem_downgrade_write(&stress_rw);
		rw_read_side(w);
		count_op(w, "read_unlock");
		psem_read_unlock(&stress_rw);
		return;
	}
	mx_critical(w);
	count_op(w, "mutex_unlock");
	psem_mutex_unlock(&stress_mx);
	return;
read:
	rw_read_side(w);
	count_op(w, "read_unlock");
	psem_read_unlock(&stress_rw);
	return;
write:
	rw_write_side(w);
	count_op(w, "write_unlock");
	psem_write_unlock(&stress_rw);
}

static void pool_op(struct worker *w)
{
	struct pool_obj *o = NULL;
	void *p = NULL;
	int ret;

	switch (rnd(w) % 4) {
	case 0:
		count_op(w, "pool_get");
		o = psem_pool_get(&stress_pool);
		break;
	case 1:
		count_op(w, "pool_get_interruptible");
		ret = psem_pool_get_interruptible(&stress_pool, &p);
		if (ret) {
			check_eintr(w, ret, false, "pool_get_interruptible");
			return;
		}
		o = p;
		break;
	case 2:
		count_op(w, "pool_get_killable");
		ret = psem_pool_get_killable(&stress_pool, &p);
		if (ret) {
			check_eintr(w, ret, true, "pool_get_killable");
			return;
		}
		o = p;
		break;
	default:
		count_op(w, "pool_try_get");
		o = psem_pool_try_get(&stress_pool);
		if (!o)
			return;
	}
	if (o < psem_stress_pool_objs || o >= psem_stress_pool_objs + POOL_OBJS)
		die("pool returned %p, not one of its objects\n", (void *)o);
	if (o->owner)
		die("pool object %td given to worker %d while worker %lu has it\n",
		    o - psem_stress_pool_objs, w->id, o->owner - 1);
	o->owner = w->id + 1;
	o->uses++;
	dwell(w);
	if (o->owner != (unsigned long)w->id + 1)
		die("pool object %td taken from worker %d\n",
		    o - psem_stress_pool_objs, w->id);
	o->owner = 0;
	w->pool_gets++;
	count_op(w, "pool_put");
	ret = psem_pool_put(&stress_pool, o);
	if (ret)
		die("pool_put returned %d\n", ret);
}

/*
 * The lifecycle: life_sem, created with psem_init_capacity(LIFE_CAP), on
 * which ROLE_LIFE workers take and give back random amounts with every
 * acquire variant (the asynchronous ones included) while the ROLE_CHURN
 * thread resizes it (grow and shrink, with permits out), closes and reopens
 * it and quiesces it, with and without timeouts.
 *
 * Every outcome is checked exactly. Only the churn thread (and the main
 * thread at a stop, with everything parked) changes the capacity or the
 * closed state, and it publishes what it set in a seqcount: a worker that
 * finds a count unchanged across its call knows the capacity, or the closed
 * state, was that value throughout. So: -E2BIG only if the request exceeded
 * the capacity at some point, -ESHUTDOWN only if the psem was closed at some
 * point; a closed psem throughout refuses with -ESHUTDOWN, an open one with
 * a request over its capacity throughout with -E2BIG; nothing is granted
 * beyond the capacity or while closed; -EINTR only with the signal the
 * state lets in, -ETIME only with a timeout. A success holds exactly its
 * permits, a failure holds nothing: at each stop the main thread reopens
 * the psem, resizes it back to LIFE_CAP and quiesces it with a generous
 * timeout, which must succeed, and then finds the balance LIFE_CAP, no
 * debt, no flag in the word and nobody linked.
 *
 * The permits out never exceed the largest capacity the psem ever had
 * (LIFE_CAP: a shrink records a debt that returning permits pay, a grow
 * pays the debt first), so a holder of all LIFE_CAP permits is exclusive
 * and writes psem_stress_life_guarded.a/b, a holder of more than half is
 * exclusive among such holders and writes .c, the others read a and b.
 */
struct life_snap {
	unsigned long	cap_gen, close_gen;
	long		cap;
	int		closed;
};

static void life_snap(struct life_snap *s)
{
	s->cap_gen = __atomic_load_n(&life_cap_gen, __ATOMIC_SEQ_CST);
	s->close_gen = __atomic_load_n(&life_close_gen, __ATOMIC_SEQ_CST);
	s->cap = __atomic_load_n(&life_cap, __ATOMIC_SEQ_CST);
	s->closed = __atomic_load_n(&life_closed, __ATOMIC_SEQ_CST);
}

/* What held from @s0 to now: the capacity, the closed state, or neither. */
static void life_stable(const struct life_snap *s0, bool *cap_stable,
			bool *close_stable)
{
	unsigned long cg, sg;

	/* The call's accesses to the psem come before the second reads. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	cg = __atomic_load_n(&life_cap_gen, __ATOMIC_SEQ_CST);
	sg = __atomic_load_n(&life_close_gen, __ATOMIC_SEQ_CST);
	*cap_stable = !(s0->cap_gen & 1) && cg == s0->cap_gen;
	*close_stable = !(s0->close_gen & 1) && sg == s0->close_gen;
}

/* The writer's side of the seqcount around a change of the psem. */
static void life_change_begin(unsigned long *gen)
{
	__atomic_fetch_add(gen, 1, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void life_change_end(unsigned long *gen)
{
	__atomic_fetch_add(gen, 1, __ATOMIC_SEQ_CST);
}

static void life_resize(long cap)
{
	int ret;

	life_change_begin(&life_cap_gen);
	ret = psem_resize(&life_sem, cap);
	if (ret)
		die("psem_resize(%ld) returned %d\n", cap, ret);
	__atomic_store_n(&life_cap, cap, __ATOMIC_SEQ_CST);
	life_change_end(&life_cap_gen);
}

/* Closes (@close) or reopens; @closed: what the caller knows it was. */
static void life_close(bool close, bool closed)
{
	int ret, want = close == closed ? -EALREADY : 0;

	life_change_begin(&life_close_gen);
	ret = close ? psem_close(&life_sem) : psem_reopen(&life_sem);
	if (ret != want)
		die("psem_%s() of a psem %s returned %d, not %d\n",
		    close ? "close" : "reopen", closed ? "closed" : "open",
		    ret, want);
	__atomic_store_n(&life_closed, close, __ATOMIC_SEQ_CST);
	life_change_end(&life_close_gen);
}

enum life_kind {
	LIFE_WAIT,		/* psem_acquire() */
	LIFE_INTR,		/* psem_acquire_interruptible() */
	LIFE_KILL,		/* psem_acquire_killable() */
	LIFE_TIMEOUT,		/* psem_acquire_timeout(), > 0 */
	LIFE_TRY,		/* psem_acquire_timeout(0) */
	LIFE_ASYNC,		/* psem_acquire_async*(): the immediate return */
	LIFE_ASYNC_DONE,	/* the callback's result */
};

static const char *const life_kind_name[] = {
	"acquire", "acquire_interruptible", "acquire_killable",
	"acquire_timeout", "acquire_timeout(0)", "acquire_async",
	"acquire_async callback",
};

/*
 * Checks the outcome @ret of a take of @n of kind @kind that began at @s0,
 * and counts it. Returns the permits the caller now holds.
 */
static long life_outcome(struct worker *w, enum life_kind kind, long n,
			 int ret, const struct life_snap *s0)
{
	const char *fn = life_kind_name[kind];
	bool cap_stable, close_stable, over, closed;

	life_stable(s0, &cap_stable, &close_stable);
	closed = close_stable && s0->closed;	/* closed throughout */
	/* Over the capacity throughout: LIFE_CAP is the largest it has. */
	over = n > LIFE_CAP || (cap_stable && n > s0->cap);

	if (closed && ret != -ESHUTDOWN && kind != LIFE_ASYNC_DONE)
		die("%s(%ld) of a psem closed throughout returned %d, not -ESHUTDOWN%s\n",
		    fn, n, ret, ret ? "" : ": permits created");
	if (over && !ret)
		die("%s(%ld) granted beyond the capacity %ld: permits created\n",
		    fn, n, cap_stable ? s0->cap : (long)LIFE_CAP);
	if (over && close_stable && !s0->closed && ret != -E2BIG &&
	    kind != LIFE_ASYNC_DONE)
		die("%s(%ld) over the capacity %ld of an open psem returned %d, not -E2BIG\n",
		    fn, n, s0->cap, ret);
	switch (ret) {
	case 0:
		w->life_ok++;
		return n;
	case -ESHUTDOWN:
		if (close_stable && !s0->closed)
			die("%s(%ld) of a psem open throughout returned -ESHUTDOWN\n",
			    fn, n);
		w->life_shutdown++;
		goto refused;
	case -E2BIG:
		if (n <= LIFE_CAP && cap_stable && n <= s0->cap)
			die("%s(%ld) within the capacity %ld throughout returned -E2BIG\n",
			    fn, n, s0->cap);
		w->life_e2big++;
		goto refused;
	case -EINTR:
		if (kind != LIFE_INTR && kind != LIFE_KILL)
			die("%s(%ld) returned -EINTR\n", fn, n);
		check_eintr(w, ret, kind == LIFE_KILL, fn);
		return 0;
	case -ETIME:
		if (kind != LIFE_TIMEOUT && kind != LIFE_TRY)
			die("%s(%ld) returned -ETIME\n", fn, n);
		w->etime++;
		return 0;
	case -EINPROGRESS:
		if (kind != LIFE_ASYNC)
			die("%s(%ld) returned -EINPROGRESS\n", fn, n);
		return 0;
	default:
		die("%s(%ld) returned %d\n", fn, n, ret);
	}
refused:
	/* Refusals are quick: leave the CPUs to the others for a moment. */
	if (kind != LIFE_ASYNC_DONE)
		psem_user_usleep(10 + rnd(w) % 40);
	return 0;
}

static void life_hold(struct worker *w, long n)
{
	long held;

	if (!n)
		return;
	held = __atomic_add_fetch(&life_held, n, __ATOMIC_RELAXED);
	if (held > LIFE_CAP)
		die("permits created: %ld of life_sem held, its capacity is at most %d\n",
		    held, LIFE_CAP);
	if (n == LIFE_CAP) {
		/* Every permit the psem ever had: exclusive. */
		unsigned long a = psem_stress_life_guarded.a;

		psem_stress_life_guarded.a = a + 1;
		dwell(w);
		psem_stress_life_guarded.b = a + 1;
		w->life_writes++;
	} else {
		unsigned long a = psem_stress_life_guarded.a, c = 0;

		/* More than half: exclusive among such holders. */
		if (n > LIFE_CAP / 2)
			c = psem_stress_life_guarded.c;
		dwell(w);
		if (n > LIFE_CAP / 2) {
			psem_stress_life_guarded.c = c + 1;
			w->life_big++;
		}
		if (psem_stress_life_guarded.b != a)
			die("permits created: life holder of %ld saw a=%lu b=%lu\n",
			    n, a, psem_stress_life_guarded.b);
	}
	__atomic_sub_fetch(&life_held, n, __ATOMIC_RELAXED);
}

static void life_give_back(struct worker *w, long n)
{
	int ret;

	if (!n)
		return;
	switch (rnd(w) % 4) {
	case 0:
		count_op(w, "life release_all_held");
		ret = psem_release_all_held(&life_sem, n);
		break;
	case 1:
		if (n > 1) {
			long k = 1 + rnd(w) % (n - 1);

			count_op(w, "life release(split)");
			ret = psem_release(&life_sem, k);
			if (!ret)
				ret = psem_release(&life_sem, n - k);
			break;
		}
		/* fall through */
	default:
		count_op(w, "life release");
		ret = psem_release(&life_sem, n);
	}
	if (ret)
		die("life release of %ld returned %d: permits created or lost\n",
		    n, ret);
}

/* An asynchronous waiter: psem_acquire_async() or its work variant. */
struct life_async {
	struct psem_async_work	aww;	/* .aw for the callback variant */
	int			armed;	/* relaxed: a late callback is a bug */
	int			calls;	/* callbacks (or works) run */
	int			result;	/* plain, published by done */
	int			done;	/* release/acquire */
};

static void life_async_complete(struct life_async *la, int result)
{
	if (!__atomic_load_n(&la->armed, __ATOMIC_RELAXED))
		die("async completion (%d) of a waiter not queued or cancelled\n",
		    result);
	if (__atomic_add_fetch(&la->calls, 1, __ATOMIC_RELAXED) != 1)
		die("async waiter completed twice\n");
	la->result = result;
	__atomic_store_n(&la->done, 1, __ATOMIC_RELEASE);
}

static void life_async_fn(struct psem_async *aw, int result)
{
	life_async_complete(container_of(aw, struct life_async, aww.aw), result);
}

static void life_async_work_fn(struct work_struct *work)
{
	struct life_async *la = container_of(work, struct life_async,
					     aww.work);

	/* psem wrote ->result before it queued the work. */
	life_async_complete(la, la->aww.result);
}

static bool life_async_done(struct life_async *la)
{
	return __atomic_load_n(&la->done, __ATOMIC_ACQUIRE);
}

/*
 * An asynchronous take of @n: immediate, or queued and then completed or
 * cancelled after a short wait. Exactly one of them; returns what is held.
 */
static long life_async(struct worker *w, long n, const struct life_snap *s0)
{
	static struct life_async las[MAX_WORKERS];
	struct life_async *la = &las[w->id];
	bool work = rnd(w) % 2, cancelled;
	unsigned int wait_us = rnd(w) % 3000, how = rnd(w) % 3;
	int ret;

	la->calls = 0;
	la->done = 0;
	la->result = 1;
	__atomic_store_n(&la->armed, 1, __ATOMIC_RELAXED);
	if (work) {
		count_op(w, "acquire_async_work");
		/* Once: the last round's work may still be returning. */
		if (!la->aww.work.func)
			psem_init_async_work(&la->aww, life_async_work_fn);
		ret = psem_acquire_async_work(&life_sem, n, &la->aww);
	} else {
		count_op(w, "acquire_async");
		ret = psem_acquire_async(&life_sem, n, &la->aww.aw,
					 life_async_fn);
	}
	if (ret != -EINPROGRESS) {
		__atomic_store_n(&la->armed, 0, __ATOMIC_RELAXED);
		if (__atomic_load_n(&la->calls, __ATOMIC_RELAXED))
			die("async callback for a waiter never queued (%d)\n",
			    ret);
		return life_outcome(w, LIFE_ASYNC, n, ret, s0);
	}
	life_outcome(w, LIFE_ASYNC, n, ret, s0);
	while (!life_async_done(la) && wait_us >= 50) {
		psem_user_usleep(50);
		wait_us -= 50;
	}
	if (!life_async_done(la)) {
		/* Withdraw it: cancelled, or completed by now. */
		if (how == 0) {
			count_op(w, "cancel_async_sync");
			cancelled = psem_cancel_async_sync(&life_sem,
							   &la->aww.aw);
			/* A completion in flight has returned. */
			if (!cancelled && !work && !life_async_done(la))
				die("cancel_async_sync returned false before the callback returned\n");
		} else {
			count_op(w, "cancel_async");
			cancelled = psem_cancel_async(&life_sem, &la->aww.aw);
		}
		if (cancelled) {
			__atomic_store_n(&la->armed, 0, __ATOMIC_RELAXED);
			if (__atomic_load_n(&la->calls, __ATOMIC_RELAXED))
				die("async waiter cancelled and called back\n");
			w->life_cancel++;
			return 0;
		}
		if (work && how == 1 && cancel_work_sync(&la->aww.work)) {
			/* Withdrawn before it ran: ->result says it all. */
			__atomic_store_n(&la->armed, 0, __ATOMIC_RELAXED);
			return life_outcome(w, LIFE_ASYNC_DONE, n,
					    la->aww.result, s0);
		}
		if (work)
			flush_work(&la->aww.work);
	}
	while (!life_async_done(la))
		psem_user_usleep(20);
	__atomic_store_n(&la->armed, 0, __ATOMIC_RELAXED);
	return life_outcome(w, LIFE_ASYNC_DONE, n, la->result, s0);
}

static void life_op(struct worker *w)
{
	static const long counts[] = { 1, 1, 2, 2, 3, 4, 5, 6, 6, LIFE_CAP + 1 };
	long n = rnd(w) % 64 ? counts[rnd(w) % ARRAY_SIZE(counts)] : 0, got;
	struct life_snap s0;
	int ret;

	life_snap(&s0);
	switch (rnd(w) % 32) {
	case 0: case 1: case 2: case 3:
		count_op(w, "life acquire");
		ret = psem_acquire(&life_sem, n);
		got = life_outcome(w, LIFE_WAIT, n, ret, &s0);
		break;
	case 4: case 5: case 6:
		count_op(w, "life acquire_interruptible");
		ret = psem_acquire_interruptible(&life_sem, n);
		got = life_outcome(w, LIFE_INTR, n, ret, &s0);
		break;
	case 7: case 8: case 9:
		count_op(w, "life acquire_killable");
		ret = psem_acquire_killable(&life_sem, n);
		got = life_outcome(w, LIFE_KILL, n, ret, &s0);
		break;
	case 10: case 11: case 12: case 13:
		count_op(w, "life acquire_timeout");
		ret = psem_acquire_timeout(&life_sem, n, 1 + rnd(w) % 3);
		got = life_outcome(w, LIFE_TIMEOUT, n, ret, &s0);
		break;
	case 14: case 15:
		count_op(w, "life acquire_timeout(0)");
		ret = psem_acquire_timeout(&life_sem, n, 0);
		got = life_outcome(w, LIFE_TRY, n, ret, &s0);
		break;
	case 16: case 17: case 18: {
		bool cap_stable, close_stable;

		count_op(w, "life try_acquire");
		got = psem_try_acquire(&life_sem, n) ? n : -1;
		life_stable(&s0, &cap_stable, &close_stable);
		if (got >= 0 && close_stable && s0.closed)
			die("try_acquire(%ld) of a closed psem succeeded: permits created\n",
			    n);
		if (got >= 0 && (n > LIFE_CAP || (cap_stable && n > s0.cap)))
			die("try_acquire(%ld) beyond the capacity %ld: permits created\n",
			    n, s0.cap);
		if (got < 0 && !n && close_stable && !s0.closed)
			die("try_acquire(0) of an open psem failed\n");
		if (got < 0) {
			w->fast_try_fail++;
			got = 0;
		}
		break;
	}
	case 19: case 20: {
		long up_to = rnd(w) % (LIFE_CAP + 2);
		bool cap_stable, close_stable;

		count_op(w, "life drain");
		got = psem_drain(&life_sem, up_to);
		life_stable(&s0, &cap_stable, &close_stable);
		if (got < 0 || got > up_to || got > LIFE_CAP ||
		    (cap_stable && got > s0.cap) ||
		    (close_stable && s0.closed && got))
			die("drain(%ld) of a psem of capacity %ld%s took %ld: permits created\n",
			    up_to, s0.cap, s0.closed ? ", closed" : "", got);
		break;
	}
	case 21: case 22: case 23: case 24:
		got = life_async(w, n, &s0);
		break;
	case 25: {
		bool killable = rnd(w) % 2;
		long timeout = rnd(w) % 4;

		/* A short one, racing the churn's resizes and closes. */
		count_op(w, killable ? "life quiesce_killable" : "life quiesce");
		ret = killable ? psem_quiesce_killable(&life_sem, timeout) :
				 psem_quiesce(&life_sem, timeout);
		if (ret == -EINTR && killable)
			check_eintr(w, ret, true, "quiesce_killable");
		else if (ret == -ETIME)
			w->etime++;
		else if (ret)
			die("psem_quiesce%s(%ld) returned %d\n",
			    killable ? "_killable" : "", timeout, ret);
		return;
	}
	default: {
		long avail = psem_available(&life_sem);
		long cap = psem_capacity(&life_sem);
		unsigned long debt = psem_debt(&life_sem);

		count_op(w, "life available");
		if (avail < 0 || avail > LIFE_CAP || cap < 0 ||
		    cap > LIFE_CAP || debt > LIFE_CAP)
			die("life_sem out of range: available %ld, capacity %ld, debt %lu: permits %s\n",
			    avail, cap, debt, avail > LIFE_CAP ? "created" : "lost");
		return;
	}
	}
	life_hold(w, got);
	life_give_back(w, got);
}

/* The churn thread: resize, close and reopen, quiesce, while workers run. */
static void churn_op(struct worker *w)
{
	static const long caps[] = { 0, 1, 2, 3, 4, 4, 5, 6, 6, 6 };
	bool closed = __atomic_load_n(&life_closed, __ATOMIC_RELAXED);
	long timeout;
	int ret;

	switch (rnd(w) % 16) {
	case 0: case 1: case 2: case 3: case 4:
		count_op(w, "churn resize");
		life_resize(caps[rnd(w) % ARRAY_SIZE(caps)]);
		w->churn_resizes++;
		break;
	case 5:
		count_op(w, "churn close");
		life_close(true, closed);
		w->churn_closes++;
		break;
	case 6: case 7: case 8:
		count_op(w, "churn reopen");
		life_close(false, closed);
		break;
	case 9:
		count_op(w, "churn quiesce(MAX)");
		ret = psem_quiesce(&life_sem, MAX_SCHEDULE_TIMEOUT);
		if (ret)
			die("psem_quiesce(MAX_SCHEDULE_TIMEOUT) returned %d\n", ret);
		w->churn_quiesced++;
		break;
	case 10: case 11:
		timeout = rnd(w) % 4;
		count_op(w, "churn quiesce");
		ret = psem_quiesce(&life_sem, timeout);
		if (ret && ret != -ETIME)
			die("psem_quiesce(%ld) returned %d\n", timeout, ret);
		if (!ret)
			w->churn_quiesced++;
		break;
	case 12: case 13:
		timeout = rnd(w) % 3 ? 1 + rnd(w) % 5 : MAX_SCHEDULE_TIMEOUT;
		count_op(w, "churn quiesce_killable");
		ret = psem_quiesce_killable(&life_sem, timeout);
		if (ret == -EINTR)
			check_eintr(w, ret, true, "quiesce_killable");
		else if (ret && (ret != -ETIME || timeout == MAX_SCHEDULE_TIMEOUT))
			die("psem_quiesce_killable(%ld) returned %d\n", timeout,
			    ret);
		if (!ret)
			w->churn_quiesced++;
		break;
	default: {
		long avail = psem_available(&life_sem);
		long cap = psem_capacity(&life_sem);

		/* Only this thread changes them while workers run. */
		count_op(w, "churn check");
		if (cap != __atomic_load_n(&life_cap, __ATOMIC_RELAXED) ||
		    psem_is_closed(&life_sem) != closed)
			die("life_sem capacity %ld%s, set %ld%s\n", cap,
			    psem_is_closed(&life_sem) ? " closed" : "",
			    __atomic_load_n(&life_cap, __ATOMIC_RELAXED),
			    closed ? " closed" : "");
		if (avail > cap)
			die("life_sem balance %ld over its capacity %ld: permits created\n",
			    avail, cap);
		break;
	}
	}
	/* Let the workers run between two changes. */
	psem_user_usleep(50 + rnd(w) % 250);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	char comm[16];
	int seen = 0;

	snprintf(comm, sizeof(comm), "worker%d", w->id);
	__atomic_store_n(&w->task, psem_user_task_init(comm, w->id),
			 __ATOMIC_RELEASE);
	for (;;) {
		int e;

		while ((e = __atomic_load_n(&epoch, __ATOMIC_ACQUIRE)) == seen)
			psem_user_usleep(100);
		seen = e;
		if (__atomic_load_n(&stopping, __ATOMIC_RELAXED))
			break;
		while (!__atomic_load_n(&phase_quiesce, __ATOMIC_RELAXED)) {
			switch (w->role) {
			case ROLE_SEM:
				sem_op(w);
				break;
			case ROLE_LOCKS:
				locks_op(w);
				break;
			case ROLE_POOL:
				pool_op(w);
				break;
			case ROLE_HOT:
				hot_op(w);
				break;
			case ROLE_LIFE:
				life_op(w);
				break;
			case ROLE_CHURN:
				churn_op(w);
				break;
			}
			/* Returning to user space: signals are handled. */
			psem_user_flush_signals();
		}
		__atomic_store_n(&w->op, "parked", __ATOMIC_RELAXED);
		__atomic_fetch_add(&arrived, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* Sends simulated signals to random workers while an epoch runs. */
static void *signaller_main(void *arg)
{
	struct worker self = { .rng = seed * 7919 + 1 };

	psem_user_task_init("signaller", 0);
	while (!__atomic_load_n(&stopping, __ATOMIC_RELAXED)) {
		struct worker *w = &workers[rnd(&self) % nr_threads];
		struct task_struct *t;

		psem_user_usleep(200 + rnd(&self) % 300);
		if (__atomic_load_n(&phase_quiesce, __ATOMIC_RELAXED))
			continue;
		/* Acquire: the task was set up by its thread. */
		t = __atomic_load_n(&w->task, __ATOMIC_ACQUIRE);
		if (t)
			psem_user_signal(t, rnd(&self) % 4 == 0);
	}
	return NULL;
}

static void set_defaults(void)
{
	psem_set_fast_release(true);
	psem_set_zero_release(true);
	psem_set_contention_flag(true);
	psem_set_stats(stats_always);
}

/* Flips the switches while an epoch runs; defaults while quiescing. */
static void *flipper_main(void *arg)
{
	struct worker self = { .rng = seed * 104729 + 3 };
	bool quiet = false;

	psem_user_task_init("flipper", 0);
	while (!__atomic_load_n(&stopping, __ATOMIC_RELAXED)) {
		bool on = rnd(&self) % 3 != 0;

		psem_user_usleep(100 + rnd(&self) % 400);
		if (__atomic_load_n(&phase_quiesce, __ATOMIC_RELAXED)) {
			if (!quiet)
				set_defaults();
			quiet = true;
			continue;
		}
		quiet = false;
		switch (rnd(&self) % 4) {
		case 0:
			psem_set_fast_release(on);
			break;
		case 1:
			psem_set_zero_release(on);
			break;
		case 2:
			psem_set_contention_flag(on);
			break;
		default:
			if (!stats_always)
				psem_set_stats(on);
			break;
		}
	}
	return NULL;
}

static unsigned long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/*
 * For a hang: the permits of life_sem out of the psem's hands (neither in
 * the balance nor assigned to a linked waiter, less the debt), which must
 * be what the workers hold once they are parked.
 */
static long life_out(void)
{
	struct psem_waiter *w;
	long assigned = 0, cur;
	unsigned long debt;

	spin_lock(&life_sem.wq.lock);
	list_for_each_entry(w, &life_sem.wq.head, wq_entry.entry)
		assigned += w->n - w->needed;
	debt = life_sem.debt;
	cur = atomic_long_read(&life_sem.count);
	spin_unlock(&life_sem.wq.lock);
	return psem_capacity(&life_sem) + debt - ((cur & LONG_MAX) >> PSEM_SHIFT) -
	       assigned;
}

static __attribute__((noreturn)) void hang(const char *when)
{
	int i;

	if (nr_life) {
		long out = life_out(), held = __atomic_load_n(&life_held,
							      __ATOMIC_RELAXED);

		fprintf(stderr,
			"psem-stress: HANG (%s): life_sem has %ld permits out, workers hold %ld%s\n",
			when, out, held, out == held ? "" :
			out > held ? ": permits lost" : ": permits created");
	}

	fprintf(stderr,
		"psem-stress: HANG (%s): no progress for %u ms; sem available %ld debt %lu, mutex %s, rwlock available %ld, pool available %ld, life_sem available %ld of %ld debt %lu%s held by workers %ld\n",
		when, hang_ms, psem_available(&stress_sem),
		psem_debt(&stress_sem),
		psem_mutex_is_locked(&stress_mx) ? "locked" : "unlocked",
		psem_available(&stress_rw.sem),
		psem_available(&stress_pool.sem), psem_available(&life_sem),
		psem_capacity(&life_sem), psem_debt(&life_sem),
		psem_is_closed(&life_sem) ? " closed" : "",
		__atomic_load_n(&life_held, __ATOMIC_RELAXED));
	for (i = 0; i < nr_threads; i++)
		fprintf(stderr, "psem-stress:   worker %d: %lu ops, in %s\n", i,
			__atomic_load_n(&workers[i].ops, __ATOMIC_RELAXED),
			__atomic_load_n(&workers[i].op, __ATOMIC_RELAXED));
	fflush(stderr);
	_exit(3);
}

/* Runs one epoch; the hang guard watches every worker's progress. */
static void run_epoch(void)
{
	unsigned long last[MAX_WORKERS];
	unsigned long long since[MAX_WORKERS], start = now_ms(), t;
	int i;

	__atomic_store_n(&arrived, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&phase_quiesce, 0, __ATOMIC_RELAXED);
	__atomic_fetch_add(&epoch, 1, __ATOMIC_RELEASE);
	for (i = 0; i < nr_threads; i++) {
		last[i] = __atomic_load_n(&workers[i].ops, __ATOMIC_RELAXED);
		since[i] = start;
	}
	while ((t = now_ms()) - start < epoch_ms) {
		psem_user_usleep(10000);
		for (i = 0; i < nr_threads; i++) {
			unsigned long ops = __atomic_load_n(&workers[i].ops,
							    __ATOMIC_RELAXED);

			if (ops != last[i]) {
				last[i] = ops;
				since[i] = t;
			} else if (t - since[i] > hang_ms) {
				hang("running");
			}
		}
	}
	__atomic_store_n(&phase_quiesce, 1, __ATOMIC_RELAXED);
	start = now_ms();
	while (__atomic_load_n(&arrived, __ATOMIC_ACQUIRE) < nr_threads) {
		if (now_ms() - start > hang_ms)
			hang("stopping");
		psem_user_usleep(500);
	}
}

struct totals {
	unsigned long ops, sem_writes, rw_writes, mx_holds, pool_gets;
	unsigned long eintr, etime, fast_try_fail;
	unsigned long life_writes, life_big, life_ok, life_shutdown;
	unsigned long life_e2big, life_cancel;
	unsigned long churn_resizes, churn_closes, churn_quiesced;
};

static void sum(struct totals *s)
{
	int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < nr_threads; i++) {
		struct worker *w = &workers[i];

		s->ops += __atomic_load_n(&w->ops, __ATOMIC_RELAXED);
		s->sem_writes += w->sem_writes;
		s->rw_writes += w->rw_writes;
		s->mx_holds += w->mx_holds;
		s->pool_gets += w->pool_gets;
		s->eintr += w->eintr;
		s->etime += w->etime;
		s->fast_try_fail += w->fast_try_fail;
		s->life_writes += w->life_writes;
		s->life_big += w->life_big;
		s->life_ok += w->life_ok;
		s->life_shutdown += w->life_shutdown;
		s->life_e2big += w->life_e2big;
		s->life_cancel += w->life_cancel;
		s->churn_resizes += w->churn_resizes;
		s->churn_closes += w->churn_closes;
		s->churn_quiesced += w->churn_quiesced;
	}
}

/*
 * A stop of the lifecycle, with everything parked: reopen, resize back to
 * LIFE_CAP and quiesce, which must find every permit home; then the word
 * must be exactly LIFE_CAP permits, no flag, no debt, nobody linked.
 */
static void check_life(unsigned int ep, const struct totals *s)
{
	long avail, cur;
	unsigned long debt;
	bool linked;
	int ret;

	if (!nr_life)
		return;
	life_close(false, life_closed);
	life_resize(LIFE_CAP);
	ret = psem_quiesce(&life_sem, LIFE_STOP_MS);
	if (ret)
		die("epoch %u: life_sem quiesce(%d ms) returned %d with every worker parked: permits lost (available %ld of %d, debt %lu)\n",
		    ep, LIFE_STOP_MS, ret, psem_available(&life_sem), LIFE_CAP,
		    psem_debt(&life_sem));
	spin_lock(&life_sem.wq.lock);
	linked = !list_empty(&life_sem.wq.head);
	debt = life_sem.debt;
	cur = atomic_long_read(&life_sem.count);
	spin_unlock(&life_sem.wq.lock);
	avail = psem_available(&life_sem);
	if (avail != LIFE_CAP || debt || (cur & PSEM_FLAGS) || cur < 0 ||
	    linked || psem_capacity(&life_sem) != LIFE_CAP ||
	    __atomic_load_n(&life_held, __ATOMIC_RELAXED))
		die("epoch %u: life_sem word %#lx: available %ld of %ld (want %d), debt %lu, %s, held %ld: permits %s\n",
		    ep, cur, avail, psem_capacity(&life_sem), LIFE_CAP, debt,
		    linked ? "waiters linked" : "nobody linked", life_held,
		    avail < LIFE_CAP ? "lost" : avail > LIFE_CAP ? "created" :
		    "accounted wrongly");
	if (psem_stress_life_guarded.a != s->life_writes ||
	    psem_stress_life_guarded.b != s->life_writes ||
	    psem_stress_life_guarded.c != s->life_big)
		die("epoch %u: life guarded a=%lu b=%lu c=%lu after %lu exclusive and %lu big holds\n",
		    ep, psem_stress_life_guarded.a, psem_stress_life_guarded.b,
		    psem_stress_life_guarded.c, s->life_writes, s->life_big);
}

/* Everything is parked: what psem holds must be exactly what it was given. */
static void check_quiescent(unsigned int ep)
{
	unsigned long uses = 0, seen = 0;
	struct totals s;
	unsigned int i, j;

	sum(&s);
	if (psem_available(&stress_sem) != SEM_PERMITS ||
	    psem_debt(&stress_sem) ||
	    __atomic_load_n(&sem_held, __ATOMIC_RELAXED))
		die("epoch %u: sem available %ld (of %d), debt %lu, held %ld: permits %s\n",
		    ep, psem_available(&stress_sem), SEM_PERMITS,
		    psem_debt(&stress_sem), sem_held,
		    psem_available(&stress_sem) < SEM_PERMITS ? "lost" : "created");
	if (psem_stress_guarded.a != s.sem_writes ||
	    psem_stress_guarded.b != s.sem_writes)
		die("epoch %u: guarded a=%lu b=%lu after %lu exclusive writes\n",
		    ep, psem_stress_guarded.a, psem_stress_guarded.b,
		    s.sem_writes);
	if (psem_mutex_is_locked(&stress_mx) ||
	    psem_available(&stress_mx.sem) != 1 ||
	    psem_stress_mx_count != s.mx_holds)
		die("epoch %u: mutex %s, available %ld, count %lu after %lu holds\n",
		    ep, psem_mutex_is_locked(&stress_mx) ? "locked" : "unlocked",
		    psem_available(&stress_mx.sem), psem_stress_mx_count,
		    s.mx_holds);
	if (psem_available(&stress_rw.sem) != PSEM_RWLOCK_MAX_READERS ||
	    psem_stress_rw_guarded.a != s.rw_writes ||
	    psem_stress_rw_guarded.b != s.rw_writes)
		die("epoch %u: rwlock available %ld, a=%lu b=%lu after %lu writes\n",
		    ep, psem_available(&stress_rw.sem),
		    psem_stress_rw_guarded.a, psem_stress_rw_guarded.b,
		    s.rw_writes);
	if (psem_available(&stress_pool.sem) != POOL_OBJS)
		die("epoch %u: pool available %ld of %d\n", ep,
		    psem_available(&stress_pool.sem), POOL_OBJS);
	for (i = 0; i < POOL_OBJS; i++) {
		unsigned long v = atomic_long_read(&stress_pool.slots[i]);

		for (j = 0; j < POOL_OBJS; j++)
			if (v == (unsigned long)&psem_stress_pool_objs[j])
				seen |= 1UL << j;
		uses += psem_stress_pool_objs[i].uses;
	}
	if (seen != (1UL << POOL_OBJS) - 1 || uses != s.pool_gets)
		die("epoch %u: pool slots hold objects %#lx, %lu uses after %lu gets\n",
		    ep, seen, uses, s.pool_gets);
	check_life(ep, &s);
	if (psem_user_warnings() || psem_warn_count())
		die("epoch %u: %lu warnings, %llu refusals\n", ep,
		    psem_user_warnings(),
		    (unsigned long long)psem_warn_count());
}

static void usage(void)
{
	fprintf(stderr,
		"usage: psem-stress [-w workers] [-l life workers] [-e epochs] [-m ms per epoch] [-H hang ms] [-s seed] [-S]\n"
		"  -l  workers on the lifecycle's psem (default 3; 0: no lifecycle, no churn thread)\n"
		"  -S  statistics on throughout, printed at the end (by enum psem_stat index)\n");
	exit(1);
}

int main(int argc, char **argv)
{
	void *objs[POOL_OBJS];
	pthread_t signaller, flipper;
	unsigned long long t0;
	struct totals s;
	unsigned int ep;
	int i, c;

	while ((c = getopt(argc, argv, "w:l:e:m:H:s:S")) != -1) {
		switch (c) {
		case 'w':
			nr_workers = atoi(optarg);
			break;
		case 'l':
			nr_life = atoi(optarg);
			break;
		case 'e':
			nr_epochs = atoi(optarg);
			break;
		case 'm':
			epoch_ms = atoi(optarg);
			break;
		case 'H':
			hang_ms = atoi(optarg);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'S':
			stats_always = true;
			break;
		default:
			usage();
		}
	}
	nr_threads = nr_workers + (nr_life ? nr_life + 1 : 0);
	if (nr_workers < 5 || nr_life < 0 || nr_threads > MAX_WORKERS ||
	    !nr_epochs)
		usage();

	psem_user_task_init("main", 0);
	psem_mutex_init(&stress_mx);
	psem_rwlock_init(&stress_rw);
	for (i = 0; i < POOL_OBJS; i++)
		objs[i] = &psem_stress_pool_objs[i];
	if (psem_pool_init(&stress_pool, objs, POOL_OBJS, GFP_KERNEL))
		die("pool init\n");
	if (psem_init_capacity(&life_sem, LIFE_CAP))
		die("psem_init_capacity\n");
	set_defaults();

	t0 = now_ms();
	for (i = 0; i < nr_threads; i++) {
		struct worker *w = &workers[i];

		w->id = i;
		/* Of five: two on the psem, one on each of the others. */
		static const enum role roles[] = {
			ROLE_SEM, ROLE_SEM, ROLE_LOCKS, ROLE_POOL, ROLE_HOT,
		};

		/* Then the lifecycle's workers and its churn thread. */
		if (i >= nr_workers)
			w->role = i == nr_threads - 1 ? ROLE_CHURN : ROLE_LIFE;
		else
			w->role = roles[i % ARRAY_SIZE(roles)];
		w->rng = seed * 0x9E3779B97F4A7C15ULL + i + 1;
		w->op = "starting";
		if (pthread_create(&w->thread, NULL, worker_main, w))
			die("pthread_create\n");
	}
	if (pthread_create(&signaller, NULL, signaller_main, NULL) ||
	    pthread_create(&flipper, NULL, flipper_main, NULL))
		die("pthread_create\n");

	for (ep = 1; ep <= nr_epochs; ep++) {
		run_epoch();
		check_quiescent(ep);
	}

	__atomic_store_n(&stopping, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&epoch, 1, __ATOMIC_RELEASE);
	for (i = 0; i < nr_threads; i++)
		pthread_join(workers[i].thread, NULL);
	pthread_join(signaller, NULL);
	pthread_join(flipper, NULL);
	psem_pool_destroy(&stress_pool);
	if (psem_user_warnings() || psem_warn_count())
		die("%lu warnings, %llu refusals\n", psem_user_warnings(),
		    (unsigned long long)psem_warn_count());

	sum(&s);
	printf("psem-stress: ops=%lu epochs=%u workers=%d ms=%llu exclusive=%lu rw_writes=%lu mutex=%lu pool=%lu eintr=%lu etime=%lu try_fail=%lu\n",
	       s.ops, nr_epochs, nr_workers, now_ms() - t0, s.sem_writes,
	       s.rw_writes, s.mx_holds, s.pool_gets, s.eintr, s.etime,
	       s.fast_try_fail);
	if (nr_life)
		printf("psem-stress: life workers=%d granted=%lu exclusive=%lu big=%lu eshutdown=%lu e2big=%lu async_cancelled=%lu resizes=%lu closes=%lu quiesced=%lu\n",
		       nr_life, s.life_ok, s.life_writes, s.life_big,
		       s.life_shutdown, s.life_e2big, s.life_cancel,
		       s.churn_resizes, s.churn_closes, s.churn_quiesced);
	if (stats_always) {
		struct psem_stats st;

		psem_stats_snapshot(&st);
		printf("psem-stress: stats");
		for (i = 0; i < PSEM_NR_STATS; i++)
			printf(" %d=%llu", i, (unsigned long long)st.count[i]);
		printf("\n");
	}
	return 0;
}
