// SPDX-License-Identifier: GPL-2.0
/*
 * psem's run-time switches and statistics: the static keys that choose
 * the release rule, the per-CPU counters and the count of refused calls,
 * with their getters and setters (psem_knobs.h, the PSEM_KNOBS namespace).
 * This is the bottom layer: the paths below psem_word.h read the keys and
 * count into the counters. The debugfs files that show and set them are
 * psem_debugfs.c's.
 *
 * The release rules (Documentation/design.rst, "The release rules"):
 *
 *   always-locked     fast_release off: every release takes the queue lock.
 *   positive-balance  fast_release on, zero_release off: the lock-free
 *                     exchange only on a positive balance.
 *   waiters-bit       both on (the default): the lock-free exchange
 *                     whenever the word has no flag and is open, at any
 *                     balance, zero included.
 *
 * contention_flag, on by default, lets a locked release that loses a race
 * send other releases to the lock until its addition lands.
 *
 * The switches are static keys, so a disabled feature costs the fast path
 * nothing but a patched jump.
 */

#include <linux/export.h>
#include <linux/jump_label.h>
#include <linux/mutex.h>
#include <linux/percpu.h>

#include "psem_internal.h"

DEFINE_STATIC_KEY_TRUE(psem_fast_release_key);
DEFINE_STATIC_KEY_TRUE(psem_zero_release_key);
DEFINE_STATIC_KEY_TRUE(psem_waiters_bit_rule_key);
DEFINE_STATIC_KEY_TRUE(psem_contention_flag_key);
DEFINE_STATIC_KEY_FALSE(psem_stats_key);
/*
 * Serialises every switch: static_branch_disable() warns if it lands in
 * the middle of another task's static_branch_enable() of the same key, as
 * two administrators writing one switch at once would make it; and the two
 * switches behind psem_waiters_bit_rule_key must be read together.
 */
static DEFINE_MUTEX(psem_switch_lock);
DEFINE_PER_CPU(struct psem_cpu_stats, psem_cpu_stats);

/* The refusal counters and mode: psem_refuse.c, one layer up, writes them. */
atomic64_t psem_refusals = ATOMIC64_INIT(0);
atomic64_t psem_warn_sites = ATOMIC64_INIT(0);
bool psem_quiet_warnings;

const char *const psem_stat_names[PSEM_NR_STATS] = {
	[PSEM_STAT_FAST_RELEASE]	= "fast_release",
	[PSEM_STAT_LOCKED_RELEASE]	= "locked_release",
	[PSEM_STAT_FAST_CAS_FAIL]	= "fast_cas_fail",
	[PSEM_STAT_FLAG_TRIP]		= "flag_trip",
	[PSEM_STAT_FLAG_HONOURED]	= "flag_honoured",
	[PSEM_STAT_SLEEP]		= "sleep",
	[PSEM_STAT_HANDOFF]		= "handoff",
	[PSEM_STAT_CANCEL]		= "cancel",
	[PSEM_STAT_DEFERRED]		= "deferred",
	[PSEM_STAT_WARN]		= "refused",
};
EXPORT_SYMBOL_PSEM_KNOBS(psem_stat_names);

/**
 * psem_stats_snapshot - sum the counters over all possible CPUs
 * @out: where to store the totals
 *
 * The per-CPU counters are read without stopping their writers, so a
 * snapshot taken while psems are in use is only approximately consistent.
 * PSEM_STAT_WARN counts refusals whether statistics are on or not.
 */
void psem_stats_snapshot(struct psem_stats *out)
{
	int cpu, i;

	for (i = 0; i < PSEM_NR_STATS; i++) {
		u64 sum = 0;

		for_each_possible_cpu(cpu)
			/* Racy by design (see above): orders nothing. */
			sum += READ_ONCE(per_cpu_ptr(&psem_cpu_stats, cpu)->count[i]);
		out->count[i] = sum;
	}
	/* A counter: orders nothing. */
	out->count[PSEM_STAT_WARN] = atomic64_read(&psem_refusals);
}
EXPORT_SYMBOL_PSEM_KNOBS(psem_stats_snapshot);

/**
 * psem_stats_reset - zero the per-CPU counters
 *
 * Racy against concurrent counting, like any reset of per-CPU counters;
 * call it while no psem is in use. The refusal count is not reset.
 */
void psem_stats_reset(void)
{
	int cpu, i;

	for_each_possible_cpu(cpu)
		for (i = 0; i < PSEM_NR_STATS; i++)
			/* Racy by design (see above): orders nothing. */
			WRITE_ONCE(per_cpu_ptr(&psem_cpu_stats, cpu)->count[i], 0);
}
EXPORT_SYMBOL_PSEM_KNOBS(psem_stats_reset);

