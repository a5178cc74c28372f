// SPDX-License-Identifier: GPL-2.0
/*
 * Releases from NMI and hard-only IRQs, which park their permits for the
 * irq_work hand-off, against the hand-off itself, psem_sync(), quiesce,
 * the teardown of every primitive and the queries.
 */
#include <linux/irq_work.h>

#include "psem_mutex.h"
#include "psem_pool.h"
#include "psem_rwlock.h"
#include "scen.h"

/* Sources before psem_sem.h have no is_held to explore. */
#if __has_include("psem_sem.h")
#include "psem_sem.h"
#define XS_HAVE_SEM_H 1
#endif

static struct psem *sem;
static int ret[4];
static long held;

/* ---- two NMI releases, then close, quiesce, free -------------------- */

static void nq_nmi(void *arg)
{
	ret[(long)arg] = psem_release(sem, 1);
}

static void nq_owner(void *arg)
{
	psem_close(sem);
	xs_quiesce_free(&sem, 2);
}

static void nq_setup(void)
{
	sem = xs_psem_cap(2, 2);	/* both out: with the two NMIs */
	ex_spawn_ctx("nmi1", nq_nmi, (void *)0L, NMI_OFFSET);
	ex_spawn_ctx("nmi2", nq_nmi, (void *)1L, NMI_OFFSET);
	ex_spawn("owner", nq_owner, NULL);
}

static void nq_check(void)
{
	ex_assert(!ret[0] && !ret[1], "NMI releases: %d %d", ret[0], ret[1]);
}

XS_SCENARIO(nmi_quiesce_free, "defer/nmi-quiesce-free", nq_setup, nq_check,
	    "two NMI releases park; the owner closes, quiesces and frees",
	    .bound = 1);	/* 10,092 schedules at bound 2 */

/* ---- an NMI on the thread that holds the queue lock ------------------ */

static void nl_holder(void *arg)
{
	/* Queues, so holds the queue lock a while, then is served. */
	ret[0] = psem_acquire(sem, 1);
	if (!ret[0])
		held--;
}

static void nl_irq(void *arg)
{
	/* Any point of the holder, queue lock held or not: parks, or lands. */
	ret[1] = psem_release(sem, 1);
	held++;
}

static void nl_setup(void)
{
	sem = xs_psem(0);
	held = 0;
	ex_spawn("holder", nl_holder, NULL);
	ex_interrupt(2, NMI_OFFSET, nl_irq, NULL, 1);
}

static void nl_check(void)
{
	/* The NMI came, or the holder could not have been served. */
	ex_assert(!ret[0] && !ret[1], "results %d %d", ret[0], ret[1]);
	xs_conserved(sem, held, 0);
	kfree(sem);
}

XS_SCENARIO(nmi_on_lock, "defer/nmi-on-lock-holder", nl_setup, nl_check,
	    "an NMI release delivered anywhere in a waiter, queue lock held included");

/* ---- a parked release after a shrinking resize left a debt ---------- */

static void rd_resizer(void *arg)
{
	ret[0] = psem_resize(sem, 2);	/* 10 out of 10: a debt of 8 */
}

static void rd_nmi(void *arg)
{
	ex_wait_until((bool (*)(void *))ex_thread_done, (void *)2L);
	ret[1] = psem_release(sem, 10);
}

static void rd_setup(void)
{
	sem = xs_psem_cap(10, 10);
	ex_spawn("resizer", rd_resizer, NULL);
	ex_spawn_ctx("nmi", rd_nmi, NULL, NMI_OFFSET);
}

static void rd_check(void)
{
	/* As from a task: the 8 pay the debt, 2 come home. */
	ex_assert(!ret[0] && !ret[1], "resize %d, NMI release %d", ret[0],
		  ret[1]);
	ex_assert(psem_available(sem) == 2 && !psem_debt(sem),
		  "available %ld, debt %lu", psem_available(sem), psem_debt(sem));
	kfree(sem);
}

XS_SCENARIO(resize_debt_nmi, "defer/nmi-release-pays-debt", rd_setup, rd_check,
	    "an NMI release of more than the new capacity pays a resize's debt");

/* ---- a parked release against a reduce that records a debt ---------- */

static void pr_reducer(void *arg)
{
	ret[0] = psem_reduce(sem, 2);	/* what is there, the rest a debt */
}

static void pr_nmi(void *arg)
{
	ret[1] = psem_release(sem, 1);	/* lands, parks, or pays the debt */
}

static void pr_releaser(void *arg)
{
	ret[2] = psem_release(sem, 2);	/* pays the debt, or adds */
}

