// SPDX-License-Identifier: GPL-2.0
/*
 * psem: a counting semaphore whose release adds permits lock-free while
 * nobody waits. This file holds the entry points that take and release
 * permits; the word's bits and the invariant they rest on are at PSEM_BIAS
 * in psem.h, the lock-free paths in psem_word.h, the add and the waiter
 * queue in psem_queue.[ch].
 *
 * Every write to the word is a read-modify-write, and each names at the
 * code what it orders and what it pairs with. Documentation/design.rst
 * proves the invariant and the ordering.
 */

#include <linux/export.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/debug.h>
#include <linux/spinlock.h>
#include <linux/threads.h>

#include "psem_queue.h"

/*
 * The footprint (Documentation/design.rst, "Footprint"): struct
 * semaphore's 24 bytes and one pointer more, where the queue lock is a
 * 4-byte spinlock (x86-64, no lock debugging, not PREEMPT_RT).
 */
#if defined(CONFIG_X86_64) && !defined(CONFIG_PREEMPT_RT) && \
	!defined(CONFIG_DEBUG_SPINLOCK) && !defined(CONFIG_DEBUG_LOCK_ALLOC)
static_assert(sizeof(struct psem) <= 32);
#endif

/*
 * The field's bound (psem.h, PSEM_ADD_MAX): at most one add in flight per
 * context, each of PSEM_ADD_MAX permits at most. The contexts: every
 * task, a preempted one's included (PID_MAX_LIMIT, and one more per CPU
 * for the idle tasks, which share pid 0), and per CPU one soft IRQ and as
 * many hard IRQs and NMIs as preempt_count() can nest. Not counted: a
 * probe handler (kprobe, ftrace) that itself releases onto the psem whose
 * add it interrupted, a second add in one context.
 */
#define PSEM_ADDERS_PER_CPU	(2L + (1L << HARDIRQ_BITS) + (1L << NMI_BITS))
#define PSEM_ADDERS_MAX		((long)PID_MAX_LIMIT + PSEM_ADDERS_PER_CPU * NR_CPUS)
static_assert(PSEM_ADDERS_MAX * PSEM_ADD_MAX * PSEM_ONE <= PSEM_FIELD);

/*
 * Refuses a count outside 0..PSEM_MAX_PERMITS. Out of line and cold, so
 * that the callers' fast paths carry only the range test.
 */
static noinline __cold int psem_bad_count(const char *fn, long n,
					  unsigned long ip)
{
	psem_refuse_ip(ip, "%s: count %ld out of range\n", fn, n);
	return -EINVAL;
}

/*
 * Sets up @sem with the word @word; every store unordered: the psem is not
 * yet shared (see the kernel-doc of psem_init()).
 */
static void psem_init_word(struct psem *sem, long word, const char *name,
			   struct lock_class_key *key)
{
	atomic_long_set(&sem->count, word);
	spin_lock_init(&sem->lock);
	lockdep_set_class_and_name(&sem->lock, key, name);
	atomic_set(&sem->pending, 0);
	sem->first = NULL;
	sem->kick.next = NULL;			/* linked only with the bit set */
}

/* A count to start with: @n, or zero with the refusal if out of range. */
static long psem_init_count(const char *fn, long n, unsigned long ip)
{
	if (!psem_count_out_of_range(n))
		return n;
	psem_bad_count(fn, n, ip);
	return 0;
}

void __psem_init(struct psem *sem, long permits, const char *name,
		 struct lock_class_key *key)
{
	permits = psem_init_count(__func__, permits, _RET_IP_);
	psem_init_word(sem, permits * PSEM_ONE, name, key);
}
EXPORT_SYMBOL_PSEM(__psem_init);

/*
 * A psem_ext's psem, its limit @limit: its word always waiting, its balance
 * the credit (psem.h, PSEM_EXT), as __PSEM_EXT_WORD() makes it.
 */
static void psem_init_ext_fields(struct psem_ext *ext, long permits,
				 unsigned long limit, const char *name,
				 struct lock_class_key *key)
{
	psem_init_word(&ext->sem, (long)(PSEM_BIAS | PSEM_WAITERS |
					 PSEM_CREDIT | PSEM_EXT) +
		       permits * PSEM_HIGH_ONE, name, key);
	ext->limit = limit;
	ext->calls = NULL;
}

void __psem_init_ext(struct psem_ext *ext, long permits, const char *name,
		     struct lock_class_key *key)
{
	permits = psem_init_count(__func__, permits, _RET_IP_);
	psem_init_ext_fields(ext, permits, PSEM_MAX_PERMITS * PSEM_ONE, name,
			     key);
}
EXPORT_SYMBOL_PSEM(__psem_init_ext);

