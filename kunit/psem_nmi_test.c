// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite psem_nmi: psem calls from a real NMI, sent by the NMI sender
 * of psem_nmi_send.c (psem_nmi.h): an NMI_LOCAL handler that claims only
 * the NMIs a case sends, as IPIs with NMI_VECTOR, to the other CPU (QEMU's
 * TCG guests deliver them).
 *
 *   psem_nmi  a release from NMI to a sleeping waiter and to an
 *             asynchronous one, served exactly once through the deferred
 *             hand-off; lock-free calls from NMI; close, quiesce and kfree
 *             right after NMI releases that parked permits, many rounds
 *             (KASAN catches a touch after the free); -EPERM, changing
 *             nothing, from the calls that cannot defer; a storm of NMI
 *             releases against task-side acquirers with waiters queued,
 *             exact at the end; a rwlock write unlock, a non-owner read
 *             unlock and a mutex unlock from NMI, each to a queued task
 *
 * x86 with a local APIC only, and two online CPUs: elsewhere every case
 * skips.
 *
 * lockdep is off in NMI (nmi_enter() calls lockdep_off()): a lock's
 * acquire and release annotations there are not recorded. The rwlock
 * case's write trylock and unlock are both in NMI, so lockdep sees neither;
 * the mutex case's unlock from NMI leaves the owner task's hold on
 * lockdep's stack, and the owner drops it by hand (see nmi_mx_owner()).
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/hardirq.h>
#include <linux/jiffies.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "psem.h"
#include "psem_mutex.h"
#include "psem_nmi.h"
#include "psem_rwlock.h"
#include "psem_test.h"

static unsigned int teardown_rounds = 1000;
module_param(teardown_rounds, uint, 0444);
MODULE_PARM_DESC(teardown_rounds,
		 "close/quiesce/kfree rounds after NMI releases (fewer if they take over 5 s, but at least 100)");

#define NMI_MIN_ROUNDS	100

static unsigned int storm_iters = 400;
module_param(storm_iters, uint, 0444);
MODULE_PARM_DESC(storm_iters, "acquisitions of each task-side thread in the NMI storm");

/* ==== releases to waiters ==== */

/*
 * A task waits for 2; an NMI releases 2. The release must hand them over,
 * which needs the queue lock, which NMI may not take: it parks them and its
 * irq_work serves the waiter, once.
 */
static void psem_test_nmi_wakes_sleeper(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 0);
	struct nmi_sender *p = nmi_sender_new(test);
	struct psem_test_thread *w;

	p->sem = sem;
	p->n = 2;
	nmi_sender_arm(test, p, nmi_sender_release);
	psem_test_stats_start();
	w = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 2, 1);
	KUNIT_ASSERT_TRUE_MSG(test, nmi_sender_send_other(p), "NMI not served");
	PSEM_TEST_EXPECT_RETURNS(test, w, 0);
	psem_sync(sem);
	nmi_sender_disarm();
	nmi_sender_expect_runs(test, p, 1);
	KUNIT_EXPECT_EQ(test, p->ret, 0);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_DEFERRED, 1);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 1);
	/* The waiter holds both: nothing else arrived. */
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 2);
	nmi_sender_report(test, p);
}

/*
 * Two waiters, A for 2 then B for 1, and two NMIs: the first releases 1,
 * which A takes without being done; the second 2, which completes A and
 * serves B. FIFO and partial grants through the parked path, exact.
 */
static void psem_test_nmi_partial_fifo(struct kunit *test)
{
	struct psem *sem = psem_test_sem(test, 0);
	struct nmi_sender *p = nmi_sender_new(test);
	struct psem_test_thread *a, *b;

	p->sem = sem;
	nmi_sender_arm(test, p, nmi_sender_release);
	a = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 2, 1);
	b = psem_test_linked_waiter(test, sem, PSEM_TEST_ACQUIRE, 1, 2);
	p->n = 1;
	KUNIT_ASSERT_TRUE_MSG(test, nmi_sender_send_other(p), "NMI not served");
	psem_sync(sem);
	/*
	 * A has 1 of 2 and still waits; B, which 1 would serve, is behind it:
	 * both still linked once the hand-off is over.
	 */
	KUNIT_EXPECT_FALSE(test, psem_test_done(a));
	KUNIT_EXPECT_FALSE(test, psem_test_done(b));
	KUNIT_EXPECT_EQ(test, psem_test_nr_waiters(sem), 2U);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	p->n = 2;
	KUNIT_ASSERT_TRUE_MSG(test, nmi_sender_send_other(p), "NMI not served");
	PSEM_TEST_EXPECT_RETURNS(test, a, 0);
	PSEM_TEST_EXPECT_RETURNS(test, b, 0);
	psem_sync(sem);
	nmi_sender_disarm();
	nmi_sender_expect_runs(test, p, 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->errors), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 3);
	nmi_sender_report(test, p);
}