static void pr_setup(void)
{
	sem = xs_psem(0);	/* 3 out: the NMI's 1 and the releaser's 2 */
	ret[0] = ret[1] = ret[2] = -1;
	ex_spawn("reducer", pr_reducer, NULL);
	ex_spawn_ctx("nmi", pr_nmi, NULL, NMI_OFFSET);
	ex_spawn("releaser", pr_releaser, NULL);
}

/*
 * The debt in the word and the parked permits in &psem.pending: whichever
 * came first, the 3 came home and the reduce took 2 of them, none twice,
 * and nothing is left owed, parked or flagged.
 */
static void pr_check(void)
{
	long word = atomic_long_read(&sem->count);

	ex_assert(!ret[0] && !ret[1] && !ret[2], "reduce %d, NMI release %d, release %d",
		  ret[0], ret[1], ret[2]);
	ex_assert(psem_available(sem) == 1 && !psem_debt(sem),
		  "available %ld, debt %lu", psem_available(sem), psem_debt(sem));
	ex_assert(word == PSEM_ONE && !atomic_read(&sem->pending),
		  "word %#lx, pending %#x", (unsigned long)word,
		  atomic_read(&sem->pending));
	xs_settled(sem, 0, 1);
	kfree(sem);
}

XS_SCENARIO(park_reduce, "defer/nmi-vs-reduce", pr_setup, pr_check,
	    "an NMI release and a task release against a reduce that leaves a debt");

/* ---- psem_sync() after a release from NMI: its permit is home -------- */

static void sh_nmi(void *arg)
{
	ret[0] = psem_release(sem, XS_PARK_N);	/* closed: the locked path */
}

static void sh_owner(void *arg)
{
	ex_wait_until((bool (*)(void *))ex_thread_done, (void *)2L);
	psem_sync(sem);
	ex_assert(psem_available(sem) == XS_PARK_N, "synced with %ld home",
		  psem_available(sem));
}

static void sh_setup(void)
{
	sem = xs_psem_cap(XS_PARK_N, XS_PARK_N);
	if (psem_close(sem))
		ex_fail("setup");
	ex_spawn_ctx("nmi", sh_nmi, NULL, NMI_OFFSET);
	ex_spawn("owner", sh_owner, NULL);
}

static void sh_check(void)
{
	ex_assert(!ret[0], "NMI release %d", ret[0]);
	kfree(sem);
}

XS_SCENARIO(sync_parked_home, "defer/sync-parked-home", sh_setup, sh_check,
	    "psem_sync() after an NMI release returned: the parked permit is in the balance");

/* ---- NMI releases on two psems: one hand-off, both freed ------------ */

static struct psem *sem2;

static void kt_waiter(void *arg)
{
	long i = (long)arg;
	struct psem *s = i ? sem2 : sem;

	ret[i] = psem_acquire(s, 1);
	if (!ret[i])
		psem_release(s, 1);
}

static bool kt_both_linked(void *unused)
{
	return xs_linked(sem, ex_task(2)) && xs_linked(sem2, ex_task(3));
}

static void kt_nmi(void *arg)
{
	ex_wait_until(kt_both_linked, NULL);
	/* Each waiter needs the queue lock: both park, on one irq_work. */
	ret[2] = psem_release(sem, 1);
	ret[3] = psem_release(sem2, 1);
}

static bool kt_waiters_done(void *unused)
{
	return ex_thread_done(2) && ex_thread_done(3);
}

static void kt_owner(void *arg)
{
	/*
	 * After both waiters gave back the NMI's permits: each psem is home,
	 * and only psem_sync() can tell that its hand-off has let go.
	 */
	ex_wait_until(kt_waiters_done, NULL);
	xs_quiesce_free(&sem, 1);
	xs_quiesce_free(&sem2, 1);
}

static void kt_setup(void)
{
	sem = xs_psem_cap(1, 1);
	sem2 = xs_psem_cap(1, 1);
	ex_spawn("waiter1", kt_waiter, (void *)0L);
	ex_spawn("waiter2", kt_waiter, (void *)1L);
	ex_spawn_ctx("nmi", kt_nmi, NULL, NMI_OFFSET);
	ex_spawn("owner", kt_owner, NULL);
}

static void kt_check(void)
{
	ex_assert(!ret[0] && !ret[1] && !ret[2] && !ret[3],
		  "waiters %d %d, NMI releases %d %d", ret[0], ret[1], ret[2],
		  ret[3]);
}

XS_SCENARIO(kick_two_free, "defer/kick-two-psems-free", kt_setup, kt_check,
	    "NMI releases park on two psems, one hand-off serves both; each is quiesced and freed",
	    .bound = 1);

