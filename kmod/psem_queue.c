// SPDX-License-Identifier: GPL-2.0
/*
 * psem's waiter queue: linking a waiter, handing permits to the waiters in
 * FIFO order, waking those served once the queue lock is dropped, calling
 * back asynchronous waiters one after another, and ending a wait early (a
 * signal, a timeout, psem_close(), psem_resize()) without losing what the
 * waiter was partly assigned; and the rest of the release that adds first
 * (psem_release_add() in psem_queue.h): the add taken back out of the
 * field, or out of an overflow.
 *
 * Everything here that touches the queue runs under the queue lock, and
 * the waiters bit is set for as long as the queue is not empty or a debt
 * is owed: I1, I2 and I3, at PSEM_BIAS in psem.h.
 *
 * After psem_close() and a psem_quiesce() that returned 0, nothing here
 * touches the psem again on behalf of a wait that was queued on it: a task
 * served while on its way to cancel is counted in psem_leaving[] until it
 * has taken the lock, and a path calling back asynchronous waiters holds
 * &psem_ext.calls until it is done; psem_wait_let_go() waits for both.
 */

#include <linux/export.h>
#include <linux/hash.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/llist.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/debug.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/spinlock.h>
#include <linux/wait_bit.h>

#include "psem_queue.h"

/*
 * The tasks served while on their way to cancel their wait, which still
 * take their psem's queue lock once (psem_leave()), counted in a table
 * hashed by the psem's address, as wait_var_event() hashes its queues:
 * such a task is rare and brief, and a count in each psem would cost it
 * four bytes. A count is raised and lowered under the psem's queue lock,
 * with atomics, since psems that share a bucket do not share a lock. A
 * bucket holds the sum of its psems' counts, none of which is ever below
 * zero, so a bucket read as zero under a psem's lock says that psem has
 * none; another psem's task only makes psem_wait_let_go() wait for its
 * lock and unlock too. The userspace explorer builds it with one bucket.
 */
#ifndef PSEM_LEAVING_BITS
#define PSEM_LEAVING_BITS	6
#endif

static atomic_t psem_leaving[1 << PSEM_LEAVING_BITS];

/*
 * @sem's bucket, which is also the address psem_wait_let_go() and
 * psem_cancel_async_sync() wait on: @sem is hashed, not dereferenced.
 */
atomic_t *psem_let_go_var(const struct psem *sem)
{
#if PSEM_LEAVING_BITS
	return &psem_leaving[hash_ptr(sem, PSEM_LEAVING_BITS)];
#else
	return &psem_leaving[0];
#endif
}

/*
 * Tells psem_wait_let_go() and psem_cancel_async_sync(), which wait on
 * psem_let_go_var() with wait_var_event(), that what they wait for may
 * have changed. Neither call dereferences @sem, so this is safe after the
 * psem may be gone. Out of line: a path calling back would otherwise
 * hash @sem before its first callback, which waits for nothing of it.
 */
static noinline void psem_let_go_wake(struct psem *sem)
{
	/*
	 * Full barrier: orders the change (made under the lock, or the
	 * store before this) before wake_up_var()'s lock-free
	 * waitqueue_active(); pairs with the barrier in wait_var_event()'s
	 * prepare_to_wait_event() between queueing and rechecking.
	 */
	smp_mb();
	wake_up_var(psem_let_go_var(sem));
}

/*
 * Calls back the asynchronous waiters on @calls, oldest first, one at a
 * time with the queue lock dropped; a completion made meanwhile, by a
 * callback or by another CPU, joins @calls (psem_dequeue()) instead of
 * calling back from inside this one: iteration, never recursion, however
 * long a chain of callbacks that release into the psem.
 */