/*
 * An asynchronous waiter for 3 takes the 1 there is and queues; an NMI
 * releases 2: the parked permits complete it from the hand-off's irq_work,
 * whose callback runs once, with 0, not in NMI.
 */
static void psem_test_nmi_grants_async(struct kunit *test)
{
	struct psem *sem = psem_test_ext_sem(test, 1);
	struct nmi_sender *p = nmi_sender_new(test);
	struct psem_test_req *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->sem = sem;
	p->sem = sem;
	p->n = 2;
	nmi_sender_arm(test, p, nmi_sender_release);
	psem_test_stats_start();
	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 3, &r->aw, psem_test_req_fn),
			-EINPROGRESS);
	KUNIT_ASSERT_TRUE_MSG(test, nmi_sender_send_other(p), "NMI not served");
	KUNIT_EXPECT_TRUE(test, psem_test_wait_for(psem_test_calls(r) > 0));
	psem_sync(sem);
	nmi_sender_disarm();
	nmi_sender_expect_runs(test, p, 1);
	KUNIT_EXPECT_EQ(test, p->ret, 0);
	KUNIT_EXPECT_EQ(test, psem_test_calls(r), 1);
	KUNIT_EXPECT_EQ(test, r->result, 0);
	KUNIT_EXPECT_FALSE(test, r->in_nmi);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_DEFERRED, 1);
	KUNIT_EXPECT_FALSE(test, psem_cancel_async(sem, &r->aw));
	/* The waiter holds all 3. */
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 3);
	nmi_sender_report(test, p);
}

/**
 * struct nmi_free - the lock-free calls from NMI
 * @nmi:      the NMI
 * @r:        a waiter granted at once by psem_acquire_async() in NMI
 * @release:  psem_release(1 + 3)
 * @took:     psem_try_acquire(2)
 * @missed:   psem_try_acquire(100), which cannot succeed
 * @drained:  psem_drain(1)
 * @async:    psem_acquire_async(1), granted at once
 * @avail:    psem_available() at the end
 */
struct nmi_free {
	struct nmi_sender	nmi;
	struct psem_test_req	r;
	int		release;
	bool		took;
	bool		missed;
	long		drained;
	int		async;
	long		avail;
};

static void nmi_free_fn(struct nmi_sender *p)
{
	struct nmi_free *f = container_of(p, struct nmi_free, nmi);
	struct psem *sem = p->sem;

	f->release = psem_release(sem, 3);
	f->took = psem_try_acquire(sem, 2);
	f->missed = psem_try_acquire(sem, 100);
	f->drained = psem_drain(sem, 1);
	f->async = psem_acquire_async(sem, 1, &f->r.aw, psem_test_req_fn);
	f->avail = psem_available(sem);
}

/*
 * Nobody waits: a release from NMI is one lock-free exchange and defers
 * nothing; the try, drain and an asynchronous acquire granted at once are
 * lock-free too.
 */
static void psem_test_nmi_lock_free(struct kunit *test)
{
	struct nmi_free *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct psem *sem = psem_test_ext_sem(test, 1);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->nmi.sem = sem;
	nmi_sender_arm(test, &f->nmi, nmi_free_fn);
	psem_test_stats_start();
	KUNIT_ASSERT_TRUE_MSG(test, nmi_sender_send_other(&f->nmi), "NMI not served");
	nmi_sender_disarm();
	nmi_sender_expect_runs(test, &f->nmi, 1);
	KUNIT_EXPECT_EQ(test, f->release, 0);
	KUNIT_EXPECT_TRUE(test, f->took);
	KUNIT_EXPECT_FALSE(test, f->missed);
	KUNIT_EXPECT_EQ(test, f->drained, 1L);
	KUNIT_EXPECT_EQ(test, f->async, 0);
	/* 1 + 3 - 2 - 1 - 1 */
	KUNIT_EXPECT_EQ(test, f->avail, 0L);
	KUNIT_EXPECT_EQ(test, psem_test_calls(&f->r), 0);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 1);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_DEFERRED, 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 4), 0);
	PSEM_TEST_EXPECT_IDLE(test, sem, 4);
	nmi_sender_report(test, &f->nmi);
}

/* ==== teardown right after NMI releases ==== */

/* One round's psem and waiter, kfree()d at the end of the round. */
struct nmi_td {
	struct psem_ext	cs;
	struct psem_test_req	r;
};

