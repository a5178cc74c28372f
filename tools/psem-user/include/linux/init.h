/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: init and exit hooks are not called. */
#ifndef _PSEM_SHIM_LINUX_INIT_H
#define _PSEM_SHIM_LINUX_INIT_H

#include <linux/compiler.h>

#define module_init(fn)		extern int psem_user_module_unused
#define module_exit(fn)		extern int psem_user_module_unused

#endif /* _PSEM_SHIM_LINUX_INIT_H */
