// SPDX-License-Identifier: GPL-2.0
/*
 * psem's debugfs directory, /sys/kernel/debug/psem/: a file for each
 * switch of psem_switch.c, the statistics, and the views of psem_view.c.
 * The top layer: it calls the switches' setters and the views, and
 * nothing below calls it but module init and exit.
 *
 *   fast_release     1: a release tries one lock-free exchange when the
 *                    rule allows it (default); 0: the always-locked rule.
 *   zero_release     1: the waiters-bit rule, lock-free at any balance
 *                    while nobody waits (default); 0: the positive-balance
 *                    rule.
 *   contention_flag  1: a locked release that loses a race sends other
 *                    releases to the lock until its addition lands
 *                    (default); 0: the flag is neither set nor read.
 *   stats_enabled    1: count events per CPU; 0: no counting (default).
 *   stats            the counters, summed over CPUs, one "name value" a line.
 *
 * Writes take "0" or "1" (one trailing newline is fine); anything else,
 * longer writes included, gets -EINVAL and changes nothing. debugfs is
 * root-only; the files that change behaviour are 0600, stats 0400.
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "psem_internal.h"

/* A switch's file: a getter and a setter behind one name. */
struct psem_switch_file {
	const char *name;
	bool (*get)(void);
	void (*set)(bool on);
};

static const struct psem_switch_file psem_switch_files[] = {
	{ "fast_release",	psem_fast_release_enabled, psem_set_fast_release },
	{ "zero_release",	psem_zero_release_enabled, psem_set_zero_release },
	{ "contention_flag",	psem_contention_flag_enabled, psem_set_contention_flag },
	{ "stats_enabled",	psem_stats_enabled,	psem_set_stats },
};

static ssize_t psem_switch_read(struct file *file, char __user *buf,
				size_t count, loff_t *ppos)
{
	const struct psem_switch_file *sw = file->private_data;
	char val[2] = { sw->get() ? '1' : '0', '\n' };

	return simple_read_from_buffer(buf, count, ppos, val, sizeof(val));
}

static ssize_t psem_switch_write(struct file *file, const char __user *buf,
				 size_t count, loff_t *ppos)
{
	const struct psem_switch_file *sw = file->private_data;
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
	for (i = 0; i < ARRAY_SIZE(psem_switch_files); i++)
		debugfs_create_file(psem_switch_files[i].name, 0600,
				    psem_debugfs_dir,
				    (void *)&psem_switch_files[i],
				    &psem_switch_fops);
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
