// SPDX-License-Identifier: GPL-2.0
/*
 * psem-explore's kernel services: the API that shim.c implements on
 * pthreads (sleeping, waking, signals, spinlocks, RCU, wait_var_event(),
 * system_wq, irq_work), here on the threads of explore.c's scheduler.
 * Each call that could let another CPU in is a scheduling point, each
 * wait a block on a predicate the scheduler tests, and each edge the
 * kernel orders (a lock, a queued item and its run, a flush) an ex_sync();
 * wake-ups, sleeps and signals order nothing, as in the ThreadSanitizer
 * build, so that the hand-off is psem's to order.
 */
#include <stdint.h>

#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#include "psem-user.h"
#include "explore.h"
#include "explore_int.h"

/* ---- tasks, sleeping, waking, signals ------------------------------- */

void psem_user_put_task(struct task_struct *t)
{
	if (--t->usage <= 0)
		psem_user_warn(__FILE__, __LINE__,
			       "put_task_struct: %s/%d has no reference left\n",
			       t->comm, t->pid);
}

unsigned long psem_user_jiffies(void)
{
	return ex_jiffies;
}

void psem_user_usleep(unsigned int us)
{
	ex_yield("usleep");
}

int wake_up_state(struct task_struct *p, unsigned int mask)
{
	PSEM_USER_POINT("wake_up", p);
	if (!(p->__state & mask))
		return 0;
	p->__state = TASK_RUNNING;
	return 1;
}

void psem_user_signal(struct task_struct *t, bool fatal)
{
	PSEM_USER_POINT("signal", t);
	t->sigpending |= PSEM_USER_SIG_PENDING |
			 (fatal ? PSEM_USER_SIG_FATAL : 0);
	if ((t->__state & TASK_INTERRUPTIBLE) ||
	    (fatal && (t->__state & TASK_WAKEKILL)))
		t->__state = TASK_RUNNING;
}

void psem_user_flush_signals(void)
{
	current->sigpending = 0;
}

static bool ex_is_running(void *arg)
{
	return ((struct task_struct *)arg)->__state == TASK_RUNNING;
}

long schedule_timeout(long timeout)
{
	struct task_struct *t = current;
	uintptr_t pc = (uintptr_t)__builtin_return_address(0);
	unsigned long deadline;
	bool finite = timeout != MAX_SCHEDULE_TIMEOUT;

	if (t->locks_held)
		psem_user_warn(__FILE__, __LINE__,
			       "schedule with %d spinlocks held\n",
			       t->locks_held);
	if (t->preempt_count)
		psem_user_warn(__FILE__, __LINE__,
			       "schedule in context %#x\n", t->preempt_count);
	if (timeout < 0)
		timeout = 0;
	deadline = ex_jiffies + (finite ? timeout : 0);
	if (t->__state != TASK_RUNNING && signal_pending_state(t->__state, t))
		t->__state = TASK_RUNNING;
	if (t->__state == TASK_RUNNING) {
		ex_point("schedule", pc, t);
		return timeout;
	}
	if (ex_block("sleep", pc, ex_is_running, t, finite)) {
		t->__state = TASK_RUNNING;	/* the timer's wake-up */
		if (ex_jiffies < deadline)
			ex_jiffies = deadline;
		return 0;
	}
	if (!finite)
		return timeout;
	return deadline > ex_jiffies ? (long)(deadline - ex_jiffies) : 0;
}

void schedule(void)
{
	schedule_timeout(MAX_SCHEDULE_TIMEOUT);
}

void yield(void)
{
	ex_yield("yield");
}

/* The preemption hook of psem-cases has no use here: the search preempts. */
void psem_user_preempt_point(int where, const void *lock)
{
}

/* ---- spinlocks ------------------------------------------------------- */

void psem_user_spin_init(spinlock_t *lock)
{
	lock->owner = NULL;
}