static void psem_call_back(struct psem *sem, struct psem_calls *calls)
{
	unsigned long flags;

	spin_lock_irqsave(&sem->lock, flags);
	while (!list_empty(&calls->list)) {
		struct psem_async *aw = list_first_entry(&calls->list,
							 struct psem_async, w.node);
		psem_async_fn fn = aw->fn;
		int result = aw->w.result;

		list_del_init(&aw->w.node);
		/*
		 * The callback's from the call on: it may reuse or free @aw.
		 * Under the lock, as every state change but LEAVING: orders
		 * nothing of its own (the lock does).
		 */
		atomic_set(&aw->w.state, PSEM_W_IDLE);
		WRITE_ONCE(calls->calling, aw);
		spin_unlock_irqrestore(&sem->lock, flags);

		fn(aw, result);
		/*
		 * RELEASE: orders the callback's accesses before a
		 * psem_cancel_async_sync() that reads @calls->calling under
		 * the lock and finds it changed; pairs with its
		 * smp_load_acquire().
		 */
		smp_store_release(&calls->calling, NULL);
		psem_let_go_wake(sem);
		spin_lock_irqsave(&sem->lock, flags);
	}
	psem_ext_of(sem)->calls = NULL;
	spin_unlock_irqrestore(&sem->lock, flags);
	psem_let_go_wake(sem);
}

/*
 * Wakes the task waiters that a locked path served and moved to @wake,
 * once the queue lock is dropped, so that the woken tasks do not spin on
 * it and any number can be woken without holding it. wake_q_add() is not
 * exported to modules, so the list runs through the waiters themselves,
 * and a task reference keeps each task alive past the store that lets it
 * return. Then, if this path took over the callbacks, calls them back.
 */
void psem_wake_served(struct psem *sem, struct psem_wake *wake)
{
	struct psem_waiter *w, *next;

	/* The _safe iterator reads @next before @w may go away. */
	list_for_each_entry_safe(w, next, &wake->tasks, node) {
		struct task_struct *t = w->task;

		get_task_struct(t);
		/*
		 * RELEASE: orders the grant, and every critical section
		 * released into it (the queue lock orders earlier partial
		 * grants before this one), before the waiter's return;
		 * pairs with the smp_load_acquire() in psem_wait() and
		 * psem_wait_done(). After it @w may be gone.
		 */
		smp_store_release(&w->done, true);
		wake_up_process(t);
		put_task_struct(t);
	}
	/*
	 * Not empty only if psem_dequeue() made this path the one that
	 * calls back; only this path takes entries off it, so its first
	 * entry, which list_empty() reads, is stable here.
	 */
	if (!list_empty(&wake->calls.list))
		psem_call_back(sem, &wake->calls);
}

/*
 * Takes @w off the queue, to end its wait with @result: a task onto
 * @wake->tasks; an asynchronous waiter onto the list of the path that is
 * calling back on this psem, which becomes @wake's if there is none.
 */
static void psem_dequeue(struct psem *sem, struct psem_waiter *w, int result,
			 struct psem_wake *wake)
{
	w->result = result;
	if (w->kind == PSEM_WAIT_ASYNC) {
		/* Only a psem_ext's queue holds one (psem_acquire_async()). */
		struct psem_ext *ext = psem_ext_of(sem);

		atomic_set(&w->state, PSEM_W_SERVED);	/* under the lock */
		if (!ext->calls)
			ext->calls = &wake->calls;
		psem_queue_del(sem, w);
		list_add_tail(&w->node, &ext->calls->list);
		return;
	}
	/*
	 * Relaxed: atomicity alone decides, against the task's own
	 * LINKED -> LEAVING in psem_leave(), which of the two came first;
	 * the grant itself travels by ->done. A task already leaving takes
	 * the lock once more: count it, so that psem_wait_let_go() waits for it.
	 */
	if (atomic_xchg_relaxed(&w->state, PSEM_W_SERVED) == PSEM_W_LEAVING)
		atomic_inc(psem_let_go_var(sem));	/* relaxed: see above */
	psem_queue_del(sem, w);
	list_add_tail(&w->node, &wake->tasks);
}

/* A release of @n that could not fit in the capacity @cap, refused. */
static int psem_refuse_capacity(long n, long cap, unsigned long ip)
{
	psem_refuse_ip(ip, "release of %ld exceeds capacity %ld\n", n, cap);
	return -EOVERFLOW;
}

/*
 * Hands @n to the waiters, oldest first, moving each one served to @wake;
 * returns what is left. A head that needs nothing more (a quiesce whose
 * target a resize lowered) is served even when @n is zero.
 */