/*
 * Each round (teardown_rounds of them, or as many as 5 s allow once 100
 * are done): a psem of capacity 4, all taken by the test, and an
 * asynchronous waiter for 1 queued; two NMIs release 2 each, parked for the
 * hand-off (the waiter is queued, or the psem closed, or the quiesce is
 * queued), one before psem_close() and one before or after it; then
 * psem_quiesce() and kfree() at once. Nothing may touch the psem after
 * the quiesce: KASAN reports a use after free, and the hand-off's irq_work
 * queued on freed memory would corrupt its list. The waiter ends once,
 * granted (its callback gives the permit back) or failed by the close.
 */
static void psem_test_nmi_close_quiesce_free(struct kunit *test)
{
	struct nmi_sender *p = nmi_sender_new(test);
	unsigned int round, granted = 0, shut = 0;
	unsigned long start;

	p->n = 2;
	nmi_sender_arm(test, p, nmi_sender_release);
	psem_test_stats_start();
	start = jiffies;
	for (round = 0; round < teardown_rounds; round++) {
		struct nmi_td *td = kzalloc(sizeof(*td), GFP_KERNEL);
		bool ok;
		int calls;

		KUNIT_ASSERT_NOT_NULL(test, td);
		if (psem_init_capacity(&td->cs, 4) ||
		    !psem_try_acquire(&td->cs.sem, 4)) {
			kfree(td);
			KUNIT_FAIL(test, "round %u: set-up failed", round);
			break;
		}
		td->r.sem = &td->cs.sem;
		td->r.give_back = true;
		if (psem_acquire_async(&td->cs.sem, 1, &td->r.aw, psem_test_req_fn) !=
		    -EINPROGRESS) {
			kfree(td);
			KUNIT_FAIL(test, "round %u: the waiter did not queue", round);
			break;
		}
		/* Read by the handler after the increment in nmi_sender_send(). */
		p->sem = &td->cs.sem;
		ok = nmi_sender_send_other(p);
		if (round & 1) {
			KUNIT_EXPECT_EQ(test, psem_close(&td->cs.sem), 0);
			ok = ok && nmi_sender_send_other(p);
		} else {
			ok = ok && nmi_sender_send_other(p);
			KUNIT_EXPECT_EQ(test, psem_close(&td->cs.sem), 0);
		}
		if (!ok) {
			/* The parked permits may still be on their way. */
			KUNIT_FAIL(test, "round %u: NMI not served", round);
			kunit_err(test, "leaking round %u's psem\n", round);
			break;
		}
		if (psem_quiesce(&td->cs.sem, PSEM_TEST_HANG_GUARD)) {
			/* Not safe to free: permits are still out. */
			KUNIT_FAIL(test, "round %u: quiesce timed out", round);
			kunit_err(test, "leaking round %u's psem\n", round);
			break;
		}
		calls = psem_test_calls(&td->r);
		KUNIT_EXPECT_EQ(test, calls, 1);
		if (calls && !td->r.result)
			granted++;
		else if (calls && td->r.result == -ESHUTDOWN)
			shut++;
		else if (calls)
			KUNIT_FAIL(test, "round %u: callback result %d", round,
				   td->r.result);
		KUNIT_EXPECT_EQ(test, psem_available(&td->cs.sem), 4L);
		KUNIT_EXPECT_EQ(test, psem_debt(&td->cs.sem), 0UL);
		kfree(td);
		if (atomic_read(&p->errors))
			break;
		/*
		 * A bound on the work, not a timing assertion: a round takes
		 * about 2 ms on the debug kernels, 25 ms on PREEMPT_RT, where
		 * the hand-off runs in the irq_work thread.
		 */
		if (round >= NMI_MIN_ROUNDS &&
		    time_after(jiffies, start + PSEM_TEST_RACE_SEARCH)) {
			round++;
			break;
		}
	}
	nmi_sender_disarm();
	KUNIT_EXPECT_EQ(test, atomic_read(&p->errors), 0);
	/* One run for every NMI sent: every one was served. */
	nmi_sender_expect_runs(test, p, atomic_read(&p->sent));
	KUNIT_EXPECT_EQ(test, granted + shut, round);
	/* At least the first NMI of every round parked its permits. */
	KUNIT_EXPECT_GE(test, psem_test_stat(PSEM_STAT_DEFERRED), (u64)round);
	kunit_info(test, "%u rounds: waiter granted in %u, failed by the close in %u\n",
		   round, granted, shut);
	nmi_sender_report(test, p);
}

/* ==== the calls that cannot defer ==== */

/**
 * struct nmi_refuse - the calls that must take the queue lock, from NMI
 * @nmi:     the NMI
 * @open:    a psem with a capacity: close, resize
 * @closed:  a closed psem with a capacity: reopen
 * @plain:   a psem without one: reduce, and an asynchronous acquire that
 *           would have to queue
 * @r:       that asynchronous waiter
 * @close:   psem_close(@open)
 * @reopen:  psem_reopen(@closed)
 * @resize:  psem_resize(@open, 1)
 * @reduce:  psem_reduce(@plain, 1)
 * @async:   psem_acquire_async(@plain, 2)
 */
