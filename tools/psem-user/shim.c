// SPDX-License-Identifier: GPL-2.0
/*
 * The run-time half of the kernel shim: tasks, sleeping and waking on a
 * futex, simulated signals, spinlocks on pthread mutexes, warnings.
 *
 * Waking and signalling use relaxed atomics and fences only (see
 * include/linux/sched.h): ThreadSanitizer, which does not model fences,
 * sees no happens-before edge through them, so psem's own ordering is what
 * it checks.
 */
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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

static __thread struct task_struct *psem_user_task;
static struct task_struct *psem_user_tasks;	/* every task, pushed */
static int psem_user_next_pid = 1;
static unsigned long psem_user_warn_count;

void psem_user_warn(const char *file, int line, const char *fmt, ...)
{
	unsigned long n;
	va_list ap;

	n = __atomic_add_fetch(&psem_user_warn_count, 1, __ATOMIC_RELAXED);
	if (n > 10)
		return;
	fprintf(stderr, "WARNING: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

unsigned long psem_user_warnings(void)
{
	return __atomic_load_n(&psem_user_warn_count, __ATOMIC_RELAXED);
}

struct task_struct *psem_user_task_init(const char *comm, int cpu)
{
	int pid = __atomic_fetch_add(&psem_user_next_pid, 1, __ATOMIC_RELAXED);
	struct task_struct *t = psem_user_task_alloc(comm, cpu, pid);

	/* Release: synchronize_rcu() reads the task through the list. */
	t->next_task = __atomic_load_n(&psem_user_tasks, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&psem_user_tasks, &t->next_task, t,
					    false, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED))
		;
	psem_user_task = t;
	return t;
}

struct task_struct *psem_user_current(void)
{
	if (unlikely(!psem_user_task))
		psem_user_task_init("anon", 0);
	return psem_user_task;
}

void psem_user_put_task(struct task_struct *t)
{
	/* The harness holds the first reference for the task's life. */
	if (__atomic_sub_fetch(&t->usage, 1, __ATOMIC_RELAXED) <= 0)
		psem_user_warn(__FILE__, __LINE__,
			       "put_task_struct: %s/%d has no reference left\n",
			       t->comm, t->pid);
}

static struct timespec psem_user_t0;
static pthread_once_t psem_user_t0_once = PTHREAD_ONCE_INIT;

static void psem_user_t0_init(void)
{
	clock_gettime(CLOCK_MONOTONIC, &psem_user_t0);
}

static unsigned long long psem_user_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

unsigned long psem_user_jiffies(void)
{
	struct timespec ts;

	pthread_once(&psem_user_t0_once, psem_user_t0_init);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec - psem_user_t0.tv_sec) * 1000 +
	       (ts.tv_nsec - psem_user_t0.tv_nsec) / 1000000 + 300000;
}

void psem_user_usleep(unsigned int us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000L };

	nanosleep(&ts, NULL);
}

/*
 * The preemption hook (psem-user.h). The armed task reads its own fields at
 * each point; the harness writes them while the task is not stopped. Relaxed
 * atomics throughout, and a stop that polls: no happens-before edge.
 */
void psem_user_preempt_arm(struct task_struct *t, int where, const void *lock,
			   int nth, unsigned int bound_ms)
{
	__atomic_store_n(&t->pre_where, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&t->pre_lock, lock, __ATOMIC_RELAXED);
	__atomic_store_n(&t->pre_left, nth, __ATOMIC_RELAXED);
	__atomic_store_n(&t->pre_bound_ms, bound_ms, __ATOMIC_RELAXED);
	__atomic_store_n(&t->pre_go, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&t->pre_state, PSEM_USER_PRE_ARMED, __ATOMIC_RELAXED);
	/* Last: the task looks at nothing else until it sees this. */
	__atomic_store_n(&t->pre_where, where, __ATOMIC_RELAXED);
}

void psem_user_preempt_disarm(struct task_struct *t)
{
	__atomic_store_n(&t->pre_where, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&t->pre_go, 1, __ATOMIC_RELAXED);
}

int psem_user_preempt_state(struct task_struct *t)
{
	return __atomic_load_n(&t->pre_state, __ATOMIC_RELAXED);
}

int psem_user_preempt_wait_stopped(struct task_struct *t, unsigned int ms)
{
	unsigned long long end = psem_user_now_ns() + ms * 1000000ULL;
	int state;

	for (;;) {
		state = psem_user_preempt_state(t);
		if (state != PSEM_USER_PRE_ARMED || psem_user_now_ns() >= end)
			return state;
		psem_user_usleep(100);
	}
}