static long psem_hand_off(struct psem *sem, long n, struct psem_wake *wake)
{
	struct psem_waiter *w, *next;

	psem_for_each_waiter_safe(w, next, sem) {
		if (w->needed > n) {
			w->needed -= n;
			return 0;	/* FIFO: nobody overtakes the head */
		}
		n -= w->needed;
		w->needed = 0;
		psem_dequeue(sem, w, 0, wake);
		psem_stat(PSEM_STAT_HANDOFF);
	}
	return n;
}

/*
 * Under the queue lock, the word holding a credit (I3) when read: adds @n
 * to it within the capacity @cap, as psem_release_credit() does without
 * the lock, or to the balance if a lock-free path settled the word
 * meanwhile.
 */
static int psem_add_credit_locked(struct psem *sem, long n, long cap,
				  unsigned long ip)
{
	long cur = atomic_long_read(&sem->count);	/* rechecked */
	long new;

	do {
		if (!(cur & PSEM_WAITERS))	/* settled: see psem.h */
			return n ? psem_add_balance(sem, cur, n, ip) : 0;
		if (n > cap - psem_word_high(cur)) {
			/* The last add out of the field may be this one. */
			psem_settle(sem);
			return psem_refuse_capacity(n, cap, ip);
		}
		new = psem_credit_settled(cur + n * PSEM_HIGH_ONE);
		/* RELEASE: as in psem_release_credit(). */
	} while (!atomic_long_try_cmpxchg_release(&sem->count, &cur, new));
	return 0;
}

/*
 * The locked path of a release, and of a wait that ends early and gives
 * back its partial grant: debt first, then waiters, then the credit or the
 * balance. @n may be zero (a cancel that was assigned nothing), to settle
 * the word when the queue has emptied. Against the capacity @cap, or, for
 * PSEM_CAP_WORD, the one the word names (psem_add_locked()): a growing
 * psem_resize() adds before it writes the new limit.
 */
int psem_add_locked_cap(struct psem *sem, long n, long cap,
			struct psem_wake *wake, unsigned long ip)
{
	/* Relaxed: see below for why each value is stable or rechecked. */
	long cur = atomic_long_read(&sem->count), debt;

	lockdep_assert_held(&sem->lock);
	/* I1: nobody waits or owes; skip the walk. */
	if (!(cur & PSEM_WAITERS))
		return n ? psem_add_balance(sem, cur, n, ip) : 0;
	if (cap == PSEM_CAP_WORD)
		cap = psem_word_capacity(sem, cur);
	/* I3: nobody waits or owes either. */
	if (cur & PSEM_CREDIT)
		return psem_add_credit_locked(sem, n, cap, ip);

	/*
	 * I2: the count above the field is the debt, and only the lock
	 * holder writes it, so the debt stays exact until this path writes
	 * it; an add in flight changes only the field. Refuse a release that
	 * could not fit in the capacity even after paying the debt: no
	 * holder can have taken that many.
	 */
	debt = psem_word_debt(cur);
	if (unlikely(debt)) {
		long pay = min(n, debt);

		if (n - pay > cap)
			return psem_refuse_capacity(n, cap, ip);
		/* Relaxed RMW, as in psem_owe(). */
		atomic_long_sub(pay * PSEM_HIGH_ONE, &sem->count);
		if (pay < debt)
			return 0;	/* @n ran out first */
		n -= pay;
	} else if (n > cap) {
		return psem_refuse_capacity(n, cap, ip);
	}
	n = psem_hand_off(sem, n, wake);
	if (!psem_queue_empty(sem))
		return 0;	/* and @n is zero: the head took it all */
	/*
	 * The last waiter is served or gone and no debt is left: the rest
	 * becomes the credit, and the word settles if no add is in flight,
	 * so that it is never seen without the bit before the queue is empty
	 * (I1). RELEASE: pairs with the ACQUIRE of a later taker, ordering
	 * this caller's critical section before it. The rest is at most the
	 * capacity: no overflow. A psem_ext's word never settles: one add.
	 */
	cur = atomic_long_fetch_add_release(n * PSEM_HIGH_ONE + PSEM_CREDIT,
					    &sem->count);
	if (!(cur & PSEM_EXT))
		psem_settle(sem);
	return 0;
}

