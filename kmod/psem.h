/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem: a counting semaphore whose release adds permits lock-free while
 * nobody waits: one fetch_add, for up to PSEM_ADD_MAX of them.
 *
 * See Documentation/design.rst for the design and the ordering argument.
 */
#ifndef _PSEM_H
#define _PSEM_H

#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/irq_work.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/lockdep.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "psem_compat.h"

/* Symbols are exported in namespace PSEM: consumers add MODULE_IMPORT_NS(PSEM_NS). */

/*
 * The atomic word, &psem.count. A release of up to PSEM_ADD_MAX permits
 * adds them first, with one fetch_add that cannot fail, and reads the
 * word it added onto afterwards (psem_release_add() in psem_queue.h); so
 * every state in which an add must not reach a taker makes the word
 * negative, and every lock holder reads it in a way such an add does not
 * disturb. What each bit means, and every place that sets or clears it,
 * is stated here once; the code points here, and Documentation/design.rst
 * ("The word") has the proof.
 *
 * Clean (PSEM_WAITERS clear): the balance times PSEM_ONE in bits 3..34
 * (at most PSEM_MAX_PERMITS), PSEM_CONTENDED, and, if closed, PSEM_BIAS
 * added. An add lands in the balance: it is a release.
 *
 * Waiting (PSEM_WAITERS set, PSEM_BIAS added): bits 3..29, PSEM_FIELD,
 * hold the adds in flight, each put there by a release that found the
 * word waiting and that takes its own back at once (nobody else reads or
 * moves them); bits 30..61 hold a count in units of PSEM_HIGH_ONE: the
 * debt, or with PSEM_CREDIT the credit, the balance of a word that is
 * waiting with nobody queued. A closed psem adds PSEM_BIAS once more.
 *
 * PSEM_BIAS - 3 << 62, added by PSEM_WAITERS and by the closed state
 * each: the top two bits count them modulo 4 (either alone gives 3, both
 * 2), so a word in either state is negative, and every lock-free take
 * fails its first test (cur < want), whatever an add put in the field.
 *   Set and cleared: with PSEM_WAITERS, and by psem_close() and
 *            psem_reopen() under the queue lock (a relaxed add and sub,
 *            which commute with the adds in flight).
 *
 * PSEM_WAITERS - a waiter (a task, a quiesce or an asynchronous waiter) is
 * linked, a debt is owed, or the word holds a credit. Set from the
 * start, and never cleared, on a psem_ext's psem (PSEM_EXT), whose
 * balance is always the credit.
 *   Set:     under the queue lock, only by psem_take_or_mark(), in the
 *            compare-exchange that drains the balance to zero before its
 *            caller links a waiter or records a debt.
 *   Cleared: only from a word with PSEM_CREDIT, no PSEM_EXT and an empty
 *            field (psem_credit_settled()), in the compare-exchange that
 *            moves the credit to the balance: by the lock holder that
 *            leaves the credit, or by the release or take that changes
 *            it, lock-free, or by the last release to take its add
 *            back out of the field.
 *   I1: clear => no waiter is linked and no debt is owed.
 *   I2: set without PSEM_CREDIT => the count above the field is the debt,
 *       and only holders of the queue lock write it.
 *   I3: PSEM_CREDIT => no waiter is linked and no debt is owed; lock-free
 *       takes and releases change the credit with compare-exchanges, and
 *       only a lock holder clears the flag (psem_take_or_mark()).
 *
 * PSEM_CREDIT - with PSEM_WAITERS: the count above the field is a credit.
 *   Set:     with the rest of a locked release once the queue is empty and
 *            no debt is owed (psem_add_locked()), and by psem_init_ext().
 *   Cleared: under the queue lock by psem_take_or_mark(), in the exchange
 *            that drains the credit before a waiter links or a debt is
 *            recorded, and with PSEM_WAITERS.
 *
 * PSEM_CONTENDED - without PSEM_WAITERS, the contention flag, a hint: a
 * locked release lost a race with a lock-free path, and lock-free releases
 * under the positive-balance rule should take the lock until its addition
 * lands. The same bit as PSEM_CREDIT.
 *   Set:     by psem_add_balance(), with a relaxed RMW, when its
 *            compare-exchange loses that race and the contention_flag
 *            switch is on.
 *   Cleared: by the same psem_add_balance() call, in the exchange that
 *            lands its addition, or on its overflow refusal, or when it
 *            finds the word waiting; so within one hold of the queue lock.
 *
 * PSEM_EXT - the psem is the @sem of a struct psem_ext, whose @limit
 * a release must respect.
 *   Set:     by psem_init_ext(), psem_init_capacity(), DEFINE_PSEM_EXT()
 *            and DEFINE_PSEM_CAPACITY(), with PSEM_WAITERS and PSEM_CREDIT,
 *            before the psem is shared; never cleared. An add onto its
 *            word lands in the field, and its credit is checked against
 *            @limit before it grows (psem_release_high()).
 */