int __psem_init_capacity(struct psem_ext *ext, long capacity,
			 const char *name, struct lock_class_key *key)
{
	long cap = psem_init_count(__func__, capacity, _RET_IP_);

	psem_init_ext_fields(ext, cap, cap * PSEM_ONE | PSEM_LIMIT_CAPPED,
			     name, key);
	return cap == capacity ? 0 : -EINVAL;
}
EXPORT_SYMBOL_PSEM(__psem_init_capacity);

/**
 * psem_try_acquire - take permits without sleeping
 * @sem: the semaphore
 * @n:   permits to take, 0..PSEM_MAX_PERMITS
 *
 * Takes all @n permits or none. Never sleeps and never takes the queue lock,
 * so it may be called from any context, hard IRQ included, on every kernel.
 * It never overtakes a waiter: while one is linked the balance is zero.
 *
 * Return: true if the permits were taken (for @n == 0: unless @sem is
 * closed, which refuses every take), false if too few were available, if
 * @sem is closed, or if @n is out of range (which also warns).
 */
bool psem_try_acquire(struct psem *sem, long n)
{
	if (psem_count_out_of_range(n))
		return !psem_bad_count(__func__, n, _RET_IP_);
	/* A credit (I3), and a psem_ext's balance, only out of line. */
	return psem_take(sem, n) || psem_take_range(sem, n, n);
}
EXPORT_SYMBOL_PSEM(psem_try_acquire);

/*
 * psem_release() of more than PSEM_ADD_MAX permits, or of a count out of
 * range: the read-first release. Out of line, so that the add-first one
 * keeps psem_release() to its few registers.
 */
static noinline int psem_release_large(struct psem *sem, long n,
				       unsigned long ip)
{
	if (psem_count_out_of_range(n))
		return psem_bad_count("psem_release", n, ip);
	if (psem_release_fast(sem, n))
		return 0;
	return __psem_release_locked(sem, n, ip);
}

/**
 * psem_release - return permits
 * @sem: the semaphore
 * @n:   permits to return, 0..PSEM_MAX_PERMITS
 *
 * While nobody waits this is lock-free at any balance: for up to
 * PSEM_ADD_MAX permits one fetch_add, which cannot fail; for more, one
 * compare-exchange, retried when another lock-free call changed the word
 * first (the positive-balance rule, selectable in debugfs, needs a
 * positive balance and goes to the lock when its one exchange loses). On
 * a psem_ext with nobody waiting it is lock-free too. Otherwise it takes
 * the queue lock, pays any debt, hands permits to the waiters in FIFO
 * order, wakes those it served once the lock is dropped, and adds what
 * remains to the balance. Never sleeps. Any context, NMI included, on every kernel:
 * where the queue lock may not be taken (NMI; a hard-only IRQ, such as a
 * _HARD hrtimer, on PREEMPT_RT and under lockdep's PROVE_RAW_LOCK_NESTING)
 * a release that needs it parks its permits and hands them over from an
 * irq_work (Documentation/api.rst, "Contexts"); an overflow is then
 * refused, with the warning, when the hand-off runs.
 *
 * Releases keep working on a closed psem, so that permits come home.
 *
 * Return: 0; -EINVAL if @n is out of range, or -EOVERFLOW if the balance
 * would exceed the capacity (PSEM_MAX_PERMITS for a psem without one), or
 * if, with waiters queued, @n less the debt exceeds the capacity. Both
 * warn and change nothing, closed state included: a release of up to
 * PSEM_ADD_MAX over PSEM_MAX_PERMITS, which adds first, is taken back,
 * and what a taker had of it meanwhile owed as a debt (Documentation/
 * design.rst, "The word of the add").
 */
int psem_release(struct psem *sem, long n)
{
	if (likely((unsigned long)n <= PSEM_ADD_MAX))
		return psem_release_small(sem, n, _RET_IP_);
	return psem_release_large(sem, n, _RET_IP_);
}
EXPORT_SYMBOL_PSEM(psem_release);

/**
 * psem_release_all_held - return permits from a holder of every permit
 * @sem: the semaphore
 * @n:   permits to return, 0..PSEM_MAX_PERMITS
 *
 * For callers that know the balance is zero because they hold all of it,
 * as a mutex or a rwlock writer does: while nobody waits this is one
 * compare-exchange from an empty word, with no probe of the balance. It is
 * correct, only slower, if the caller is wrong about the balance, and it
 * refuses to raise the balance above the capacity as psem_release() does.
 *
 * Return: as psem_release().
 */