/* ---- psem_is_held() and psem_available() with a parked permit ------- */

#ifdef XS_HAVE_SEM_H
static void ih_waiter(void *arg)
{
	psem_down(sem);		/* queued behind the holder */
	psem_up(sem);
}

static void ih_nmi(void *arg)
{
	ex_wait_until(xs_tid_linked, (void *)2L);
	psem_up(sem);		/* the holder's up(), from NMI: parks */
}

static void ih_observer(void *arg)
{
	ex_wait_until(xs_tid_linked_or_done, (void *)2L);
	for (;;) {
		bool queued = xs_linked(sem, ex_task(2));
		bool is_held = psem_is_held(sem);
		long avail = psem_available(sem);
		bool got;

		/* The waiter is still queued: the permit is its. */
		if (queued && xs_linked(sem, ex_task(2)))
			ex_assert(is_held && !avail,
				  "waiter queued, yet is_held %d, available %ld",
				  is_held, avail);
		got = psem_try_acquire(sem, 1);
		/* What it reported available, it could take. */
		if (avail && !got && xs_linked(sem, ex_task(2)))
			ex_fail("available %ld, but try_acquire(1) failed", avail);
		if (got)
			psem_up(sem);
		if (!queued)
			break;
		ex_yield("observe again");
	}
}

static void ih_setup(void)
{
	sem = xs_psem(1);
	if (!psem_try_acquire(sem, 1))	/* the holder: its up() is the NMI's */
		ex_fail("setup");
	ex_spawn("waiter", ih_waiter, NULL);
	ex_spawn_ctx("nmi", ih_nmi, NULL, NMI_OFFSET);
	ex_spawn("observer", ih_observer, NULL);
}

static void ih_check(void)
{
	xs_conserved(sem, 0, 1);
	kfree(sem);
}

XS_SCENARIO(is_held_parked, "defer/is-held-parked", ih_setup, ih_check,
	    "psem_is_held() and psem_available() while an NMI's up() is parked",
	    .bound = 1);	/* 56,812 schedules at bound 2 */
#endif

/* ---- every primitive's teardown after an unlock from NMI ------------ */

static struct psem_mutex *mtx;
static struct psem_rwlock *rwl;

static void pd_setup(void)
{
	xs_pool_handover(NMI_OFFSET);
}

XS_SCENARIO(pool_destroy, "defer/pool-destroy-nmi-put", pd_setup,
	    xs_pool_handover_check,
	    "a pool put from NMI hands over to a waiter; the owner destroys and frees",
	    .bound = 1);	/* 1,897 schedules at bound 2 */

static void mx_locker(void *arg)
{
	psem_mutex_lock(mtx);	/* waits for the NMI's unlock */
	psem_mutex_unlock(mtx);
	xs_mutex_free(&mtx);
}

static void mx_nmi(void *arg)
{
	ex_wait_until(xs_any_waiter, &mtx->sem);
	psem_mutex_unlock(mtx);	/* non-owner: the mutex was set up held */
}

static void mx_setup(void)
{
	mtx = kzalloc(sizeof(*mtx), GFP_KERNEL);
	psem_mutex_init(mtx);
	if (!psem_try_acquire(&mtx->sem, 1))
		ex_fail("setup");
	ex_spawn("locker", mx_locker, NULL);
	ex_spawn_ctx("nmi", mx_nmi, NULL, NMI_OFFSET);
}

XS_SCENARIO(mutex_free, "defer/mutex-unlock-nmi-free", mx_setup, NULL,
	    "a mutex unlocked from NMI to a waiter, which unlocks, destroys and frees it");

static void rw_reader(void *arg)
{
	psem_read_lock(rwl);	/* waits for the NMI's write unlock */
	psem_read_unlock(rwl);
	xs_rwlock_free(&rwl);
}

static void rw_nmi(void *arg)
{
	ex_wait_until(xs_any_waiter, &rwl->sem);
	psem_write_unlock(rwl);
}

static void rw_setup(void)
{
	rwl = kzalloc(sizeof(*rwl), GFP_KERNEL);
	psem_rwlock_init(rwl);
	if (!psem_write_trylock(rwl))
		ex_fail("setup");
	ex_spawn("reader", rw_reader, NULL);
	ex_spawn_ctx("nmi", rw_nmi, NULL, NMI_OFFSET);
}

XS_SCENARIO(rwlock_free, "defer/rwlock-unlock-nmi-free", rw_setup, NULL,
	    "a rwlock write-unlocked from NMI to a reader, which unlocks, destroys and frees it");

