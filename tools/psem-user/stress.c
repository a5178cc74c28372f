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
 * The lifecycle has a psem of its own, with a capacity: life_op() and
 * churn_op() in stress_life.c. Each stop also resizes it back, reopens it
 * and quiesces it, and checks it as exactly as the others.
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
#include "stress.h"

static struct worker workers[MAX_WORKERS];
static int nr_workers = 10;
int nr_life = 3;		/* ROLE_LIFE workers; a churn thread if any */
static int nr_threads;		/* all workers: nr_workers, life, churn */
static int epoch_ms = 100, nr_epochs = 20, hang_ms = 3000;
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

/* The plain data psem orders. */
static struct guarded psem_stress_guarded;

static unsigned long psem_stress_mx_count;

static struct {
	unsigned long a, b;
} psem_stress_rw_guarded;

struct pool_obj {
	unsigned long owner;
	unsigned long uses;
};

static struct pool_obj psem_stress_pool_objs[POOL_OBJS];

__printf(1, 2) __attribute__((noreturn)) void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "psem-stress: FAIL: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
	_exit(2);
}

unsigned int rnd(struct worker *w)
{
	w->rng ^= w->rng >> 12;
	w->rng ^= w->rng << 25;
	w->rng ^= w->rng >> 27;
	return (unsigned int)((w->rng * 0x2545F4914F6CDD1DULL) >> 32);
}

void count_op(struct worker *w, const char *op)
{
	__atomic_store_n(&w->op, op, __ATOMIC_RELAXED);
	__atomic_fetch_add(&w->ops, 1, __ATOMIC_RELAXED);
}

/* A short, random pause inside a critical section. */
void dwell(struct worker *w)
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
void check_eintr(struct worker *w, int ret, bool killable,
			const char *fn)
{
	if (ret != -EINTR)
		die("%s returned %d\n", fn, ret);
	if (killable ? !fatal_signal_pending(current) : !signal_pending(current))
		die("%s: -EINTR without a %s signal pending\n", fn,
		    killable ? "fatal" : "");
	w->eintr++;
}

bool guarded_hold(struct worker *w, struct guarded *g, long *held, long max,
		  long n, const char *what)
{
	long now = __atomic_add_fetch(held, n, __ATOMIC_RELAXED);
	unsigned long a = g->a;

	if (now > max)
		die("permits created: %ld of %s held, at most %ld\n", now, what,
		    max);
	if (n == max) {
		/* Every permit: exclusive. */
		g->a = a + 1;
		dwell(w);
		g->b = a + 1;
	} else {
		dwell(w);
		if (g->b != a)
			die("permits created: a holder of %ld of %s saw a=%lu b=%lu\n",
			    n, what, a, g->b);
	}
	__atomic_sub_fetch(held, n, __ATOMIC_RELAXED);
	return n == max;
}

