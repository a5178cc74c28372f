/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: the context tests live in <linux/preempt.h>. */
#ifndef _PSEM_SHIM_LINUX_HARDIRQ_H
#define _PSEM_SHIM_LINUX_HARDIRQ_H

#include <linux/preempt.h>

#endif