/*
 * Under the queue lock, for the hand-off of parked permits: how much of
 * the sum @n of several deferred releases the locked path accepts, as
 * psem_add_locked() judges one release. The excess, which only a release
 * of permits nobody held can bring, is refused here with the warning; the
 * rest is handed over, so that one bad release does not take the good
 * ones parked beside it down with it.
 */
static long psem_parked_fit(struct psem *sem, long n, unsigned long ip)
{
	long cur = atomic_long_read(&sem->count);	/* see psem_add_locked() */
	long cap = psem_word_capacity(sem, cur), fit;

	lockdep_assert_held(&sem->lock);
	if ((cur & (PSEM_WAITERS | PSEM_CREDIT)) == PSEM_WAITERS)
		fit = min(n, psem_word_debt(cur) + cap);
	else
		fit = clamp(cap - psem_word_balance(cur), 0L, n);
	if (fit < n)
		psem_refuse_ip(ip, "deferred releases of %ld exceed capacity %ld by %ld\n",
			       n, cap, n - fit);
	return fit;
}

static long psem_take_parked(struct psem *sem);

/*
 * The locked release of @n; with @parked, of the sum of the deferred
 * releases parked on @sem (@n is zero), which it takes under the lock.
 */
static int psem_release_now(struct psem *sem, long n, bool parked,
			    unsigned long ip)
{
	DEFINE_PSEM_WAKE(wake);
	unsigned long flags;
	int ret;

	psem_stat(PSEM_STAT_LOCKED_RELEASE);
	spin_lock_irqsave(&sem->lock, flags);
	if (parked)
		n = psem_take_parked(sem);
	trace_psem_release(sem, n, false);
	if (parked)
		n = psem_parked_fit(sem, n, ip);
	ret = psem_add_locked(sem, n, &wake, ip);
	spin_unlock_irqrestore(&sem->lock, flags);
	psem_wake_served(sem, &wake);
	/* The bit went under the lock: psem_sync() may be waiting for it. */
	if (parked)
		psem_let_go_wake(sem);
	return ret;
}

/*
 * The psems whose parked permits a hand-off is due for, each linked once
 * through &psem.kick by the release that set PSEM_PARKED_KICK, and the
 * irq_work that hands them over: one list for every psem, where each psem
 * once carried an irq_work of its own, and one work per CPU, queued only
 * by its own CPU, so that no two runs of one work overlap and
 * psem_kick_exit() can wait for each exactly (Documentation/design.rst,
 * "Releases from every context"). The works are set up by psem_kick_init(),
 * not by a static initializer: before 7.x the module loader did not
 * relocate a module's per-CPU template, and psem_kick_fn's address in it
 * reached every CPU's copy as NULL (6.1 and 6.12 oopsed on the first run).
 */
static LLIST_HEAD(psem_kick_list);
static DEFINE_PER_CPU(struct irq_work, psem_kick_work);

/*
 * A release that needs the queue lock where it may not be taken: adds @n
 * to &sem->pending, and unless a hand-off is due already (PSEM_PARKED_KICK
 * set), links @sem into psem_kick_list and queues this CPU's
 * psem_kick_work, both NMI-safe, to hand the parked permits over as a
 * locked release would, debt first and then FIFO. Its count is judged
 * there, under the lock (psem_parked_fit()): the capacity and the debt
 * cannot be read together without it (a shrinking resize writes the one
 * before the other), and a check here could refuse a release that the
 * locked path accepts. Only a sum over PSEM_PARKED_MAX, the range of
 * &sem->pending, is refused now, changing nothing.
 *
 * The release touches @sem last in its llist_add(), while the bit it set
 * is still set: only the hand-off's RMW under the queue lock clears it,
 * and psem_sync() waits for that (psem_has_let_go()).
 */
