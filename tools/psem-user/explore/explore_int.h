/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between psem-explore's runtime (explore.c, in the forked child that runs
 * one schedule) and its search (main.c, the parent): the choices and the
 * record of one execution, in memory shared by both. And between the
 * runtime's scheduler (explore.c) and the kernel services it runs
 * (kernel.c): points, blocks and happens-before edges.
 */
#ifndef _PSEM_EXPLORE_INT_H
#define _PSEM_EXPLORE_INT_H

#include <stdint.h>

#include "explore.h"

#define EX_MAX_THREADS	16
#define EX_MAX_STEPS	20000
#define EX_PCT_DEPTH	3
#define EX_EXIT_FAIL	3

/*
 * A choice: run thread i (i), fire its timeout (16 + i), or deliver its
 * interrupt (32 + i). A bit each in a 64-bit set of enabled choices.
 */
#define EX_RUN(i)		(i)
#define EX_TIMEOUT(i)		(16 + (i))
#define EX_IRQ(i)		(32 + (i))
#define EX_TID(c)		((c) & 15)
#define EX_IS_TIMEOUT(c)	((c) >= 16 && (c) < 32)
#define EX_IS_IRQ(c)		((c) >= 32)
#define EX_CHOICES		48
#define EX_RUN_OR_TIMEOUT_MASK	0xffffffffULL

struct ex_step {
	uint64_t	en;		/* the choices enabled */
	int8_t		choice;		/* the one made */
	int8_t		prev;		/* the thread that ran before, or -1 */
	int8_t		prev_ready;	/* it could have gone on */
	const char	*op;		/* what the chosen thread did next */
	uintptr_t	pc;		/* from where (offset in the binary) */
	uintptr_t	addr;		/* what it touches next, or 0 */
	int8_t		in_irq;		/* it runs an interrupt handler */
};

struct ex_record {
	/* Written by the parent. */
	unsigned long long seed;	/* PCT's */
	int		pct;		/* 1: PCT, 0: prefix then default */
	unsigned int	pct_steps;	/* PCT's estimate of the length */
	unsigned int	nprefix;
	int8_t		prefix[EX_MAX_STEPS];
	/* Written by the child. */
	unsigned int	nsteps;
	int		failed;
	char		msg[1024];
	struct ex_step	steps[EX_MAX_STEPS];
};

extern struct ex_record *ex_rec;
/* Once, in the parent: what every child would otherwise look up again. */
void ex_init(void);
void ex_execute(const struct ex_scenario *sc);

/* ---- for kernel.c --------------------------------------------------- */

/* The order of an operation, for ex_sync(). */
enum { EX_ORD_NONE, EX_ORD_ACQ = 1, EX_ORD_REL = 2, EX_ORD_FULL = 3 };

/* The simulated clock: a fired timeout moves it to the deadline. */
extern unsigned long ex_jiffies;

/*
 * A scheduling point of the running thread before it does @op on @addr
 * (from @pc); none in the scheduler's own context.
 */
void ex_point(const char *op, uintptr_t pc, const volatile void *addr);
/*
 * Blocks the running thread until @pred(@arg) holds, or, if @timed, until
 * the scheduler fires its timeout (then returns true).
 */
bool ex_block(const char *op, uintptr_t pc, bool (*pred)(void *), void *arg,
	      bool timed);
/* The calling thread does an operation of order @ord on @addr. */
void ex_sync(const volatile void *addr, int ord);
/* Threads so far, the services included (ex_task() of each). */
int ex_nr_threads(void);
/* A service thread running @fn, never done, blocked until @pred(@arg). */
void ex_add_service(const char *name, void (*fn)(void *),
		    bool (*pred)(void *), void *arg);
/* The kernel's service threads, first of all: irq_work (0), kworker (1). */
void ex_start_services(void);

#endif /* _PSEM_EXPLORE_INT_H */
