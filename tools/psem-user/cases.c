// SPDX-License-Identifier: GPL-2.0
/*
 * psem-cases: forced interleavings and exact edge cases, one function each,
 * on the unmodified psem sources. Where a bug needs a task to be preempted
 * at one point, the shim's preemption hook (psem-user.h) stops it there,
 * as a scheduler could, and the case runs the other side meanwhile.
 *
 *   psem-cases NAME...    runs each case; prints "psem-cases: NAME: held",
 *                         or "psem-cases: NAME: FAIL: why" and exits 1
 *   psem-cases NAME/VAR   one variant of a case that has several
 *                         (close-quiesce-free/signal, /timeout, /shutdown,
 *                         /async)
 *   psem-cases -l         lists the cases
 *
 * Built natively, under ThreadSanitizer and under AddressSanitizer
 * (scripts/check-tsan.sh). A case touches no permit it does not account
 * for exactly, and fails on any warning the shim counted (a WARN, a
 * lockdep assertion, a sleep under a spinlock). The psems of the
 * use-after-free cases are on the heap and are freed where the contract
 * says the owner may free them, so that ASan reports any later access.
 *
 * No case asserts a duration: a bound only lets a stopped task go on when
 * the code under test rightly waits for it, and a wait for progress that
 * never comes fails as a hang, not as slowness.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "psem.h"
#include "psem-user.h"
#include "cases.h"

extern bool psem_quiet_warnings;

static const char *case_name;
const char *case_variant;	/* NAME/VARIANT: that variant only */
int case_failed;

void case_report(bool failed, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "psem-cases: %s: %s", case_name, failed ? "FAIL: " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (failed)
		case_failed = 1;
}

static struct psem *case_alloc(void)
{
	struct psem *sem = calloc(1, sizeof(*sem));

	if (!sem)
		abort();
	return sem;
}

struct psem *case_psem(long permits)
{
	struct psem *sem = case_alloc();

	psem_init(sem, permits);
	return sem;
}

/* A psem that asynchronous waiters may use (a struct psem_ext's). */
struct psem *case_psem_ext(long permits)
{
	struct psem_ext *ext = calloc(1, sizeof(*ext));

	if (!ext)
		abort();
	psem_init_ext(ext, permits);
	return &ext->sem;
}

struct psem *case_psem_owned(long cap)
{
	struct psem_ext *cs = calloc(1, sizeof(*cs));
	struct psem *sem = &cs->sem;

	if (!cs)
		abort();
	if (!CHECK(psem_init_capacity(cs, cap) == 0, "capacity %ld", cap) ||
	    !CHECK(psem_try_acquire(sem, cap), "the owner's %ld permits", cap)) {
		free(cs);
		return NULL;
	}
	return sem;
}

/* Polls until *@p is nonzero (ACQUIRE) or HANG_MS pass; returns *@p. */
int wait_flag(const int *p)
{
	int i;

	for (i = 0; i < HANG_MS * 10; i++) {
		int v = __atomic_load_n(p, __ATOMIC_ACQUIRE);

		if (v)
			return v;
		psem_user_usleep(100);
	}
	return 0;
}

/* Waits (up to @ms) without touching anything the case checks. */
void wait_unless(const int *go, unsigned int ms)
{
	unsigned int i;

	for (i = 0; i < ms * 10 && !ld(go); i++)
		psem_user_usleep(100);
}

static void *thr_main(void *p)
{
	struct thr *t = p;

	__atomic_store_n(&t->task, psem_user_task_init(t->comm, 1),
			 __ATOMIC_RELEASE);
	t->fn(t);
	return NULL;
}

void thr_start(struct thr *t, const char *comm, void (*fn)(struct thr *),
	       void *arg, size_t stack)
{
	pthread_attr_t attr;

	t->task = NULL;
	t->fn = fn;
	t->arg = arg;
	t->comm = comm;
	pthread_attr_init(&attr);
	if (stack && pthread_attr_setstacksize(&attr, stack))
		abort();
	if (pthread_create(&t->th, &attr, thr_main, t))
		abort();
	pthread_attr_destroy(&attr);
	while (!__atomic_load_n(&t->task, __ATOMIC_ACQUIRE))
		psem_user_usleep(50);
}