static int psem_park(struct psem *sem, long n, unsigned long ip)
{
	unsigned int parked;
	int old;

	psem_stat(PSEM_STAT_DEFERRED);
	old = atomic_read(&sem->pending);	/* relaxed: the cmpxchg decides */
	do {
		parked = (unsigned int)old / PSEM_PARKED_ONE;
		if (n > PSEM_PARKED_MAX - parked) {
			psem_refuse_ip(ip, "deferred release of %ld overflows %u parked\n",
				       n, parked);
			return -EOVERFLOW;
		}
		/*
		 * Fully ordered. As a RELEASE: orders the caller's critical
		 * section before the permits reach the hand-off; pairs with
		 * the ACQUIRE of the RMW in psem_take_parked(), whose locked
		 * release passes it on (RMW _release to a taker, ->done to a
		 * waiter). As a full barrier: orders the bit before whatever
		 * the caller does once the release returns, even a relaxed
		 * store that tells the owner, whose psem_sync() reads the
		 * bit after an smp_mb() (model/litmus/MP+kick+sync+once;
		 * a lock prefix on x86 either way). Every RMW of
		 * &sem->pending is ordered in its coherence order: one that
		 * finds the bit set comes before the hand-off's RMW that
		 * clears it, which takes its permits. The sum fits in 32
		 * bits: checked above against PSEM_PARKED_MAX.
		 */
	} while (!atomic_try_cmpxchg(&sem->pending, &old,
				     (int)(((parked + (unsigned int)n) *
					    PSEM_PARKED_ONE) | PSEM_PARKED_KICK)));
	if (!(old & PSEM_PARKED_KICK)) {
		/*
		 * Linked before the work is queued: irq_work_queue()'s claim
		 * is fully ordered, and a run that it starts, or one pending
		 * already, takes the list after it. No hand-off can unlink
		 * @sem before this: the bit keeps it off the list until here.
		 */
		llist_add(&sem->kick, &psem_kick_list);
		/* Every parking context is non-preemptible: this CPU's. */
		irq_work_queue(this_cpu_ptr(&psem_kick_work));
	}
	return 0;
}

/*
 * Under the queue lock: takes every permit parked on @sem and clears
 * PSEM_PARKED_KICK in one RMW, after which a parking release names @sem
 * again. Fully ordered, so ACQUIRE: pairs with the cmpxchg in psem_park().
 */
static long psem_take_parked(struct psem *sem)
{
	return (unsigned int)atomic_xchg(&sem->pending, 0) / PSEM_PARKED_ONE;
}

/*
 * psem_kick_fn - hand over the permits parked by deferred releases
 * @work: a CPU's psem_kick_work
 *
 * Runs where the queue lock may be taken (an irq_work without
 * IRQ_WORK_HARD_IRQ: the irq_work interrupt, which lockdep counts as
 * threadable, on !PREEMPT_RT; the irq_work thread on PREEMPT_RT), on two
 * CPUs at once when both queued their work: each takes the whole list it
 * finds, and hands over the parked permits of every psem on it as a
 * locked release does. An asynchronous callback whose grant comes from
 * here runs here.
 */
static void psem_kick_fn(struct irq_work *work)
{
	struct llist_node *due = llist_del_all(&psem_kick_list);
	struct psem *sem, *next;

	/*
	 * The _safe iterator reads the next psem before the hand-off
	 * clears @sem's bit, after which a release may link @sem again and
	 * psem_sync() may let its owner free it.
	 */
	llist_for_each_entry_safe(sem, next, due, kick)
		psem_release_now(sem, 0, true, _THIS_IP_);
}

/* At load, before any release: each CPU's hand-off work. */
void psem_kick_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		init_irq_work(per_cpu_ptr(&psem_kick_work, cpu), psem_kick_fn);
}

/*
 * When psem.ko goes: no CPU's hand-off is queued or running. Each CPU's
 * work is queued by that CPU alone, so no run of it overlaps another, and
 * irq_work_sync() finds it busy until its last run has returned.
 */
void psem_kick_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		irq_work_sync(per_cpu_ptr(&psem_kick_work, cpu));
}

int __psem_release_locked(struct psem *sem, long n, unsigned long ip)
{
	if (unlikely(psem_lock_forbidden()))
		return psem_park(sem, n, ip);
	return psem_release_now(sem, n, false, ip);
}

/*
 * An add of @n that found a plain psem's balance, with it, over
 * PSEM_MAX_PERMITS (psem_release_added()), refused: the add is taken back,
 * from the balance while it holds it, lock-free, else under the queue lock
 * as psem_reduce() takes, owing what a taker has had of it meanwhile. So
 * the refusal leaves the permits as they were, or owed exactly. Where that
 * cannot be done (NMI or a hard-only IRQ, where the lock may not be taken,
 * or a debt with no room left for it) a taker has had the permits: the
 * add stands, as a release, with the warning.
 */
