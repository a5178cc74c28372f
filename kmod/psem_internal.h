/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What psem's own objects share: the static keys behind the switches
 * (psem_switch.c), the per-CPU counters, the range check and the refusal
 * helper. The layers above it: psem_word.h (the atomic word), psem_queue.h
 * (the waiter queue), then psem_core.c, psem_lifecycle.c and psem_async.c,
 * then the primitives (Documentation/design.rst, "Layers").
 */
#ifndef _PSEM_INTERNAL_H
#define _PSEM_INTERNAL_H

#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/container_of.h>
#include <linux/jump_label.h>
#include <linux/overflow.h>
#include <linux/percpu.h>

#include "psem.h"
#include "psem_knobs.h"
#include "psem_trace.h"

DECLARE_STATIC_KEY_TRUE(psem_fast_release_key);
DECLARE_STATIC_KEY_TRUE(psem_zero_release_key);
/*
 * On exactly when both of the above are: the waiters-bit rule, the
 * default (psem_switch.c says which switches make which rule).
 */
DECLARE_STATIC_KEY_TRUE(psem_waiters_bit_rule_key);
DECLARE_STATIC_KEY_TRUE(psem_contention_flag_key);
DECLARE_STATIC_KEY_FALSE(psem_stats_key);

/*
 * Whether @n is outside 0..PSEM_MAX_PERMITS, the range of every count the
 * entry points take: a negative @n converts to an unsigned value above it,
 * so one compare tests both ends. Zero is in range: it goes through the
 * paths like any count and changes nothing.
 */
static __always_inline bool psem_count_out_of_range(long n)
{
	return unlikely((unsigned long)n > PSEM_MAX_PERMITS);
}

/*
 * Whether @sem is the psem of a struct psem_ext: PSEM_EXT, set before
 * the psem is shared and never cleared (psem.h), so a relaxed read.
 */
static inline bool psem_is_ext(const struct psem *sem)
{
	return atomic_long_read(&sem->count) & PSEM_EXT;
}

/* The struct psem_ext of @sem, which psem_is_ext(). */
static inline struct psem_ext *psem_ext_of(const struct psem *sem)
{
	return container_of(sem, struct psem_ext, sem);
}

/*
 * &psem_ext.limit of a psem with PSEM_EXT set: the capacity times
 * PSEM_ONE, or'ed with PSEM_LIMIT_CAPPED if it was created with one. A
 * snapshot: psem_resize() writes it under the queue lock.
 */
static inline unsigned long psem_ext_limit(const struct psem *sem)
{
	return READ_ONCE(psem_ext_of(sem)->limit);
}

/* Whether @sem was created with a capacity: PSEM_LIMIT_CAPPED, never cleared. */
static inline bool psem_capped(const struct psem *sem)
{
	return psem_is_ext(sem) && (psem_ext_limit(sem) & PSEM_LIMIT_CAPPED);
}

/*
 * The count above the field in a word read as @cur: the debt or the credit
 * while PSEM_WAITERS is set (psem.h).
 */
static inline long psem_word_high(long cur)
{
	return (cur & PSEM_HIGH) >> PSEM_HIGH_SHIFT;
}

/* The debt in @cur: the count above the field without PSEM_CREDIT (I2). */
static inline long psem_word_debt(long cur)
{
	return (cur & (PSEM_WAITERS | PSEM_CREDIT)) == PSEM_WAITERS ?
	       psem_word_high(cur) : 0;
}

/* Whether @cur holds a credit (I3), which may be zero. */
static inline bool psem_word_has_credit(long cur)
{
	return (cur & (PSEM_WAITERS | PSEM_CREDIT)) ==
	       (PSEM_WAITERS | PSEM_CREDIT);
}

/*
 * Whether @cur is closed: the top two bits count PSEM_BIAS modulo 4, once
 * for the closed state and once for PSEM_WAITERS (psem.h). Not negative,
 * not closed: the common case, one test.
 */
static inline bool psem_word_closed(long cur)
{
	return unlikely(cur < 0) &&
	       ((unsigned long)cur >> 62) + (cur & PSEM_WAITERS) == 3;
}

/*
 * The debt of @sem, under the queue lock: with PSEM_WAITERS set and no
 * credit only the lock holder writes it (I2). Relaxed: the lock orders it.
 */
static inline long psem_debt_locked(struct psem *sem)
{
	return psem_word_debt(atomic_long_read(&sem->count));
}

/* The permits parked on @sem (&psem.pending without the kick bit). */
static inline long psem_parked(const struct psem *sem)
{
	/* Relaxed: a snapshot, or read under the lock to be taken next. */
	return (unsigned int)atomic_read(&sem->pending) / PSEM_PARKED_ONE;
}

struct psem_cpu_stats {
	u64 count[PSEM_NR_STATS];
};

DECLARE_PER_CPU(struct psem_cpu_stats, psem_cpu_stats);

/* Counts @s on this CPU; a patched-out jump while statistics are off. */
static __always_inline void psem_stat(enum psem_stat s)
{
	if (static_branch_unlikely(&psem_stats_key))
		this_cpu_inc(psem_cpu_stats.count[s]);
}

extern atomic64_t psem_refusals;
extern atomic64_t psem_warn_sites;
extern bool psem_quiet_warnings;

bool psem_refusal_warns(unsigned long ip);
void psem_refusals_exit(void);

/*
 * psem_refuse_ip - count a refused call and warn once per caller @ip (the
 * return address of the psem entry point that refused it), unless a test
 * asked for quiet refusals. Evaluates to true so that callers can write
 * "if (bad && psem_refuse(...)) return -EINVAL;". In task and softirq
 * context the warning is a WARN with the message and a backtrace; in NMI
 * and hard IRQ psem_refusal_warns() has one line naming the caller printed
 * from an irq_work instead: an unwind and its console output there would hold the CPU for
 * milliseconds (and NMI's unwinder may recurse), where a refusal must cost
 * a counter.
 */
#define psem_refuse_ip(ip, fmt, ...)					\
({									\
	if (psem_refusal_warns(ip))					\
		WARN(1, "psem: " fmt, ##__VA_ARGS__);			\
	true;								\
})

/* From an exported function: its caller is the consumer. */
#define psem_refuse(fmt, ...) psem_refuse_ip(_RET_IP_, fmt, ##__VA_ARGS__)

int psem_debugfs_init(void);
void psem_debugfs_exit(void);
struct dentry;
void psem_views_init(struct dentry *parent);
void psem_views_exit(void);

#endif /* _PSEM_INTERNAL_H */
