/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem_compat.h - the differences between the kernels psem builds for, in
 * one place.
 *
 * Supported: Linux 6.1 and 6.12 (Debian bookworm's kernels and the test
 * kernels built from its linux-source-6.1 and linux-source-6.12). Linux
 * 6.13 and later are not yet supported: they take symbol namespaces as
 * strings (EXPORT_SYMBOL_NS_GPL(sym, "PSEM"), MODULE_IMPORT_NS("PSEM")),
 * and nothing here builds or tests such a kernel, so the build stops
 * with a message instead of failing somewhere less clear.
 */
#ifndef _PSEM_COMPAT_H
#define _PSEM_COMPAT_H

#include <linux/version.h>

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#error "psem: Linux 6.13 and later (string symbol namespaces) are not yet supported"
#endif

/*
 * Symbol namespaces. Before 6.13 a namespace is an identifier that the
 * export macros stringify; from 6.13 (commit cdd30ebb1b9f, "module:
 * Convert symbol namespace to string literal") it is a string. Consumers
 * write MODULE_IMPORT_NS(PSEM_NS) on every kernel; psem's own objects
 * export through PSEM_EXPORT(), whose extra level expands PSEM_NS before
 * EXPORT_SYMBOL_NS_GPL() sees it (6.1 applies # to its argument).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define PSEM_NS			"PSEM"
#define PSEM_KNOBS_NS		"PSEM_KNOBS"
#else
#define PSEM_NS			PSEM
#define PSEM_KNOBS_NS		PSEM_KNOBS
#endif
#define __PSEM_EXPORT_NS(sym, ns)	EXPORT_SYMBOL_NS_GPL(sym, ns)
#define PSEM_EXPORT(sym)		__PSEM_EXPORT_NS(sym, PSEM_NS)
#define PSEM_EXPORT_KNOBS(sym)		__PSEM_EXPORT_NS(sym, PSEM_KNOBS_NS)

/*
 * Nothing else differs for psem between 6.1 and 6.12: the sources build
 * warning-free (W=1, sparse) against both. Were a tracepoint to gain a
 * __string() field, note that __assign_str() takes one argument from 6.10
 * (two before): its wrapper belongs here.
 */

#endif /* _PSEM_COMPAT_H */
