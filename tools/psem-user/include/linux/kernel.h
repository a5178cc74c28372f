/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: the odds and ends of include/linux/kernel.h. */
#ifndef _PSEM_SHIM_LINUX_KERNEL_H
#define _PSEM_SHIM_LINUX_KERNEL_H

#include <errno.h>
#include <stdio.h>

#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/types.h>

#define container_of(ptr, type, member)					\
	((type *)((char *)(ptr) - offsetof(type, member)))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))

#define KERN_ERR		""
#define KERN_WARNING		""
#define KERN_INFO		""
#define KERN_DEBUG		""
#define printk(fmt...)		fprintf(stderr, fmt)
#define printk_deferred(fmt...)	fprintf(stderr, fmt)
#define pr_err(fmt...)		fprintf(stderr, fmt)
#define pr_warn(fmt...)		fprintf(stderr, fmt)
#define pr_info(fmt...)		do { } while (0)
#define pr_debug(fmt...)	do { } while (0)

/* Sleeping in atomic context: counted like a warning (see sched.h). */
void psem_user_might_sleep(const char *file, int line);
#define might_sleep()		psem_user_might_sleep(__FILE__, __LINE__)
#define might_sleep_if(c)	do { if (c) might_sleep(); } while (0)
#define might_fault()		do { } while (0)

#endif /* _PSEM_SHIM_LINUX_KERNEL_H */
