/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem-stress's parts (stress.c: the workers on stress_sem and the
 * primitives, the epochs and their checks, main; stress_life.c: the
 * lifecycle of life_sem): the worker, the totals at a stop, and what
 * each part calls of the other.
 */
#ifndef _PSEM_STRESS_H
#define _PSEM_STRESS_H

#include <pthread.h>

#include <linux/compiler.h>
#include <linux/types.h>

#include "psem.h"

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

struct totals {
	unsigned long ops, sem_writes, rw_writes, mx_holds, pool_gets;
	unsigned long eintr, etime, fast_try_fail;
	unsigned long life_writes, life_big, life_ok, life_shutdown;
	unsigned long life_e2big, life_cancel;
	unsigned long churn_resizes, churn_closes, churn_quiesced;
};

/*
 * The plain data a psem's permits guard: a holder of every permit writes
 * a, pauses, writes b; any other holder reads a, pauses, and must find b
 * unchanged. A missing ACQUIRE or RELEASE is a race TSan reports.
 */
struct guarded {
	unsigned long a, b;
};

/* stress.c */
extern int nr_life;
__printf(1, 2) __attribute__((noreturn)) void die(const char *fmt, ...);
unsigned int rnd(struct worker *w);
void count_op(struct worker *w, const char *op);
void dwell(struct worker *w);
void check_eintr(struct worker *w, int ret, bool killable, const char *fn);
/*
 * A hold of @n (> 0) of the @max permits of psem @what, whose holders
 * count in *@held and guard @g; whether it was exclusive (@n == @max).
 */
bool guarded_hold(struct worker *w, struct guarded *g, long *held, long max,
		  long n, const char *what);

/* stress_life.c */
extern struct psem_ext life_sem;
extern long life_held;
void life_op(struct worker *w);
void churn_op(struct worker *w);
long life_out(void);
void check_life(unsigned int ep, const struct totals *s);

#endif /* _PSEM_STRESS_H */