void thr_join(struct thr *t)
{
	pthread_join(t->th, NULL);
}

/* Waits until @t sleeps, linked on @sem; false after HANG_MS. */
bool wait_asleep_on(struct thr *t, struct psem *sem)
{
	int i;

	for (i = 0; i < HANG_MS * 10; i++) {
		if (linked(sem) &&
		    __atomic_load_n(&t->task->__state, __ATOMIC_RELAXED) !=
		    TASK_RUNNING)
			return true;
		psem_user_usleep(100);
	}
	return false;
}

bool thr_start_asleep(struct thr *t, const char *comm,
		      void (*fn)(struct thr *), void *arg, struct psem *sem)
{
	thr_start(t, comm, fn, arg, 0);
	return CHECK(wait_asleep_on(t, sem), "%s never slept", comm);
}

const char *pre_state_name(int s)
{
	static const char * const names[] = {
		"was never armed", "had not reached its stop", "was stopped",
		"had been let go by the case", "had gone on after the bound",
	};

	return s >= 0 && s < (int)ARRAY_SIZE(names) ? names[s] : "?";
}

struct pcase {
	const char	*name;
	void		(*fn)(void);
};

static const struct pcase cases[] = {
	{ "close-quiesce-free",		case_close_quiesce_free },
	{ "async-work-withdraw",	case_async_work_withdraw },
	{ "cancel-sync-rearm",		case_cancel_sync_rearm },
	{ "closed-release-overflow",	case_closed_release_overflow },
	{ "release-all-held-capacity",	case_release_all_held_capacity },
	{ "async-chain-iterates",	case_async_chain_iterates },
	{ "double-cancel",		case_double_cancel },
	{ "cancel-never-queued",	case_cancel_never_queued },
	{ "refused-cancel-sync",	case_refused_cancel_sync },
	{ "static-init",		case_static_init },
	{ "quiesce-fifo",		case_quiesce_fifo },
	{ "nmi-release-quiesce-free",	case_nmi_release_quiesce_free },
	{ "debt-zero-counts",		case_debt_zero_counts },
	{ "parked-max",			case_parked_max },
};

int main(int argc, char **argv)
{
	unsigned long warn0;
	size_t i;
	int a, failed = 0;

	psem_user_task_init("case", 0);
	if (argc == 2 && !strcmp(argv[1], "-l")) {
		for (i = 0; i < ARRAY_SIZE(cases); i++)
			printf("%s\n", cases[i].name);
		return 0;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: psem-cases -l | NAME...\n");
		return 1;
	}
	/* The cases' refusals are expected: counted, not warned about. */
	psem_quiet_warnings = true;
	for (a = 1; a < argc; a++) {
		const char *slash = strchr(argv[a], '/');
		size_t len = slash ? (size_t)(slash - argv[a]) : strlen(argv[a]);

		for (i = 0; i < ARRAY_SIZE(cases); i++)
			if (strlen(cases[i].name) == len &&
			    !strncmp(argv[a], cases[i].name, len))
				break;
		if (i == ARRAY_SIZE(cases)) {
			fprintf(stderr, "psem-cases: no case %s\n", argv[a]);
			return 1;
		}
		case_name = argv[a];
		case_variant = NULL;
		if (slash)
			case_variant = slash + 1;
		case_failed = 0;
		warn0 = psem_user_warnings();
		cases[i].fn();
		if (!case_failed && psem_user_warnings() != warn0)
			fail("%lu warning(s)", psem_user_warnings() - warn0);
		if (case_failed) {
			failed = 1;
			continue;
		}
		printf("psem-cases: %s: held\n", case_name);
		fflush(stdout);
	}
	return failed;
}