int psem_release_all_held(struct psem *sem, long n)
{
	if (psem_count_out_of_range(n))
		return psem_bad_count(__func__, n, _RET_IP_);
	/*
	 * No capacity to check: the exchange is from a word of exactly zero,
	 * which a psem_ext's never is (PSEM_EXT), and @n is in range, the
	 * capacity of any other psem.
	 */
	if (psem_release_all_fast(sem, n))
		return 0;
	return __psem_release_locked(sem, n, _RET_IP_);
}
EXPORT_SYMBOL_PSEM(psem_release_all_held);

/* Why a take of @n that found too few permits failed, without waiting. */
static int psem_try_failed(struct psem *sem, long n)
{
	long cur = atomic_long_read(&sem->count);	/* relaxed: a snapshot */

	if (psem_word_closed(cur))
		return -ESHUTDOWN;
	return n > psem_word_capacity(sem, cur) ? -E2BIG : -ETIME;
}

static __always_inline int psem_acquire_common(struct psem *sem, long n,
					       unsigned int state, long timeout,
					       const char *fn, unsigned long ip)
{
	if (psem_count_out_of_range(n))
		return psem_bad_count(fn, n, ip);
	/*
	 * might_sleep() on both paths, after the take, so that the fast
	 * path ends in a tail call; a call from atomic context is reported
	 * whether it would have slept or not.
	 */
	if (psem_take(sem, n)) {
		might_sleep();
		return 0;
	}
	might_sleep();
	if (timeout <= 0)	/* a zero timeout only tries */
		return psem_try_failed(sem, n);
	return psem_acquire_slow(sem, n, state, timeout);
}

/**
 * psem_acquire - take permits, sleeping uninterruptibly until all are assigned
 * @sem: the semaphore
 * @n:   permits to take, 0..PSEM_MAX_PERMITS
 *
 * Waiters are served in FIFO order: a large request at the head is not
 * overtaken by later small ones. A waiter takes what is available at once,
 * links itself for the remainder, and is woken once releases assigned it.
 * Process context only.
 *
 * Return: 0; -ESHUTDOWN if @sem is closed, or psem_close() ended the
 * wait (holding nothing); -E2BIG if @n exceeds the capacity (at once), or
 * psem_resize() lowered the capacity below @n meanwhile (holding
 * nothing); -EINVAL (with a warning) if @n is out of range. On a closed
 * psem an oversized request gets -ESHUTDOWN.
 */
int __sched psem_acquire(struct psem *sem, long n)
{
	return psem_acquire_common(sem, n, TASK_UNINTERRUPTIBLE,
				   MAX_SCHEDULE_TIMEOUT, __func__, _RET_IP_);
}
EXPORT_SYMBOL_PSEM(psem_acquire);

/**
 * psem_acquire_interruptible - take permits, sleeping interruptibly
 * @sem: the semaphore
 * @n:   permits to take, 0..PSEM_MAX_PERMITS
 *
 * As psem_acquire(), but a signal ends the wait. The permits assigned to
 * the waiter so far then go back to the next waiters or the balance. A
 * waiter fully served by the time it sees the signal succeeds.
 * Process context only.
 *
 * Return: 0, -EINTR if interrupted (holding nothing), or as
 * psem_acquire(): -ESHUTDOWN, -E2BIG, -EINVAL.
 */
int __sched psem_acquire_interruptible(struct psem *sem, long n)
{
	return psem_acquire_common(sem, n, TASK_INTERRUPTIBLE,
				   MAX_SCHEDULE_TIMEOUT, __func__, _RET_IP_);
}
EXPORT_SYMBOL_PSEM(psem_acquire_interruptible);

/**
 * psem_acquire_killable - take permits, sleeping until served or killed
 * @sem: the semaphore
 * @n:   permits to take, 0..PSEM_MAX_PERMITS
 *
 * As psem_acquire_interruptible(), but only a fatal signal ends the wait.
 * Process context only.
 *
 * Return: 0, -EINTR if killed (holding nothing), or as psem_acquire():
 * -ESHUTDOWN, -E2BIG, -EINVAL.
 */
int __sched psem_acquire_killable(struct psem *sem, long n)
{
	return psem_acquire_common(sem, n, TASK_KILLABLE,
				   MAX_SCHEDULE_TIMEOUT, __func__, _RET_IP_);
}
EXPORT_SYMBOL_PSEM(psem_acquire_killable);

/**
 * psem_acquire_timeout - take permits, sleeping at most @timeout jiffies
 * @sem:     the semaphore
 * @n:       permits to take, 0..PSEM_MAX_PERMITS
 * @timeout: the longest wait in jiffies; 0 or less only tries
 *
 * As psem_acquire(), but gives up after @timeout jiffies; the permits
 * assigned so far then go back to the next waiters or the balance.
 * Process context only.
 *
 * Return: 0, -ETIME if the time ran out, or at once for a @timeout of 0
 * or less when too few are available (holding nothing), or as
 * psem_acquire(): -ESHUTDOWN, -E2BIG, -EINVAL.
 */
