/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: a rate limit that lets DEFAULT_RATELIMIT_BURST through,
 * then nothing (a run of the harness is shorter than one interval).
 */
#ifndef _PSEM_SHIM_LINUX_RATELIMIT_H
#define _PSEM_SHIM_LINUX_RATELIMIT_H

#include <linux/compiler.h>

#define DEFAULT_RATELIMIT_INTERVAL	(5 * 1000)
#define DEFAULT_RATELIMIT_BURST		10

struct ratelimit_state {
	int	interval;
	int	burst;
	int	printed;	/* relaxed atomic */
};

#define RATELIMIT_STATE_INIT(name, i, b)				\
	{ .interval = (i), .burst = (b), .printed = 0 }
#define DEFINE_RATELIMIT_STATE(name, i, b)				\
	struct ratelimit_state name = RATELIMIT_STATE_INIT(name, i, b)

static inline int __ratelimit(struct ratelimit_state *rs)
{
	return __atomic_fetch_add(&rs->printed, 1, __ATOMIC_RELAXED) <
	       rs->burst;
}
#define ___ratelimit(rs, func)	__ratelimit(rs)

#endif /* _PSEM_SHIM_LINUX_RATELIMIT_H */
