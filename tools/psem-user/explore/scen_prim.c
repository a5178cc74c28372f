// SPDX-License-Identifier: GPL-2.0
/*
 * The primitives on psem: the mutex's unlock against its lock, the
 * rwlock's write unlock and downgrade against readers and a writer,
 * psem_sem.h's psem_down(), psem_up() and psem_is_held(), and a pool's
 * teardown after a put from hard IRQ.
 *
 * Each holder counts itself in after its lock returns and out before its
 * unlock, so the counts never include a thread that does not hold: an
 * oracle on them can miss nothing that it asserts.
 */
#include "psem_mutex.h"
#include "psem_pool.h"
#include "psem_rwlock.h"
#include "scen.h"

#if __has_include("psem_sem.h")
#include "psem_sem.h"
#define XS_HAVE_SEM_H 1
#endif

static int in_cs, readers, writers, ret[4];

/* ---- mutex: two lockers and a trylock --------------------------------- */

static struct psem_mutex *mtx;
static struct ex_guard mx_data = { .what = "the data the mutex guards" };

static void mx_cs(void)
{
	ex_assert(++in_cs == 1, "%d in the mutex", in_cs);
	ex_guard_read(&mx_data);
	ex_assert(psem_mutex_is_locked(mtx), "held, yet unlocked");
	ex_guard_write(&mx_data);
	in_cs--;
}

static void mx_locker(void *arg)
{
	psem_mutex_lock(mtx);
	mx_cs();
	psem_mutex_unlock(mtx);
}

static void mx_trier(void *arg)
{
	if (!psem_mutex_trylock(mtx))
		return;
	mx_cs();
	psem_mutex_unlock(mtx);
}

static void mx_setup(void)
{
	mtx = kzalloc(sizeof(*mtx), GFP_KERNEL);
	psem_mutex_init(mtx);
	ex_spawn("locker1", mx_locker, NULL);
	ex_spawn("locker2", mx_locker, NULL);
	ex_spawn("trier", mx_trier, NULL);
}

static void mx_check(void)
{
	ex_assert(!psem_mutex_is_locked(mtx), "left locked");
	xs_settled(&mtx->sem, 0, 1);
	kfree(mtx);
}

XS_SCENARIO(mutex_lock_unlock, "mutex/unlock-vs-lock", mx_setup, mx_check,
	    "two lockers and a trylock: one holder at a time, the unlock hands over");

/* ---- rwlock: a writer downgrades; a reader and a writer wait --------- */

static struct psem_rwlock *rwl;

/* Takes the write lock and counts itself in: alone, no reader. */
static void rw_write_enter(const char *who)
{
	psem_write_lock(rwl);
	ex_assert(++writers == 1 && !readers, "%s in with %d writers, %d readers",
		  who, writers, readers);
}

static void rw_write_exit(void)
{
	writers--;
	psem_write_unlock(rwl);
}

static void rw_writer(void *arg)
{
	rw_write_enter("writer");
	/* Now a reader: counted so before the permits go back. */
	writers--;
	readers++;
	psem_downgrade_write(rwl);
	ex_assert(!writers, "a writer in after the downgrade");
	readers--;
	psem_read_unlock(rwl);
}

static void rw_reader(void *arg)
{
	ex_wait_until(xs_tid_linked_or_done, (void *)4L);
	psem_read_lock(rwl);
	readers++;
	ex_assert(!writers, "reader in with a writer");
	readers--;
	psem_read_unlock(rwl);
}

static void rw_writer2(void *arg)
{
	rw_write_enter("writer 2");
	rw_write_exit();
}

static void rw_setup(void)
{
	rwl = kzalloc(sizeof(*rwl), GFP_KERNEL);
	psem_rwlock_init(rwl);
	xs_sem = &rwl->sem;
	ex_spawn("writer", rw_writer, NULL);	/* 2 */
	ex_spawn("reader", rw_reader, NULL);	/* 3 */
	ex_spawn("writer2", rw_writer2, NULL);	/* 4 */
}

static void rw_check(void)
{
	xs_settled(&rwl->sem, 0, PSEM_RWLOCK_MAX_READERS);
	kfree(rwl);
}