int __sched psem_acquire_timeout(struct psem *sem, long n, long timeout)
{
	return psem_acquire_common(sem, n, TASK_UNINTERRUPTIBLE, timeout,
				   __func__, _RET_IP_);
}
EXPORT_SYMBOL_PSEM(psem_acquire_timeout);

/**
 * psem_available - the permits that could be taken without waiting now
 * @sem: the semaphore
 *
 * A snapshot: it may be stale by the time the caller looks at it. Permits
 * that a release parked for a deferred hand-off (from NMI or a hard-only
 * IRQ) are not counted: they are on their way to a waiter or the balance,
 * and no taker can have them until the hand-off has run (psem_sync()
 * waits for it). So what this reports, psem_try_acquire() could take.
 *
 * Return: the balance (a credit, on a psem_ext's word or while a release
 * is between its add and its taking back: Documentation/design.rst, "The
 * word of the add"), 0..PSEM_MAX_PERMITS; for a moment more, while a
 * release over PSEM_MAX_PERMITS has yet to be taken back.
 */
long psem_available(const struct psem *sem)
{
	/* Relaxed: a snapshot that orders nothing. */
	return psem_word_balance(atomic_long_read(&sem->count));
}
EXPORT_SYMBOL_PSEM(psem_available);

/**
 * psem_drain - take whatever permits are available, up to a limit
 * @sem:   the semaphore
 * @up_to: the most permits to take, 0..PSEM_MAX_PERMITS
 *
 * Lock-free and never sleeps; any context, on every kernel. Like
 * psem_try_acquire() it never takes permits from a waiter.
 *
 * Return: the number of permits taken (the caller now holds them); 0 if
 * none are available, if @sem is closed, or if @up_to is out of range
 * (with a warning).
 */
long psem_drain(struct psem *sem, long up_to)
{
	if (psem_count_out_of_range(up_to)) {
		psem_bad_count(__func__, up_to, _RET_IP_);
		return 0;
	}
	/* A credit too (I3), but never from a waiter (I2). */
	return psem_take_range(sem, 1, up_to);
}
EXPORT_SYMBOL_PSEM(psem_drain);

/**
 * psem_reduce - lower the number of permits for good
 * @sem: the semaphore
 * @n:   permits to remove, 0..PSEM_MAX_PERMITS
 *
 * Removes exactly @n permits without sleeping: what the balance holds is
 * taken now; what is missing becomes a debt, queued ahead of every waiter,
 * that later releases pay before anybody is served. A debt sets
 * PSEM_WAITERS, so releases take the locked path until it is paid.
 * Context: any but NMI and hard-only IRQs, where it is refused.
 *
 * Return: 0; -EINVAL if @n is out of range or @sem has a capacity (use
 * psem_resize()); -EOVERFLOW if the debt would exceed PSEM_MAX_PERMITS;
 * -EPERM from a context where the queue lock may not be taken. All warn
 * and change nothing. An @n of 0 returns 0 at once, before those checks,
 * as every zero count does (Documentation/api.rst, "Counts").
 */
int psem_reduce(struct psem *sem, long n)
{
	unsigned long flags;
	int ret = 0;

	if (psem_count_out_of_range(n))
		return psem_bad_count(__func__, n, _RET_IP_);
	if (unlikely(!n))
		return 0;
	if (psem_capped(sem) &&
	    psem_refuse("reduce of a psem with a capacity; use psem_resize()\n"))
		return -EINVAL;
	if (psem_refuse_context())
		return -EPERM;
	spin_lock_irqsave(&sem->lock, flags);
	/* The debt a reduce may add is bounded by what it asks for. */
	if (psem_debt_locked(sem) > PSEM_MAX_PERMITS - n &&
	    psem_refuse_ip(_RET_IP_, "reduce by %ld overflows debt %ld\n",
			   n, psem_debt_locked(sem))) {
		ret = -EOVERFLOW;
		goto unlock;
	}
	n -= psem_take_or_mark(sem, n);
	/* Anything left means PSEM_WAITERS is set: I1 holds. */
	if (n)
		psem_owe(sem, n);
unlock:
	spin_unlock_irqrestore(&sem->lock, flags);
	return ret;
}
EXPORT_SYMBOL_PSEM(psem_reduce);

/**
 * psem_debt - the permits psem_reduce() still waits to remove
 * @sem: the semaphore
 *
 * A snapshot, like psem_available().
 *
 * Return: the outstanding debt.
 */
unsigned long psem_debt(struct psem *sem)
{
	/* Relaxed: a snapshot that orders nothing. */
	return psem_word_debt(atomic_long_read(&sem->count));
}
EXPORT_SYMBOL_PSEM(psem_debt);