static noinline __cold int psem_release_over(struct psem *sem, long n,
					     unsigned long ip)
{
	long cur = atomic_long_read(&sem->count);	/* rechecked */
	unsigned long flags;
	long owe;

	do {
		if (psem_word_balance(cur) < n || (cur & PSEM_WAITERS))
			goto locked;
		/* Relaxed: takes back what this call added; orders nothing. */
	} while (!atomic_long_try_cmpxchg_relaxed(&sem->count, &cur,
						  cur - n * PSEM_ONE));
	goto refuse;
locked:
	if (unlikely(psem_lock_forbidden()))
		goto stands;
	spin_lock_irqsave(&sem->lock, flags);
	/* The debt is at most PSEM_MAX_PERMITS: see psem_reduce(). */
	if (psem_debt_locked(sem) > PSEM_MAX_PERMITS - n) {
		spin_unlock_irqrestore(&sem->lock, flags);
		goto stands;
	}
	owe = n - psem_take_or_mark(sem, n);
	if (owe)
		psem_owe(sem, owe);
	spin_unlock_irqrestore(&sem->lock, flags);
refuse:
	psem_refuse_ip(ip, "release of %ld overflows the balance (capacity %ld)\n",
		       n, PSEM_MAX_PERMITS);
	return -EOVERFLOW;
stands:
	psem_refuse_ip(ip, "release of %ld over the capacity stands: taken already\n",
		       n);
	psem_account_fast_release(sem, n, true);
	return 0;
}

/*
 * The rest of psem_release_add(), whose add of @n found @old, not clean:
 * - closed, or flagged, and within PSEM_MAX_PERMITS: a release as it stands;
 * - over PSEM_MAX_PERMITS: refused and taken back (psem_release_over());
 * - waiting (PSEM_WAITERS): the add is in the field, its adder's alone:
 *   taken back at once, then released onto the credit lock-free
 *   (psem_release_credit()) or through the locked path, which parks it
 *   where the lock may not be taken. A psem_ext's word is always waiting.
 */
int psem_release_added(struct psem *sem, long old, long n, unsigned long ip)
{
	if (!(old & PSEM_WAITERS)) {
		/*
		 * Over the limit, whoever crossed it: an add onto another's
		 * overflow is taken back too, so that the limit holds in
		 * whatever order the two take back.
		 */
		if (n > PSEM_MAX_PERMITS - psem_word_balance(old))
			return psem_release_over(sem, n, ip);
		psem_account_fast_release(sem, n, true);
		return 0;
	}
	/*
	 * Relaxed: what this call put in the field, nobody else reads as
	 * permits or moves (psem.h), so its taking back orders nothing; a
	 * settle waits for it by its compare-exchange on the same word.
	 */
	atomic_long_sub(n * PSEM_ONE, &sem->count);
	/* A credit, seen by the add: no waiter, no debt (I3). */
	if ((old & PSEM_CREDIT) && psem_release_credit(sem, n)) {
		psem_account_fast_release(sem, n, true);
		return 0;
	}
	return __psem_release_locked(sem, n, ip);
}

/*
 * Ends @w's wait with @result (-ESHUTDOWN, -E2BIG) for psem_close() or
 * psem_resize(): moves it to @wake and returns what it was assigned, for
 * the caller to give back through psem_add_locked() once it has dealt with
 * every waiter.
 */
long psem_fail_waiter(struct psem *sem, struct psem_waiter *w, int result,
		      struct psem_wake *wake)
{
	long assigned = w->n - w->needed;

	lockdep_assert_held(&sem->lock);
	w->needed = 0;
	psem_dequeue(sem, w, result, wake);
	psem_stat(PSEM_STAT_CANCEL);
	return assigned;
}

/*
 * Takes a linked @w off the queue for good and gives what it was assigned
 * to the next waiters through the locked path, so nothing is lost.
 */
static void psem_unlink(struct psem *sem, struct psem_waiter *w,
			struct psem_wake *wake, unsigned long ip)
{
	lockdep_assert_held(&sem->lock);
	psem_queue_del(sem, w);
	atomic_set(&w->state, PSEM_W_IDLE);	/* under the lock */
	psem_stat(PSEM_STAT_CANCEL);
	/* At most the capacity: the balance was zero meanwhile. */
	psem_add_locked(sem, w->n - w->needed, wake, ip);
}