XS_SCENARIO(rwlock_downgrade, "rwlock/downgrade-vs-lock", rw_setup, rw_check,
	    "a writer downgrades while a reader and a second writer wait: exclusion, and both get in");

/* ---- rwlock: a reader behind a waiting writer waits for it (FIFO) --- */

static void rf_holder(void *arg)
{
	/* The setup's read hold, released here once the writer waits. */
	ex_wait_until(xs_tid_linked_or_done, (void *)3L);
	readers--;
	psem_read_unlock_non_owner(rwl);
}

static void rf_writer_lock(void *arg)
{
	rw_write_enter("writer");
	ret[0] = 1;	/* the writer has been in */
	rw_write_exit();
}

static void rf_late_reader(void *arg)
{
	/* Arrives once the writer waits (or is done): must not overtake it. */
	ex_wait_until(xs_tid_linked_or_done, (void *)3L);
	psem_read_lock(rwl);
	ex_assert(ret[0], "a reader overtook the waiting writer");
	psem_read_unlock(rwl);
}

static void rf_setup(void)
{
	rwl = kzalloc(sizeof(*rwl), GFP_KERNEL);
	psem_rwlock_init(rwl);
	xs_sem = &rwl->sem;
	if (!psem_read_trylock_non_owner(rwl))
		ex_fail("setup");
	readers = 1;
	ex_spawn("holder", rf_holder, NULL);		/* 2 */
	ex_spawn("writer", rf_writer_lock, NULL);	/* 3 */
	ex_spawn("late-reader", rf_late_reader, NULL);	/* 4 */
}

XS_SCENARIO(rwlock_fifo, "rwlock/reader-behind-writer", rf_setup, rw_check,
	    "a reader that comes while a writer waits for a read hold gets in after the writer",
	    .bound = 1);	/* 4,093 schedules at bound 2 */

/* ---- psem_sem.h: down, up and is_held as a binary semaphore --------- */

#ifdef XS_HAVE_SEM_H
static struct psem *bsem;
static unsigned int gen;	/* bumped at every entry and exit */
static struct ex_guard sm_data = { .what = "the data the binary semaphore guards" };

static void sm_holder(void *arg)
{
	psem_down(bsem);
	gen++;
	ex_assert(++in_cs == 1, "%d hold the binary semaphore", in_cs);
	/* What the last holder wrote is ordered before this holder. */
	ex_guard_read(&sm_data);
	/* The use of is_held: an assertion by the holder. */
	ex_assert(psem_is_held(bsem), "the holder reads it free");
	ex_guard_write(&sm_data);
	gen++;
	in_cs--;
	psem_up(bsem);
}

static void sm_observer(void *arg)
{
	int i;

	for (i = 0; i < 2; i++) {
		/* No point between these two plain reads. */
		unsigned int g = gen;
		int holders = in_cs;
		bool held = psem_is_held(bsem);

		/*
		 * A snapshot: exact only if nobody came or went meanwhile.
		 * Then one who held it throughout must have read as held.
		 */
		ex_assert(held || gen != g || !holders,
			  "reads free while it is held throughout");
	}
}

static void sm_setup(void)
{
	bsem = xs_psem(1);
	ex_spawn("down1", sm_holder, NULL);
	ex_spawn("down2", sm_holder, NULL);
	ex_spawn("observer", sm_observer, NULL);
}

static void sm_check(void)
{
	ex_assert(!psem_is_held(bsem), "held at the end");
	xs_settled(bsem, 0, 1);
	kfree(bsem);
}

XS_SCENARIO(sem_down_up, "sem/down-up-is-held", sm_setup, sm_check,
	    "psem_down()/psem_up() by two tasks and psem_is_held() from a third");
#endif

/* ---- pool: destroy after a put from hard IRQ ------------------------ */

static void ph_setup(void)
{
	xs_pool_handover(HARDIRQ_OFFSET);
}

XS_SCENARIO(pool_hardirq, "pool/destroy-hardirq-put", ph_setup,
	    xs_pool_handover_check,
	    "a put from hard IRQ hands the object to a waiter, which puts it back; the owner destroys and frees");
