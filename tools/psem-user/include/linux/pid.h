/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: task_pid_nr() lives in <linux/sched.h>. */
#ifndef _PSEM_SHIM_LINUX_PID_H
#define _PSEM_SHIM_LINUX_PID_H

#include <linux/sched.h>

#endif
