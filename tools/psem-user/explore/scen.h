/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The helpers every scenario shares (scen_lib.c): psems on the heap, so
 * that a free at the point the contract allows makes any later touch a
 * use-after-free under ASan; the queue as the oracles read it; permit
 * accounting for exact conservation.
 */
#ifndef _PSEM_EXPLORE_SCEN_H
#define _PSEM_EXPLORE_SCEN_H

#include <linux/errno.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "psem.h"
#include "explore.h"

extern bool psem_quiet_warnings;

/*
 * Defines and registers scenario @var: @nm, its @su(etup) and @ck (its
 * check; NULL for none), what it explores (@dc), then any other field of
 * struct ex_scenario (.bound = 1, ...).
 */
#define XS_SCENARIO(var, nm, su, ck, dc, ...)				\
static const struct ex_scenario var = {					\
	.name = nm, .doc = dc, .setup = su, .check = ck, __VA_ARGS__	\
};									\
EX_SCENARIO(var)

/* A variant of a scenario, whose setup sets @knob to @value first. */
#define XS_VARIANT(var, knob, value, su, ck, nm, dc, ...)		\
static void var##_setup(void) { knob = value; su(); }			\
XS_SCENARIO(var, nm, var##_setup, ck, dc, ##__VA_ARGS__)

/*
 * The count of a release that takes the locked path on a closed psem with
 * nobody waiting, so parks from NMI: one above PSEM_ADD_MAX, which reads
 * first (psem_release_fast()); 1 on sources without the add-first
 * release, where a closed word sent every release there.
 */
#ifdef PSEM_ADD_MAX
#define XS_PARK_N	(PSEM_ADD_MAX + 1)
#else
#define XS_PARK_N	1L
#endif

/* A psem of @permits on the heap; one with a capacity, @out of it held. */
struct psem *xs_psem(long permits);
struct psem *xs_psem_ext(long permits);	/* asynchronous waiters allowed */
struct psem *xs_psem_cap(long capacity, long out);

/* Whether a task waiter of @t, or the async waiter @aw, is linked. */
bool xs_linked(struct psem *sem, struct task_struct *t);
bool xs_async_linked(struct psem *sem, struct psem_async *aw);
long xs_nr_waiters(struct psem *sem);

/* ex_wait_until() predicates: a waiter of thread @tid linked on xs_sem. */
extern struct psem *xs_sem;
bool xs_tid_linked(void *tid);
/* ... or thread @tid has returned already (served before it linked). */
bool xs_tid_linked_or_done(void *tid);
bool xs_any_waiter(void *sem);

/*
 * Exact conservation once everything has settled: what the scenario
 * holds plus what is available plus the debt equals the total.
 */
void xs_conserved(struct psem *sem, long held, long total);
/* The same, and no waiter left linked on @sem. */
void xs_settled(struct psem *sem, long held, long total);

/*
 * The teardown of a pool of one object after a put from interrupt context
 * (@ctx: NMI_OFFSET, HARDIRQ_OFFSET), as a setup and its check: a getter
 * (thread 2) takes the object; the interrupt (3) puts it back once the
 * getter has returned; the owner (4), waiting for the object meanwhile,
 * gets it from that put, puts it back, and once the interrupt's put has
 * returned destroys and frees the pool. After a put from hard IRQ the
 * object is home then; one from NMI may still be parked on its way.
 */
void xs_pool_handover(unsigned long ctx);
void xs_pool_handover_check(void);

/*
 * The owner's teardown of a closed psem: psem_quiesce() with no timeout
 * must return 0 with @home permits home and no waiter linked; then the
 * contract lets the owner free it, so any later touch is a use-after-free
 * under ASan. *@semp becomes NULL.
 */
void xs_quiesce_free(struct psem **semp, long home);

/* Runs @fn with the calling thread in @ctx (NMI_OFFSET, HARDIRQ_OFFSET). */
#define xs_in_context(ctx, stmt)					\
do {									\
	int __old = psem_user_set_context(ctx);				\
	stmt;								\
	psem_user_set_context(__old);					\
} while (0)

int psem_user_set_context(int bits);
void psem_user_signal(struct task_struct *t, bool fatal);

/*
 * The calls whose form changed between the sources the scenarios run on
 * (scripts/check-explore.sh --old REV builds them against older kmod/
 * trees), each in one place:
 *
 * xs_acquire_async_work() queues a work waiter. Where kmod/psem.h has
 * psem_init_async_work(), the work is initialised once, by its owner (the
 * first call for @aww, or one with another @fn), and
 * psem_acquire_async_work() takes no function; before it, each call gave
 * the function and the acquire initialised the work itself.
 */
int xs_acquire_async_work(struct psem *sem, long n,
			  struct psem_async_work *aww, work_func_t fn);
/*
 * psem_cancel_async_work_sync(), or, on sources without it, the protocol
 * they documented: psem_cancel_async(), then cancel_work_sync() and
 * flush_work() if that found the wait completed.
 */
bool xs_cancel_async_work_sync(struct psem *sem, struct psem_async_work *aww);
/* psem_sync() where the sources have it; nothing before it existed. */
void xs_sync(struct psem *sem);
/*
 * The owner's teardown of a mutex or rwlock that nothing uses any more:
 * psem_mutex_destroy() or psem_rwlock_destroy() where the sources have
 * them (before, the contract was a plain free after the last unlock),
 * then the free. *@lockp becomes NULL.
 */
struct psem_mutex;
struct psem_rwlock;
void xs_mutex_free(struct psem_mutex **lockp);
void xs_rwlock_free(struct psem_rwlock **lockp);
/*
 * Refusals psem counted (its psem_refusals counter). A scenario that
 * expects one sets psem_quiet_warnings and checks the count, so that it
 * holds whether the refusal warns with WARN() (counted by ex_warnings())
 * or with one pr_warn() line, as refusals in NMI and hard IRQ do on
 * newer sources.
 */
long xs_refusals(void);

#endif /* _PSEM_EXPLORE_SCEN_H */
