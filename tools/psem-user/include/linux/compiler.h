/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: compiler attributes, READ_ONCE/WRITE_ONCE and the barrier
 * macros. Marked accesses are relaxed __atomic accesses, so that
 * ThreadSanitizer treats them as KCSAN does (not a data race) while they
 * order nothing. Fences are real fences; ThreadSanitizer does not model
 * them, so a race that only a fence would order is still reported.
 */
#ifndef _PSEM_SHIM_LINUX_COMPILER_H
#define _PSEM_SHIM_LINUX_COMPILER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/cdefs.h>

#ifndef __always_inline
#define __always_inline		inline __attribute__((__always_inline__))
#endif
#ifndef noinline
#define noinline		__attribute__((__noinline__))
#endif
#ifndef __cold
#define __cold			__attribute__((__cold__))
#endif
#ifndef __must_check
#define __must_check		__attribute__((__warn_unused_result__))
#endif
#ifndef __maybe_unused
#define __maybe_unused		__attribute__((__unused__))
#endif
#ifndef __always_unused
#define __always_unused		__attribute__((__unused__))
#endif
#ifndef __printf
#define __printf(a, b)		__attribute__((__format__(printf, a, b)))
#endif
#ifndef __aligned
#define __aligned(x)		__attribute__((__aligned__(x)))
#endif
#define __sched
#define __init
#define __exit
#define __user
#define __rcu
#define __percpu
#define __force
#define __iomem
#define __must_hold(x)
#define __acquires(x)
#define __releases(x)
#define __cacheline_aligned	__aligned(64)
#define ____cacheline_aligned	__aligned(64)
#define ____cacheline_aligned_in_smp __aligned(64)

#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define barrier()		__asm__ __volatile__("" ::: "memory")
#define OPTIMIZER_HIDE_VAR(var)	__asm__ ("" : "=r" (var) : "0" (var))
#define _RET_IP_		((unsigned long)__builtin_return_address(0))
#define _THIS_IP_		({ __label__ __here; __here: (unsigned long)&&__here; })

#define __stringify_1(x...)	#x
#define __stringify(x...)	__stringify_1(x)

/* IS_ENABLED() as in include/linux/kconfig.h. */
#define __ARG_PLACEHOLDER_1 0,
#define __take_second_arg(__ignored, val, ...) val
#define __is_defined(x)			___is_defined(x)
#define ___is_defined(val)		____is_defined(__ARG_PLACEHOLDER_##val)
#define ____is_defined(arg1_or_junk)	__take_second_arg(arg1_or_junk 1, 0)
#define IS_BUILTIN(option)		__is_defined(option)
#define IS_MODULE(option)		__is_defined(option##_MODULE)
#define IS_ENABLED(option)		(IS_BUILTIN(option) || IS_MODULE(option))

/*
 * The explorer's scheduling point (tools/psem-user/explore/): before every
 * marked access and atomic operation of the code under test, the explorer
 * may run another thread. Nothing in the other builds.
 */
#ifdef PSEM_EXPLORE
void psem_explore_point(const char *op, const volatile void *addr);
void psem_explore_point_cas(const char *op, const volatile void *addr,
			    unsigned long expected, int size);
void psem_explore_plain(const char *op, const volatile void *addr);
#define PSEM_USER_POINT(op, addr)					\
	psem_explore_point(op, (const volatile void *)(addr))
/*
 * A compare-exchange's point: its order only if it will succeed, as the
 * LKMM says (a failed one orders nothing); @exp is the value it expects.
 */
#define PSEM_USER_POINT_CAS(op, addr, exp)				\
	psem_explore_point_cas(op, (const volatile void *)(addr),	\
			       (unsigned long)(exp), sizeof(*(addr)))
/* READ_ONCE()/WRITE_ONCE(): not a point while the thread holds a lock. */
#define PSEM_USER_POINT_PLAIN(op, addr)					\
	psem_explore_plain(op, (const volatile void *)(addr))
#else
#define PSEM_USER_POINT(op, addr)	do { } while (0)
#define PSEM_USER_POINT_CAS(op, addr, exp)	do { } while (0)
#define PSEM_USER_POINT_PLAIN(op, addr)	do { } while (0)
#endif

#define READ_ONCE(x)							\
({									\
	PSEM_USER_POINT_PLAIN("READ_ONCE", &(x));				\
	__atomic_load_n(&(x), __ATOMIC_RELAXED);			\
})
#define WRITE_ONCE(x, val)						\
do {									\
	PSEM_USER_POINT_PLAIN("WRITE_ONCE", &(x));				\
	__atomic_store_n(&(x), (__typeof__(x))(val), __ATOMIC_RELAXED);	\
} while (0)
#define data_race(expr)		(expr)

/* The kernel's barriers, by name. */
#define mb()			__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define rmb()			__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define wmb()			__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_mb__before_atomic()	smp_mb()
#define smp_mb__after_atomic()	smp_mb()
#define smp_mb__after_spinlock() smp_mb()
#define smp_store_mb(var, val)						\
	do { WRITE_ONCE(var, val); smp_mb(); } while (0)
#define smp_store_release(p, v)						\
do {									\
	PSEM_USER_POINT("smp_store_release", (p));			\
	__atomic_store_n((p), (__typeof__(*(p)))(v), __ATOMIC_RELEASE);	\
} while (0)
#define smp_load_acquire(p)						\
({									\
	PSEM_USER_POINT("smp_load_acquire", (p));			\
	__atomic_load_n((p), __ATOMIC_ACQUIRE);				\
})
#define smp_acquire__after_ctrl_dep() smp_rmb()
/*
 * A spin-wait's pause. Under the explorer, a yield: the spinning thread
 * steps aside until another has run, as loom's spin hints do, so that a
 * bounded busy-wait (psem_sync() on a release in flight) ends.
 */
#ifdef PSEM_EXPLORE
void ex_yield(const char *what);
#define cpu_relax()		ex_yield("cpu_relax")
#else
#define cpu_relax()		__builtin_ia32_pause()
#endif

#endif /* _PSEM_SHIM_LINUX_COMPILER_H */
