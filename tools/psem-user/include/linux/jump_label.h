/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: a static key is a boolean read with a relaxed load. The
 * kernel patches code instead, which orders nothing either; the harness
 * flips keys while psems are in use, as a debugfs write can.
 */
#ifndef _PSEM_SHIM_LINUX_JUMP_LABEL_H
#define _PSEM_SHIM_LINUX_JUMP_LABEL_H

#include <linux/compiler.h>

struct static_key {
	int enabled;
};

struct static_key_true {
	struct static_key key;
};

struct static_key_false {
	struct static_key key;
};

#define STATIC_KEY_TRUE_INIT	{ .key = { .enabled = 1 } }
#define STATIC_KEY_FALSE_INIT	{ .key = { .enabled = 0 } }

#define DEFINE_STATIC_KEY_TRUE(name)					\
	struct static_key_true name = STATIC_KEY_TRUE_INIT
#define DEFINE_STATIC_KEY_FALSE(name)					\
	struct static_key_false name = STATIC_KEY_FALSE_INIT
#define DECLARE_STATIC_KEY_TRUE(name)	extern struct static_key_true name
#define DECLARE_STATIC_KEY_FALSE(name)	extern struct static_key_false name

#define static_key_enabled(k)						\
	(!!__atomic_load_n(&(k)->key.enabled, __ATOMIC_RELAXED))
#define static_branch_likely(k)		likely(static_key_enabled(k))
#define static_branch_unlikely(k)	unlikely(static_key_enabled(k))
#define static_branch_enable(k)						\
	__atomic_store_n(&(k)->key.enabled, 1, __ATOMIC_RELAXED)
#define static_branch_disable(k)					\
	__atomic_store_n(&(k)->key.enabled, 0, __ATOMIC_RELAXED)
#define static_branch_inc(k)	static_branch_enable(k)
#define static_branch_dec(k)	static_branch_disable(k)

#endif /* _PSEM_SHIM_LINUX_JUMP_LABEL_H */