void psem_user_preempt_release(struct task_struct *t)
{
	__atomic_store_n(&t->pre_go, 1, __ATOMIC_RELAXED);
}

void psem_user_preempt_point(int where, const void *lock)
{
	struct task_struct *t = psem_user_task;
	unsigned long long end;
	const void *want;

	if (likely(!t) ||
	    likely(__atomic_load_n(&t->pre_where, __ATOMIC_RELAXED) != where))
		return;
	want = __atomic_load_n(&t->pre_lock, __ATOMIC_RELAXED);
	if (want && want != lock)
		return;
	if (__atomic_sub_fetch(&t->pre_left, 1, __ATOMIC_RELAXED) > 0)
		return;
	/* Disarm first: whatever the task does while it resumes is not a stop. */
	__atomic_store_n(&t->pre_where, 0, __ATOMIC_RELAXED);
	end = psem_user_now_ns() +
	      __atomic_load_n(&t->pre_bound_ms, __ATOMIC_RELAXED) * 1000000ULL;
	__atomic_store_n(&t->pre_state, PSEM_USER_PRE_STOPPED, __ATOMIC_RELAXED);
	for (;;) {
		if (__atomic_load_n(&t->pre_go, __ATOMIC_RELAXED)) {
			__atomic_store_n(&t->pre_state, PSEM_USER_PRE_RELEASED,
					 __ATOMIC_RELAXED);
			return;
		}
		if (psem_user_now_ns() >= end) {
			__atomic_store_n(&t->pre_state, PSEM_USER_PRE_EXPIRED,
					 __ATOMIC_RELAXED);
			return;
		}
		psem_user_usleep(100);
	}
}

static void psem_user_futex_wait(unsigned int *word, unsigned int val,
				 const struct timespec *rel)
{
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, rel, NULL, 0);
}

static void psem_user_futex_wake(unsigned int *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* TASK_RUNNING if @t's state is still @state; a futex wake if it was asleep. */
static int psem_user_set_running(struct task_struct *t, unsigned int state)
{
	if (!__atomic_compare_exchange_n(&t->__state, &state, TASK_RUNNING,
					 false, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED))
		return 0;
	psem_user_futex_wake(&t->__state);
	return 1;
}

int wake_up_state(struct task_struct *p, unsigned int mask)
{
	unsigned int state;

	/* try_to_wake_up(): a full barrier before the state is read. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (;;) {
		state = __atomic_load_n(&p->__state, __ATOMIC_RELAXED);
		if (!(state & mask))
			return 0;
		if (psem_user_set_running(p, state))
			return 1;
	}
}

void psem_user_signal(struct task_struct *t, bool fatal)
{
	unsigned long bits = PSEM_USER_SIG_PENDING;
	unsigned int state;

	if (fatal)
		bits |= PSEM_USER_SIG_FATAL;
	__atomic_fetch_or(&t->sigpending, bits, __ATOMIC_RELAXED);
	/* signal_wake_up(): the sleeper rechecks after its own fence. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (;;) {
		state = __atomic_load_n(&t->__state, __ATOMIC_RELAXED);
		if (!(state & TASK_INTERRUPTIBLE) &&
		    !(fatal && (state & TASK_WAKEKILL)))
			return;
		if (psem_user_set_running(t, state))
			return;
	}
}

void psem_user_flush_signals(void)
{
	__atomic_store_n(&current->sigpending, 0, __ATOMIC_RELAXED);
}

long schedule_timeout(long timeout)
{
	struct task_struct *t = current;
	unsigned long long deadline = 0, now;
	unsigned int state;
	struct timespec rel, *relp = NULL;

	if (t->locks_held)
		psem_user_warn(__FILE__, __LINE__,
			       "schedule with %d spinlocks held\n",
			       t->locks_held);
	if (timeout < 0) {
		psem_user_warn(__FILE__, __LINE__,
			       "schedule_timeout: negative %ld\n", timeout);
		timeout = 0;
	}
	if (timeout != MAX_SCHEDULE_TIMEOUT)
		deadline = psem_user_now_ns() + timeout * 1000000ULL;
	/* __schedule(): pairs with the fence in psem_user_signal(). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	state = __atomic_load_n(&t->__state, __ATOMIC_RELAXED);
	if (state != TASK_RUNNING && signal_pending_state(state, t))
		psem_user_set_running(t, state);
	for (;;) {
		state = __atomic_load_n(&t->__state, __ATOMIC_RELAXED);
		if (state == TASK_RUNNING)
			break;
		if (deadline) {
			now = psem_user_now_ns();
			if (now >= deadline) {
				/* The timer's wake-up. */
				psem_user_set_running(t, state);
				continue;
			}
			rel.tv_sec = (deadline - now) / 1000000000ULL;
			rel.tv_nsec = (deadline - now) % 1000000000ULL;
			relp = &rel;
		}
		psem_user_futex_wait(&t->__state, state, relp);
	}
	psem_user_preempt_point(PSEM_USER_AT_WAKE, NULL);
	if (!deadline)
		return timeout;
	now = psem_user_now_ns();
	return now >= deadline ? 0 : (long)((deadline - now) / 1000000ULL);
}

