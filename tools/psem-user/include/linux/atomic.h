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

#define __SHIM_ATOMIC_ORD(pfx, at, t, sfx, mo)				\
static __always_inline t pfx##_add_return##sfx(t i, at *v)		\
{ PSEM_USER_POINT(#pfx "_add_return" #sfx, v);				\
  return __atomic_add_fetch(&v->counter, i, mo); }			\
static __always_inline t pfx##_sub_return##sfx(t i, at *v)		\
{ PSEM_USER_POINT(#pfx "_sub_return" #sfx, v);				\
  return __atomic_sub_fetch(&v->counter, i, mo); }			\
static __always_inline t pfx##_inc_return##sfx(at *v)			\
{ PSEM_USER_POINT(#pfx "_inc_return" #sfx, v);				\
  return __atomic_add_fetch(&v->counter, 1, mo); }			\
static __always_inline t pfx##_dec_return##sfx(at *v)			\
{ PSEM_USER_POINT(#pfx "_dec_return" #sfx, v);				\
  return __atomic_sub_fetch(&v->counter, 1, mo); }			\
static __always_inline t pfx##_fetch_add##sfx(t i, at *v)		\
{ PSEM_USER_POINT(#pfx "_fetch_add" #sfx, v);				\
  return __atomic_fetch_add(&v->counter, i, mo); }			\
static __always_inline t pfx##_fetch_sub##sfx(t i, at *v)		\
{ PSEM_USER_POINT(#pfx "_fetch_sub" #sfx, v);				\
  return __atomic_fetch_sub(&v->counter, i, mo); }			\
static __always_inline t pfx##_fetch_inc##sfx(at *v)			\
{ PSEM_USER_POINT(#pfx "_fetch_inc" #sfx, v);				\
  return __atomic_fetch_add(&v->counter, 1, mo); }			\
static __always_inline t pfx##_fetch_dec##sfx(at *v)			\
{ PSEM_USER_POINT(#pfx "_fetch_dec" #sfx, v);				\
  return __atomic_fetch_sub(&v->counter, 1, mo); }			\
static __always_inline t pfx##_fetch_and##sfx(t i, at *v)		\
{ PSEM_USER_POINT(#pfx "_fetch_and" #sfx, v);				\
  return __atomic_fetch_and(&v->counter, i, mo); }			\
static __always_inline t pfx##_fetch_andnot##sfx(t i, at *v)		\
{ PSEM_USER_POINT(#pfx "_fetch_andnot" #sfx, v);				\
  return __atomic_fetch_and(&v->counter, ~i, mo); }			\
static __always_inline t pfx##_fetch_or##sfx(t i, at *v)		\
{ PSEM_USER_POINT(#pfx "_fetch_or" #sfx, v);				\
  return __atomic_fetch_or(&v->counter, i, mo); }			\
static __always_inline t pfx##_fetch_xor##sfx(t i, at *v)		\
{ PSEM_USER_POINT(#pfx "_fetch_xor" #sfx, v);				\
  return __atomic_fetch_xor(&v->counter, i, mo); }			\
static __always_inline t pfx##_xchg##sfx(at *v, t n)			\
{ PSEM_USER_POINT(#pfx "_xchg" #sfx, v);				\
  return __atomic_exchange_n(&v->counter, n, mo); }			\
static __always_inline t pfx##_cmpxchg##sfx(at *v, t o, t n)		\
{ PSEM_USER_POINT(#pfx "_cmpxchg" #sfx, v);				\
	__atomic_compare_exchange_n(&v->counter, &o, n, false, mo,	\
				    __ATOMIC_RELAXED);			\
	return o;							\
}									\
static __always_inline bool pfx##_try_cmpxchg##sfx(at *v, t *o, t n)	\
{ PSEM_USER_POINT(#pfx "_try_cmpxchg" #sfx, v);				\
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
static __always_inline void pfx##_add(t i, at *v)			\
{ PSEM_USER_POINT(#pfx "_add", v);				\
  __atomic_fetch_add(&v->counter, i, __ATOMIC_RELAXED); }		\
static __always_inline void pfx##_sub(t i, at *v)			\
{ PSEM_USER_POINT(#pfx "_sub", v);				\
  __atomic_fetch_sub(&v->counter, i, __ATOMIC_RELAXED); }		\
static __always_inline void pfx##_inc(at *v)				\
{ PSEM_USER_POINT(#pfx "_inc", v);				\
  __atomic_fetch_add(&v->counter, 1, __ATOMIC_RELAXED); }		\
static __always_inline void pfx##_dec(at *v)				\
{ PSEM_USER_POINT(#pfx "_dec", v);				\
  __atomic_fetch_sub(&v->counter, 1, __ATOMIC_RELAXED); }		\
static __always_inline void pfx##_and(t i, at *v)			\
{ PSEM_USER_POINT(#pfx "_and", v);				\
  __atomic_fetch_and(&v->counter, i, __ATOMIC_RELAXED); }		\
static __always_inline void pfx##_andnot(t i, at *v)			\
{ PSEM_USER_POINT(#pfx "_andnot", v);				\
  __atomic_fetch_and(&v->counter, ~i, __ATOMIC_RELAXED); }		\
static __always_inline void pfx##_or(t i, at *v)			\
{ PSEM_USER_POINT(#pfx "_or", v);				\
  __atomic_fetch_or(&v->counter, i, __ATOMIC_RELAXED); }		\
static __always_inline void pfx##_xor(t i, at *v)			\
{ PSEM_USER_POINT(#pfx "_xor", v);				\
  __atomic_fetch_xor(&v->counter, i, __ATOMIC_RELAXED); }		\
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
	PSEM_USER_POINT("cmpxchg", (p));				\
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
	PSEM_USER_POINT("try_cmpxchg", (p));				\
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