struct nmi_refuse {
	struct nmi_sender	nmi;
	struct psem_ext	open;
	struct psem_ext	closed;
	struct psem_ext	plain;
	struct psem_test_req	r;
	int		close;
	int		reopen;
	int		resize;
	int		reduce;
	int		async;
};

static void nmi_refuse_fn(struct nmi_sender *p)
{
	struct nmi_refuse *x = container_of(p, struct nmi_refuse, nmi);

	x->close = psem_close(&x->open.sem);
	x->reopen = psem_reopen(&x->closed.sem);
	x->resize = psem_resize(&x->open.sem, 1);
	x->reduce = psem_reduce(&x->plain.sem, 1);
	x->async = psem_acquire_async(&x->plain.sem, 2, &x->r.aw, psem_test_req_fn);
}

/*
 * psem_close(), psem_reopen(), psem_resize(), psem_reduce() and a queueing
 * psem_acquire_async() take the queue lock and cannot defer: from NMI each
 * returns -EPERM, counts one refusal and changes nothing.
 */
static void psem_test_nmi_refused(struct kunit *test)
{
	struct nmi_refuse *x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);
	struct psem_test_snapshot open, closed, plain;
	u64 refusals;

	KUNIT_ASSERT_NOT_NULL(test, x);
	KUNIT_ASSERT_EQ(test, psem_init_capacity(&x->open, 3), 0);
	KUNIT_ASSERT_TRUE(test, psem_try_acquire(&x->open.sem, 1));
	KUNIT_ASSERT_EQ(test, psem_init_capacity(&x->closed, 2), 0);
	KUNIT_ASSERT_EQ(test, psem_close(&x->closed.sem), 0);
	psem_init_ext(&x->plain, 1);
	x->r.sem = &x->plain.sem;
	nmi_sender_arm(test, &x->nmi, nmi_refuse_fn);
	open = psem_test_snapshot(&x->open.sem);
	closed = psem_test_snapshot(&x->closed.sem);
	plain = psem_test_snapshot(&x->plain.sem);

	refusals = nmi_send_refused(test, &x->nmi);
	nmi_sender_expect_runs(test, &x->nmi, 1);
	KUNIT_EXPECT_EQ(test, x->close, -EPERM);
	KUNIT_EXPECT_EQ(test, x->reopen, -EPERM);
	KUNIT_EXPECT_EQ(test, x->resize, -EPERM);
	KUNIT_EXPECT_EQ(test, x->reduce, -EPERM);
	KUNIT_EXPECT_EQ(test, x->async, -EPERM);
	KUNIT_EXPECT_EQ(test, refusals, 5ULL);
	psem_test_expect_unchanged(test, &x->open.sem, &open, "open");
	psem_test_expect_unchanged(test, &x->closed.sem, &closed, "closed");
	psem_test_expect_unchanged(test, &x->plain.sem, &plain, "plain");
	KUNIT_EXPECT_FALSE(test, psem_is_closed(&x->open.sem));
	KUNIT_EXPECT_TRUE(test, psem_is_closed(&x->closed.sem));
	/* The refused waiter was never queued, and is never called. */
	KUNIT_EXPECT_FALSE(test, psem_cancel_async(&x->plain.sem, &x->r.aw));
	KUNIT_EXPECT_EQ(test, psem_test_calls(&x->r), 0);

	/* From a task the same calls work. */
	KUNIT_EXPECT_EQ(test, psem_resize(&x->open.sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_reopen(&x->closed.sem), 0);
	KUNIT_EXPECT_EQ(test, psem_reduce(&x->plain.sem, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_available(&x->plain.sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_release(&x->open.sem, 1), 0);
	PSEM_TEST_EXPECT_IDLE(test, &x->open.sem, 1);
	nmi_sender_report(test, &x->nmi);
}

/* ==== many psems with a hand-off due ==== */

#define NMI_FULL_PSEMS	65	/* more than the 64 slots the list replaced */

/* Each psem: capacity 1, its permit out, closed: a release from NMI parks. */
struct nmi_full {
	struct nmi_sender	nmi;
	struct psem_ext	sem[NMI_FULL_PSEMS];
	int			ret[NMI_FULL_PSEMS];
};

static void nmi_full_fn(struct nmi_sender *p)
{
	struct nmi_full *x = container_of(p, struct nmi_full, nmi);
	int i;

	for (i = 0; i < NMI_FULL_PSEMS; i++)
		x->ret[i] = psem_release(&x->sem[i].sem, 1);
}

/*
 * Inside one NMI the hand-off cannot run: every release parks, each on a
 * psem of its own, and links it into the one list of hand-offs due. None
 * is refused, and after psem_sync() every parked permit is home.
 */
static void psem_test_nmi_many_psems(struct kunit *test)
{
	struct nmi_full *x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);
	u64 refusals;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, x);
	for (i = 0; i < NMI_FULL_PSEMS; i++) {
		KUNIT_ASSERT_EQ(test, psem_init_capacity(&x->sem[i], 1), 0);
		KUNIT_ASSERT_TRUE(test, psem_try_acquire(&x->sem[i].sem, 1));
		KUNIT_ASSERT_EQ(test, psem_close(&x->sem[i].sem), 0);
	}
	nmi_sender_arm(test, &x->nmi, nmi_full_fn);
	refusals = nmi_send_refused(test, &x->nmi);
	nmi_sender_expect_runs(test, &x->nmi, 1);
	KUNIT_EXPECT_EQ(test, refusals, 0ULL);
	for (i = 0; i < NMI_FULL_PSEMS; i++) {
		psem_sync(&x->sem[i].sem);
		KUNIT_EXPECT_EQ_MSG(test, x->ret[i], 0, "release %d", i);
		KUNIT_EXPECT_EQ_MSG(test, psem_available(&x->sem[i].sem), 1L,
				    "psem %d", i);
	}
	nmi_sender_report(test, &x->nmi);
}

