/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: allocation flags, all ignored. */
#ifndef _PSEM_SHIM_LINUX_GFP_H
#define _PSEM_SHIM_LINUX_GFP_H

#include <linux/types.h>

#define GFP_KERNEL	0x1u
#define GFP_ATOMIC	0x2u
#define GFP_NOWAIT	0x4u
#define __GFP_ZERO	0x100u

#endif /* _PSEM_SHIM_LINUX_GFP_H */
