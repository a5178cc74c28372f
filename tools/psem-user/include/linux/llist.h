/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: the lock-free list of include/linux/llist.h, on the
 * shim's xchg() and try_cmpxchg(), so that the explorer schedules around
 * each of its atomics.
 */
#ifndef _PSEM_SHIM_LINUX_LLIST_H
#define _PSEM_SHIM_LINUX_LLIST_H

#include <linux/atomic.h>
#include <linux/kernel.h>

struct llist_node {
	struct llist_node *next;
};

struct llist_head {
	struct llist_node *first;
};

#define LLIST_HEAD_INIT(name)	{ NULL }
#define LLIST_HEAD(name)	struct llist_head name = LLIST_HEAD_INIT(name)

/* Adds @new; returns whether the list was empty. Fully ordered. */
static inline bool llist_add(struct llist_node *new, struct llist_head *head)
{
	struct llist_node *first = READ_ONCE(head->first);

	do {
		new->next = first;
	} while (!try_cmpxchg(&head->first, &first, new));
	return !first;
}

/* Takes every entry, newest first. Fully ordered. */
static inline struct llist_node *llist_del_all(struct llist_head *head)
{
	return xchg(&head->first, NULL);
}

#define llist_entry(ptr, type, member)	container_of(ptr, type, member)
#define llist_for_each_entry_safe(pos, n, node, member)			\
	for (pos = (node) ? llist_entry((node), __typeof__(*pos), member) : NULL; \
	     pos && ((n = pos->member.next ?					\
		      llist_entry(pos->member.next, __typeof__(*pos), member) : \
		      NULL), 1);						\
	     pos = n)

#endif /* _PSEM_SHIM_LINUX_LLIST_H */