/*
 * ---- every primitive's teardown after a hand-off to the balance ------
 *
 * A waiter queues behind the holder; the holder's unlock (or put), from
 * NMI, parks its permit; the signal the NMI sends first may end the wait
 * before the hand-off runs, and then the
 * hand-off finds nobody to serve and adds the permit to the balance,
 * where the owner takes it lock-free, gives it back, destroys and frees:
 * the hand-off may not have dropped the queue lock yet, and only the
 * destroy's psem_sync() waits for it.
 */
enum cn_kind { CN_MUTEX, CN_RWLOCK, CN_POOL };
static enum cn_kind cn_kind;
static struct psem_pool *cn_pool;
static int cn_obj;

static struct psem *cn_sem(void)
{
	switch (cn_kind) {
	case CN_MUTEX:
		return &mtx->sem;
	case CN_RWLOCK:
		return &rwl->sem;
	default:
		return &cn_pool->sem;
	}
}

/* Takes the primitive and gives it back at once; returns the result. */
static int cn_cycle(bool try)
{
	void *o;
	int r;

	switch (cn_kind) {
	case CN_MUTEX:
		r = try ? !psem_mutex_trylock(mtx) : psem_mutex_lock_interruptible(mtx);
		if (!r)
			psem_mutex_unlock(mtx);
		return r;
	case CN_RWLOCK:
		r = try ? !psem_write_trylock(rwl) : psem_write_lock_interruptible(rwl);
		if (!r)
			psem_write_unlock(rwl);
		return r;
	default:
		if (try) {
			o = psem_pool_try_get(cn_pool);
			r = !o;
		} else {
			r = psem_pool_get_interruptible(cn_pool, &o);
		}
		if (!r)
			ret[3] = psem_pool_put(cn_pool, o);
		return r;
	}
}

static void cn_waiter(void *arg)
{
	ret[0] = cn_cycle(false);
}

/* The waiter is linked, or gone (and then the primitive may be too). */
static bool cn_linked(void *arg)
{
	return ex_thread_done(2) || xs_linked(cn_sem(), ex_task(2));
}

static void cn_nmi(void *arg)
{
	ex_wait_until(cn_linked, NULL);
	/* Ends the wait, unless the hand-off serves it first. */
	psem_user_signal(ex_task(2), false);
	if (cn_kind == CN_MUTEX)
		psem_mutex_unlock(mtx);	/* non-owner: set up held */
	else if (cn_kind == CN_RWLOCK)
		psem_write_unlock(rwl);
	else
		ret[1] = psem_pool_put(cn_pool, &cn_obj);
}

static bool cn_taken(void *arg)
{
	return ex_thread_done(2) && ex_thread_done(3) && !cn_cycle(true);
}

static void cn_owner(void *arg)
{
	ex_wait_until(cn_taken, NULL);
	if (cn_kind == CN_MUTEX) {
		xs_mutex_free(&mtx);
	} else if (cn_kind == CN_RWLOCK) {
		xs_rwlock_free(&rwl);
	} else {
		psem_pool_destroy(cn_pool);
		kfree(cn_pool);
		cn_pool = NULL;
	}
}

static void cn_setup(void)
{
	void *objs[1] = { &cn_obj };

	if (cn_kind == CN_MUTEX) {
		mtx = kzalloc(sizeof(*mtx), GFP_KERNEL);
		psem_mutex_init(mtx);
		if (!psem_try_acquire(&mtx->sem, 1))
			ex_fail("setup");
	} else if (cn_kind == CN_RWLOCK) {
		rwl = kzalloc(sizeof(*rwl), GFP_KERNEL);
		psem_rwlock_init(rwl);
		if (!psem_write_trylock(rwl))
			ex_fail("setup");
	} else {
		cn_pool = kzalloc(sizeof(*cn_pool), GFP_KERNEL);
		if (!cn_pool || psem_pool_init(cn_pool, objs, 1, GFP_KERNEL) ||
		    psem_pool_try_get(cn_pool) != &cn_obj)
			ex_fail("setup");
	}
	ex_spawn("waiter", cn_waiter, NULL);
	ex_spawn_ctx("nmi", cn_nmi, NULL, NMI_OFFSET);
	ex_spawn("owner", cn_owner, NULL);
}

static void cn_check(void)
{
	/* Served, or ended by the signal; every put went in. */
	ex_assert((!ret[0] || ret[0] == -EINTR) && !ret[1] && !ret[3],
		  "waiter %d, puts %d %d", ret[0], ret[1], ret[3]);
}

