/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem's tracepoints, under events/psem/ in tracefs. Each is a static-key
 * no-op until enabled.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM psem

#if !defined(_PSEM_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _PSEM_TRACE_H

#include <linux/tracepoint.h>

#include "psem_compat.h"

struct psem;

/*
 * One class for every event: the psem, the permits, and one number that
 * each event names for itself when it prints (a release's path, fast or
 * locked; the permits still needed when a wait begins; the result when it
 * ends). One set of fields, one assign, one copy of the code.
 */
DECLARE_EVENT_CLASS(psem_event,
		    TP_PROTO(struct psem *sem, long n, long val),
		    TP_ARGS(sem, n, val),
		    TP_STRUCT__entry(__field(void *, sem)
				     __field(long, n)
				     __field(long, val)),
		    TP_fast_assign(__entry->sem = sem;
				   __entry->n = n;
				   __entry->val = val;),
		    TP_printk("sem=%p n=%ld needed=%ld", __entry->sem, __entry->n,
			      __entry->val)
);

/* A release: @val is true for the lock-free path, false for the locked one. */
DEFINE_EVENT_PRINT(psem_event, psem_release,
		   TP_PROTO(struct psem *sem, long n, long val),
		   TP_ARGS(sem, n, val),
		   TP_printk("sem=%p n=%ld path=%s", __entry->sem, __entry->n,
			     __entry->val ? "fast" : "locked")
);

/* A sleeping acquire's wait begins: @val is the permits still needed. */
DEFINE_EVENT(psem_event, psem_wait_begin,
	     TP_PROTO(struct psem *sem, long n, long val),
	     TP_ARGS(sem, n, val)
);

/* It ends: @val is its result, 0 or an error. */
DEFINE_EVENT_PRINT(psem_event, psem_wait_end,
		   TP_PROTO(struct psem *sem, long n, long val),
		   TP_ARGS(sem, n, val),
		   TP_printk("sem=%p n=%ld ret=%d", __entry->sem, __entry->n,
			     (int)__entry->val)
);

#endif /* _PSEM_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE psem_trace
#include <trace/define_trace.h>
