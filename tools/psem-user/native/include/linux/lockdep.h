/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The native benchmark: the shim's <linux/lockdep.h>, but
 * lockdep_assert_held() checks nothing, as without CONFIG_LOCKDEP (the
 * shim's asks the pthread-mutex spinlock for its owner, which this build's
 * ticket lock does not track).
 */
#ifndef _PSEM_NATIVE_LINUX_LOCKDEP_H
#define _PSEM_NATIVE_LINUX_LOCKDEP_H

#include_next <linux/lockdep.h>

#undef lockdep_assert_held
#define lockdep_assert_held(l)	do { (void)(l); } while (0)

#endif /* _PSEM_NATIVE_LINUX_LOCKDEP_H */
