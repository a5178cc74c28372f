/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: jiffies and friends are in <linux/sched.h>. */
#ifndef _PSEM_SHIM_LINUX_JIFFIES_H
#define _PSEM_SHIM_LINUX_JIFFIES_H

#include <linux/sched.h>

#endif /* _PSEM_SHIM_LINUX_JIFFIES_H */