#define PSEM_WAITERS		0x1L
#define PSEM_CONTENDED		0x2L
#define PSEM_CREDIT		PSEM_CONTENDED
#define PSEM_EXT		0x4L
#define PSEM_FLAGS		(PSEM_WAITERS | PSEM_CONTENDED)
#define PSEM_SHIFT		3
#define PSEM_ONE		8L	/* 1 << PSEM_SHIFT, signed */
#define PSEM_BLOCKED		LONG_MIN
#define PSEM_BIAS		(3UL << 62)
#define PSEM_HIGH_SHIFT		30
#define PSEM_HIGH_ONE		0x40000000L	/* 1 << PSEM_HIGH_SHIFT, signed */
#define PSEM_FIELD		(PSEM_HIGH_ONE - PSEM_ONE)
#define PSEM_NUM		((long)((1UL << 62) - PSEM_ONE))
#define PSEM_HIGH		((long)((1UL << 62) - PSEM_HIGH_ONE))

/*
 * The largest release that adds first. The adds in flight must never carry
 * out of the field: each context has at most one (a release takes its add
 * back before it returns or parks), so they are bounded by the tasks
 * (PID_MAX_LIMIT, 2^22) and the idle task and interrupt contexts of each
 * CPU (34 at most, as preempt_count() nests them; at most 2^13 CPUs),
 * times this: under 2^27 permits, the field's 27 bits (psem_core.c
 * asserts it).
 */
#define PSEM_ADD_MAX		16L

/*
 * &psem.pending: the permits parked by releases that could not take the
 * queue lock, times PSEM_PARKED_ONE, and PSEM_PARKED_KICK, set by the
 * release that names the psem for the hand-off, and cleared by the
 * hand-off's RMW that takes the permits (psem_park() in psem_queue.c).
 * Raised lock-free only by psem_park(); emptied only under the queue lock.
 */
#define PSEM_PARKED_KICK	0x1U
#define PSEM_PARKED_ONE		2U

/*
 * &psem_ext.limit's low bit: the psem_ext was created with a capacity. The
 * limit is a multiple of PSEM_ONE, so no comparison with it changes for
 * the bit, and psem_capacity() shifts it out.
 */
#define PSEM_LIMIT_CAPPED	0x1UL

/*
 * The largest balance a psem can hold, the largest count one call takes,
 * the largest debt and the largest credit: what the 32 bits above the
 * field hold, and the balance's bits 3..34 below PSEM_BIAS, with room for
 * the adds in flight.
 */
#define PSEM_MAX_PERMITS	((long)U32_MAX)

/*
 * The most permits parked on one psem at once, by releases from NMI or a
 * hard-only IRQ that the hand-off has yet to take: the range of
 * &psem.pending, 32 bits beside the queue lock, read as unsigned. A
 * deferred release that would park more is refused, so a primitive whose
 * release cannot fail keeps at most this many permits out (the rwlock's
 * writer holds 2^30).
 */
#define PSEM_PARKED_MAX		((long)(UINT_MAX / PSEM_PARKED_ONE))

struct psem_async;
struct psem_calls;
struct psem_waiter;

