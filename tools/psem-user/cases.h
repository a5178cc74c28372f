/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem-cases's harness (cases.c: reporting, threads that are tasks, waits
 * that fail as hangs, the table of cases and main), shared by the cases
 * themselves: cases_life.c (close, quiesce, free; capacity and overflow;
 * NMI) and cases_async.c (asynchronous waiters).
 */
#ifndef _PSEM_CASES_H
#define _PSEM_CASES_H

#include <pthread.h>
#include <stddef.h>

#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

#include "psem.h"
#include "psem-user.h"

/* How long a stopped task waits for the case to let it go, at most. */
#define STOP_BOUND_MS	200
/* How long a case waits for something that must happen, before failing. */
#define HANG_MS		10000

/* NAME/VARIANT on the command line: that variant only; else NULL. */
extern const char *case_variant;
/* Whether the case running now has failed. */
extern int case_failed;

/* A line on stderr, under the case's name; @failed fails the case. */
__printf(2, 3) void case_report(bool failed, const char *fmt, ...);
#define fail(...)	case_report(true, __VA_ARGS__)
#define note(...)	case_report(false, __VA_ARGS__)

#define CHECK(cond, fmt, ...)						\
({									\
	bool __ok = !!(cond);						\
	if (!__ok)							\
		fail("%s:%d: %s: " fmt, __FILE__, __LINE__, #cond,	\
		     ##__VA_ARGS__);					\
	__ok;								\
})

static inline long word(struct psem *sem)
{
	return atomic_long_read(&sem->count);
}

/* Whether any waiter is linked on @sem: a lockless peek, as in the torture. */
static inline bool linked(struct psem *sem)
{
	return !psem_queue_empty(sem);
}

static inline int ld(const int *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void st(int *p, int v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/*
 * Psems on the heap, which the use-after-free cases free where the
 * contract lets the owner free them: one of @permits; one with a capacity
 * of @cap, all of it held by the case (NULL, the case failed, if not).
 */
struct psem *case_psem(long permits);
struct psem *case_psem_ext(long permits);
struct psem *case_psem_owned(long cap);

/* Polls until *@p is nonzero (ACQUIRE) or HANG_MS pass; returns *@p. */
int wait_flag(const int *p);
/* Waits (up to @ms) without touching anything the case checks. */
void wait_unless(const int *go, unsigned int ms);

/* A thread that is a task; @stack 0: the default stack. */
struct thr {
	pthread_t		th;
	struct task_struct	*task;	/* published with RELEASE */
	void			(*fn)(struct thr *t);
	void			*arg;
	long			ret;
	const char		*comm;
};

/* A thread @comm running @fn(@t), a task once this returns. */
void thr_start(struct thr *t, const char *comm, void (*fn)(struct thr *),
	       void *arg, size_t stack);
void thr_join(struct thr *t);
/* Waits until @t sleeps, linked on @sem; false after HANG_MS. */
bool wait_asleep_on(struct thr *t, struct psem *sem);
/* thr_start(), then wait_asleep_on(@sem): the case fails if it does not. */
bool thr_start_asleep(struct thr *t, const char *comm,
		      void (*fn)(struct thr *), void *arg, struct psem *sem);
/* A PSEM_USER_PRE_* state, in words. */
const char *pre_state_name(int s);

/* cases_life.c */
void case_close_quiesce_free(void);
void case_closed_release_overflow(void);
void case_release_all_held_capacity(void);
void case_quiesce_fifo(void);
void case_nmi_release_quiesce_free(void);
void case_debt_zero_counts(void);
void case_parked_max(void);

/* cases_async.c */
void case_async_work_withdraw(void);
void case_cancel_sync_rearm(void);
void case_async_chain_iterates(void);
void case_double_cancel(void);
void case_cancel_never_queued(void);
void case_refused_cancel_sync(void);
void case_static_init(void);

#endif /* _PSEM_CASES_H */
