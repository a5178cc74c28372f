// SPDX-License-Identifier: GPL-2.0
/* Smoke: two takers and a releaser on one permit. */
#include <linux/slab.h>

#include "psem.h"
#include "explore.h"

static struct psem *sem;
static int got[2];

static void taker(void *arg)
{
	int i = (long)arg;

	got[i] = !psem_acquire(sem, 1);
	psem_release(sem, 1);
}

static void setup(void)
{
	sem = kzalloc(sizeof(*sem), GFP_KERNEL);
	psem_init(sem, 1);
	ex_spawn("A", taker, (void *)0L);
	ex_spawn("B", taker, (void *)1L);
}

static void check(void)
{
	ex_assert(got[0] && got[1], "both served");
	ex_assert(psem_available(sem) == 1, "available %ld", psem_available(sem));
	kfree(sem);
}

static const struct ex_scenario smoke = {
	.name = "smoke",
	.doc = "two acquirers of one permit",
	.setup = setup,
	.check = check,
};
EX_SCENARIO(smoke);
