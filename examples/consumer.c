// SPDX-License-Identifier: GPL-2.0
/*
 * psem_consumer: an example module that uses psem through its header and
 * Module.symvers, as any other module would.
 *
 * On load it takes and returns permits, runs one worker kthread per online
 * CPU (at most four) against one semaphore and checks the final balance,
 * starts the credit-pool driver of credits.c, and leaves one kthread
 * asleep waiting for permits that never come. On unload it closes and
 * quiesces the credit pool, cancels that wait with a fatal signal, which
 * returns the permits assigned to it, and reports the balance it left.
 */

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched/signal.h>

#include <psem.h>
#include <psem_mutex.h>
#include <psem_rwlock.h>

#include "credits.h"

#define CONSUMER_WORKERS_MAX	4
#define CONSUMER_ITERS		2000

static DEFINE_PSEM(consumer_sem, 3);
static DEFINE_PSEM(consumer_gate, 0);
static struct task_struct *consumer_waiter;
static struct psem_rwlock consumer_rwlock;
static struct psem_mutex consumer_mutex;
static unsigned long consumer_counter;	/* guarded by consumer_mutex */
static DECLARE_COMPLETION(consumer_done);

/*
 * Workers take two of three permits, so they collide and some must wait;
 * they also read under the rwlock and count under the mutex.
 */
static int consumer_worker(void *unused)
{
	int i;

	for (i = 0; i < CONSUMER_ITERS; i++) {
		/* Two of three permits of an open psem: it cannot fail. */
		if (WARN_ON_ONCE(psem_acquire(&consumer_sem, 2)))
			break;
		psem_release(&consumer_sem, 2);

		psem_read_lock(&consumer_rwlock);
		psem_read_unlock(&consumer_rwlock);

		psem_mutex_lock(&consumer_mutex);
		consumer_counter++;
		psem_mutex_unlock(&consumer_mutex);
	}
	/*
	 * Report, then wait to be stopped: kthread_stop() on a thread that
	 * has not started yet would skip this function altogether.
	 */
	complete(&consumer_done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

static int consumer_run_workers(void)
{
	struct task_struct *t[CONSUMER_WORKERS_MAX];
	int n = min_t(int, num_online_cpus(), CONSUMER_WORKERS_MAX);
	int i, started = 0;
	bool free;

	for (i = 0; i < n; i++) {
		t[i] = kthread_run(consumer_worker, NULL, "psem_consumer/%d", i);
		if (IS_ERR(t[i]))
			break;
		get_task_struct(t[i]);
		started++;
	}
	for (i = 0; i < started; i++)
		wait_for_completion(&consumer_done);
	for (i = 0; i < started; i++) {
		kthread_stop(t[i]);
		put_task_struct(t[i]);
	}
	pr_info("psem_consumer: %d workers x %d acquire(2)/release(2): balance %ld (expected 3)\n",
		started, CONSUMER_ITERS, psem_available(&consumer_sem));
	free = psem_write_trylock(&consumer_rwlock);
	if (free)
		psem_write_unlock(&consumer_rwlock);
	pr_info("psem_consumer: mutex counter %lu (expected %d), rwlock free: %s\n",
		consumer_counter, started * CONSUMER_ITERS, free ? "yes" : "no");
	return started ? 0 : -ENOMEM;
}

/* Sleeps for five permits of a gate that only ever releases two. */
static int consumer_wait(void *unused)
{
	int ret;

	allow_signal(SIGKILL);
	ret = psem_acquire_killable(&consumer_gate, 5);
	pr_info("psem_consumer: waiter woke: %d, gate balance %ld\n",
		ret, psem_available(&consumer_gate));
	if (!ret)
		psem_release(&consumer_gate, 5);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return ret;
}

static int __init consumer_init(void)
{
	bool took;
	int ret;

	psem_rwlock_init(&consumer_rwlock);
	psem_mutex_init(&consumer_mutex);

	took = psem_try_acquire(&consumer_sem, 3);
	pr_info("psem_consumer: try_acquire(3) of 3: %s, available %ld\n",
		took ? "taken" : "refused", psem_available(&consumer_sem));
	psem_release(&consumer_sem, 3);
	pr_info("psem_consumer: release(3): available %ld\n",
		psem_available(&consumer_sem));

	ret = consumer_run_workers();
	if (ret)
		return ret;
	ret = credits_start();
	if (ret)
		return ret;

	consumer_waiter = kthread_run(consumer_wait, NULL, "psem_consumer/wait");
	if (IS_ERR(consumer_waiter)) {
		credits_stop();
		return PTR_ERR(consumer_waiter);
	}
	get_task_struct(consumer_waiter);
	/* The waiter takes the two permits and sleeps for three more. */
	psem_release(&consumer_gate, 2);
	pr_info("psem_consumer: a waiter sleeps for 5 permits of a gate holding 2\n");
	return 0;
}

static void __exit consumer_exit(void)
{
	credits_stop();
	send_sig(SIGKILL, consumer_waiter, 1);
	kthread_stop(consumer_waiter);
	put_task_struct(consumer_waiter);
	pr_info("psem_consumer: unloaded; gate balance %ld (expected 2)\n",
		psem_available(&consumer_gate));
}

module_init(consumer_init);
module_exit(consumer_exit);

MODULE_IMPORT_NS(PSEM_NS);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Example consumer of the psem API");
MODULE_AUTHOR("The psem developers");