/* ==== a storm ==== */

#define NMI_STORM_THREADS	4
#define NMI_STORM_START		8	/* permits "out" at the start */

/**
 * struct nmi_storm - task-side acquirers and NMI releasers on one psem
 * @nmi:      the NMIs; each releases whatever is @owed
 * @sem:      the psem, at 0 with NMI_STORM_START permits owed at first
 * @owed:     permits the acquirers took, for the next NMI to release
 * @released: permits NMIs released
 * @taken:    permits the acquirers took
 */
struct nmi_storm {
	struct nmi_sender	nmi;
	struct psem	*sem;
	atomic_long_t	owed;
	atomic_long_t	released;
	atomic_long_t	taken;
};

static void nmi_storm_fn(struct nmi_sender *p)
{
	struct nmi_storm *s = container_of(p, struct nmi_storm, nmi);
	long n = atomic_long_xchg(&s->owed, 0);

	if (!n)
		return;
	if (psem_release(s->sem, n))
		atomic_inc(&p->errors);
	else
		atomic_long_add(n, &s->released);
}

/* Takes 1..PSEM_TEST_MAX_TAKE permits @iters times; NMIs give them back. */
static int nmi_storm_worker(struct psem_test_thread *t)
{
	struct nmi_storm *s = t->arg;
	unsigned int i;
	int ret;

	for (i = 0; i < t->iters && !psem_test_aborted(t); i++) {
		long n = 1 + psem_test_rand(&t->seed) % PSEM_TEST_MAX_TAKE;

		WRITE_ONCE(t->n, n);
		ret = psem_test_waiter_fn(t);
		if (ret)
			return ret;
		atomic_long_add(n, &s->taken);
		atomic_long_add(n, &s->owed);
		psem_test_progress(t);
	}
	return 0;
}

/*
 * Four threads, one for each kind of sleeping acquire, take 1 to 4 permits
 * at a time from a psem that only NMIs refill: each NMI releases what they
 * took since the last one, mostly with waiters queued, so mostly through
 * the parked hand-off, racing the threads' links and the hand-off of the
 * NMI before. At the end every permit is home, exactly.
 */