void schedule(void)
{
	schedule_timeout(MAX_SCHEDULE_TIMEOUT);
}

void yield(void)
{
	sched_yield();
}

void psem_user_spin_init(spinlock_t *lock)
{
	pthread_mutex_init(&lock->mutex, NULL);
	__atomic_store_n(&lock->owner, NULL, __ATOMIC_RELAXED);
}

void psem_user_spin_lock(spinlock_t *lock)
{
	struct task_struct *t;

	psem_user_preempt_point(PSEM_USER_AT_LOCK, lock);
	t = current;
	if (__atomic_load_n(&lock->owner, __ATOMIC_RELAXED) == t)
		psem_user_warn(__FILE__, __LINE__, "spinlock recursion\n");
	pthread_mutex_lock(&lock->mutex);
	__atomic_store_n(&lock->owner, t, __ATOMIC_RELAXED);
	t->locks_held++;
}

int psem_user_spin_trylock(spinlock_t *lock)
{
	struct task_struct *t;

	psem_user_preempt_point(PSEM_USER_AT_LOCK, lock);
	t = current;
	if (pthread_mutex_trylock(&lock->mutex))
		return 0;
	__atomic_store_n(&lock->owner, t, __ATOMIC_RELAXED);
	t->locks_held++;
	return 1;
}

void psem_user_spin_unlock(spinlock_t *lock)
{
	struct task_struct *t = current;

	if (__atomic_load_n(&lock->owner, __ATOMIC_RELAXED) != t)
		psem_user_warn(__FILE__, __LINE__,
			       "spin_unlock of a lock %s/%d does not hold\n",
			       t->comm, t->pid);
	__atomic_store_n(&lock->owner, NULL, __ATOMIC_RELAXED);
	t->locks_held--;
	pthread_mutex_unlock(&lock->mutex);
}

bool psem_user_spin_held(struct spinlock *lock)
{
	return __atomic_load_n(&lock->owner, __ATOMIC_RELAXED) == current;
}

/*
 * RCU. A task's rcu_nesting is written only by the task; an outermost
 * unlock bumps rcu_seq and then clears the nesting, both RELEASE, so that a
 * grace period that sees either knows the section is over, and is ordered
 * after it.
 */
void rcu_read_lock(void)
{
	struct task_struct *t = current;

	__atomic_store_n(&t->rcu_nesting, t->rcu_nesting + 1, __ATOMIC_RELAXED);
	/* The section's accesses come after the count is visible. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void rcu_read_unlock(void)
{
	struct task_struct *t = current;
	int n = t->rcu_nesting;

	if (n <= 0) {
		psem_user_warn(__FILE__, __LINE__,
			       "rcu_read_unlock outside a read-side section\n");
		return;
	}
	if (n == 1)
		__atomic_fetch_add(&t->rcu_seq, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&t->rcu_nesting, n - 1, __ATOMIC_RELEASE);
}

void synchronize_rcu(void)
{
	struct task_struct *t;

	might_sleep();
	if (current->rcu_nesting)
		psem_user_warn(__FILE__, __LINE__,
			       "synchronize_rcu inside a read-side section\n");
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (t = __atomic_load_n(&psem_user_tasks, __ATOMIC_ACQUIRE); t;
	     t = t->next_task) {
		unsigned long seq = __atomic_load_n(&t->rcu_seq, __ATOMIC_ACQUIRE);

		while (__atomic_load_n(&t->rcu_nesting, __ATOMIC_ACQUIRE) &&
		       __atomic_load_n(&t->rcu_seq, __ATOMIC_ACQUIRE) == seq)
			psem_user_usleep(20);
	}
}

/*
 * A queue that one thread serves (system_wq's worker, irq_work's CPU),
 * started at the first use: the list, the items' pending flags and what
 * the thread runs now are under @lock; @more wakes the thread, @idle
 * those that wait for an item to be done.
 */
struct psem_user_queue {
	pthread_mutex_t		lock;
	pthread_cond_t		more, idle;
	struct list_head	list;
	pthread_once_t		once;
	void			(*start)(void);
};

#define PSEM_USER_QUEUE(name, start_fn) {				\
	.lock = PTHREAD_MUTEX_INITIALIZER,				\
	.more = PTHREAD_COND_INITIALIZER,				\
	.idle = PTHREAD_COND_INITIALIZER,				\
	.list = LIST_HEAD_INIT(name.list),				\
	.once = PTHREAD_ONCE_INIT,					\
	.start = start_fn,						\
}

