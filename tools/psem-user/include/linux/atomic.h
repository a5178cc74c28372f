/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: the kernel's atomic_t, atomic_long_t and atomic64_t API
 * on the compiler's __atomic builtins, with exactly the order each kernel
 * call names (Documentation/atomic_t.txt):
 *
 *   read, set, and the RMWs that return nothing:  relaxed
 *   read_acquire / _acquire RMWs:                 acquire
 *   set_release / _release RMWs:                  release
 *   _relaxed RMWs:                                relaxed
 *   value-returning RMWs without a suffix:        fully ordered (seq_cst)
 *   a failed (try_)cmpxchg:                       relaxed, as in the LKMM
 *
 * cmpxchg is the strong form: it fails only if the value differed. Each
 * operation is a scheduling point of the explorer (PSEM_USER_POINT(),
 * <linux/compiler.h>).
 */
#ifndef _PSEM_SHIM_LINUX_ATOMIC_H
#define _PSEM_SHIM_LINUX_ATOMIC_H

#include <linux/compiler.h>
#include <linux/types.h>

#define ATOMIC_INIT(i)		{ (i) }
#define ATOMIC_LONG_INIT(i)	{ (i) }
#define ATOMIC64_INIT(i)	{ (i) }

/*
 * One call a line: pfx_<op><sfx>(ARGS at *v), where the trailing
 * arguments are ARGS (e.g. "t i,", or none); a scheduling point named
 * for the call, then @fn on &v->counter with @arg, in order @mo. The
 * value-returning ones (__SHIM_RMW) return what @fn does.
 */
