// SPDX-License-Identifier: GPL-2.0
/*
 * psem_torture: psem's release rules: set in turn at the stutters (flip_knobs),
 * and flipped at random while the workers run (live_flips).
 */

#include "psem_torture.h"

/*
 * The release rules set in turn at the stutters, named by what each
 * tests (see psem_torture_main.c for the switches of each).
 */
enum tt_rule {
	TT_RULE_ALWAYS_LOCKED,
	TT_RULE_POSITIVE_BALANCE,
	TT_RULE_POSITIVE_BALANCE_FLAG,
	TT_RULE_WAITERS_BIT,
	TT_RULE_WAITERS_BIT_NOFLAG,
	TT_NR_RULES,
};

static const char *const tt_rule_names[TT_NR_RULES] = {
	[TT_RULE_ALWAYS_LOCKED]		= "always-locked",
	[TT_RULE_POSITIVE_BALANCE]	= "positive-balance",
	[TT_RULE_POSITIVE_BALANCE_FLAG]	= "positive-balance+flag",
	[TT_RULE_WAITERS_BIT]		= "waiters-bit",
	[TT_RULE_WAITERS_BIT_NOFLAG]	= "waiters-bit-noflag",
};

static unsigned long tt_rule_runs[TT_NR_RULES];	/* stutters begun on each */
static unsigned long tt_knob_flips;
static atomic_long_t tt_live_flips;

/* Sets psem's switches to release rule @rule, and counts it. */
static void tt_set_rule(enum tt_rule rule)
{
	psem_set_fast_release(rule != TT_RULE_ALWAYS_LOCKED);
	psem_set_zero_release(rule == TT_RULE_WAITERS_BIT ||
			      rule == TT_RULE_WAITERS_BIT_NOFLAG);
	psem_set_contention_flag(rule == TT_RULE_POSITIVE_BALANCE_FLAG ||
				 rule == TT_RULE_WAITERS_BIT);
	tt_rule_runs[rule]++;
}

/* At the start of the test: the default rule, waiters-bit. */
void tt_flip_begin(void)
{
	if (tp_flip_knobs && !tt_busted)
		tt_set_rule(TT_RULE_WAITERS_BIT);
}

/* While all workers are paused: the next release rule, in turn. */
void tt_flip_knobs(void)
{
	if (!tp_flip_knobs || tt_busted)
		return;
	/* Round the rules; the run starts on waiters-bit (tt_flip_begin()). */
	tt_set_rule((tt_knob_flips + 1) % TT_NR_RULES);
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

/* How often each rule was set, and the live flips; for the end of test. */
void tt_flip_report(void)
{
	tt_alert("rules: %s=%lu %s=%lu %s=%lu %s=%lu %s=%lu live_flips=%ld\n",
		 tt_rule_names[0], tt_rule_runs[0], tt_rule_names[1], tt_rule_runs[1],
		 tt_rule_names[2], tt_rule_runs[2], tt_rule_names[3], tt_rule_runs[3],
		 tt_rule_names[4], tt_rule_runs[4], atomic_long_read(&tt_live_flips));
}

/* The stutters that set a rule, for the controller's last line. */
unsigned long tt_flip_count(void)
{
	return tt_knob_flips;
}
