/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: exports are plain external declarations. */
#ifndef _PSEM_SHIM_LINUX_EXPORT_H
#define _PSEM_SHIM_LINUX_EXPORT_H

#define EXPORT_SYMBOL(sym)		extern __typeof__(sym) sym
#define EXPORT_SYMBOL_GPL(sym)		extern __typeof__(sym) sym
#define EXPORT_SYMBOL_NS(sym, ns)	extern __typeof__(sym) sym
#define EXPORT_SYMBOL_NS_GPL(sym, ns)	extern __typeof__(sym) sym

#endif /* _PSEM_SHIM_LINUX_EXPORT_H */