/*
 * Withdraws @w if it is still queued; returns false if it is not (never
 * queued, cancelled already, or served). For a waiter whose owner is not
 * the task in it: an asynchronous one. Any context that may take the
 * queue lock.
 */
bool psem_cancel(struct psem *sem, struct psem_waiter *w)
{
	unsigned long flags;
	DEFINE_PSEM_WAKE(wake);
	bool linked;

	spin_lock_irqsave(&sem->lock, flags);
	/* Under the lock: only psem_leave()'s cmpxchg changes it outside. */
	linked = atomic_read(&w->state) == PSEM_W_LINKED;
	if (linked)
		psem_unlink(sem, w, &wake, _RET_IP_);
	spin_unlock_irqrestore(&sem->lock, flags);
	psem_wake_served(sem, &wake);
	return linked;
}

/*
 * Ends the wait of the task in @w, which a signal or its timeout cut
 * short, unless something served it first; returns whether it withdrew.
 * It says so on its own waiter before it touches @sem: from then on a
 * server that dequeues it counts it in psem_leaving[] (psem_dequeue()),
 * and psem_wait_let_go() waits until this lock and unlock are over, so @sem
 * outlives them however the psem is closed, quiesced and freed meanwhile.
 * A task that was served first never touches @sem again.
 */
static bool psem_leave(struct psem *sem, struct psem_waiter *w)
{
	DEFINE_PSEM_WAKE(wake);
	bool left;

	/* Relaxed: decides the race only; see psem_dequeue(). */
	if (atomic_cmpxchg_relaxed(&w->state, PSEM_W_LINKED,
				   PSEM_W_LEAVING) != PSEM_W_LINKED)
		return false;
	spin_lock_irq(&sem->lock);
	/* Under the lock: a server's xchg to SERVED came first, or never. */
	left = atomic_read(&w->state) == PSEM_W_LEAVING;
	if (left)
		psem_unlink(sem, w, &wake, _RET_IP_);
	else
		/* Relaxed, under the lock, as psem_dequeue()'s increment. */
		atomic_dec(psem_let_go_var(sem));
	spin_unlock_irq(&sem->lock);
	if (left)
		psem_wake_served(sem, &wake);
	else
		psem_let_go_wake(sem);
	return left;
}

/*
 * Whether the queue has let go of @sem: under the queue lock, no task on
 * its way to the lock, no callbacks due.
 */
static bool psem_has_let_go(struct psem *sem)
{
	bool let_go;

	spin_lock_irq(&sem->lock);
	/*
	 * Only the hand-off's RMW, under this lock, clears the bit. The
	 * counter is relaxed: this psem's part of it changes only under this
	 * lock, and another psem's can only hold the answer at "not yet".
	 */
	let_go = !atomic_read(psem_let_go_var(sem)) &&
		 !(psem_is_ext(sem) && psem_ext_of(sem)->calls) &&
		 !(atomic_read(&sem->pending) & PSEM_PARKED_KICK);
	spin_unlock_irq(&sem->lock);
	return let_go;
}

/*
 * Waits until no task served on its way to cancel still has to take the
 * queue lock, and no path is calling back: after it, and after
 * psem_close(), nothing touches @sem for a wait that was queued on it.
 * Finding them gone under the lock also waits out their last unlock.
 * Process context.
 */
static void psem_wait_let_go(struct psem *sem)
{
	might_sleep();
	wait_var_event(psem_let_go_var(sem), psem_has_let_go(sem));
}

/**
 * psem_sync - wait until psem has let go of a psem
 * @sem: the semaphore
 *
 * Waits until no hand-off of permits that releases from NMI or a
 * hard-only IRQ parked on @sem is due, no path is calling back its
 * asynchronous waiters, and no task served on its way to cancel still has
 * to take its queue lock. Then
 * every permit parked before it began is with a waiter or in the balance.
 * psem_quiesce() ends with it, and so do psem_pool_destroy(),
 * psem_mutex_destroy() and psem_rwlock_destroy(); for a bare psem, call it
 * after the last release and before freeing the psem or unloading the
 * module it lives in. Releases made after it began may be missed. Process
 * context; sleeps.
 */