#define __SHIM_RMW(pfx, at, t, sfx, mo, op, fn, arg, ...)		\
static __always_inline t pfx##_##op##sfx(__VA_ARGS__ at *v)		\
{ PSEM_USER_POINT(#pfx "_" #op #sfx, v);				\
  return fn(&v->counter, arg, mo); }
#define __SHIM_VOID(pfx, at, op, fn, arg, ...)				\
static __always_inline void pfx##_##op(__VA_ARGS__ at *v)		\
{ PSEM_USER_POINT(#pfx "_" #op, v);					\
  fn(&v->counter, arg, __ATOMIC_RELAXED); }

#define __SHIM_ATOMIC_ORD(pfx, at, t, sfx, mo)				\
__SHIM_RMW(pfx, at, t, sfx, mo, add_return, __atomic_add_fetch, i, t i,) \
__SHIM_RMW(pfx, at, t, sfx, mo, sub_return, __atomic_sub_fetch, i, t i,) \
__SHIM_RMW(pfx, at, t, sfx, mo, inc_return, __atomic_add_fetch, 1)	\
__SHIM_RMW(pfx, at, t, sfx, mo, dec_return, __atomic_sub_fetch, 1)	\
__SHIM_RMW(pfx, at, t, sfx, mo, fetch_add, __atomic_fetch_add, i, t i,) \
__SHIM_RMW(pfx, at, t, sfx, mo, fetch_sub, __atomic_fetch_sub, i, t i,) \
__SHIM_RMW(pfx, at, t, sfx, mo, fetch_inc, __atomic_fetch_add, 1)	\
__SHIM_RMW(pfx, at, t, sfx, mo, fetch_dec, __atomic_fetch_sub, 1)	\
__SHIM_RMW(pfx, at, t, sfx, mo, fetch_and, __atomic_fetch_and, i, t i,) \
__SHIM_RMW(pfx, at, t, sfx, mo, fetch_andnot, __atomic_fetch_and, ~i, t i,) \
__SHIM_RMW(pfx, at, t, sfx, mo, fetch_or, __atomic_fetch_or, i, t i,)	\
__SHIM_RMW(pfx, at, t, sfx, mo, fetch_xor, __atomic_fetch_xor, i, t i,) \
static __always_inline t pfx##_xchg##sfx(at *v, t n)			\
{ PSEM_USER_POINT(#pfx "_xchg" #sfx, v);				\
  return __atomic_exchange_n(&v->counter, n, mo); }			\
static __always_inline t pfx##_cmpxchg##sfx(at *v, t o, t n)		\
{ PSEM_USER_POINT_CAS(#pfx "_cmpxchg" #sfx, &v->counter, o);		\
	__atomic_compare_exchange_n(&v->counter, &o, n, false, mo,	\
				    __ATOMIC_RELAXED);			\
	return o;							\
}									\
static __always_inline bool pfx##_try_cmpxchg##sfx(at *v, t *o, t n)	\
{ PSEM_USER_POINT_CAS(#pfx "_try_cmpxchg" #sfx, &v->counter, *o);	\
	return __atomic_compare_exchange_n(&v->counter, o, n, false,	\
					   mo, __ATOMIC_RELAXED);	\
}

#define __SHIM_ATOMIC(pfx, at, t)					\
static __always_inline t pfx##_read(const at *v)			\
{ PSEM_USER_POINT(#pfx "_read", v);				\
  return __atomic_load_n(&v->counter, __ATOMIC_RELAXED); }		\
static __always_inline t pfx##_read_acquire(const at *v)		\
{ PSEM_USER_POINT(#pfx "_read_acquire", v);				\
  return __atomic_load_n(&v->counter, __ATOMIC_ACQUIRE); }		\
static __always_inline void pfx##_set(at *v, t i)			\
{ PSEM_USER_POINT(#pfx "_set", v);				\
  __atomic_store_n(&v->counter, i, __ATOMIC_RELAXED); }		\
static __always_inline void pfx##_set_release(at *v, t i)		\
{ PSEM_USER_POINT(#pfx "_set_release", v);				\
  __atomic_store_n(&v->counter, i, __ATOMIC_RELEASE); }		\
__SHIM_VOID(pfx, at, add, __atomic_fetch_add, i, t i,)			\
__SHIM_VOID(pfx, at, sub, __atomic_fetch_sub, i, t i,)			\
__SHIM_VOID(pfx, at, inc, __atomic_fetch_add, 1)			\
__SHIM_VOID(pfx, at, dec, __atomic_fetch_sub, 1)			\
__SHIM_VOID(pfx, at, and, __atomic_fetch_and, i, t i,)			\
__SHIM_VOID(pfx, at, andnot, __atomic_fetch_and, ~i, t i,)		\
__SHIM_VOID(pfx, at, or, __atomic_fetch_or, i, t i,)			\
__SHIM_VOID(pfx, at, xor, __atomic_fetch_xor, i, t i,)			\
__SHIM_ATOMIC_ORD(pfx, at, t, , __ATOMIC_SEQ_CST)			\
__SHIM_ATOMIC_ORD(pfx, at, t, _acquire, __ATOMIC_ACQUIRE)		\
__SHIM_ATOMIC_ORD(pfx, at, t, _release, __ATOMIC_RELEASE)		\
__SHIM_ATOMIC_ORD(pfx, at, t, _relaxed, __ATOMIC_RELAXED)		\
static __always_inline bool pfx##_dec_and_test(at *v)			\
{ return pfx##_dec_return(v) == 0; }					\
static __always_inline bool pfx##_inc_and_test(at *v)			\
{ return pfx##_inc_return(v) == 0; }					\
static __always_inline bool pfx##_sub_and_test(t i, at *v)		\
{ return pfx##_sub_return(i, v) == 0; }				\
static __always_inline bool pfx##_add_negative(t i, at *v)		\
{ return pfx##_add_return(i, v) < 0; }					\
static __always_inline t pfx##_fetch_add_unless(at *v, t a, t u)	\
{									\
	t c = pfx##_read(v);						\
									\
	do {								\
		if (c == u)						\
			break;						\
	} while (!pfx##_try_cmpxchg(v, &c, c + a));			\
	return c;							\
}									\
static __always_inline bool pfx##_add_unless(at *v, t a, t u)		\
{ return pfx##_fetch_add_unless(v, a, u) != u; }			\
static __always_inline bool pfx##_inc_not_zero(at *v)			\
{ return pfx##_add_unless(v, 1, 0); }

__SHIM_ATOMIC(atomic, atomic_t, int)
__SHIM_ATOMIC(atomic_long, atomic_long_t, long)
__SHIM_ATOMIC(atomic64, atomic64_t, s64)

/* The scalar forms: xchg(), cmpxchg(), try_cmpxchg() and their orders. */
#define __shim_cmpxchg(p, o, n, mo)					\
({									\
	__typeof__(*(p)) __o = (o);					\
	PSEM_USER_POINT_CAS("cmpxchg", (p), __o);			\
	__atomic_compare_exchange_n((p), &__o, (n), false, mo,		\
				    __ATOMIC_RELAXED);			\
	__o;								\
})
#define cmpxchg(p, o, n)	__shim_cmpxchg(p, o, n, __ATOMIC_SEQ_CST)
#define cmpxchg_acquire(p, o, n) __shim_cmpxchg(p, o, n, __ATOMIC_ACQUIRE)
#define cmpxchg_release(p, o, n) __shim_cmpxchg(p, o, n, __ATOMIC_RELEASE)
#define cmpxchg_relaxed(p, o, n) __shim_cmpxchg(p, o, n, __ATOMIC_RELAXED)
#define __shim_try_cmpxchg(p, po, n, mo)				\
({									\
	PSEM_USER_POINT_CAS("try_cmpxchg", (p), *(po));			\
	__atomic_compare_exchange_n((p), (po), (n), false, mo,		\
				    __ATOMIC_RELAXED);			\
})
#define try_cmpxchg(p, po, n)	__shim_try_cmpxchg(p, po, n, __ATOMIC_SEQ_CST)
#define try_cmpxchg_acquire(p, po, n)					\
	__shim_try_cmpxchg(p, po, n, __ATOMIC_ACQUIRE)
#define try_cmpxchg_release(p, po, n)					\
	__shim_try_cmpxchg(p, po, n, __ATOMIC_RELEASE)
#define try_cmpxchg_relaxed(p, po, n)					\
	__shim_try_cmpxchg(p, po, n, __ATOMIC_RELAXED)
#define __shim_xchg(p, n, mo)						\
({									\
	PSEM_USER_POINT("xchg", (p));					\
	__atomic_exchange_n((p), (n), mo);				\
})
#define xchg(p, n)		__shim_xchg(p, n, __ATOMIC_SEQ_CST)
#define xchg_acquire(p, n)	__shim_xchg(p, n, __ATOMIC_ACQUIRE)
#define xchg_release(p, n)	__shim_xchg(p, n, __ATOMIC_RELEASE)
#define xchg_relaxed(p, n)	__shim_xchg(p, n, __ATOMIC_RELAXED)

#endif /* _PSEM_SHIM_LINUX_ATOMIC_H */
