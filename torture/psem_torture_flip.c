// SPDX-License-Identifier: GPL-2.0
/*
 * psem_torture: psem's release rules: set in turn at the stutters (flip_knobs),
 * and flipped at random while the workers run (live_flips).
 */

#include "psem_torture.h"

/* Sets psem's switches to release rule @rule. */
void tt_set_rule(enum tt_rule rule)
{
	psem_set_fast_release(rule != TT_RULE_LOCKED);
	psem_set_zero_release(rule == TT_RULE_PSEM || rule == TT_RULE_PSEM_NOFLAG);
	psem_set_contention_flag(rule == TT_RULE_SEED_FLAG || rule == TT_RULE_PSEM);
}

/* While all workers are paused: the next release rule, in turn. */
void tt_flip_knobs(void)
{
	enum tt_rule rule;

	if (!tp_flip_knobs || tt_busted)
		return;
	rule = (tt_knob_flips + 1) % TT_NR_RULES;	/* the run starts on psem */
	tt_set_rule(rule);
	tt_rule_runs[rule]++;
	tt_knob_flips++;
}

/*
 * live_flips: flip one switch at random every live_flips ms while the
 * workers run. Nothing pauses for it: a release or an acquire may be
 * anywhere in its fast or locked path when the rule changes under it, and
 * the exact checks at the stutters and at the end must still hold.
 */
int tt_flipper(void *arg)
{
	unsigned long period = max(msecs_to_jiffies(tp_live_flips), 1UL);
	struct rnd_state rnd;

	prandom_seed_state(&rnd, tp_seed ^ 0xf11b);
	while (!kthread_should_stop()) {
		schedule_timeout_idle(period);
		if (kthread_should_stop())
			break;
		switch (prandom_u32_state(&rnd) % 4) {
		case 0:
			psem_set_fast_release(!psem_fast_release_enabled());
			break;
		case 1:
			psem_set_contention_flag(!psem_contention_flag_enabled());
			break;
		case 2:
			psem_set_zero_release(!psem_zero_release_enabled());
			break;
		default:
			psem_set_stats(!psem_stats_enabled());
			break;
		}
		atomic_long_inc(&tt_live_flips);
	}
	return 0;
}