/* Sets or clears @key; its callers hold psem_switch_lock around it. */
static void psem_write_key(struct static_key_true *key, bool on)
{
	if (on)
		static_branch_enable(key);
	else
		static_branch_disable(key);
}

/*
 * Sets one switch of the release rule, and psem_waiters_bit_rule_key to
 * match: on exactly when both fast_release and zero_release are.
 */
static void psem_set_rule_switch(struct static_key_true *key, bool on)
{
	mutex_lock(&psem_switch_lock);
	psem_write_key(key, on);
	psem_write_key(&psem_waiters_bit_rule_key,
		       static_key_enabled(&psem_fast_release_key) &&
		       static_key_enabled(&psem_zero_release_key));
	mutex_unlock(&psem_switch_lock);
}

/** psem_fast_release_enabled - whether releases try the lock-free path */
bool psem_fast_release_enabled(void)
{
	return static_key_enabled(&psem_fast_release_key);
}
EXPORT_SYMBOL_PSEM_KNOBS(psem_fast_release_enabled);

/**
 * psem_set_fast_release - let releases try the lock-free path, or not
 * @on: false sends every release to the queue lock (the always-locked rule)
 *
 * Process context: patching a static key sleeps.
 */
void psem_set_fast_release(bool on)
{
	psem_set_rule_switch(&psem_fast_release_key, on);
}
EXPORT_SYMBOL_PSEM_KNOBS(psem_set_fast_release);

/** psem_zero_release_enabled - whether a zero-balance release may be lock-free */
bool psem_zero_release_enabled(void)
{
	return static_key_enabled(&psem_zero_release_key);
}
EXPORT_SYMBOL_PSEM_KNOBS(psem_zero_release_enabled);

/**
 * psem_set_zero_release - choose the rule for the lock-free release
 * @on: true: the waiters-bit rule, lock-free whenever the waiters bit is
 *      clear, at any balance; false: the positive-balance rule
 *
 * Process context: patching a static key sleeps.
 */
void psem_set_zero_release(bool on)
{
	psem_set_rule_switch(&psem_zero_release_key, on);
}
EXPORT_SYMBOL_PSEM_KNOBS(psem_set_zero_release);

/** psem_contention_flag_enabled - whether the contention flag is in use */
bool psem_contention_flag_enabled(void)
{
	return static_key_enabled(&psem_contention_flag_key);
}
EXPORT_SYMBOL_PSEM_KNOBS(psem_contention_flag_enabled);

/**
 * psem_set_contention_flag - use the contention flag, or not
 * @on: false makes releases neither set nor read the flag
 *
 * Process context: patching a static key sleeps.
 */
void psem_set_contention_flag(bool on)
{
	mutex_lock(&psem_switch_lock);
	psem_write_key(&psem_contention_flag_key, on);
	mutex_unlock(&psem_switch_lock);
}
EXPORT_SYMBOL_PSEM_KNOBS(psem_set_contention_flag);

/** psem_stats_enabled - whether events are counted */
bool psem_stats_enabled(void)
{
	return static_key_enabled(&psem_stats_key);
}
EXPORT_SYMBOL_PSEM_KNOBS(psem_stats_enabled);

/**
 * psem_set_stats - count events, or not
 * @on: true starts counting; the counters keep their values either way
 *
 * Process context: patching a static key sleeps.
 */
void psem_set_stats(bool on)
{
	mutex_lock(&psem_switch_lock);
	if (on)
		static_branch_enable(&psem_stats_key);
	else
		static_branch_disable(&psem_stats_key);
	mutex_unlock(&psem_switch_lock);
}
EXPORT_SYMBOL_PSEM_KNOBS(psem_set_stats);

/**
 * psem_set_quiet_warnings - count refused calls without warning
 * @on: true while a test refuses calls on purpose
 */
void psem_set_quiet_warnings(bool on)
{
	WRITE_ONCE(psem_quiet_warnings, on);	/* a mode flag: orders nothing */
}
EXPORT_SYMBOL_PSEM_KNOBS(psem_set_quiet_warnings);

/** psem_warn_count - the number of calls refused since load */
u64 psem_warn_count(void)
{
	return atomic64_read(&psem_refusals);	/* a counter: unordered */
}
EXPORT_SYMBOL_PSEM_KNOBS(psem_warn_count);

/**
 * psem_warn_site_count - the number of distinct callers refused so far
 *
 * Return: how many callers psem has warned about (a refusal warns once per
 * caller, keyed by the return address), counted in quiet mode too.
 */
u64 psem_warn_site_count(void)
{
	return atomic64_read(&psem_warn_sites);	/* a counter: unordered */
}
EXPORT_SYMBOL_PSEM_KNOBS(psem_warn_site_count);