XS_VARIANT(cn_mutex, cn_kind, CN_MUTEX, cn_setup, cn_check,
	   "defer/mutex-cancel-nmi-free",
	   "a mutex unlocked from NMI while its waiter leaves; the owner takes it, destroys and frees it",
	   .bound = 1);
XS_VARIANT(cn_rwlock, cn_kind, CN_RWLOCK, cn_setup, cn_check,
	   "defer/rwlock-cancel-nmi-free",
	   "a rwlock write-unlocked from NMI while its waiter leaves; the owner takes it, destroys and frees it",
	   .bound = 1);
XS_VARIANT(cn_pool_v, cn_kind, CN_POOL, cn_setup, cn_check,
	   "defer/pool-cancel-nmi-free",
	   "a pool put from NMI while its getter leaves; the owner takes the object, destroys and frees the pool",
	   .bound = 1);

/*
 * ---- what NMI refuses, against a waiter its release serves ----------
 *
 * From NMI, close, resize and an asynchronous acquire that would queue
 * are refused with -EPERM, each changing nothing; a release of 1 parks
 * and serves the waiter. The refusals are counted, not their warnings: a
 * WARN() on some sources, one line of printk on others.
 */
static struct psem_async nr_aw;

static void nr_cb(struct psem_async *a, int result)
{
	ex_fail("a refused asynchronous acquire was called back (%d)", result);
}

static void nr_waiter(void *arg)
{
	ret[0] = psem_acquire(sem, 1);
	if (!ret[0])
		held++;
}

static void nr_nmi(void *arg)
{
	long refused = xs_refusals();

	ex_wait_until(xs_tid_linked_or_done, (void *)2L);
	ret[1] = psem_close(sem);
	ret[2] = psem_resize(sem, 1);
	ret[3] = psem_acquire_async(sem, 1, &nr_aw, nr_cb);
	ex_assert(xs_refusals() - refused == 3, "%ld refusals counted",
		  xs_refusals() - refused);
	ex_assert(!psem_is_closed(sem) && psem_capacity(sem) == 2,
		  "a refusal changed the psem");
	ex_assert(!psem_release(sem, 1), "the NMI's release of 1");
	held--;
}

static void nr_setup(void)
{
	psem_quiet_warnings = true;
	sem = xs_psem_cap(2, 2);
	held = 2;
	ex_spawn("waiter", nr_waiter, NULL);
	ex_spawn_ctx("nmi", nr_nmi, NULL, NMI_OFFSET);
}

static void nr_check(void)
{
	ex_assert(!ret[0], "waiter %d", ret[0]);
	ex_assert(ret[1] == -EPERM && ret[2] == -EPERM && ret[3] == -EPERM,
		  "from NMI: close %d, resize %d, acquire_async %d", ret[1],
		  ret[2], ret[3]);
	xs_settled(sem, held, 2);
	kfree(sem);
}

XS_SCENARIO(nmi_refusals, "defer/nmi-refusals", nr_setup, nr_check,
	    "close, resize and a queueing async acquire refused in NMI; its release of 1 serves a waiter");

/*
 * ---- an over-release from NMI, against an acquirer -------------------
 *
 * With 2 of a capacity of 2 out, an NMI releases 3: it parks them, and
 * the hand-off accepts what the locked path would (the 2 that can have
 * been held) and refuses the one in excess, whether or not the acquirer
 * queued meanwhile. Counted, not warned (see above).
 */
static long or_refused;

static void or_acquirer(void *arg)
{
	ret[0] = psem_acquire(sem, 1);
	if (!ret[0])
		held++;
}

static void or_nmi(void *arg)
{
	ret[1] = psem_release(sem, 3);	/* parks: judged by the hand-off */
	held -= 2;
}

static void or_setup(void)
{
	psem_quiet_warnings = true;
	sem = xs_psem_cap(2, 2);
	held = 2;
	or_refused = xs_refusals();
	ex_spawn("acquirer", or_acquirer, NULL);
	ex_spawn_ctx("nmi", or_nmi, NULL, NMI_OFFSET);
}

static void or_check(void)
{
	ex_assert(!ret[0] && !ret[1], "acquire %d, NMI release %d", ret[0],
		  ret[1]);
	ex_assert(xs_refusals() - or_refused == 1, "%ld refusals counted",
		  xs_refusals() - or_refused);
	/* The capacity holds: what is held and available is 2. */
	xs_settled(sem, held, 2);
	kfree(sem);
}

XS_SCENARIO(nmi_over_release, "defer/nmi-over-release", or_setup, or_check,
	    "an NMI releases 3 with 2 out: the hand-off takes 2, refuses 1, an acquirer races it");