/* Queues @entry (whose pending flag is @pending) unless it is pending. */
static bool psem_user_enqueue(struct psem_user_queue *q, bool *pending,
			      struct list_head *entry)
{
	bool queued = false;

	pthread_once(&q->once, q->start);
	pthread_mutex_lock(&q->lock);
	if (!*pending) {
		__atomic_store_n(pending, true, __ATOMIC_RELAXED);
		list_add_tail(entry, &q->list);
		pthread_cond_signal(&q->more);
		queued = true;
	}
	pthread_mutex_unlock(&q->lock);
	return queued;
}

/* The serving thread's wait, @q->lock held: the first item, off the list. */
static struct list_head *psem_user_dequeue(struct psem_user_queue *q)
{
	struct list_head *e;

	while (list_empty(&q->list))
		pthread_cond_wait(&q->more, &q->lock);
	e = q->list.next;
	list_del_init(e);
	return e;
}

/* Starts @fn as a detached thread. */
static void psem_user_start_thread(void *(*fn)(void *))
{
	pthread_t th;

	if (pthread_create(&th, NULL, fn, NULL))
		abort();
	pthread_detach(th);
}

/* system_wq: one worker thread. */
struct workqueue_struct {
	int unused;
};

static struct workqueue_struct psem_user_system_wq;
struct workqueue_struct *system_wq = &psem_user_system_wq;

static void psem_user_wq_start(void);
static struct psem_user_queue psem_user_wq =
	PSEM_USER_QUEUE(psem_user_wq, psem_user_wq_start);
static struct work_struct *psem_user_wq_running;

static void *psem_user_kworker(void *arg)
{
	psem_user_task_init("kworker", 0);
	pthread_mutex_lock(&psem_user_wq.lock);
	for (;;) {
		struct work_struct *w = list_entry(psem_user_dequeue(&psem_user_wq),
						   struct work_struct, entry);

		__atomic_store_n(&w->pending, false, __ATOMIC_RELAXED);
		psem_user_wq_running = w;
		pthread_mutex_unlock(&psem_user_wq.lock);
		w->func(w);	/* may requeue or free w */
		pthread_mutex_lock(&psem_user_wq.lock);
		psem_user_wq_running = NULL;
		pthread_cond_broadcast(&psem_user_wq.idle);
	}
	return NULL;
}

static void psem_user_wq_start(void)
{
	psem_user_start_thread(psem_user_kworker);
}

bool queue_work(struct workqueue_struct *wq, struct work_struct *work)
{
	return psem_user_enqueue(&psem_user_wq, &work->pending, &work->entry);
}

bool flush_work(struct work_struct *work)
{
	bool waited = false;

	might_sleep();
	pthread_mutex_lock(&psem_user_wq.lock);
	while (work->pending || psem_user_wq_running == work) {
		waited = true;
		pthread_cond_wait(&psem_user_wq.idle, &psem_user_wq.lock);
	}
	pthread_mutex_unlock(&psem_user_wq.lock);
	return waited;
}

bool cancel_work_sync(struct work_struct *work)
{
	bool was_pending;

	might_sleep();
	pthread_mutex_lock(&psem_user_wq.lock);
	was_pending = work->pending;
	if (was_pending) {
		list_del_init(&work->entry);
		__atomic_store_n(&work->pending, false, __ATOMIC_RELAXED);
	}
	while (psem_user_wq_running == work)
		pthread_cond_wait(&psem_user_wq.idle, &psem_user_wq.lock);
	pthread_mutex_unlock(&psem_user_wq.lock);
	return was_pending;
}