static bool ex_lock_free(void *arg)
{
	return !((spinlock_t *)arg)->owner;
}

void psem_user_spin_lock(spinlock_t *lock)
{
	struct task_struct *t = current;
	uintptr_t pc = (uintptr_t)__builtin_return_address(0);

	ex_point("spin_lock", pc, lock);
	if (lock->owner == t)
		ex_fail("spinlock recursion (a deadlock on one CPU)");
	while (lock->owner)
		ex_block("spin_lock (contended)", pc, ex_lock_free, lock, false);
	lock->owner = t;
	t->locks_held++;
	ex_sync(lock, EX_ORD_ACQ);
}

int psem_user_spin_trylock(spinlock_t *lock)
{
	struct task_struct *t = current;

	ex_point("spin_trylock", (uintptr_t)__builtin_return_address(0), lock);
	if (lock->owner)
		return 0;
	lock->owner = t;
	t->locks_held++;
	ex_sync(lock, EX_ORD_ACQ);
	return 1;
}

void (*ex_unlock_check)(struct spinlock *lock);

void psem_user_spin_unlock(spinlock_t *lock)
{
	struct task_struct *t = current;

	if (lock->owner != t)
		psem_user_warn(__FILE__, __LINE__,
			       "spin_unlock of a lock %s/%d does not hold\n",
			       t->comm, t->pid);
	else if (ex_unlock_check)
		ex_unlock_check(lock);
	ex_point("spin_unlock", (uintptr_t)__builtin_return_address(0), lock);
	ex_sync(lock, EX_ORD_REL);
	lock->owner = NULL;
	t->locks_held--;
}

bool psem_user_spin_held(struct spinlock *lock)
{
	return lock->owner == current;
}

/* ---- RCU ------------------------------------------------------------- */

int rcu_lock_map;

void rcu_read_lock(void)
{
	current->rcu_nesting++;
}

void rcu_read_unlock(void)
{
	struct task_struct *t = current;

	if (t->rcu_nesting <= 0) {
		psem_user_warn(__FILE__, __LINE__,
			       "rcu_read_unlock outside a read-side section\n");
		return;
	}
	if (!--t->rcu_nesting)
		t->rcu_seq++;
}

struct ex_gp {
	unsigned long seq[EX_MAX_THREADS];
};

static bool ex_gp_over(void *arg)
{
	struct ex_gp *gp = arg;
	int i;

	for (i = 0; i < ex_nr_threads(); i++) {
		struct task_struct *t = ex_task(i);

		if (t->rcu_nesting && t->rcu_seq == gp->seq[i])
			return false;
	}
	return true;
}

void synchronize_rcu(void)
{
	struct ex_gp gp;
	int i;

	might_sleep();
	for (i = 0; i < ex_nr_threads(); i++)
		gp.seq[i] = ex_task(i)->rcu_seq;
	ex_block("synchronize_rcu", (uintptr_t)__builtin_return_address(0),
		 ex_gp_over, &gp, false);
}

/* ---- wait_var_event() ------------------------------------------------ */

static unsigned int ex_var_word;

unsigned int psem_user_var_seq(void)
{
	return ex_var_word;
}

struct ex_var_wait {
	unsigned int seq;
	struct task_struct *t;
	bool sig;
};

static bool ex_var_changed(void *arg)
{
	struct ex_var_wait *w = arg;

	return ex_var_word != w->seq || (w->sig && signal_pending(w->t));
}

void psem_user_var_sleep(unsigned int seq, unsigned int ms)
{
	struct ex_var_wait w = { seq, current, ms != 0 };

	if (current->locks_held)
		psem_user_warn(__FILE__, __LINE__,
			       "wait_var_event with %d spinlocks held\n",
			       current->locks_held);
	/* A polling sleep (@ms) may end by time: the timeout choice. */
	if (ex_block("wait_var_event", (uintptr_t)__builtin_return_address(0),
		     ex_var_changed, &w, ms != 0))
		ex_jiffies += ms;
}