/**
 * struct psem - a counting semaphore with a lock-free release
 * @count: the balance (permits available to acquirers, 0..PSEM_MAX_PERMITS)
 *         times PSEM_ONE; or, while PSEM_WAITERS is set, the debt or the
 *         credit above the adds in flight; plus the flags and PSEM_BIAS
 *         (their rules are at PSEM_BIAS). A debt is the permits
 *         psem_reduce() or a shrinking psem_resize() could not take at
 *         once, which releases pay before any waiter.
 * @lock:  the queue lock
 * @pending: permits released where @lock may not be taken (NMI, a
 *         hard-only IRQ), times PSEM_PARKED_ONE, or'ed with
 *         PSEM_PARKED_KICK while a hand-off of them is due: the irq_work
 *         of the parking CPU, one per CPU for all psems, hands them over
 *         through the locked path, from a context where @lock may be
 *         taken (psem_park() in psem_queue.c). An int, in the room the
 *         lock leaves before @first.
 * @first: the oldest waiter, or NULL: the waiters are linked through
 *         &psem_waiter.node in a circular list with no list head, oldest
 *         first (psem_queue_add()). Protected by @lock.
 * @kick:  links the psem into the list of those a hand-off is due for,
 *         while PSEM_PARKED_KICK is set
 *
 * The fields are private to psem; use the functions below. The tasks
 * served on their way to cancel their wait, which still take @lock once,
 * are counted outside it, in a table hashed by its address (psem_queue.c).
 */
struct psem {
	atomic_long_t		count;
	spinlock_t		lock;	/* the queue lock: @first */
	atomic_t		pending;
	struct psem_waiter	*first;
	struct llist_node	kick;
};

/**
 * struct psem_ext - a psem with the state only some psems need
 * @sem:   the psem; every call but the initialisers takes &@sem
 * @limit: the capacity times PSEM_ONE, or'ed with PSEM_LIMIT_CAPPED for a
 *         psem created with one (psem_init_capacity()); PSEM_MAX_PERMITS
 *         times PSEM_ONE without (psem_init_ext()). A lock-free release
 *         that would raise the balance above it takes the locked path,
 *         which refuses it. Written by psem_resize() under the queue lock.
 * @calls: the served asynchronous waiters whose callbacks are due, and
 *         the one whose callback runs now (struct psem_calls), owned by
 *         the one path that is calling them back (on its stack), or NULL.
 *         Protected by &@sem.lock.
 *
 * A capacity (psem_capacity(), psem_resize(), psem_quiesce()) and
 * asynchronous waiters (psem_acquire_async() and the calls after it) are
 * for a psem_ext's psem only: PSEM_EXT in its word says so, and tells the
 * lock-free release to read @limit here. Any other psem's capacity is
 * PSEM_MAX_PERMITS, which the word itself enforces, and it has no
 * asynchronous waiters, so it carries neither field. The fields are
 * private to psem.
 */
struct psem_ext {
	struct psem		sem;
	unsigned long		limit;
	struct psem_calls	*calls;
};

/* What a queued waiter is. */
enum psem_wait_kind {
	PSEM_WAIT_ACQUIRE,	/* a task in psem_acquire*() */
	PSEM_WAIT_QUIESCE,	/* a task in psem_quiesce*(): wants all */
	PSEM_WAIT_ASYNC,	/* a struct psem_async: a callback, no task */
};

/**
 * struct psem_waiter - an entry in a psem's FIFO queue (private to psem)
 * @node:     links the waiter into the queue (&psem.first), then, once
 *            it leaves the queue, into a private wake list
 * @task:     the task that waits (NULL for an asynchronous waiter)
 * @n:        the permits asked for (for a quiesce: the capacity)
 * @needed:   permits still missing; lowered by releases under the queue
 *            lock
 * @since:    jiffies when it linked, for the debugfs view
 * @kind:     &enum psem_wait_kind
 * @result:   0 when served, or why the wait failed (-ESHUTDOWN, -E2BIG);
 *            written under the queue lock before the waiter leaves it
 * @state:    PSEM_W_IDLE, _LINKED, _LEAVING or _SERVED (psem_queue.c):
 *            written under the queue lock, but for the one lock-free
 *            LINKED -> LEAVING of a task that gives up its wait
 * @done:     for a task: set with smp_store_release() by the task that
 *            moved the waiter to its wake list, after the queue lock is
 *            dropped; from then on that task no longer touches this
 *            struct, which lives on the waiter's stack
 */
