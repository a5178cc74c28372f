/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: the "CPU" is a number per thread (see sched.h). */
#ifndef _PSEM_SHIM_LINUX_SMP_H
#define _PSEM_SHIM_LINUX_SMP_H

#include <linux/sched.h>

#endif /* _PSEM_SHIM_LINUX_SMP_H */
