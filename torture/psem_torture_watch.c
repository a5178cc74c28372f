// SPDX-License-Identifier: GPL-2.0
/*
 * psem_torture: the threads beside the workers: the monitor (bounds, the
 * queue invariant, the lost wake-up watchdog, stats), the signaller and
 * CPU hotplug.
 */

#include "psem_torture.h"

#define TT_WD_LONG	1	/* printed that the wait is long */
#define TT_WD_LOST	2	/* reported a lost wake-up */

atomic_long_t tt_signals;
atomic_long_t tt_hotplug_off;
atomic_long_t tt_hotplug_fail;
static struct rnd_state tt_sig_rnd;	/* the signaller's, over all phases */

/* At load, once the seed is known. */
void tt_watch_init(void)
{
	prandom_seed_state(&tt_sig_rnd, tp_seed ^ 0x5167);
}

void tt_dump_waits(void)
{
	int i;

	for (i = 0; i < tt_nthr; i++) {
		struct tt_thread *t = &tt_thr[i];

		/* Pairs with tt_wait_begin(): the wait's fields are set. */
		if (!smp_load_acquire(&t->waiting))
			continue;
		tt_alert("thread %d waits for %ld permits since %u ms (available %ld, debt %lu)\n",
			 i, READ_ONCE(t->wait_need),
			 tt_j2ms(jiffies - READ_ONCE(t->wait_start)),
			 psem_available(READ_ONCE(t->wait_sem)),
			 psem_debt(READ_ONCE(t->wait_sem)));
	}
}

/*
 * The lost wake-up watchdog: a wait that has lasted wait_bound_s while the
 * semaphore kept enough permits for it (on three looks in a row) was not
 * woken when it should have been.
 */
static void tt_watchdog(void)
{
	unsigned long bound = (unsigned long)tp_wait_bound_s * HZ;
	int i;

	for (i = 0; i < tt_nthr; i++) {
		struct tt_thread *t = &tt_thr[i];
		unsigned long start, waited;
		struct psem *sem;
		long need, avail;

		/* Pairs with tt_wait_begin(): the wait's fields are set. */
		if (!smp_load_acquire(&t->waiting))
			continue;
		start = READ_ONCE(t->wait_start);
		if (start != t->wd_start) {
			t->wd_start = start;
			t->wd_strikes = 0;
			t->wd_flags = 0;
		}
		waited = jiffies - start;
		if (waited < bound)
			continue;
		sem = READ_ONCE(t->wait_sem);
		need = READ_ONCE(t->wait_need);
		avail = psem_available(sem);
		if (!(t->wd_flags & TT_WD_LONG)) {
			t->wd_flags |= TT_WD_LONG;
			tt_info("%s: thread %d has waited %u ms for %ld permits (available %ld, debt %lu)\n",
				tt_phase_name(), i, tt_j2ms(waited), need, avail, psem_debt(sem));
		}
		if (avail < need) {
			t->wd_strikes = 0;
			continue;
		}
		if (++t->wd_strikes >= 3 && !(t->wd_flags & TT_WD_LOST)) {
			t->wd_flags |= TT_WD_LOST;
			tt_viol_err("%s: lost wake-up: thread %d has waited %u ms for %ld permits while %ld are available\n",
				    tt_phase_name(), i, tt_j2ms(waited), need, avail);
		}
	}
}

void tt_sum_ops(unsigned long *ops, unsigned long *max_wait)
{
	int i;

	*ops = 0;
	*max_wait = 0;
	for (i = 0; i < tt_nthr; i++) {
		*ops += READ_ONCE(tt_thr[i].ops);
		*max_wait = max(*max_wait, READ_ONCE(tt_thr[i].max_wait));
	}
}

