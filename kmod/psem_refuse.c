// SPDX-License-Identifier: GPL-2.0
/*
 * psem's refusals of bad input: a warning once per calling site, and the
 * counters that the debugfs statistics and the tests read. The bottom
 * layer: every other object may refuse.
 */

#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/ratelimit.h>

#include "psem_internal.h"

/*
 * Warns about a refused call once per caller, identified by the return
 * address of the psem entry point the consumer called: a bad count in one
 * module does not silence the next. The first PSEM_WARN_SITES callers are
 * remembered; past them, warnings are rate-limited instead.
 */
#define PSEM_WARN_SITES 256
static unsigned long psem_warned[PSEM_WARN_SITES];

static bool psem_first_refusal(unsigned long ip)
{
	static DEFINE_RATELIMIT_STATE(rs, DEFAULT_RATELIMIT_INTERVAL,
				      DEFAULT_RATELIMIT_BURST);
	unsigned int i, h = hash_long(ip, ilog2(PSEM_WARN_SITES));

	for (i = 0; i < PSEM_WARN_SITES; i++) {
		unsigned long *slot = &psem_warned[(h + i) % PSEM_WARN_SITES];
		unsigned long old = 0;

		/* Relaxed: a set of addresses that orders nothing. */
		if (READ_ONCE(*slot) == ip)
			return false;
		if (try_cmpxchg_relaxed(slot, &old, ip)) {
			atomic64_inc(&psem_warn_sites);	/* a counter */
			return true;
		}
		if (old == ip)
			return false;
	}
	return __ratelimit(&rs);
}

/*
 * The caller to name for a refusal in hard IRQ ([0]) and in NMI ([1]),
 * printed by psem_irq_refusal_work: printk() from a hard-only IRQ may take
 * the console's spinlock_t (8250's port lock on 6.1, lockdep's "Invalid
 * wait context" under PROVE_RAW_LOCK_NESTING), and printk_deferred() is
 * not exported to modules. One pending line per kind; a refusal that finds
 * its slot taken is counted only.
 */
static unsigned long psem_irq_refused[2];

static void psem_irq_refusal_fn(struct irq_work *work)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(psem_irq_refused); i++) {
		/* Fully ordered: pairs with the cmpxchg that filled it. */
		unsigned long ip = xchg(&psem_irq_refused[i], 0);

		if (ip)
			pr_warn("psem: refused a call from %pS in %s (counted; no backtrace there)\n",
				(void *)ip, i ? "NMI" : "hard IRQ");
	}
}

/* Not IRQ_WORK_HARD_IRQ: where a spinlock_t may be taken, as psem's hand-off. */
static struct irq_work psem_irq_refusal_work = IRQ_WORK_INIT(psem_irq_refusal_fn);

/* Module exit: no line is left to print from a work in freed text. */
void psem_refusals_exit(void)
{
	irq_work_sync(&psem_irq_refusal_work);
}

/*
 * Counts a refusal; returns whether the caller should WARN about it: the
 * first refusal of caller @ip, in task or softirq context, with warnings
 * not silenced. In NMI and hard IRQ it has the one line printed for it,
 * from an irq_work, instead.
 */
bool psem_refusal_warns(unsigned long ip)
{
	atomic64_inc(&psem_refusals);	/* a counter: unordered */
	if (!psem_first_refusal(ip) || READ_ONCE(psem_quiet_warnings))
		return false;
	if (!in_nmi() && !in_hardirq())
		return true;
	/*
	 * Fully ordered: the slot before the work is queued; pairs with the
	 * xchg in psem_irq_refusal_fn(). irq_work_queue() is NMI-safe.
	 */
	if (!cmpxchg(&psem_irq_refused[in_nmi() ? 1 : 0], 0, ip))
		irq_work_queue(&psem_irq_refusal_work);
	return false;
}
