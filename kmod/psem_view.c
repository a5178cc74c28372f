// SPDX-License-Identifier: GPL-2.0
/*
 * A debugfs view of registered psems: when a system hangs, who waits on
 * which psem, for what and for how long.
 *
 *   /sys/kernel/debug/psem/sems/<name>
 *
 * One file per psem that its owner registered with psem_debugfs_register().
 * Reading it takes the queue lock briefly and prints the balance, the
 * capacity, the debt, the closed state and each waiter in FIFO order.
 * debugfs_remove() in psem_debugfs_unregister() waits for reads in flight,
 * so a read never sees a psem after it was unregistered.
 */

#include <linux/dcache.h>
#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "psem_word.h"

/**
 * struct psem_view - one registered psem
 * @node: in psem_views
 * @sem:  the psem shown
 * @file: its debugfs file
 */
struct psem_view {
	struct list_head	node;
	struct psem		*sem;
	struct dentry		*file;
};

static LIST_HEAD(psem_views);
static DEFINE_MUTEX(psem_views_lock);	/* protects psem_views */
static struct dentry *psem_views_dir;

static const char *const psem_kind_names[] = {
	[PSEM_WAIT_ACQUIRE]	= "acquire",
	[PSEM_WAIT_QUIESCE]	= "quiesce",
	[PSEM_WAIT_ASYNC]	= "async",
};

/**
 * psem_debugfs_show - print what a psem's debugfs view shows
 * @m:   where to print
 * @sem: the semaphore
 *
 * The body of /sys/kernel/debug/psem/sems/<name>, for the view and for
 * tests (the file itself cannot be read with kernel_read()). Takes the
 * queue lock, so not from a context that holds it.
 */
void psem_debugfs_show(struct seq_file *m, struct psem *sem)
{
	struct psem_waiter *w;
	unsigned long now = jiffies;
	unsigned int nr = 0;
	long cur;

	spin_lock_irq(&sem->lock);
	/* Relaxed: a snapshot; the lock keeps the queue and debt still. */
	cur = atomic_long_read(&sem->count);
	seq_printf(m, "balance  %ld\n", psem_word_balance(cur));
	if (psem_capped(sem))
		seq_printf(m, "capacity %ld\n", psem_capacity(sem));
	else
		seq_puts(m, "capacity none\n");
	seq_printf(m, "debt     %ld\n", psem_debt_locked(sem));
	seq_printf(m, "closed   %s\n", psem_word_closed(cur) ? "yes" : "no");
	seq_printf(m, "flags    %s%s%s\n",
		   (cur & (PSEM_WAITERS | PSEM_CREDIT)) == PSEM_WAITERS ?
		   "waiters " : "",
		   psem_word_has_credit(cur) ? "credit " : "",
		   (cur & PSEM_FLAGS) == PSEM_CONTENDED ? "contended" : "");
	seq_puts(m, "waiters (oldest first):\n");
	/* A linked waiter's task sleeps in psem_wait(): it is alive. */
	psem_for_each_waiter(w, sem) {
		struct task_struct *t = w->task;

		if (t)
			seq_printf(m, "  pid %d comm %s", task_pid_nr(t), t->comm);
		else
			seq_printf(m, "  callback %ps", container_of(w, struct psem_async, w)->fn);
		seq_printf(m, " %s needs %ld of %ld waited %u ms\n",
			   psem_kind_names[w->kind], w->needed, w->n,
			   jiffies_to_msecs(now - w->since));
		nr++;
	}
	spin_unlock_irq(&sem->lock);
	seq_printf(m, "total    %u\n", nr);
}
EXPORT_SYMBOL_PSEM_KNOBS(psem_debugfs_show);

static int psem_view_show(struct seq_file *m, void *unused)
{
	struct psem_view *v = m->private;

	psem_debugfs_show(m, v->sem);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(psem_view);

/* Under psem_views_lock. */
static struct psem_view *psem_view_find(struct psem *sem)
{
	struct psem_view *v;

	list_for_each_entry(v, &psem_views, node)
		if (v->sem == sem)
			return v;
	return NULL;
}

/**
 * psem_debugfs_register - show a psem under /sys/kernel/debug/psem/sems/
 * @sem:  the semaphore
 * @name: the file's name: not empty, not "." or "..", no '/', unique
 *        among registered psems
 *
 * The owner must call psem_debugfs_unregister() before it frees @sem
 * (typically in its module's exit path, after psem_quiesce()). Process
 * context.
 *
 * Return: 0; -EEXIST if @sem is registered already or @name is taken;
 * -EINVAL for a bad name; -ENOMEM; -ENODEV without debugfs. On error
 * nothing is registered.
 */
int psem_debugfs_register(struct psem *sem, const char *name)
{
	struct dentry *existing;
	struct psem_view *v;
	int ret = 0;

	might_sleep();
	/* "." and ".." are names debugfs cannot create: refuse them too. */
	if (!name || !*name || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return -EINVAL;
	if (IS_ERR_OR_NULL(psem_views_dir))
		return -ENODEV;
	v = kzalloc(sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	v->sem = sem;

	mutex_lock(&psem_views_lock);
	if (psem_view_find(sem)) {
		ret = -EEXIST;
		goto unlock;
	}
	/* Checked first: debugfs_create_file() would log the clash. */
	existing = debugfs_lookup(name, psem_views_dir);
	if (existing) {
		dput(existing);
		ret = -EEXIST;
		goto unlock;
	}
	v->file = debugfs_create_file(name, 0400, psem_views_dir, v,
				      &psem_view_fops);
	if (IS_ERR(v->file)) {
		ret = PTR_ERR(v->file);
		goto unlock;
	}
	list_add_tail(&v->node, &psem_views);
unlock:
	mutex_unlock(&psem_views_lock);
	if (ret)
		kfree(v);
	return ret;
}
EXPORT_SYMBOL_PSEM(psem_debugfs_register);

/**
 * psem_debugfs_unregister - remove a psem's debugfs view
 * @sem: a semaphore registered with psem_debugfs_register()
 *
 * Waits for reads of the file in flight; after it returns no read touches
 * @sem, and a read through a file descriptor opened before gets -EIO.
 * Process context.
 *
 * Return: 0, or -ENOENT if @sem is not registered (nothing changes).
 */
int psem_debugfs_unregister(struct psem *sem)
{
	struct psem_view *v;

	might_sleep();
	mutex_lock(&psem_views_lock);
	v = psem_view_find(sem);
	/*
	 * The file goes under the lock too, so that a register of the same
	 * name that follows never finds it still there (-EEXIST). Reads in
	 * flight take only the queue lock: no deadlock with this one.
	 */
	if (v) {
		list_del(&v->node);
		debugfs_remove(v->file);
	}
	mutex_unlock(&psem_views_lock);
	if (!v)
		return -ENOENT;
	kfree(v);
	return 0;
}
EXPORT_SYMBOL_PSEM(psem_debugfs_unregister);

void psem_views_init(struct dentry *parent)
{
	psem_views_dir = debugfs_create_dir("sems", parent);
}

/*
 * psem.ko cannot unload while a consumer's module, which imports it, is
 * loaded; a view left behind belongs to a consumer that forgot to
 * unregister. Remove the files (the directory goes with psem's) and free.
 */
void psem_views_exit(void)
{
	struct psem_view *v, *next;

	mutex_lock(&psem_views_lock);
	list_for_each_entry_safe(v, next, &psem_views, node) {
		list_del(&v->node);
		debugfs_remove(v->file);
		kfree(v);
	}
	mutex_unlock(&psem_views_lock);
}
