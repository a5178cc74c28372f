/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: module metadata is dropped. */
#ifndef _PSEM_SHIM_LINUX_MODULE_H
#define _PSEM_SHIM_LINUX_MODULE_H

#include <linux/export.h>
#include <linux/init.h>
#include <linux/kernel.h>

#define THIS_MODULE			NULL
#define MODULE_LICENSE(x)		extern int psem_user_module_unused
#define MODULE_DESCRIPTION(x)		extern int psem_user_module_unused
#define MODULE_AUTHOR(x)		extern int psem_user_module_unused
#define MODULE_IMPORT_NS(x)		extern int psem_user_module_unused
#define module_param(n, t, p)		extern int psem_user_module_unused
#define MODULE_PARM_DESC(n, d)		extern int psem_user_module_unused

#endif /* _PSEM_SHIM_LINUX_MODULE_H */
