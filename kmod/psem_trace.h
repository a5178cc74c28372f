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

TRACE_EVENT(psem_release,
	    TP_PROTO(struct psem *sem, long n, bool fast),
	    TP_ARGS(sem, n, fast),
	    TP_STRUCT__entry(__field(void *, sem)
			     __field(long, n)
			     __field(bool, fast)),
	    TP_fast_assign(__entry->sem = sem;
			   __entry->n = n;
			   __entry->fast = fast;),
	    TP_printk("sem=%p n=%ld path=%s", __entry->sem, __entry->n,
		      __entry->fast ? "fast" : "locked")
);

/*
 * A sleeping acquire's wait, begun and ended: the psem, the permits asked
 * for, and one number that each event names for itself when it prints: the
 * permits still needed when the wait begins, the result when it ends. One
 * class: one set of fields, one assign, one copy of the code.
 */
DECLARE_EVENT_CLASS(psem_wait,
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

DEFINE_EVENT(psem_wait, psem_wait_begin,
	     TP_PROTO(struct psem *sem, long n, long val),
	     TP_ARGS(sem, n, val)
);

DEFINE_EVENT_PRINT(psem_wait, psem_wait_end,
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
