/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: container_of() is defined in the shim's kernel.h. */
#ifndef _PSEM_SHIM_LINUX_CONTAINER_OF_H
#define _PSEM_SHIM_LINUX_CONTAINER_OF_H

#include <linux/kernel.h>

#endif
