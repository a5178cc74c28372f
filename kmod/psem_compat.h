/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem_compat.h - the differences between the kernels psem builds for, in
 * one place.
 *
 * Tested: Linux 6.1, 6.12 and 7.3 (Debian's stock kernels of each, generic
 * and PREEMPT_RT, and test kernels built from linux-source-6.1, -6.12 and
 * -7.3); 7.2 is a compile-only check. psem's sources are written in the
 * newest API; each fallback below gives an older kernel that spelling and
 * names the upstream change it follows. A kernel newer than the newest
 * tested one builds with a warning, printed once, by psem_main.c.
 */
#ifndef _PSEM_COMPAT_H
#define _PSEM_COMPAT_H

#include <linux/version.h>

/*
 * Symbol namespaces. Before 6.13 a namespace is an identifier that the
 * export macros stringify; from 6.13 (commit cdd30ebb1b9f, "module:
 * Convert symbol namespace to string literal") it is a string. Consumers
 * write MODULE_IMPORT_NS(PSEM_NS) on every kernel; psem's own objects
 * export through EXPORT_SYMBOL_PSEM(), whose extra level expands PSEM_NS before
 * EXPORT_SYMBOL_NS_GPL() sees it (6.1 applies # to its argument).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define PSEM_NS			"PSEM"
#define PSEM_KNOBS_NS		"PSEM_KNOBS"
#define PSEM_KUNIT_NS		"PSEM_KUNIT"
#else
#define PSEM_NS			PSEM
#define PSEM_KNOBS_NS		PSEM_KNOBS
#define PSEM_KUNIT_NS		PSEM_KUNIT
#endif
#define __PSEM_EXPORT_NS(sym, ns)	EXPORT_SYMBOL_NS_GPL(sym, ns)
#define EXPORT_SYMBOL_PSEM(sym)		__PSEM_EXPORT_NS(sym, PSEM_NS)
#define EXPORT_SYMBOL_PSEM_KNOBS(sym)		__PSEM_EXPORT_NS(sym, PSEM_KNOBS_NS)
/* The KUnit suites' helper library, kunit/psem_test_lib.c. */
#define EXPORT_SYMBOL_PSEM_KUNIT(sym)		__PSEM_EXPORT_NS(sym, PSEM_KUNIT_NS)

/*
 * hrtimer_setup() sets the callback with the rest, from 6.13 ("hrtimers:
 * Introduce hrtimer_setup() to replace hrtimer_init()"); hrtimer_init()
 * itself is gone by 7.3 (the 6.15 cycle converted its last users and
 * removed it). Before 6.13: the two steps hrtimer_setup() does.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
#include <linux/hrtimer.h>

static inline void
hrtimer_setup(struct hrtimer *timer, enum hrtimer_restart (*function)(struct hrtimer *),
	      clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

/*
 * Were a tracepoint to gain a __string() field, note that __assign_str()
 * takes one argument from 6.10 (two before): its wrapper belongs here.
 */

#endif /* _PSEM_COMPAT_H */

/*
 * Newer than the newest kernel psem is tested on: build, and say so once.
 * Outside the include guard: psem_main.c includes this header a second
 * time, and only that inclusion warns, so the message appears once per
 * build of psem.ko rather than once per object.
 */
#if defined(_PSEM_COMPAT_WARN_NEWER) && LINUX_VERSION_CODE >= KERNEL_VERSION(7, 4, 0)
#warning "psem: this kernel is newer than the newest tested kernel (7.3); building anyway"
#endif
#define _PSEM_COMPAT_WARN_NEWER