void psem_sync(struct psem *sem)
{
	/*
	 * Full barrier: orders what told the caller that its last release
	 * was made (the release's return, a permit seen home, a lock taken)
	 * before psem_has_let_go()'s read of &sem->pending, which then finds
	 * the bit that release set, or the hand-off's RMW that cleared it;
	 * pairs with the RELEASE cmpxchg in psem_park().
	 */
	smp_mb();
	psem_wait_let_go(sem);
}
EXPORT_SYMBOL_PSEM(psem_sync);

/*
 * A waiter that left the queue, but whose ->done is not published yet,
 * must not return: the task that dequeued it still reads its struct. The
 * wait is short: that task is between its unlock and its store.
 */
static void psem_wait_done(struct psem_waiter *w)
{
	for (;;) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		/* ACQUIRE: pairs with the RELEASE in psem_wake_served(). */
		if (smp_load_acquire(&w->done))
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
}

/* Sleeps until served, or until a signal or the timeout cancels the wait. */
static int psem_wait(struct psem *sem, struct psem_waiter *w,
		     unsigned int state, long timeout)
{
	int ret;

	for (;;) {
		set_current_state(state);
		/* ACQUIRE: pairs with the RELEASE in psem_wake_served(). */
		if (smp_load_acquire(&w->done)) {
			__set_current_state(TASK_RUNNING);
			return w->result;
		}
		if (signal_pending_state(state, current)) {
			ret = -EINTR;
			break;
		}
		if (unlikely(timeout <= 0)) {
			ret = -ETIME;
			break;
		}
		timeout = schedule_timeout(timeout);
	}
	__set_current_state(TASK_RUNNING);
	if (psem_leave(sem, w))
		return ret;
	/* It left the queue before it could cancel: that outcome stands. */
	psem_wait_done(w);
	return w->result;
}

/*
 * Links @w, which psem_take_or_mark() assigned all but @w->needed of @n,
 * at the tail of the queue. Called with the queue lock held and
 * PSEM_WAITERS set, so linking keeps I1.
 */
void psem_link(struct psem *sem, struct psem_waiter *w, long n,
	       enum psem_wait_kind kind, struct task_struct *task)
{
	lockdep_assert_held(&sem->lock);
	w->task = task;
	w->n = n;
	w->since = jiffies;
	w->kind = kind;
	w->result = 0;
	atomic_set(&w->state, PSEM_W_LINKED);	/* under the lock */
	w->done = false;
	psem_queue_add(sem, w);
	psem_stat(PSEM_STAT_SLEEP);
	trace_psem_wait_begin(sem, n, w->needed);
}

/*
 * Called with the queue lock held (irqs off) and PSEM_WAITERS set by
 * psem_take_or_mark(), which assigned @w the permits it could: links @w
 * for the rest, drops the lock and waits. Returns 0 once all @n permits
 * are assigned, or the error that ended the wait, having given back what
 * it was assigned.
 */
int psem_wait_queued(struct psem *sem, struct psem_waiter *w, long n,
		     enum psem_wait_kind kind, unsigned int state, long timeout)
	__releases(&sem->lock)
{
	int ret;

	psem_link(sem, w, n, kind, current);
	spin_unlock_irq(&sem->lock);

	ret = psem_wait(sem, w, state, timeout);
	/* Records @sem's address only; it is not dereferenced. */
	trace_psem_wait_end(sem, n, ret);
	return ret;
}

int __sched psem_acquire_slow(struct psem *sem, long n, unsigned int state,
			      long timeout)
{
	struct psem_waiter w;
	int ret;

	/* Callers with a lock-free take call might_sleep() after it. */
	might_sleep();
	spin_lock_irq(&sem->lock);
	ret = psem_refuse_wait(sem, n);
	if (ret) {
		spin_unlock_irq(&sem->lock);
		return ret;
	}
	w.needed = n - psem_take_or_mark(sem, n);
	if (!w.needed) {
		spin_unlock_irq(&sem->lock);
		return 0;
	}
	return psem_wait_queued(sem, &w, n, PSEM_WAIT_ACQUIRE, state, timeout);
}