void psem_user_wake_up_var(void *var)
{
	PSEM_USER_POINT("wake_up_var", var);
	ex_var_word++;
}

/* ---- system_wq: one worker thread ------------------------------------ */

static struct workqueue_struct {
	int unused;
} ex_system_wq;
struct workqueue_struct *system_wq = &ex_system_wq;

static LIST_HEAD(ex_wq_list);
static struct work_struct *ex_wq_running;

static bool ex_list_busy(void *arg)
{
	return !list_empty((struct list_head *)arg);
}

/* A service thread's wait: the first item of @list, off the list. */
static struct list_head *ex_dequeue(struct list_head *list)
{
	struct list_head *e;

	while (list_empty(list))
		ex_block("idle", 0, ex_list_busy, list, false);
	e = list->next;
	list_del_init(e);
	return e;
}

static void ex_kworker(void *arg)
{
	for (;;) {
		struct work_struct *w = list_entry(ex_dequeue(&ex_wq_list),
						   struct work_struct, entry);

		w->pending = false;
		ex_wq_running = w;
		PSEM_USER_POINT("work run", w);
		ex_sync(w, EX_ORD_ACQ);		/* what preceded queue_work() */
		w->func(w);	/* may requeue or free w */
		ex_sync((char *)w + 1, EX_ORD_REL);	/* for a flush */
		ex_wq_running = NULL;
	}
}

/*
 * queue_work() and irq_work_queue(): a point, the kernel's edge from what
 * precedes the queueing to the run, and the item on @list unless it is
 * pending already.
 */
static bool ex_enqueue(const char *op, const void *item, bool *pending,
		       struct list_head *entry, struct list_head *list)
{
	PSEM_USER_POINT(op, item);
	ex_sync(item, EX_ORD_REL);
	if (*pending)
		return false;
	*pending = true;
	list_add_tail(entry, list);
	return true;
}

bool queue_work(struct workqueue_struct *wq, struct work_struct *work)
{
	return ex_enqueue("queue_work", work, &work->pending, &work->entry,
			  &ex_wq_list);
}

static bool ex_work_idle(void *arg)
{
	struct work_struct *w = arg;

	return !w->pending && ex_wq_running != w;
}

bool flush_work(struct work_struct *work)
{
	bool busy;

	might_sleep();
	PSEM_USER_POINT("flush_work", work);
	busy = !ex_work_idle(work);
	if (busy)
		ex_block("flush_work", (uintptr_t)__builtin_return_address(0),
			 ex_work_idle, work, false);
	ex_sync((char *)work + 1, EX_ORD_ACQ);
	return busy;
}

static bool ex_running_not(void *arg)
{
	return ex_wq_running != arg;
}

bool cancel_work_sync(struct work_struct *work)
{
	bool was_pending;

	might_sleep();
	PSEM_USER_POINT("cancel_work_sync", work);
	was_pending = work->pending;
	if (was_pending) {
		list_del_init(&work->entry);
		work->pending = false;
	}
	if (ex_wq_running == work)
		ex_block("cancel_work_sync", (uintptr_t)__builtin_return_address(0),
			 ex_running_not, work, false);
	ex_sync((char *)work + 1, EX_ORD_ACQ);
	return was_pending;
}

static bool ex_wq_idle(void *arg)
{
	return list_empty(&ex_wq_list) && !ex_wq_running;
}

void flush_workqueue(struct workqueue_struct *wq)
{
	might_sleep();
	ex_block("flush_workqueue", (uintptr_t)__builtin_return_address(0),
		 ex_wq_idle, NULL, false);
}

/* ---- irq_work: one CPU's interrupt, a thread in hard-IRQ context ----- */

static LIST_HEAD(ex_irq_list);
static bool ex_irq_in_func;	/* thread 0 is inside a work's function */

