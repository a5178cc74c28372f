/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem-explore: the unmodified kmod/ sources under a deterministic
 * scheduler, in the manner of loom, CHESS and PCT. A scenario spawns a few
 * threads that call psem; the explorer runs one at a time, switching only
 * at scheduling points (every atomic operation and marked access of the
 * code under test, every spinlock acquire and release, every wake-up,
 * sleep and timeout expiry, every irq_work and work queued and run, the
 * entry of a simulated interrupt), and runs each scenario again from
 * scratch, in a forked child, for every schedule it explores.
 *
 * A scenario is a setup (main context: allocate, initialise, spawn), its
 * threads, and a check (main context, once every thread has returned and
 * no irq_work or work is left): the oracles. ex_assert() fails the
 * schedule at once, with a readable interleaving and a replay token.
 *
 * Documentation/userspace.rst, "The interleaving explorer", says how to
 * add a scenario and how to replay a failure.
 */
#ifndef _PSEM_EXPLORE_H
#define _PSEM_EXPLORE_H

#include <linux/compiler.h>
#include <linux/types.h>

struct ex_scenario {
	const char	*name;
	const char	*doc;		/* one line: what it explores */
	void		(*setup)(void);
	void		(*check)(void);
	int		bound;		/* preemption bound; 0: the default */
	int		pct;		/* > 0: that many PCT runs, after the
					 * bounded search if .bound is set,
					 * else instead of it */
	unsigned long	max;		/* > 0: schedules at most, at its bound */
	unsigned int	warnings;	/* warnings the scenario expects */
};

/* Registers a scenario: a pointer in section ex_scenarios. */
#define EX_SCENARIO(var)						\
	static const struct ex_scenario *const __ex_ptr_##var		\
	__attribute__((section("ex_scenarios"), used)) = &(var)

/* From setup: a thread running @fn(@arg); returns its id (0, 1, ...). */
int ex_spawn(const char *name, void (*fn)(void *), void *arg);
/* The same, in interrupt context for its whole run: another CPU's NMI. */
int ex_spawn_ctx(const char *name, void (*fn)(void *), void *arg,
		 unsigned long ctx);
/*
 * An interrupt that the explorer may deliver to thread @tid at any of
 * its scheduling points (NMI_OFFSET: anywhere; HARDIRQ_OFFSET: only where
 * it holds no spinlock, since psem takes its locks with interrupts off),
 * @count times at most: @fn(@arg) runs on that thread's stack, in that
 * context, and the thread goes on where it was.
 */
void ex_interrupt(int tid, unsigned long ctx, void (*fn)(void *), void *arg,
		  int count);

/* A failed oracle: the schedule fails here, with @fmt as its reason. */
__printf(1, 2) void ex_fail(const char *fmt, ...);
#define ex_assert(cond, fmt, ...)					\
do {									\
	if (!(cond))							\
		ex_fail("%s:%d: %s: " fmt, __FILE__, __LINE__, #cond,	\
			##__VA_ARGS__);					\
} while (0)

/*
 * Where set, run at every spin_unlock() with the lock still held and no
 * scheduling point: the scenarios' library checks its psem's word there
 * (scen_lib.c).
 */
struct spinlock;
extern void (*ex_unlock_check)(struct spinlock *lock);

/* Whether thread @tid has returned (for a check, or another thread). */
bool ex_thread_done(int tid);
/*
 * Whether an irq_work is queued and not started; and, only while thread 0
 * runs a work's function, a run of the next queued work by the caller, as
 * a second CPU beside the first (returns whether it ran one).
 */
bool ex_irq_queued(void);
bool ex_irq_work_run_here(void);
/* The task of thread @tid (to signal it). */
struct task_struct *ex_task(int tid);
/* Blocks the calling thread until @cond(@arg) holds: a harness wait. */
void ex_wait_until(bool (*cond)(void *), void *arg);
/* A scheduling point of the harness's own, named @what. */
void ex_yield(const char *what);
/* Warnings counted so far (WARN, lockdep assertions, sleeps in atomic). */
unsigned long ex_warnings(void);

/*
 * Data that a permit guards, checked for happens-before (explore.c tracks
 * it with vector clocks from the orders psem's atomics name): a holder
 * calls ex_guard_read() once it holds, ex_guard_write() before it lets go.
 * The read fails the schedule unless the last write happens before it,
 * which is what a missing ACQUIRE or RELEASE breaks, although the
 * explorer, one thread at a time, reads the same values either way.
 */
struct ex_guard {
	const char	*what;		/* for the report */
	int		writer;		/* thread + 1 of the last write; 0: none */
	unsigned int	epoch;		/* its clock then */
};

void ex_guard_write(struct ex_guard *g);
void ex_guard_read(struct ex_guard *g);

#endif /* _PSEM_EXPLORE_H */
