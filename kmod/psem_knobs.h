/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem's run-time switches and statistics (psem_switch.c): what debugfs
 * shows and sets (psem_debugfs.c), and what the KUnit suites and the
 * benchmark drive. Not part of the API that consumers use; exported in the
 * PSEM_KNOBS namespace.
 */
#ifndef _PSEM_KNOBS_H
#define _PSEM_KNOBS_H

#include <linux/types.h>

/**
 * enum psem_stat - the events psem counts while statistics are enabled
 * @PSEM_STAT_FAST_RELEASE:  a release that added permits lock-free
 * @PSEM_STAT_LOCKED_RELEASE: a release that took the queue lock
 * @PSEM_STAT_FAST_CAS_FAIL: a fast-path exchange that lost a race
 * @PSEM_STAT_FLAG_TRIP:     a locked release that set the contention flag
 * @PSEM_STAT_FLAG_HONOURED: a release sent to the lock by the flag
 * @PSEM_STAT_SLEEP:         a waiter that went to sleep
 * @PSEM_STAT_HANDOFF:       a waiter fully served by a release
 * @PSEM_STAT_CANCEL:        a waiter that gave up (signal or timeout)
 * @PSEM_STAT_DEFERRED:      a locked release parked for its irq_work (made
 *                           where the queue lock may not be taken)
 * @PSEM_STAT_WARN:          a refused call (bad argument, overflow)
 * @PSEM_NR_STATS:           the number of counters
 */
enum psem_stat {
	PSEM_STAT_FAST_RELEASE,
	PSEM_STAT_LOCKED_RELEASE,
	PSEM_STAT_FAST_CAS_FAIL,
	PSEM_STAT_FLAG_TRIP,
	PSEM_STAT_FLAG_HONOURED,
	PSEM_STAT_SLEEP,
	PSEM_STAT_HANDOFF,
	PSEM_STAT_CANCEL,
	PSEM_STAT_DEFERRED,
	PSEM_STAT_WARN,
	PSEM_NR_STATS,
};

/**
 * struct psem_stats - a snapshot of the counters, summed over all CPUs
 * @count: one total per &enum psem_stat
 */
struct psem_stats {
	u64 count[PSEM_NR_STATS];
};

extern const char *const psem_stat_names[PSEM_NR_STATS];

void psem_stats_snapshot(struct psem_stats *out);
void psem_stats_reset(void);

/*
 * Each switch is a static key: its state changes code, not a flag that the
 * fast path loads. Setting one sleeps (it patches text); do it from process
 * context, never while a psem is in the middle of a test's critical section.
 */
bool psem_fast_release_enabled(void);
void psem_set_fast_release(bool on);
bool psem_zero_release_enabled(void);
void psem_set_zero_release(bool on);
bool psem_contention_flag_enabled(void);
void psem_set_contention_flag(bool on);
bool psem_stats_enabled(void);
void psem_set_stats(bool on);

/*
 * A refused call normally warns once per caller (see psem_refuse_ip()). Tests that refuse calls
 * on purpose set quiet mode: the refusal is then only counted in
 * PSEM_STAT_WARN (counted even while statistics are off), which they assert,
 * so that every WARNING in a test kernel's log is a real failure.
 */
void psem_set_quiet_warnings(bool on);
u64 psem_warn_count(void);
u64 psem_warn_site_count(void);

struct psem;
struct seq_file;
void psem_debugfs_show(struct seq_file *m, struct psem *sem);

#endif /* _PSEM_KNOBS_H */