struct psem_waiter {
	struct list_head	node;
	struct task_struct	*task;
	long			n;
	long			needed;
	unsigned long		since;
	enum psem_wait_kind	kind;
	int			result;
	atomic_t		state;
	bool			done;
};

/*
 * The queue, under &psem.lock (private to psem): &psem.first is the oldest
 * waiter, and &psem_waiter.node links the waiters in a circular list with
 * no list head, as 7.1's struct semaphore links its waiters from
 * first_waiter: a pointer in the psem where a list_head would take twice
 * the room. &psem.first is written with WRITE_ONCE(), so that
 * psem_queue_empty() may also be a lockless peek (a test's, a benchmark's).
 */
static inline bool psem_queue_empty(const struct psem *sem)
{
	return !READ_ONCE(sem->first);
}

/* Links @w at the tail. */
static inline void psem_queue_add(struct psem *sem, struct psem_waiter *w)
{
	if (sem->first) {
		list_add_tail(&w->node, &sem->first->node);
	} else {
		INIT_LIST_HEAD(&w->node);
		WRITE_ONCE(sem->first, w);
	}
}

/* Unlinks @w, which is linked; its node is left unlinked, not reset. */
static inline void psem_queue_del(struct psem *sem, struct psem_waiter *w)
{
	if (list_empty(&w->node)) {	/* alone: its node points at itself */
		WRITE_ONCE(sem->first, NULL);
		return;
	}
	if (sem->first == w)
		WRITE_ONCE(sem->first, list_next_entry(w, node));
	list_del(&w->node);
}

/* The waiter after @w, or NULL after the newest. */
static inline struct psem_waiter *psem_queue_next(const struct psem *sem,
						  struct psem_waiter *w)
{
	struct psem_waiter *next = list_next_entry(w, node);

	return next == sem->first ? NULL : next;
}

/*
 * Every waiter, oldest first. The _safe form reads the next one before
 * the body may unlink @w with psem_queue_del().
 */
#define psem_for_each_waiter(w, sem)					\
	for (w = (sem)->first; w; w = psem_queue_next(sem, w))
#define psem_for_each_waiter_safe(w, next, sem)				\
	for (w = (sem)->first; w && ((next = psem_queue_next(sem, w)), 1); \
	     w = next)

/**
 * typedef psem_async_fn - completes an asynchronous acquire
 * @aw:     the waiter given to psem_acquire_async()
 * @result: 0 when all the permits are assigned (the caller now holds
 *          them); -ESHUTDOWN or -E2BIG when psem_close() or psem_resize()
 *          ended the wait (holding nothing)
 *
 * Runs exactly once per queued @aw, in the context of the release (or
 * close, or resize) that completed it, which may be hard IRQ: it must not
 * sleep. It runs after the queue lock is dropped, so it may call into the
 * same psem. From the call on, psem no longer touches @aw: the callback may
 * free or reuse it.
 */
typedef void (*psem_async_fn)(struct psem_async *aw, int result);

/**
 * struct psem_async - an asynchronous waiter, embedded by its owner
 * @w:  the queue entry (private to psem)
 * @fn: the callback (private to psem; set by psem_acquire_async())
 */
struct psem_async {
	struct psem_waiter	w;
	psem_async_fn		fn;
};

/* A negative count, or one over PSEM_MAX_PERMITS, does not compile. */
#define __PSEM_COUNT_INIT(permits)					\
	(BUILD_BUG_ON_ZERO((permits) < 0 || (permits) > PSEM_MAX_PERMITS) + \
	 (long)(permits) * PSEM_ONE)

#define __PSEM_INITIALIZER(name, word)					\
{									\
	.count		= ATOMIC_LONG_INIT(word),			\
	.lock		= __SPIN_LOCK_UNLOCKED((name).lock),		\
	.pending	= ATOMIC_INIT(0),				\
	.first		= NULL,						\
	.kick		= { NULL },					\
}

