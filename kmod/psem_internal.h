/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What psem's own objects share: the static keys behind the debugfs
 * switches, the per-CPU counters and the refusal helper.
 */
#ifndef _PSEM_INTERNAL_H
#define _PSEM_INTERNAL_H

#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/jump_label.h>
#include <linux/percpu.h>

#include "psem_knobs.h"

DECLARE_STATIC_KEY_TRUE(psem_fast_release_key);
DECLARE_STATIC_KEY_TRUE(psem_contention_flag_key);
DECLARE_STATIC_KEY_FALSE(psem_stats_key);

struct psem_cpu_stats {
	u64 count[PSEM_NR_STATS];
};

DECLARE_PER_CPU(struct psem_cpu_stats, psem_cpu_stats);

/* Counts @s on this CPU; a patched-out jump while statistics are off. */
static __always_inline void psem_stat(enum psem_stat s)
{
	if (static_branch_unlikely(&psem_stats_key))
		this_cpu_inc(psem_cpu_stats.count[s]);
}

extern atomic64_t psem_refusals;
extern bool psem_quiet_warnings;

/*
 * psem_refuse - count a refused call and warn once per call site, unless a
 * test asked for quiet refusals. Evaluates to true so that callers can write
 * "if (bad && psem_refuse(...)) return -EINVAL;".
 */
#define psem_refuse(fmt, ...)						\
({									\
	atomic64_inc(&psem_refusals);					\
	if (!READ_ONCE(psem_quiet_warnings))				\
		WARN_ONCE(1, "psem: " fmt, ##__VA_ARGS__);		\
	true;								\
})

int psem_debugfs_init(void);
void psem_debugfs_exit(void);

#endif /* _PSEM_INTERNAL_H */
