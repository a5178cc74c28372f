/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: everything is in <linux/sched.h>. */
#ifndef _PSEM_SHIM_LINUX_SCHED_SIGNAL_H
#define _PSEM_SHIM_LINUX_SCHED_SIGNAL_H

#include <linux/sched.h>

#endif
