/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: see <linux/kernel.h> and <linux/spinlock.h>. */
#ifndef _PSEM_SHIM_LINUX_PREEMPT_H
#define _PSEM_SHIM_LINUX_PREEMPT_H

#include <linux/kernel.h>
#include <linux/spinlock.h>

#endif
