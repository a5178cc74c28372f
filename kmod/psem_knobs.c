// SPDX-License-Identifier: GPL-2.0
/*
 * psem's run-time switches and statistics, and their debugfs files under
 * /sys/kernel/debug/psem/:
 *
 *   fast_release     1: a release tries one lock-free exchange when the rule
 *                    below allows it (default); 0: every release takes the
 *                    queue lock, as before the fast path existed.
 *   zero_release     1: the lock-free exchange is tried whenever nobody waits,
 *                    at any balance, zero included (default); 0: only on a
 *                    positive balance, the seed's rule.
 *   contention_flag  1: a locked release that loses a race sends other
 *                    releases to the lock until its addition lands
 *                    (default); 0: the flag is neither set nor read.
 *   stats_enabled    1: count events per CPU; 0: no counting (default).
 *   stats            the counters, summed over CPUs, one "name value" a line.
 *
 * The switches are static keys, so a disabled feature costs the fast path
 * nothing but a patched jump. Writes take "0" or "1" (one trailing newline is
 * fine); anything else, longer writes included, gets -EINVAL and changes
 * nothing. debugfs is
 * root-only; the files that change behaviour are 0600, stats 0400.
 */

#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "psem_internal.h"

DEFINE_STATIC_KEY_TRUE(psem_fast_release_key);
DEFINE_STATIC_KEY_TRUE(psem_zero_release_key);
DEFINE_STATIC_KEY_TRUE(psem_rule_key);
/*
 * Serialises every switch: static_branch_disable() warns if it lands in
 * the middle of another task's static_branch_enable() of the same key, as
 * two administrators writing one switch at once would make it; and the two
 * switches behind psem_rule_key must be read together.
 */
static DEFINE_MUTEX(psem_switch_lock);
DEFINE_STATIC_KEY_TRUE(psem_contention_flag_key);
DEFINE_STATIC_KEY_FALSE(psem_stats_key);
DEFINE_PER_CPU(struct psem_cpu_stats, psem_cpu_stats);

atomic64_t psem_refusals = ATOMIC64_INIT(0);
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

	memset(out, 0, sizeof(*out));
	for_each_possible_cpu(cpu) {
		const struct psem_cpu_stats *s = per_cpu_ptr(&psem_cpu_stats, cpu);

		for (i = 0; i < PSEM_NR_STATS; i++)
			/* Racy by design (see above): orders nothing. */
			out->count[i] += READ_ONCE(s->count[i]);
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
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&psem_cpu_stats, cpu), 0,
		       sizeof(struct psem_cpu_stats));
}
EXPORT_SYMBOL_PSEM_KNOBS(psem_stats_reset);

/* Under psem_switch_lock. */
static void psem_set_key(struct static_key_true *key, bool on)
{
	lockdep_assert_held(&psem_switch_lock);
	if (on)
		static_branch_enable(key);
	else
		static_branch_disable(key);
}

/* Sets one switch of the release rule, and psem_rule_key to match. */
static void psem_set_rule(struct static_key_true *key, bool on)
{
	mutex_lock(&psem_switch_lock);
	psem_set_key(key, on);
	psem_set_key(&psem_rule_key,
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
 * @on: false sends every release to the queue lock
 *
 * Process context: patching a static key sleeps.
 */
void psem_set_fast_release(bool on)
{
	psem_set_rule(&psem_fast_release_key, on);
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
 * @on: true: lock-free whenever the waiters bit is clear, at any balance;
 *      false: only on a positive balance, as the seed does
 *
 * Process context: patching a static key sleeps.
 */
void psem_set_zero_release(bool on)
{
	psem_set_rule(&psem_zero_release_key, on);
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
	psem_set_key(&psem_contention_flag_key, on);
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

/* A debugfs switch: a getter and a setter behind one file. */
struct psem_switch {
	const char *name;
	bool (*get)(void);
	void (*set)(bool on);
};

static const struct psem_switch psem_switches[] = {
	{ "fast_release",	psem_fast_release_enabled, psem_set_fast_release },
	{ "zero_release",	psem_zero_release_enabled, psem_set_zero_release },
	{ "contention_flag",	psem_contention_flag_enabled, psem_set_contention_flag },
	{ "stats_enabled",	psem_stats_enabled,	psem_set_stats },
};

static ssize_t psem_switch_read(struct file *file, char __user *buf,
				size_t count, loff_t *ppos)
{
	const struct psem_switch *sw = file->private_data;
	char val[2] = { sw->get() ? '1' : '0', '\n' };

	return simple_read_from_buffer(buf, count, ppos, val, sizeof(val));
}

static ssize_t psem_switch_write(struct file *file, const char __user *buf,
				 size_t count, loff_t *ppos)
{
	const struct psem_switch *sw = file->private_data;
	char val[2];

	/*
	 * Exactly "0" or "1", optionally followed by one newline. Not
	 * kstrtouint_from_user(): it parses only the first 34 bytes of a
	 * longer write, so a long run of zeros would be taken for "0".
	 */
	if (*ppos || !count || count > sizeof(val))
		return -EINVAL;
	if (copy_from_user(val, buf, count))
		return -EFAULT;
	if ((val[0] != '0' && val[0] != '1') || (count == 2 && val[1] != '\n'))
		return -EINVAL;
	sw->set(val[0] == '1');
	return count;
}

static const struct file_operations psem_switch_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= psem_switch_read,
	.write	= psem_switch_write,
	.llseek	= default_llseek,
};

static int psem_stats_show(struct seq_file *m, void *unused)
{
	struct psem_stats s;
	int i;

	psem_stats_snapshot(&s);
	for (i = 0; i < PSEM_NR_STATS; i++)
		seq_printf(m, "%-16s %llu\n", psem_stat_names[i], s.count[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(psem_stats);

static struct dentry *psem_debugfs_dir;

int psem_debugfs_init(void)
{
	int i;

	psem_debugfs_dir = debugfs_create_dir("psem", NULL);
	for (i = 0; i < ARRAY_SIZE(psem_switches); i++)
		debugfs_create_file(psem_switches[i].name, 0600,
				    psem_debugfs_dir,
				    (void *)&psem_switches[i], &psem_switch_fops);
	debugfs_create_file("stats", 0400, psem_debugfs_dir, NULL,
			    &psem_stats_fops);
	psem_views_init(psem_debugfs_dir);
	return 0;
}

void psem_debugfs_exit(void)
{
	psem_views_exit();
	debugfs_remove_recursive(psem_debugfs_dir);
}