/**
 * DEFINE_PSEM - define and initialise a psem in static storage
 * @name:    the variable's name
 * @permits: the initial balance, a constant 0..PSEM_MAX_PERMITS; anything
 *           else fails to compile
 *
 * For static (file-scope or static local) variables only, as with
 * DEFINE_SEMAPHORE(): lockdep keys the queue lock by its address. Use
 * psem_init() for a psem on the stack or in allocated memory.
 */
#define DEFINE_PSEM(name, permits)					\
	struct psem name = __PSEM_INITIALIZER(name, __PSEM_COUNT_INIT(permits))

/* A psem_ext's first word: its balance a credit (psem.h, PSEM_EXT). */
#define __PSEM_EXT_WORD(permits)					\
	((long)(PSEM_BIAS | PSEM_WAITERS | PSEM_CREDIT | PSEM_EXT) +	\
	 __PSEM_COUNT_INIT(permits) / PSEM_ONE * PSEM_HIGH_ONE)

#define __PSEM_EXT_INITIALIZER(name, permits, lim)			\
{									\
	.sem	= __PSEM_INITIALIZER((name).sem, __PSEM_EXT_WORD(permits)), \
	.limit	= (lim),						\
	.calls	= NULL,							\
}

/**
 * DEFINE_PSEM_EXT - define a psem that may have asynchronous waiters, in
 *                   static storage
 * @name:    the variable's name, a struct psem_ext
 * @permits: the initial balance, a constant 0..PSEM_MAX_PERMITS
 *
 * As DEFINE_PSEM(), for a psem whose &@name.sem psem_acquire_async() and
 * psem_acquire_async_work() may queue on; without a capacity.
 */
#define DEFINE_PSEM_EXT(name, permits)					\
	struct psem_ext name = __PSEM_EXT_INITIALIZER(name, permits,	\
				__PSEM_COUNT_INIT(PSEM_MAX_PERMITS))

/**
 * DEFINE_PSEM_CAPACITY - define a psem with a capacity, in static storage
 * @name:     the variable's name, a struct psem_ext
 * @capacity: the capacity, a constant 0..PSEM_MAX_PERMITS; all of it is
 *            available at first
 *
 * As DEFINE_PSEM_EXT(), for a psem whose permits psem_capacity() reports
 * and psem_resize() and psem_quiesce() manage.
 */
#define DEFINE_PSEM_CAPACITY(name, capacity)				\
	struct psem_ext name = __PSEM_EXT_INITIALIZER(name, capacity,	\
				__PSEM_COUNT_INIT(capacity) | PSEM_LIMIT_CAPPED)

void __psem_init(struct psem *sem, long permits, const char *name,
		 struct lock_class_key *key);
void __psem_init_ext(struct psem_ext *ext, long permits, const char *name,
		     struct lock_class_key *key);
int __psem_init_capacity(struct psem_ext *ext, long capacity,
			 const char *name, struct lock_class_key *key);

/**
 * psem_init - initialise a psem at run time
 * @sem:     the semaphore
 * @permits: the initial balance, 0..PSEM_MAX_PERMITS; a negative value is
 *           refused with a warning and leaves a balance of zero
 *
 * Each call site gets its own lockdep class for the queue lock, as
 * init_waitqueue_head() does. Must not be called on a psem in use.
 */