static void tt_print_stats(void)
{
	struct psem *sem = tt_cur->sem;
	unsigned long ops, max_wait, eintr = 0, etime = 0, busy = 0;
	int i;

	tt_sum_ops(&ops, &max_wait);
	for (i = 0; i < tt_nthr; i++) {
		eintr += READ_ONCE(tt_thr[i].eintr);
		etime += READ_ONCE(tt_thr[i].etime);
		busy += READ_ONCE(tt_thr[i].busy);
	}
	tt_info("stats %s: ops=%lu eintr=%lu etime=%lu busy=%lu signals=%ld stutters=%lu hotplug=%ld available=%ld debt=%lu held=%ld max_wait_ms=%u violations=%d\n",
		tt_phase_name(), ops, eintr, etime, busy, atomic_long_read(&tt_signals),
		READ_ONCE(tt_stutters), atomic_long_read(&tt_hotplug_off), psem_available(sem),
		psem_debt(sem), atomic_long_read(&tt_held_total), tt_j2ms(max_wait),
		atomic_read(&tt_violations));
}

int tt_monitor(void *arg)
{
	unsigned long next_stats = jiffies + (unsigned long)tp_stat_interval_s * HZ;

	while (!kthread_should_stop()) {
		schedule_timeout_idle(HZ / 5);
		tt_cur->monitor();
		tt_check_invariant(tt_cur->sem, tt_phase_name());
		tt_watchdog();
		if (tp_stat_interval_s && time_after_eq(jiffies, next_stats)) {
			tt_print_stats();
			next_stats = jiffies + (unsigned long)tp_stat_interval_s * HZ;
		}
	}
	return 0;
}

int tt_signaller(void *arg)
{
	unsigned long period = max(msecs_to_jiffies(tp_signal_ms), 1UL);
	int i;

	while (!kthread_should_stop()) {
		int start = prandom_u32_state(&tt_sig_rnd) % tt_nthr;

		schedule_timeout_idle(period);
		for (i = 0; i < tt_nthr; i++) {
			struct tt_thread *t = &tt_thr[(start + i) % tt_nthr];

			/* Pairs with tt_wait_begin(), as in tt_watchdog(). */
			if (smp_load_acquire(&t->waiting) && READ_ONCE(t->wait_intr)) {
				send_sig(SIGUSR1, t->task, 1);
				atomic_long_inc(&tt_signals);
				break;
			}
		}
	}
	return 0;
}

/* A random online CPU that may go offline: not the first one. */
static int tt_pick_cpu(struct rnd_state *rnd)
{
	int n = num_online_cpus() - 1;
	int cpu;

	if (n < 1)
		return -1;
	cpu = tt_nth_online_cpu(1 + prandom_u32_state(rnd) % n);
	return cpu >= 0 && cpu_is_hotpluggable(cpu) ? cpu : -1;
}

/* Offlines a CPU for a while, every few seconds; always brings it back. */
int tt_hotplug(void *arg)
{
	struct rnd_state rnd;
	bool reported = false;
	int cpu, ret, tries;

	prandom_seed_state(&rnd, tp_seed ^ 0x5eed);
	while (!kthread_should_stop()) {
		schedule_timeout_idle(HZ + prandom_u32_state(&rnd) % (2 * HZ));
		if (kthread_should_stop())
			break;
		cpu = tt_pick_cpu(&rnd);
		if (cpu < 0)
			continue;
		ret = remove_cpu(cpu);
		if (ret) {
			atomic_long_inc(&tt_hotplug_fail);
			if (!reported)
				tt_info("hotplug: remove_cpu(%d) returned %d\n", cpu, ret);
			reported = true;
			continue;
		}
		atomic_long_inc(&tt_hotplug_off);
		schedule_timeout_idle(HZ / 2 + prandom_u32_state(&rnd) % HZ);
		for (tries = 0; tries < 50; tries++) {
			ret = add_cpu(cpu);
			if (!ret)
				break;
			msleep(100);
		}
		if (ret)
			tt_viol_err("hotplug: add_cpu(%d) returned %d: CPU left offline\n",
				    cpu, ret);
	}
	return 0;
}