void flush_workqueue(struct workqueue_struct *wq)
{
	might_sleep();
	pthread_mutex_lock(&psem_user_wq.lock);
	while (!list_empty(&psem_user_wq.list) || psem_user_wq_running)
		pthread_cond_wait(&psem_user_wq.idle, &psem_user_wq.lock);
	pthread_mutex_unlock(&psem_user_wq.lock);
}

/* Stands for lockdep's map of RCU readers; never read. */
int rcu_lock_map;

/*
 * wait_var_event() and wake_up_var() (include/linux/wait_bit.h): one
 * sequence for every variable. Relaxed, with the fences the header's
 * callers give: no happens-before edge of its own.
 */
static unsigned int psem_user_var_word;

unsigned int psem_user_var_seq(void)
{
	return __atomic_load_n(&psem_user_var_word, __ATOMIC_RELAXED);
}

void psem_user_var_sleep(unsigned int seq, unsigned int ms)
{
	struct timespec rel = { ms / 1000, (ms % 1000) * 1000000L };

	if (current->locks_held)
		psem_user_warn(__FILE__, __LINE__,
			       "wait_var_event with %d spinlocks held\n",
			       current->locks_held);
	psem_user_futex_wait(&psem_user_var_word, seq, ms ? &rel : NULL);
}

void psem_user_wake_up_var(void *var)
{
	/* The caller's smp_mb() orders its condition before this. */
	__atomic_fetch_add(&psem_user_var_word, 1, __ATOMIC_RELAXED);
	psem_user_futex_wake(&psem_user_var_word);
}

/*
 * irq_work (include/linux/irq_work.h): one thread, in hard-IRQ context
 * while it runs a function; the flags and the function running now are
 * under psem_user_irq.lock.
 */
static void psem_user_irq_start(void);
static struct psem_user_queue psem_user_irq =
	PSEM_USER_QUEUE(psem_user_irq, psem_user_irq_start);
static struct task_struct *psem_user_irq_task;	/* RELEASE, once */

static void *psem_user_irq_thread(void *arg)
{
	__atomic_store_n(&psem_user_irq_task, psem_user_task_init("irq_work", 0),
			 __ATOMIC_RELEASE);
	pthread_mutex_lock(&psem_user_irq.lock);
	for (;;) {
		struct irq_work *w = list_entry(psem_user_dequeue(&psem_user_irq),
						struct irq_work, entry);

		__atomic_store_n(&w->pending, false, __ATOMIC_RELAXED);
		w->busy = true;
		pthread_mutex_unlock(&psem_user_irq.lock);
		psem_user_set_context(HARDIRQ_OFFSET);
		w->func(w);	/* may requeue w */
		psem_user_set_context(0);
		pthread_mutex_lock(&psem_user_irq.lock);
		w->busy = false;
		pthread_cond_broadcast(&psem_user_irq.idle);
	}
	return NULL;
}

static void psem_user_irq_start(void)
{
	psem_user_start_thread(psem_user_irq_thread);
}

bool irq_work_queue(struct irq_work *work)
{
	return psem_user_enqueue(&psem_user_irq, &work->pending, &work->entry);
}

void irq_work_sync(struct irq_work *work)
{
	might_sleep();
	pthread_mutex_lock(&psem_user_irq.lock);
	while (work->pending || work->busy)
		pthread_cond_wait(&psem_user_irq.idle, &psem_user_irq.lock);
	pthread_mutex_unlock(&psem_user_irq.lock);
}

bool irq_work_pending(struct irq_work *work)
{
	bool pending;

	pthread_mutex_lock(&psem_user_irq.lock);
	pending = work->pending;
	pthread_mutex_unlock(&psem_user_irq.lock);
	return pending;
}

bool irq_work_is_busy(struct irq_work *work)
{
	bool busy;

	pthread_mutex_lock(&psem_user_irq.lock);
	busy = work->pending || work->busy;
	pthread_mutex_unlock(&psem_user_irq.lock);
	return busy;
}

struct task_struct *psem_user_irq_work_task(void)
{
	struct task_struct *t;

	pthread_once(&psem_user_irq.once, psem_user_irq.start);
	while (!(t = __atomic_load_n(&psem_user_irq_task, __ATOMIC_ACQUIRE)))
		psem_user_usleep(50);
	return t;
}