static void sem_hold(struct worker *w, long n)
{
	if (n && guarded_hold(w, &psem_stress_guarded, &sem_held, SEM_PERMITS,
			      n, "stress_sem"))
		w->sem_writes++;
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
	unsigned int r = rnd(w) % 16;
	bool killable = r >= 5;
	const char *op;
	int ret;

	switch (r) {
	case 0: case 1: case 2:
		count_op(w, "acquire");
		ret = psem_acquire(&stress_sem, n);
		if (ret)
			die("psem_acquire returned %d\n", ret);
		got = n;
		break;
	case 3: case 4: case 5: case 6:
		/* A wait that a signal may end: any, or only a fatal one. */
		op = killable ? "acquire_killable" : "acquire_interruptible";
		count_op(w, op);
		ret = killable ? psem_acquire_killable(&stress_sem, n) :
				 psem_acquire_interruptible(&stress_sem, n);
		if (ret)
			check_eintr(w, ret, killable, op);
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

/*
 * Takes @lock with psem_@kind_lock() (@kind: mutex, read, write) or one of
 * its variants, as @way says: 0 plain, 1 interruptible, 2 killable, 3 try.
 * Whether it is held: a signal may end a wait (-EINTR, checked), a try
 * may fail.
 */
#define take_lock(w, way, kind, lock)					\
({									\
	bool __held = true;						\
	int __ret = 0;							\
									\
	switch (way) {							\
	case 0:								\
		count_op(w, #kind "_lock");				\
		psem_##kind##_lock(lock);				\
		break;							\
	case 1:								\
		count_op(w, #kind "_lock_interruptible");		\
		__ret = psem_##kind##_lock_interruptible(lock);		\
		break;							\
	case 2:								\
		count_op(w, #kind "_lock_killable");			\
		__ret = psem_##kind##_lock_killable(lock);		\
		break;							\
	default:							\
		count_op(w, #kind "_trylock");				\
		__held = psem_##kind##_trylock(lock);			\
	}								\
	if (__ret) {							\
		check_eintr(w, __ret, (way) == 2, (way) == 2 ?		\
			    #kind "_lock_killable" :			\
			    #kind "_lock_interruptible");		\
		__held = false;						\
	}								\
	__held;								\
})

/* If take_lock() takes @lock, runs @critical(@w) and unlocks it. */
#define under_lock(w, way, kind, lock, critical)			\
do {									\
	struct worker *__w = (w);					\
	typeof(lock) __lock = (lock);					\
									\
	if (take_lock(__w, way, kind, __lock)) {			\
		critical(__w);						\
		count_op(__w, #kind "_unlock");				\
		psem_##kind##_unlock(__lock);				\
	}								\
} while (0)

static void locks_op(struct worker *w)
{
	unsigned int r = rnd(w) % 13;

	switch (r / 4) {
	case 0:
		under_lock(w, r % 4, mutex, &stress_mx, mx_critical);
		break;
	case 1:
		under_lock(w, r % 4, read, &stress_rw, rw_read_side);
		break;
	case 2:
		under_lock(w, r % 4, write, &stress_rw, rw_write_side);
		break;
	default:
		count_op(w, "write_lock+downgrade");
		psem_write_lock(&stress_rw);
		rw_write_side(w);
		psem_downgrade_write(&stress_rw);
		rw_read_side(w);
		count_op(w, "read_unlock");
		psem_read_unlock(&stress_rw);
	}
}

static void pool_op(struct worker *w)
{
	unsigned int r = rnd(w) % 4;
	bool killable = r == 2;
	struct pool_obj *o = NULL;
	const char *op;
	void *p = NULL;
	int ret;

	switch (r) {
	case 0:
		count_op(w, "pool_get");
		o = psem_pool_get(&stress_pool);
		break;
	case 1: case 2:
		/* A wait that a signal may end: any, or only a fatal one. */
		op = killable ? "pool_get_killable" : "pool_get_interruptible";
		count_op(w, op);
		ret = killable ? psem_pool_get_killable(&stress_pool, &p) :
				 psem_pool_get_interruptible(&stress_pool, &p);
		if (ret) {
			check_eintr(w, ret, killable, op);
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
		"psem-stress: HANG (%s): no progress for %d ms; sem available %ld debt %lu, mutex %s, rwlock available %ld, pool available %ld, life_sem available %ld of %ld debt %lu%s held by workers %ld\n",
		when, hang_ms, psem_available(&stress_sem),
		psem_debt(&stress_sem),
		psem_mutex_is_locked(&stress_mx) ? "locked" : "unlocked",
		psem_available(&stress_rw.sem),
		psem_available(&stress_pool.sem), psem_available(&life_sem.sem),
		psem_capacity(&life_sem.sem), psem_debt(&life_sem.sem),
		psem_is_closed(&life_sem.sem) ? " closed" : "",
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

/* The options that take a number, and where each goes. */
static const struct {
	char	opt;
	int	*val;
} num_opts[] = {
	{ 'w', &nr_workers }, { 'l', &nr_life }, { 'e', &nr_epochs },
	{ 'm', &epoch_ms }, { 'H', &hang_ms },
};

/* Sets the number that option @c takes; false if @c takes none. */
static bool set_num_opt(int c, const char *arg)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(num_opts); i++) {
		if (num_opts[i].opt == c) {
			*num_opts[i].val = atoi(arg);
			return true;
		}
	}
	return false;
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
		if (c == 's')
			seed = strtoull(optarg, NULL, 0);
		else if (c == 'S')
			stats_always = true;
		else if (!set_num_opt(c, optarg))
			usage();
	}
	nr_threads = nr_workers + (nr_life ? nr_life + 1 : 0);
	if (nr_workers < 5 || nr_life < 0 || nr_threads > MAX_WORKERS ||
	    nr_epochs < 1 || epoch_ms < 0 || hang_ms < 0)
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
	printf("psem-stress: ops=%lu epochs=%d workers=%d ms=%llu exclusive=%lu rw_writes=%lu mutex=%lu pool=%lu eintr=%lu etime=%lu try_fail=%lu\n",
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
