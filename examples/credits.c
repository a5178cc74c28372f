// SPDX-License-Identifier: GPL-2.0
/*
 * A credit-pool driver, the shape of XFS's log grant heads or the SMB
 * client's credits: a device accepts requests while it has credits, each
 * request costs 1..3 of them, and the device returns them when the request
 * completes.
 *
 *   - submitter kthreads take the credits a request needs (killable, FIFO:
 *     a large request is not starved by small ones) and queue it;
 *   - a doorbell hrtimer submits too, and never sleeps: it acquires
 *     asynchronously and issues its request from the grant's callback;
 *   - "completions" come from an hrtimer in hard IRQ (softirq on
 *     PREEMPT_RT, where the queue lock is a sleeping lock), which returns
 *     the credits: lock-free while nobody waits;
 *   - the pool is resized at run time, as a link renegotiates its depth;
 *   - the pool is visible in /sys/kernel/debug/psem/sems/psem_consumer_credits;
 *   - on unload it cancels the doorbell's asynchronous wait, closes the
 *     pool, which fails the waiting submitters, and quiesces it, so that
 *     no credit is in flight when it frees.
 */

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/llist.h>
#include <linux/random.h>
#include <linux/sched/signal.h>

#include <psem.h>

#include "credits.h"

#define CREDITS_SUBMITTERS	4
#define CREDITS_RING		4	/* requests in flight per submitter */
#define CREDITS_TICK_NS		(200 * NSEC_PER_USEC)
#define CREDITS_NAME		"psem_consumer_credits"

/* The capacities the resizer walks through, from the initial one. */
static const long credits_sizes[] = { 4, 8, 3, 6 };

static DEFINE_PSEM_CAPACITY(credits, 4);

/**
 * struct credit_req - one request in flight
 * @node: on credits_inflight until the completion takes it
 * @n:    the credits it holds
 * @busy: set by the submitter, cleared with release semantics by the
 *        completion once it no longer touches the request
 */
struct credit_req {
	struct llist_node	node;
	long			n;
	bool			busy;
};

static struct credit_req credits_reqs[CREDITS_SUBMITTERS][CREDITS_RING];
static LLIST_HEAD(credits_inflight);
static struct hrtimer credits_timer;
static struct task_struct *credits_submitter[CREDITS_SUBMITTERS];
static struct task_struct *credits_resizer;
static atomic_long_t credits_taken = ATOMIC_LONG_INIT(0);
static atomic_long_t credits_returned = ATOMIC_LONG_INIT(0);
static atomic_t credits_issued = ATOMIC_INIT(0);
static atomic_t credits_completed = ATOMIC_INIT(0);
static atomic_t credits_shut = ATOMIC_INIT(0);

/**
 * struct credits_doorbell - the submitter that never sleeps
 * @timer:   rings every tick, in hard IRQ (softirq on PREEMPT_RT)
 * @aw:      its asynchronous wait for credits
 * @req:     its one request
 * @waiting: @aw is queued, or its callback has not issued @req yet
 * @queued:  waits that did not complete at once
 * @granted: callbacks that issued the request
 */
struct credits_doorbell {
	struct hrtimer		timer;
	struct psem_async	aw;
	struct credit_req	req;
	bool			waiting;
	atomic_t		queued;
	atomic_t		granted;
};

static struct credits_doorbell credits_bell;

/*
 * A plain (not _HARD) hrtimer: it expires in hard IRQ, except on
 * PREEMPT_RT, where the queue lock (a spinlock_t) sleeps and the timer
 * runs in softirq instead, as lockdep's PROVE_RAW_LOCK_NESTING requires.
 */
#define CREDITS_TIMER_MODE	HRTIMER_MODE_REL

/* The device completes every request queued so far and returns credits. */
static enum hrtimer_restart credits_complete(struct hrtimer *timer)
{
	struct llist_node *list = llist_del_all(&credits_inflight);
	struct credit_req *req, *next;

	llist_for_each_entry_safe(req, next, list, node) {
		long n = req->n;

		/* Pairs with the acquire in credits_free_req(): reusable. */
		smp_store_release(&req->busy, false);
		psem_release(&credits.sem, n);
		atomic_long_add(n, &credits_returned);
		atomic_inc(&credits_completed);
	}
	hrtimer_forward_now(timer, ns_to_ktime(CREDITS_TICK_NS));
	return HRTIMER_RESTART;
}

/* Hands @req to the device. */
static void credits_issue(struct credit_req *req, long n)
{
	atomic_long_add(n, &credits_taken);
	req->n = n;
	req->busy = true;
	llist_add(&req->node, &credits_inflight);
	atomic_inc(&credits_issued);
}

/*
 * The doorbell's grant: runs in the context of the release that completed
 * it (the completion hrtimer), or of psem_close(). Never sleeps.
 */
static void credits_granted(struct psem_async *aw, int result)
{
	struct credits_doorbell *b = container_of(aw, struct credits_doorbell, aw);

	if (!result) {
		credits_issue(&b->req, aw->w.n);
		atomic_inc(&b->granted);
	}
	/* Pairs with the acquire in credits_ring(): @aw is ours again. */
	smp_store_release(&b->waiting, false);
}

static enum hrtimer_restart credits_ring(struct hrtimer *timer)
{
	struct credits_doorbell *b = container_of(timer, struct credits_doorbell, timer);
	long n = 1 + get_random_u32() % 3;
	int ret;

