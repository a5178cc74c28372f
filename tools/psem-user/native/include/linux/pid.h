/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The native benchmark: kmod/psem_mutex.c includes <linux/pid.h> for
 * task_pid_nr(), which the shim has in <linux/sched.h>. The shim's own
 * <linux/pid.h> is used once it has one.
 */
#ifndef _PSEM_NATIVE_LINUX_PID_H
#define _PSEM_NATIVE_LINUX_PID_H

#if __has_include_next(<linux/pid.h>)
#include_next <linux/pid.h>
#else
#include <linux/sched.h>
#endif

#endif /* _PSEM_NATIVE_LINUX_PID_H */
