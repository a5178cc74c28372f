/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: enough of struct hrtimer for psem_compat.h's
 * hrtimer_setup() to compile. No psem object built here arms a timer, so
 * there is no hrtimer_start(): a use fails to link rather than run unfired.
 */
#ifndef _PSEM_SHIM_LINUX_HRTIMER_H
#define _PSEM_SHIM_LINUX_HRTIMER_H

#include <time.h>

#include <linux/types.h>

enum hrtimer_restart {
	HRTIMER_NORESTART,
	HRTIMER_RESTART,
};

enum hrtimer_mode {
	HRTIMER_MODE_ABS	= 0x00,
	HRTIMER_MODE_REL	= 0x01,
	HRTIMER_MODE_PINNED	= 0x02,
	HRTIMER_MODE_SOFT	= 0x04,
	HRTIMER_MODE_HARD	= 0x08,
	HRTIMER_MODE_ABS_HARD	= HRTIMER_MODE_ABS | HRTIMER_MODE_HARD,
	HRTIMER_MODE_REL_HARD	= HRTIMER_MODE_REL | HRTIMER_MODE_HARD,
	HRTIMER_MODE_ABS_SOFT	= HRTIMER_MODE_ABS | HRTIMER_MODE_SOFT,
	HRTIMER_MODE_REL_SOFT	= HRTIMER_MODE_REL | HRTIMER_MODE_SOFT,
};

struct hrtimer {
	enum hrtimer_restart	(*function)(struct hrtimer *timer);
	clockid_t		clock_id;
	enum hrtimer_mode	mode;
};

static inline void hrtimer_init(struct hrtimer *timer, clockid_t clock_id,
				enum hrtimer_mode mode)
{
	timer->function = NULL;
	timer->clock_id = clock_id;
	timer->mode = mode;
}

#endif /* _PSEM_SHIM_LINUX_HRTIMER_H */