static void psem_test_nmi_storm(struct kunit *test)
{
	static const enum psem_test_op ops[NMI_STORM_THREADS] = {
		PSEM_TEST_ACQUIRE, PSEM_TEST_INTERRUPTIBLE, PSEM_TEST_KILLABLE, PSEM_TEST_TIMEOUT,
	};
	struct nmi_storm *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct psem_test_thread *w[NMI_STORM_THREADS];
	unsigned long seen = 0, idle_since = jiffies;
	unsigned int i;
	bool ok = true;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->sem = psem_test_sem(test, 0);
	atomic_long_set(&s->owed, NMI_STORM_START);
	nmi_sender_arm(test, &s->nmi, nmi_storm_fn);
	psem_test_stats_start();
	for (i = 0; i < NMI_STORM_THREADS; i++) {
		const struct psem_test_thread tmpl = {
			.fn = nmi_storm_worker, .sem = s->sem, .n = 1,
			.op = ops[i], .timeout = 1000 * HZ,
			.iters = storm_iters, .arg = s,
		};

		w[i] = psem_test_spawn(test, &tmpl, -1);
	}
	/* The first NMI finds a waiter queued. */
	KUNIT_ASSERT_TRUE(test, psem_test_wait_for(psem_test_nr_waiters(s->sem) > 0));
	while (!psem_test_all_done(w, NMI_STORM_THREADS)) {
		unsigned long now = psem_test_progress_sum(w, NMI_STORM_THREADS);

		if (!nmi_sender_send_other(&s->nmi)) {
			KUNIT_FAIL(test, "NMI not served");
			ok = false;
			break;
		}
		if (now != seen) {
			seen = now;
			idle_since = jiffies;
		} else if (time_after(jiffies, idle_since + PSEM_TEST_HANG_GUARD)) {
			KUNIT_FAIL(test, "no progress at %lu acquisitions", now);
			ok = false;
			break;
		}
		/* Give the threads a tick when there is nothing to release. */
		if (!atomic_long_read(&s->owed))
			psem_test_wait_until(atomic_long_read(&s->owed) ||
					     psem_test_all_done(w, NMI_STORM_THREADS), 1);
	}
	for (i = 0; i < NMI_STORM_THREADS; i++)
		PSEM_TEST_EXPECT_RETURNS(test, w[i], 0);
	/* What the last acquisitions took goes home too. */
	while (ok && atomic_long_read(&s->owed))
		ok = nmi_sender_send_other(&s->nmi);
	KUNIT_EXPECT_TRUE(test, ok);
	psem_sync(s->sem);
	nmi_sender_disarm();
	KUNIT_EXPECT_EQ(test, atomic_read(&s->nmi.errors), 0);
	nmi_sender_expect_runs(test, &s->nmi, atomic_read(&s->nmi.sent));
	/* Every acquisition of every thread happened, and went home. */
	KUNIT_EXPECT_EQ(test, psem_test_progress_sum(w, NMI_STORM_THREADS),
			(unsigned long)NMI_STORM_THREADS * storm_iters);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&s->released),
			atomic_long_read(&s->taken) + NMI_STORM_START);
	KUNIT_EXPECT_GT(test, psem_test_stat(PSEM_STAT_DEFERRED), 0ULL);
	PSEM_TEST_EXPECT_IDLE(test, s->sem, NMI_STORM_START);
	kunit_info(test, "%ld permits taken by tasks and released from NMI; %llu releases deferred, %llu waits slept\n",
		   atomic_long_read(&s->taken), psem_test_stat(PSEM_STAT_DEFERRED),
		   psem_test_stat(PSEM_STAT_SLEEP));
	nmi_sender_report(test, &s->nmi);
}

/* ==== the rwlock and the mutex ==== */

/**
 * struct nmi_rw - rwlock unlocks from NMI
 * @nmi:    the NMIs; each does @step
 * @rw:     the lock
 * @step:   NMI_RW_TRYLOCK, NMI_RW_UNLOCK or NMI_RW_READ_UNLOCK
 * @locked: the write trylock's result
 */
struct nmi_rw {
	struct nmi_sender		nmi;
	struct psem_rwlock	rw;
	int			step;
	bool			locked;
};

enum {
	NMI_RW_TRYLOCK,
	NMI_RW_UNLOCK,
	NMI_RW_READ_UNLOCK,
};

static void nmi_rw_fn(struct nmi_sender *p)
{
	struct nmi_rw *x = container_of(p, struct nmi_rw, nmi);

	switch (READ_ONCE(x->step)) {
	case NMI_RW_TRYLOCK:
		x->locked = psem_write_trylock(&x->rw);
		break;
	case NMI_RW_UNLOCK:
		psem_write_unlock(&x->rw);
		break;
	case NMI_RW_READ_UNLOCK:
		psem_read_unlock_non_owner(&x->rw);
		break;
	}
}

static int nmi_reader(struct psem_test_thread *t)
{
	struct nmi_rw *x = t->arg;

	psem_read_lock(&x->rw);
	psem_read_unlock(&x->rw);
	return 0;
}

static int nmi_writer(struct psem_test_thread *t)
{
	struct nmi_rw *x = t->arg;

	psem_write_lock(&x->rw);
	psem_write_unlock(&x->rw);
	return 0;
}

/*
 * An NMI takes the write lock with a trylock; a reader queues behind it; a
 * second NMI write-unlocks, which must hand the lock to the reader: it
 * parks the permits and the irq_work serves the reader. Then the other
 * way: a task holds a _non_owner read lock, a writer queues, an NMI
 * releases the read hold to it. (lockdep sees neither NMI: see the top.)
 */
