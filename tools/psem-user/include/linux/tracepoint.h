/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: every tracepoint is an empty inline function and never
 * enabled. CREATE_TRACE_POINTS changes nothing (see trace/define_trace.h).
 */
#ifndef _PSEM_SHIM_LINUX_TRACEPOINT_H
#define _PSEM_SHIM_LINUX_TRACEPOINT_H

#include <linux/compiler.h>
#include <linux/types.h>

#define TP_PROTO(args...)	args
#define TP_ARGS(args...)	args
#define TP_CONDITION(args...)	args

#define __PSEM_USER_TRACE(name, proto)					\
	static inline void trace_##name(proto) { }			\
	static inline bool trace_##name##_enabled(void) { return false; }

#define TRACE_EVENT(name, proto, args, tstruct, assign, print)		\
	__PSEM_USER_TRACE(name, PARAMS(proto))
#define TRACE_EVENT_CONDITION(name, proto, args, cond, tstruct, assign,	\
			      print)					\
	__PSEM_USER_TRACE(name, PARAMS(proto))
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)
#define DEFINE_EVENT(template, name, proto, args)			\
	__PSEM_USER_TRACE(name, PARAMS(proto))
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)		\
	__PSEM_USER_TRACE(name, PARAMS(proto))
#define DEFINE_EVENT_CONDITION(template, name, proto, args, cond)	\
	__PSEM_USER_TRACE(name, PARAMS(proto))
#define DECLARE_TRACE(name, proto, args)				\
	__PSEM_USER_TRACE(name, PARAMS(proto))
#define PARAMS(args...)		args

#endif /* _PSEM_SHIM_LINUX_TRACEPOINT_H */