#define psem_init(sem, permits)						\
do {									\
	static struct lock_class_key __psem_key;			\
									\
	__psem_init((sem), (permits), #sem, &__psem_key);		\
} while (0)

/**
 * psem_init_ext - initialise a psem that may have asynchronous waiters, at
 *                 run time
 * @ext:     the struct psem_ext; use &@ext->sem from then on
 * @permits: as psem_init()'s
 *
 * As psem_init(), for a psem that psem_acquire_async() and
 * psem_acquire_async_work() may queue on: a plain struct psem refuses
 * them. Without a capacity (see psem_init_capacity()).
 */
#define psem_init_ext(ext, permits)					\
do {									\
	static struct lock_class_key __psem_key;			\
									\
	__psem_init_ext((ext), (permits), #ext, &__psem_key);		\
} while (0)

/**
 * psem_init_capacity - initialise a psem with a capacity at run time
 * @ext:      the struct psem_ext; use &@ext->sem from then on
 * @capacity: 0..PSEM_MAX_PERMITS; all of it is available at first
 *
 * A psem with a capacity refuses at once a request it could never meet
 * (-E2BIG) and a release that would raise its balance above the capacity
 * (-EOVERFLOW); psem_resize() changes the capacity with permits out and
 * psem_quiesce() waits for all of them to come home. Lockdep classes as
 * psem_init(). Must not be called on a psem in use.
 *
 * Return: 0, or -EINVAL (with a warning) for a capacity out of range,
 * which leaves a psem of capacity zero.
 */
#define psem_init_capacity(ext, capacity)				\
({									\
	static struct lock_class_key __psem_key;			\
									\
	__psem_init_capacity((ext), (capacity), #ext, &__psem_key);	\
})

/* Taking and releasing permits (kmod/psem_core.c; psem_sync(): psem_queue.c). */
bool __must_check psem_try_acquire(struct psem *sem, long n);
int __must_check psem_acquire(struct psem *sem, long n);
int __must_check psem_acquire_interruptible(struct psem *sem, long n);
int __must_check psem_acquire_killable(struct psem *sem, long n);
int __must_check psem_acquire_timeout(struct psem *sem, long n, long timeout);
int psem_release(struct psem *sem, long n);
int psem_release_all_held(struct psem *sem, long n);
long psem_available(const struct psem *sem);
void psem_sync(struct psem *sem);
long psem_drain(struct psem *sem, long up_to);
int psem_reduce(struct psem *sem, long n);
unsigned long psem_debt(struct psem *sem);

/* Lifecycle and capacity (kmod/psem_lifecycle.c; psem_capacity(): psem_word.c). */
long psem_capacity(const struct psem *sem);
int psem_resize(struct psem *sem, long capacity);
int psem_close(struct psem *sem);
int psem_reopen(struct psem *sem);
bool psem_is_closed(const struct psem *sem);
int __must_check psem_quiesce(struct psem *sem, long timeout);
int __must_check psem_quiesce_killable(struct psem *sem, long timeout);

/* Asynchronous waiters (kmod/psem_async.c). */
int psem_acquire_async(struct psem *sem, long n, struct psem_async *aw,
		       psem_async_fn fn);
bool psem_cancel_async(struct psem *sem, struct psem_async *aw);
bool psem_cancel_async_sync(struct psem *sem, struct psem_async *aw);

/**
 * struct psem_async_work - an asynchronous waiter completed in process context
 * @aw:     the waiter (private)
 * @work:   queued on system_wq when the wait completes; its function reads
 *          @result and, when it is 0, holds the permits
 * @result: as for &psem_async_fn
 * @queued: how many times a completed wait queued @work (private: for
 *          psem_cancel_async_work_sync(); in what was padding)
 */
struct psem_async_work {
	struct psem_async	aw;
	struct work_struct	work;
	int			result;
	unsigned int		queued;
};

/**
 * psem_init_async_work - prepare a work waiter, once
 * @aww: the waiter
 * @fn:  its work function
 *
 * INIT_WORK() of @aww->work, once, before the first
 * psem_acquire_async_work(), as INIT_WORK() is for any work item: never
 * again while the work may be queued or running. A macro, so that lockdep
 * keys each call site's work as INIT_WORK() does.
 */
#define psem_init_async_work(aww, fn)					\
do {									\
	INIT_WORK(&(aww)->work, (fn));					\
	(aww)->queued = 0;						\
} while (0)

int psem_acquire_async_work(struct psem *sem, long n,
			    struct psem_async_work *aww);
bool psem_cancel_async_work_sync(struct psem *sem, struct psem_async_work *aww);
/* For consumers that build against psem versions without it. */
#define PSEM_HAVE_CANCEL_ASYNC_WORK_SYNC 1

/* A debugfs view of one psem and its waiters (kmod/psem_view.c). */
int psem_debugfs_register(struct psem *sem, const char *name);
int psem_debugfs_unregister(struct psem *sem);

#endif /* _PSEM_H */