static void psem_test_nmi_rwlock(struct kunit *test)
{
	struct nmi_rw *x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);
	struct psem_test_thread tmpl = { .fn = nmi_reader };
	struct psem_test_thread *r, *wr;

	KUNIT_ASSERT_NOT_NULL(test, x);
	psem_rwlock_init(&x->rw);
	tmpl.arg = x;
	/* If the case gives up, psem_test_unstick() frees the reader thus. */
	tmpl.sem = &x->rw.sem;
	tmpl.n = PSEM_RWLOCK_MAX_READERS;
	nmi_sender_arm(test, &x->nmi, nmi_rw_fn);
	psem_test_stats_start();

	WRITE_ONCE(x->step, NMI_RW_TRYLOCK);
	KUNIT_ASSERT_TRUE_MSG(test, nmi_sender_send_other(&x->nmi), "NMI not served");
	KUNIT_ASSERT_TRUE(test, x->locked);
	r = psem_test_spawn(test, &tmpl, -1);
	KUNIT_ASSERT_TRUE_MSG(test, psem_test_wait_for(psem_test_nr_waiters(&x->rw.sem) == 1),
			      "reader not queued");
	WRITE_ONCE(x->step, NMI_RW_UNLOCK);
	KUNIT_ASSERT_TRUE_MSG(test, nmi_sender_send_other(&x->nmi), "NMI not served");
	PSEM_TEST_EXPECT_RETURNS(test, r, 0);
	psem_sync(&x->rw.sem);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_DEFERRED, 1);

	psem_read_lock_non_owner(&x->rw);
	tmpl.fn = nmi_writer;
	tmpl.n = 1;
	wr = psem_test_spawn(test, &tmpl, -1);
	KUNIT_ASSERT_TRUE_MSG(test, psem_test_wait_for(psem_test_nr_waiters(&x->rw.sem) == 1),
			      "writer not queued");
	WRITE_ONCE(x->step, NMI_RW_READ_UNLOCK);
	KUNIT_ASSERT_TRUE_MSG(test, nmi_sender_send_other(&x->nmi), "NMI not served");
	PSEM_TEST_EXPECT_RETURNS(test, wr, 0);
	psem_sync(&x->rw.sem);
	nmi_sender_disarm();
	nmi_sender_expect_runs(test, &x->nmi, 3);
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_DEFERRED, 2);
	KUNIT_EXPECT_TRUE(test, psem_write_trylock(&x->rw));
	psem_write_unlock(&x->rw);
	PSEM_TEST_EXPECT_IDLE(test, &x->rw.sem, PSEM_RWLOCK_MAX_READERS);
	/* Before kunit frees it. */
	psem_rwlock_destroy(&x->rw);
	nmi_sender_report(test, &x->nmi);
}

/**
 * struct nmi_mx - a mutex unlocked from an NMI that interrupted its owner
 * @nmi:      the NMIs, sent to @cpu until one finds the owner current
 * @mx:       the mutex
 * @cpu:      the owner's CPU
 * @owner:    the owner kthread while it waits for the NMI's unlock, else
 *            NULL; written on @cpu only, so an NMI there sees it in program
 *            order
 * @locked:   the owner holds the mutex; RELEASE
 * @unlocked: an NMI found the owner current and unlocked; RELEASE
 * @misses:   NMIs that found another task current on @cpu
 */
struct nmi_mx {
	struct nmi_sender		nmi;
	struct psem_mutex	mx;
	int			cpu;
	struct task_struct	*owner;
	bool			locked;
	bool			unlocked;
	atomic_t		misses;
};

static void nmi_mx_fn(struct nmi_sender *p)
{
	struct nmi_mx *m = container_of(p, struct nmi_mx, nmi);

	/* Only the owner may unlock: the NMI must have interrupted it. */
	if (current != READ_ONCE(m->owner)) {
		atomic_inc(&m->misses);
		return;
	}
	psem_mutex_unlock(&m->mx);
	smp_store_release(&m->unlocked, true);	/* pairs with the readers */
}

static bool nmi_mx_unlocked(struct nmi_mx *m)
{
	return smp_load_acquire(&m->unlocked);	/* pairs with nmi_mx_fn() */
}

/*
 * Locks, then runs on its CPU, preemptible, until an NMI that found it
 * current there has unlocked the mutex, as psem_mutex_unlock() requires of
 * its caller. Preemptible, not with preemption off: on PREEMPT_RT that
 * would also stop this CPU's timers (their softirq is a thread), and with
 * them, when they are queued here, the wake-ups of the test.
 */
static int nmi_mx_owner(struct psem_test_thread *t)
{
	struct nmi_mx *m = t->arg;
	unsigned long end = jiffies + 2 * PSEM_TEST_HANG_GUARD;

	psem_mutex_lock(&m->mx);
	WRITE_ONCE(m->owner, current);
	smp_store_release(&m->locked, true);	/* pairs with the test */
	while (!nmi_mx_unlocked(m) && !psem_test_aborted(t) &&
	       time_before(jiffies, end)) {
		cpu_relax();
		cond_resched();
	}
	/* From here no NMI on this CPU unlocks for it. */
	WRITE_ONCE(m->owner, NULL);
	if (!nmi_mx_unlocked(m)) {
		psem_mutex_unlock(&m->mx);
		return -ETIMEDOUT;
	}
	/*
	 * lockdep did not see the NMI's unlock (lockdep is off in NMI), so
	 * its record of this task's hold is still there: drop it, or lockdep
	 * would report this thread exiting with a lock held.
	 */
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	lock_release(&m->mx.dep_map, _THIS_IP_);
#endif
	return 0;
}

