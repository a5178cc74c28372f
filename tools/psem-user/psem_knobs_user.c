// SPDX-License-Identifier: GPL-2.0
/*
 * What kmod/psem_knobs.c defines, without debugfs: the static keys behind
 * the switches, the statistics and the refusal counter, and the knob API
 * the harness flips them with. psem_zero_release_key and its setter exist
 * whether or not the core being built reads them.
 */
#include <pthread.h>
#include <string.h>

#include "psem_internal.h"

DEFINE_STATIC_KEY_TRUE(psem_fast_release_key);
DEFINE_STATIC_KEY_TRUE(psem_contention_flag_key);
DEFINE_STATIC_KEY_TRUE(psem_zero_release_key);
DEFINE_STATIC_KEY_TRUE(psem_rule_key);
DEFINE_STATIC_KEY_FALSE(psem_stats_key);
DEFINE_PER_CPU(struct psem_cpu_stats, psem_cpu_stats);

atomic64_t psem_refusals = ATOMIC64_INIT(0);
bool psem_quiet_warnings;

bool psem_zero_release_enabled(void);
void psem_set_zero_release(bool on);

void psem_stats_snapshot(struct psem_stats *out)
{
	int i;

	for (i = 0; i < PSEM_NR_STATS; i++)
		out->count[i] = READ_ONCE(psem_cpu_stats.count[i]);
	out->count[PSEM_STAT_WARN] = atomic64_read(&psem_refusals);
}

void psem_stats_reset(void)
{
	int i;

	for (i = 0; i < PSEM_NR_STATS; i++)
		WRITE_ONCE(psem_cpu_stats.count[i], 0);
}

#define PSEM_USER_KEY(name, key)					\
bool psem_##name##_enabled(void)					\
{									\
	return static_key_enabled(&key);				\
}									\
void psem_set_##name(bool on)						\
{									\
	if (on)								\
		static_branch_enable(&key);				\
	else								\
		static_branch_disable(&key);				\
}

PSEM_USER_KEY(contention_flag, psem_contention_flag_key)
PSEM_USER_KEY(stats, psem_stats_key)

/*
 * The two switches of the release rule, and psem_rule_key (on exactly when
 * both are) to match, as kmod/psem_knobs.c keeps them, under one lock. A
 * flip races the operations that read the keys, as in the kernel.
 */
static pthread_mutex_t psem_user_rule_lock = PTHREAD_MUTEX_INITIALIZER;

static void psem_user_set_rule(struct static_key_true *key, bool on)
{
	pthread_mutex_lock(&psem_user_rule_lock);
	if (on)
		static_branch_enable(key);
	else
		static_branch_disable(key);
	if (static_key_enabled(&psem_fast_release_key) &&
	    static_key_enabled(&psem_zero_release_key))
		static_branch_enable(&psem_rule_key);
	else
		static_branch_disable(&psem_rule_key);
	pthread_mutex_unlock(&psem_user_rule_lock);
}

bool psem_fast_release_enabled(void)
{
	return static_key_enabled(&psem_fast_release_key);
}

void psem_set_fast_release(bool on)
{
	psem_user_set_rule(&psem_fast_release_key, on);
}

bool psem_zero_release_enabled(void)
{
	return static_key_enabled(&psem_zero_release_key);
}

void psem_set_zero_release(bool on)
{
	psem_user_set_rule(&psem_zero_release_key, on);
}

void psem_set_quiet_warnings(bool on)
{
	WRITE_ONCE(psem_quiet_warnings, on);
}

u64 psem_warn_count(void)
{
	return atomic64_read(&psem_refusals);
}

u64 psem_warn_site_count(void)
{
	return atomic64_read(&psem_warn_sites);
}
