/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: the kernel the shim stands for (Debian bookworm's 6.1). */
#ifndef _PSEM_SHIM_LINUX_VERSION_H
#define _PSEM_SHIM_LINUX_VERSION_H

#define KERNEL_VERSION(a, b, c)	(((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))
#define LINUX_VERSION_CODE	KERNEL_VERSION(6, 1, 0)
#define LINUX_VERSION_MAJOR	6
#define LINUX_VERSION_PATCHLEVEL 1
#define LINUX_VERSION_SUBLEVEL	0

#endif /* _PSEM_SHIM_LINUX_VERSION_H */