static int nmi_mx_waiter(struct psem_test_thread *t)
{
	struct nmi_mx *m = t->arg;

	psem_mutex_lock(&m->mx);
	psem_mutex_unlock(&m->mx);
	return 0;
}

/*
 * From another CPU than the owner's, sends NMIs to the owner's CPU until
 * one of them finds the owner running there and unlocks.
 */
static int nmi_mx_sender(struct psem_test_thread *t)
{
	struct nmi_mx *m = t->arg;
	unsigned long end = jiffies + PSEM_TEST_HANG_GUARD;

	while (!nmi_mx_unlocked(m) && !psem_test_aborted(t) &&
	       time_before(jiffies, end)) {
		if (!nmi_sender_send(&m->nmi, m->cpu))
			return -EIO;
		psem_test_progress(t);
	}
	return nmi_mx_unlocked(m) ? 0 : -ETIMEDOUT;
}

/*
 * A task holds the mutex, another waits for it; an NMI that interrupts the
 * owner unlocks it: the hand-off to the waiter is deferred, and the waiter
 * gets the mutex, once.
 */
static void psem_test_nmi_mutex(struct kunit *test)
{
	struct nmi_mx *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	struct psem_test_thread tmpl = { .fn = nmi_mx_owner };
	struct psem_test_thread *owner, *w, *sender;
	int sent;

	KUNIT_ASSERT_NOT_NULL(test, m);
	psem_mutex_init(&m->mx);
	tmpl.arg = m;
	nmi_sender_arm(test, &m->nmi, nmi_mx_fn);
	psem_test_stats_start();
	m->cpu = cpumask_first(cpu_online_mask);
	owner = psem_test_spawn(test, &tmpl, m->cpu);
	/* Pairs with the store in nmi_mx_owner(). */
	KUNIT_ASSERT_TRUE(test, psem_test_wait_for(smp_load_acquire(&m->locked)));
	tmpl.fn = nmi_mx_waiter;
	/* If the case gives up, psem_test_unstick() frees the waiter thus. */
	tmpl.sem = &m->mx.sem;
	tmpl.n = 1;
	w = psem_test_spawn(test, &tmpl, -1);
	KUNIT_ASSERT_TRUE_MSG(test, psem_test_wait_for(psem_test_nr_waiters(&m->mx.sem) == 1),
			      "waiter not queued");
	tmpl.fn = nmi_mx_sender;
	tmpl.sem = NULL;
	sender = psem_test_spawn(test, &tmpl, cpumask_any_but(cpu_online_mask, m->cpu));
	PSEM_TEST_EXPECT_RETURNS(test, sender, 0);
	PSEM_TEST_EXPECT_RETURNS(test, owner, 0);
	PSEM_TEST_EXPECT_RETURNS(test, w, 0);
	psem_sync(&m->mx.sem);
	nmi_sender_disarm();
	sent = atomic_read(&m->nmi.sent);
	nmi_sender_expect_runs(test, &m->nmi, sent);
	/* Exactly one NMI found the owner: the one that unlocked. */
	KUNIT_EXPECT_EQ(test, atomic_read(&m->misses), sent - 1);
	KUNIT_EXPECT_TRUE(test, nmi_mx_unlocked(m));
	PSEM_TEST_EXPECT_STAT(test, PSEM_STAT_DEFERRED, 1);
	KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&m->mx));
	KUNIT_EXPECT_TRUE(test, psem_mutex_trylock(&m->mx));
	psem_mutex_unlock(&m->mx);
	PSEM_TEST_EXPECT_IDLE(test, &m->mx.sem, 1);
	/* Before kunit frees it. */
	psem_mutex_destroy(&m->mx);
	kunit_info(test, "%d NMIs sent to the owner's CPU, %d found another task there\n",
		   sent, atomic_read(&m->misses));
	nmi_sender_report(test, &m->nmi);
}

PSEM_TEST_HOOKED_SUITE("psem_nmi", "KUnit tests for psem calls from NMI",
		       psem_test_init, nmi_sender_exit,
		       psem_test_nmi_wakes_sleeper, psem_test_nmi_partial_fifo,
		       psem_test_nmi_grants_async, psem_test_nmi_lock_free,
		       psem_test_nmi_close_quiesce_free, psem_test_nmi_refused,
		       psem_test_nmi_many_psems, psem_test_nmi_storm,
		       psem_test_nmi_rwlock, psem_test_nmi_mutex);
