// SPDX-License-Identifier: GPL-2.0
/*
 * psem-explore's coroutine switch. On x86-64 a few lines of assembly; the
 * C library's swapcontext() elsewhere, which also sets the signal mask, a
 * system call at each switch (about 250 a schedule), for threads that
 * never change it. Neither switches the floating-point control words:
 * nothing here changes them.
 */
#include <stdint.h>
#include <string.h>

#include "explore_int.h"
#include "switch.h"

#ifdef __x86_64__
/*
 * ex_switch(from, to): pushes the callee-saved registers on the stack
 * being left, stores its stack pointer in *@from, loads @to and pops
 * them.
 */
void ex_switch(void **from, void *to);
__asm__(".text\n"
	".globl ex_switch\n"
	".type ex_switch, @function\n"
	"ex_switch:\n"
	"	pushq %rbp\n"
	"	pushq %rbx\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	movq %rsp, (%rdi)\n"
	"	movq %rsi, %rsp\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbx\n"
	"	popq %rbp\n"
	"	ret\n"
	".size ex_switch, . - ex_switch\n");

void ex_init(void)
{
}

/*
 * A new thread's context: ex_switch()'s six registers, zero (a zero frame
 * pointer ends a backtrace there), under a return into @entry, the stack
 * aligned as at a function's entry.
 */
void ex_ctx_new(struct ex_ctx *c, void *stack, size_t size,
		void (*entry)(void))
{
	uintptr_t *sp = (uintptr_t *)((char *)stack + size) - 8;

	memset(sp, 0, 8 * sizeof(*sp));
	sp[6] = (uintptr_t)entry;
	c->sp = sp;
}

void ex_ctx_switch(struct ex_ctx *from, struct ex_ctx *to)
{
	ex_switch(&from->sp, to->sp);
}
#else
#ifdef __SANITIZE_ADDRESS__
#include <dlfcn.h>
#endif

/*
 * ASan's interceptor of swapcontext() clears the shadow of the whole
 * stack it switches to (a memset of a stack's size / 8 bytes), at every
 * switch, and warns once per process, which is once per schedule here:
 * most of a schedule's time. The threads' stacks are never shared or
 * reused while the child runs, and each switch is announced to ASan as a
 * fiber switch, so the C library's own swapcontext() is called instead.
 */
static int (*ex_swapcontext)(ucontext_t *, const ucontext_t *) = swapcontext;

void ex_init(void)
{
#ifdef __SANITIZE_ADDRESS__
	/* The C library's, not the next definition (ASan's interceptor). */
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *real = libc ? dlsym(libc, "swapcontext") : NULL;

	if (real)
		ex_swapcontext = (int (*)(ucontext_t *, const ucontext_t *))real;
#endif
}

void ex_ctx_new(struct ex_ctx *c, void *stack, size_t size,
		void (*entry)(void))
{
	getcontext(&c->uc);
	c->uc.uc_stack.ss_sp = stack;
	c->uc.uc_stack.ss_size = size;
	c->uc.uc_link = NULL;
	makecontext(&c->uc, entry, 0);
}

void ex_ctx_switch(struct ex_ctx *from, struct ex_ctx *to)
{
	ex_swapcontext(&from->uc, &to->uc);
}
#endif
