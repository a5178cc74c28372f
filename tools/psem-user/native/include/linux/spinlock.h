/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The native benchmark's spinlock: a ticket lock that spins, as the
 * kernel's spinlock does, instead of the TSan shim's pthread mutex (which
 * sleeps in the futex once it has spun a little). It replaces
 * ../../include/linux/spinlock.h for the native build only.
 *
 * One 32-bit word, as the kernel's qspinlock: the ticket being served in
 * the low half, the next ticket in the high half. Uncontended, a lock is
 * one locked add (the qspinlock's is one compare-exchange) and an unlock
 * one release store of the low half (the qspinlock's is a byte store).
 * A waiter spins with PAUSE, in arrival order, as the qspinlock's queue
 * does.
 *
 * Where it differs from the kernel (Documentation/benchmarks.rst, "Native"):
 * the _irq and _irqsave forms do not disable interrupts (there are none)
 * and no form disables preemption, so a holder can be preempted by the
 * host's scheduler, which a kernel spinlock holder never is. A waiter
 * yields its CPU after every 2^16 PAUSEs (0.3 to 4 ms, by CPU model) and
 * counts each yield in psem_native_spin_yields, so that the run can say
 * whether that ever happened.
 */
#ifndef _PSEM_NATIVE_LINUX_SPINLOCK_H
#define _PSEM_NATIVE_LINUX_SPINLOCK_H
/* The shim's own spinlock.h must never be seen in this build. */
#define _PSEM_SHIM_LINUX_SPINLOCK_H

#include <linux/compiler.h>
#include <linux/lockdep.h>
#include <linux/preempt.h>
#include <linux/types.h>

typedef struct spinlock {
	union {
		u32	val;		/* owner | next << 16 */
		struct {
			u16	owner;	/* the ticket being served */
			u16	next;	/* the next ticket to hand out */
		};
	};
} spinlock_t;
typedef spinlock_t raw_spinlock_t;

#define PSEM_NATIVE_TICKET	(1U << 16)

#define __SPIN_LOCK_UNLOCKED(name)	{ { .val = 0 } }
#define __RAW_SPIN_LOCK_UNLOCKED(name)	__SPIN_LOCK_UNLOCKED(name)
#define DEFINE_SPINLOCK(x)	spinlock_t x = __SPIN_LOCK_UNLOCKED(x)

extern unsigned long psem_native_spin_yields;
void psem_native_spin_wait(spinlock_t *lock, u16 ticket);

static __always_inline void psem_native_spin_init(spinlock_t *lock)
{
	__atomic_store_n(&lock->val, 0, __ATOMIC_RELAXED);
}

static __always_inline void psem_native_spin_lock(spinlock_t *lock)
{
	/*
	 * Acquire: the critical section after a lock taken at once; pairs
	 * with the release in psem_native_spin_unlock(). A waiter's acquire
	 * is the load in psem_native_spin_wait().
	 */
	u32 old = __atomic_fetch_add(&lock->val, PSEM_NATIVE_TICKET,
				     __ATOMIC_ACQUIRE);

	if (likely((u16)old == (u16)(old >> 16)))
		return;
	psem_native_spin_wait(lock, old >> 16);
}

static __always_inline int psem_native_spin_trylock(spinlock_t *lock)
{
	u32 old = __atomic_load_n(&lock->val, __ATOMIC_RELAXED);

	if ((u16)old != (u16)(old >> 16))
		return 0;
	/* Acquire, as in psem_native_spin_lock(); a failure orders nothing. */
	return __atomic_compare_exchange_n(&lock->val, &old,
					   old + PSEM_NATIVE_TICKET, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static __always_inline void psem_native_spin_unlock(spinlock_t *lock)
{
	/*
	 * Release: the critical section before the next holder's; pairs with
	 * the acquire of psem_native_spin_lock() or psem_native_spin_wait().
	 * Only the holder writes the owner half.
	 */
	__atomic_store_n(&lock->owner,
			 (u16)(__atomic_load_n(&lock->owner, __ATOMIC_RELAXED) + 1),
			 __ATOMIC_RELEASE);
}

static __always_inline int psem_native_spin_is_locked(spinlock_t *lock)
{
	/* A peek, ordered by nothing. */
	u32 v = __atomic_load_n(&lock->val, __ATOMIC_RELAXED);

	return (u16)v != (u16)(v >> 16);
}

#define spin_lock_init(l)		psem_native_spin_init(l)
#define raw_spin_lock_init(l)		psem_native_spin_init(l)
#define spin_lock(l)			psem_native_spin_lock(l)
#define spin_unlock(l)			psem_native_spin_unlock(l)
#define spin_trylock(l)			psem_native_spin_trylock(l)
#define spin_is_locked(l)		psem_native_spin_is_locked(l)
#define spin_lock_irq(l)		psem_native_spin_lock(l)
#define spin_unlock_irq(l)		psem_native_spin_unlock(l)
#define spin_lock_bh(l)			psem_native_spin_lock(l)
#define spin_unlock_bh(l)		psem_native_spin_unlock(l)
#define spin_lock_irqsave(l, f)						\
	do { (f) = 0; psem_native_spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, f)					\
	do { (void)(f); psem_native_spin_unlock(l); } while (0)
#define raw_spin_lock(l)		psem_native_spin_lock(l)
#define raw_spin_unlock(l)		psem_native_spin_unlock(l)
#define raw_spin_lock_irq(l)		psem_native_spin_lock(l)
#define raw_spin_unlock_irq(l)		psem_native_spin_unlock(l)
#define raw_spin_lock_irqsave(l, f)	spin_lock_irqsave(l, f)
#define raw_spin_unlock_irqrestore(l, f) spin_unlock_irqrestore(l, f)
/* As without CONFIG_LOCKDEP: production kernels check nothing. */
#define assert_spin_locked(l)		do { (void)(l); } while (0)

/* No interrupts here: see the top. The context tests: <linux/preempt.h>. */
#define local_irq_save(f)		do { (f) = 0; } while (0)
#define local_irq_restore(f)		do { (void)(f); } while (0)
#define local_irq_disable()		do { } while (0)
#define local_irq_enable()		do { } while (0)

#endif /* _PSEM_NATIVE_LINUX_SPINLOCK_H */