	/* Both pair with the releases in credits_granted(), credits_complete(). */
	if (!smp_load_acquire(&b->waiting) && !smp_load_acquire(&b->req.busy)) {
		b->waiting = true;
		ret = psem_acquire_async(&credits.sem, n, &b->aw, credits_granted);
		if (ret == -EINPROGRESS) {
			atomic_inc(&b->queued);
		} else {
			if (!ret)
				credits_issue(&b->req, n);
			b->waiting = false;	/* 0, or closed: no callback */
		}
	}
	hrtimer_forward_now(timer, ns_to_ktime(3 * CREDITS_TICK_NS));
	return HRTIMER_RESTART;
}

/* A request slot of submitter @id that the device is done with. */
static struct credit_req *credits_free_req(int id)
{
	int i;

	for (i = 0; i < CREDITS_RING; i++)
		/* Pairs with the release in credits_complete(). */
		if (!smp_load_acquire(&credits_reqs[id][i].busy))
			return &credits_reqs[id][i];
	return NULL;
}

static int credits_submit(void *data)
{
	int id = (long)data;
	int ret = 0;

	allow_signal(SIGKILL);
	while (!kthread_should_stop()) {
		long n = 1 + get_random_u32() % 3;
		struct credit_req *req = credits_free_req(id);

		if (!req) {	/* all in flight: let the device catch up */
			schedule_timeout_interruptible(1);
			continue;
		}
		ret = psem_acquire_killable(&credits.sem, n);
		if (ret)
			break;	/* -ESHUTDOWN: the pool is closing */
		atomic_long_add(n, &credits_taken);
		req->n = n;
		req->busy = true;
		llist_add(&req->node, &credits_inflight);
		atomic_inc(&credits_issued);
	}
	if (ret == -ESHUTDOWN)
		atomic_inc(&credits_shut);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

/* Walks the pool through its sizes while the submitters run. */
static int credits_resize(void *unused)
{
	int i;

	for (i = 1; i < ARRAY_SIZE(credits_sizes) && !kthread_should_stop(); i++) {
		long old = psem_capacity(&credits.sem);

		schedule_timeout_interruptible(msecs_to_jiffies(40));
		psem_resize(&credits.sem, credits_sizes[i]);
		pr_info("psem_consumer: credits: resized %ld -> %ld: available %ld, debt %lu\n",
			old, psem_capacity(&credits.sem), psem_available(&credits.sem),
			psem_debt(&credits.sem));
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

int credits_start(void)
{
	int i, ret;

	ret = psem_debugfs_register(&credits.sem, CREDITS_NAME);
	if (ret && ret != -ENODEV)
		return ret;
	hrtimer_setup(&credits_timer, credits_complete, CLOCK_MONOTONIC,
		      CREDITS_TIMER_MODE);
	hrtimer_start(&credits_timer, ns_to_ktime(CREDITS_TICK_NS),
		      CREDITS_TIMER_MODE);
	hrtimer_setup(&credits_bell.timer, credits_ring, CLOCK_MONOTONIC,
		      CREDITS_TIMER_MODE);
	hrtimer_start(&credits_bell.timer, ns_to_ktime(CREDITS_TICK_NS),
		      CREDITS_TIMER_MODE);
	for (i = 0; i < CREDITS_SUBMITTERS; i++) {
		credits_submitter[i] = kthread_run(credits_submit, (void *)(long)i,
						   "psem_credits/%d", i);
		if (IS_ERR(credits_submitter[i])) {
			credits_submitter[i] = NULL;
			break;
		}
		get_task_struct(credits_submitter[i]);
	}
	credits_resizer = kthread_run(credits_resize, NULL, "psem_credits/rs");
	if (IS_ERR(credits_resizer))
		credits_resizer = NULL;
	else
		get_task_struct(credits_resizer);
	pr_info("psem_consumer: credits: %d submitters and an asynchronous doorbell on a pool of %ld credits, completions from an hrtimer\n",
		i, psem_capacity(&credits.sem));
	return 0;
}

/* Close, quiesce, free: no credit may be in flight once this returns. */
void credits_stop(void)
{
	bool cancelled = false;
	long cap;
	int i, ret;

	if (credits_resizer) {
		kthread_stop(credits_resizer);
		put_task_struct(credits_resizer);
	}
	/*
	 * The doorbell first: no new asynchronous wait, then withdraw the
	 * one queued, if any, or wait for its callback to finish.
	 */
	hrtimer_cancel(&credits_bell.timer);
	if (smp_load_acquire(&credits_bell.waiting))	/* pairs as above */
		cancelled = psem_cancel_async_sync(&credits.sem, &credits_bell.aw);
	pr_info("psem_consumer: credits: doorbell: %d waits queued, %d granted by callback, cancelled on unload: %s\n",
		atomic_read(&credits_bell.queued), atomic_read(&credits_bell.granted),
		cancelled ? "yes" : "no");
	cap = psem_capacity(&credits.sem);
	psem_close(&credits.sem);
	ret = psem_quiesce(&credits.sem, 10 * HZ);
	pr_info("psem_consumer: credits: closed, quiesce returned %d (expected 0); credits home %ld (expected %ld)\n",
		ret, psem_available(&credits.sem), cap);
	for (i = 0; i < CREDITS_SUBMITTERS; i++) {
		if (!credits_submitter[i])
			continue;
		kthread_stop(credits_submitter[i]);
		put_task_struct(credits_submitter[i]);
	}
	hrtimer_cancel(&credits_timer);
	psem_debugfs_unregister(&credits.sem);
	pr_info("psem_consumer: credits: requests completed %d (expected %d); credits returned %ld (expected %ld); %d submitters shut out\n",
		atomic_read(&credits_completed), atomic_read(&credits_issued),
		atomic_long_read(&credits_returned),
		atomic_long_read(&credits_taken), atomic_read(&credits_shut));
}
