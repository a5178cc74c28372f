/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem-explore's coroutines (switch.c): a thread's or the scheduler's
 * saved context, a new thread's on a stack of its own, and the switch
 * from one to another. explore.c tells ASan of each switch.
 */
#ifndef _PSEM_EXPLORE_SWITCH_H
#define _PSEM_EXPLORE_SWITCH_H

#include <stddef.h>

#ifdef __x86_64__
struct ex_ctx {
	void		*sp;	/* the registers are pushed under it */
};
#else
#include <ucontext.h>

struct ex_ctx {
	ucontext_t	uc;
};
#endif

void ex_ctx_new(struct ex_ctx *c, void *stack, size_t size,
		void (*entry)(void));
void ex_ctx_switch(struct ex_ctx *from, struct ex_ctx *to);

#endif /* _PSEM_EXPLORE_SWITCH_H */