static void ex_irq_thread(void *arg)
{
	for (;;) {
		struct irq_work *w = list_entry(ex_dequeue(&ex_irq_list),
						struct irq_work, entry);

		w->pending = false;
		w->busy = true;
		PSEM_USER_POINT("irq_work run", w);
		ex_sync(w, EX_ORD_ACQ);
		psem_user_set_context(HARDIRQ_OFFSET);
		ex_irq_in_func = true;
		w->func(w);	/* may requeue w */
		ex_irq_in_func = false;
		psem_user_set_context(0);
		ex_sync((char *)w + 1, EX_ORD_REL);
		/* The kernel's irq_work_single() clears BUSY after the call. */
		PSEM_USER_POINT("irq_work done", w);
		w->busy = false;
	}
}

bool irq_work_queue(struct irq_work *work)
{
	return ex_enqueue("irq_work_queue", work, &work->pending, &work->entry,
			  &ex_irq_list);
}

static bool ex_irq_idle(void *arg)
{
	struct irq_work *w = arg;

	return !w->pending && !w->busy;
}

void irq_work_sync(struct irq_work *work)
{
	might_sleep();
	PSEM_USER_POINT("irq_work_sync", work);
	if (!ex_irq_idle(work))
		ex_block("irq_work_sync", (uintptr_t)__builtin_return_address(0),
			 ex_irq_idle, work, false);
	ex_sync((char *)work + 1, EX_ORD_ACQ);
}

bool irq_work_pending(struct irq_work *work)
{
	PSEM_USER_POINT("irq_work_pending", work);
	return work->pending;
}

bool irq_work_is_busy(struct irq_work *work)
{
	PSEM_USER_POINT("irq_work_is_busy", work);
	return work->pending || work->busy;
}

/*
 * A second CPU's irq_work: whether an irq_work is queued and not yet
 * started, and a run of it by the calling thread. In the kernel,
 * irq_work_claim() succeeds on a work whose run has begun on another CPU
 * (PENDING cleared at the start of irq_work_single(), BUSY still set), the
 * claiming CPU runs it at once, beside the first run, and whichever run
 * ends first clears BUSY with its cmpxchg (the flags it started with, BUSY
 * alone, are what it finds). Thread 0 stands for the first CPU; the caller
 * for the second.
 */
bool ex_irq_queued(void)
{
	return ex_irq_list.next != &ex_irq_list;	/* no point: a predicate */
}

bool ex_irq_work_run_here(void)
{
	struct irq_work *w;
	struct list_head *e;
	int old;

	PSEM_USER_POINT("irq_work run (other CPU)", &ex_irq_list);
	/*
	 * Only beside a run on thread 0 (the other CPU's): then thread 0 is
	 * not inside ex_dequeue(), and the plain unlink below races nothing.
	 */
	if (!ex_irq_in_func || ex_irq_list.next == &ex_irq_list)
		return false;
	e = ex_irq_list.next;
	e->prev->next = e->next;
	e->next->prev = e->prev;
	e->next = e->prev = e;
	w = list_entry(e, struct irq_work, entry);
	w->pending = false;
	w->busy = true;
	ex_sync(w, EX_ORD_ACQ);
	old = psem_user_set_context(HARDIRQ_OFFSET);
	w->func(w);
	psem_user_set_context(old);
	ex_sync((char *)w + 1, EX_ORD_REL);
	PSEM_USER_POINT("irq_work done (other CPU)", w);
	w->busy = false;	/* BUSY cleared: the cmpxchg finds BUSY alone */
	return true;
}

struct task_struct *psem_user_irq_work_task(void)
{
	return ex_task(0);
}

/* Thread 0 runs irq_work, 1 the kworker: each blocked until one is queued. */
void ex_start_services(void)
{
	ex_add_service("irq_work", ex_irq_thread, ex_list_busy, &ex_irq_list);
	ex_add_service("kworker", ex_kworker, ex_list_busy, &ex_wq_list);
}
