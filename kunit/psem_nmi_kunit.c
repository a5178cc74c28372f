// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for psem calls from a real NMI: an NMI_LOCAL handler that
 * claims only the NMIs a case sends, as IPIs with NMI_VECTOR, to the other
 * CPU (QEMU's TCG guests deliver them).
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
 * skips. Every NMI_LOCAL handler runs on every NMI, so the handler claims
 * an NMI only on the CPU a case sent one to, and only while a request of
 * that case is outstanding; the case unregisters it (which waits for a
 * running handler) before its data goes away. The handler counts its runs
 * and those where in_nmi() was false, which the cases check.
 *
 * lockdep is off in NMI (nmi_enter() calls lockdep_off()): a lock's
 * acquire and release annotations there are not recorded. The rwlock
 * case's write trylock and unlock are both in NMI, so lockdep sees neither;
 * the mutex case's unlock from NMI leaves the owner task's hold on
 * lockdep's stack, and the owner drops it by hand (see pnt_mx_owner()).
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

#if defined(CONFIG_X86) && defined(CONFIG_X86_LOCAL_APIC)
#include <asm/apic.h>
#include <asm/cpufeature.h>
#include <asm/nmi.h>
#define PNT_HAVE_NMI	1
#else
#define PNT_HAVE_NMI	0
#endif

#include "psem.h"
#include "psem_knobs.h"
#include "psem_mutex.h"
#include "psem_rwlock.h"
#include "psem_test.h"

static unsigned int teardown_rounds = 1000;
module_param(teardown_rounds, uint, 0444);
MODULE_PARM_DESC(teardown_rounds,
		 "close/quiesce/kfree rounds after NMI releases (fewer if they take over 5 s, but at least 100)");

#define PNT_MIN_ROUNDS	100

static unsigned int storm_iters = 400;
module_param(storm_iters, uint, 0444);
MODULE_PARM_DESC(storm_iters, "acquisitions of each task-side thread in the NMI storm");

/**
 * struct pnt_nmi - a case's NMIs: what each does and what the handler saw
 * @fn:      the work of one NMI, run by the handler in NMI context
 * @cpu:     the CPU the outstanding request was sent to; the handler claims
 *           NMIs there only
 * @sent:    the number of the last request sent (fully ordered increment)
 * @served:  the number of the last request the handler completed
 *           (RELEASE): everything @fn wrote is visible once it is seen
 * @runs:    NMIs the handler claimed
 * @not_nmi: claimed runs where in_nmi() was false
 * @sem:     for the release works: the psem
 * @n:       for the release works: permits to release
 * @ret:     for the release works: psem_release()'s last result
 * @errors:  for the release works: results other than 0
 */
struct pnt_nmi {
	void		(*fn)(struct pnt_nmi *p);
	int		cpu;
	atomic_t	sent;
	atomic_t	served;
	atomic_t	runs;
	atomic_t	not_nmi;
	struct psem	*sem;
	long		n;
	int		ret;
	atomic_t	errors;
};

/* The armed case's state: set before registering, cleared after. */
static struct pnt_nmi *pnt_armed;
static bool pnt_registered;

#if PNT_HAVE_NMI

#define PNT_NAME	"psem_nmi_kunit"

static int pnt_handler(unsigned int type, struct pt_regs *regs)
{
	struct pnt_nmi *p = READ_ONCE(pnt_armed);
	int seq;

	if (!p)
		return NMI_DONE;
	/* ACQUIRE: pairs with the increment in pnt_send(), after @cpu. */
	seq = atomic_read_acquire(&p->sent);
	if (READ_ONCE(p->cpu) != smp_processor_id() ||
	    seq == atomic_read(&p->served))
		return NMI_DONE;	/* not ours, or served already */
	if (!in_nmi())
		atomic_inc(&p->not_nmi);
	p->fn(p);
	atomic_inc(&p->runs);
	/* RELEASE: publishes what @fn wrote; pairs with pnt_wait_served(). */
	atomic_set_release(&p->served, seq);
	return NMI_HANDLED;
}

/*
 * Every NMI runs every NMI_LOCAL handler, and times each: one that runs
 * over nmi_longest_ns (1 ms) prints "INFO: NMI handler (...) took too long
 * to run", which make check counts as a splat. In these guests sched_clock
 * counts jiffies (no stable TSC under TCG), so any handler run that spans a
 * tick reads 4 ms: scripts/guest-psem.sh raises the threshold to 1 s before
 * the suites load. The kernel's own handlers (the NMI backtrace's) run on
 * these NMIs too, so a threshold kept here for this handler alone would not
 * do.
 */
static int pnt_register(void)
{
	return register_nmi_handler(NMI_LOCAL, pnt_handler, 0, PNT_NAME);
}

/* Waits for a handler that is running to return (synchronize_rcu()). */
static void pnt_unregister(void)
{
	unregister_nmi_handler(NMI_LOCAL, PNT_NAME);
}

/* Whether an NMI can be sent to another CPU: a local APIC in use. */
static bool pnt_can_send(void)
{
	return boot_cpu_has(X86_FEATURE_APIC) && apic && apic->send_IPI;
}

static void pnt_raise(int cpu)
{
	apic->send_IPI(cpu, NMI_VECTOR);
}

#else /* !PNT_HAVE_NMI */

static bool pnt_can_send(void)
{
	return false;
}

static int pnt_register(void)
{
	return -EOPNOTSUPP;
}

static void pnt_unregister(void)
{
}

static void pnt_raise(int cpu)
{
}

#endif /* PNT_HAVE_NMI */

/*
 * Registers the handler with @p's work; skips the case where no NMI can
 * be sent to another CPU.
 */
static void pnt_arm(struct kunit *test, struct pnt_nmi *p,
		    void (*fn)(struct pnt_nmi *p))
{
	if (!pnt_can_send())
		kunit_skip(test, "needs x86 with a local APIC: NMIs are sent as IPIs");
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs: NMIs go to the other CPU");
	p->fn = fn;
	p->cpu = -1;
	/* Published by the registration (list_add_rcu()). */
	WRITE_ONCE(pnt_armed, p);
	KUNIT_ASSERT_EQ(test, pnt_register(), 0);
	pnt_registered = true;
}

/* Unregisters the handler: from here on it touches nothing of the case. */
static void pnt_disarm(void)
{
	if (!pnt_registered)
		return;
	pnt_unregister();
	pnt_registered = false;
	WRITE_ONCE(pnt_armed, NULL);
}

static struct pnt_nmi *pnt_new(struct kunit *test)
{
	struct pnt_nmi *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	return p;
}

/* Whether request @seq was served; ACQUIRE, pairs with pnt_handler(). */
static bool pnt_served(struct pnt_nmi *p, int seq)
{
	return atomic_read_acquire(&p->served) == seq;
}

/*
 * Waits for the handler to serve request @seq: a short spin (the NMI is
 * usually there within microseconds), then polls once a jiffy up to the
 * hang guard. False if it never came.
 */
static bool pnt_wait_served(struct pnt_nmi *p, int seq)
{
	unsigned long end = jiffies + 2;

	while (time_before(jiffies, end)) {
		if (pnt_served(p, seq))
			return true;
		cpu_relax();
	}
	return pkt_wait_for(pnt_served(p, seq));
}

/* Sends one NMI to @cpu for @p's work and waits until it has run. */
static bool pnt_send(struct pnt_nmi *p, int cpu)
{
	int seq;

	WRITE_ONCE(p->cpu, cpu);
	/* Fully ordered: publishes @cpu and the case's set-up to the handler. */
	seq = atomic_inc_return(&p->sent);
	pnt_raise(cpu);
	return pnt_wait_served(p, seq);
}

/* Sends one NMI to a CPU other than the caller's, and waits for it. */
static bool pnt_send_other(struct pnt_nmi *p)
{
	int cpu = get_cpu();
	int seq, other = cpumask_any_but(cpu_online_mask, cpu);

	WRITE_ONCE(p->cpu, other);
	/* Fully ordered: as in pnt_send(). */
	seq = atomic_inc_return(&p->sent);
	pnt_raise(other);
	put_cpu();
	return pnt_wait_served(p, seq);
}

/* The handler claimed @want NMIs, each in NMI context. */
static void pnt_expect_runs(struct kunit *test, struct pnt_nmi *p, int want)
{
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&p->runs), want, "NMIs served");
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&p->not_nmi), 0,
			    "NMIs served where in_nmi() was false");
}

static void pnt_report(struct kunit *test, struct pnt_nmi *p)
{
	kunit_info(test, "%d NMIs served\n", atomic_read(&p->runs));
}

/* The work of the release cases: psem_release(@sem, @n). */
static void pnt_release(struct pnt_nmi *p)
{
	int ret = psem_release(p->sem, p->n);

	WRITE_ONCE(p->ret, ret);
	if (ret)
		atomic_inc(&p->errors);
}

static void pnt_exit(struct kunit *test)
{
	/* Before the helpers are reaped and the case's memory is freed. */
	pnt_disarm();
	pkt_exit(test);
}

/* ==== releases to waiters ==== */

/*
 * A task waits for 2; an NMI releases 2. The release must hand them over,
 * which needs the queue lock, which NMI may not take: it parks them and its
 * irq_work serves the waiter, once.
 */
static void psem_test_nmi_wakes_sleeper(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 0);
	struct pnt_nmi *p = pnt_new(test);
	struct pkt_thread *w;

	p->sem = sem;
	p->n = 2;
	pnt_arm(test, p, pnt_release);
	pkt_stats_start();
	w = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 2, 1);
	KUNIT_ASSERT_TRUE_MSG(test, pnt_send_other(p), "NMI not served");
	PKT_EXPECT_RETURNS(test, w, 0);
	psem_sync(sem);
	pnt_disarm();
	pnt_expect_runs(test, p, 1);
	KUNIT_EXPECT_EQ(test, p->ret, 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_DEFERRED, 1);
	PKT_EXPECT_STAT(test, PSEM_STAT_HANDOFF, 1);
	/* The waiter holds both: nothing else arrived. */
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 2), 0);
	PKT_EXPECT_IDLE(test, sem, 2);
	pnt_report(test, p);
}

/*
 * Two waiters, A for 2 then B for 1, and two NMIs: the first releases 1,
 * which A takes without being done; the second 2, which completes A and
 * serves B. FIFO and partial grants through the parked path, exact.
 */
static void psem_test_nmi_partial_fifo(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 0);
	struct pnt_nmi *p = pnt_new(test);
	struct pkt_thread *a, *b;

	p->sem = sem;
	pnt_arm(test, p, pnt_release);
	a = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 2, 1);
	b = pkt_linked_waiter(test, sem, PKT_ACQUIRE, 1, 2);
	p->n = 1;
	KUNIT_ASSERT_TRUE_MSG(test, pnt_send_other(p), "NMI not served");
	psem_sync(sem);
	/*
	 * A has 1 of 2 and still waits; B, which 1 would serve, is behind it:
	 * both still linked once the hand-off is over.
	 */
	KUNIT_EXPECT_FALSE(test, pkt_done(a));
	KUNIT_EXPECT_FALSE(test, pkt_done(b));
	KUNIT_EXPECT_EQ(test, pkt_nr_waiters(sem), 2U);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	p->n = 2;
	KUNIT_ASSERT_TRUE_MSG(test, pnt_send_other(p), "NMI not served");
	PKT_EXPECT_RETURNS(test, a, 0);
	PKT_EXPECT_RETURNS(test, b, 0);
	psem_sync(sem);
	pnt_disarm();
	pnt_expect_runs(test, p, 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->errors), 0);
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);
	PKT_EXPECT_IDLE(test, sem, 3);
	pnt_report(test, p);
}

/**
 * struct pnt_req - an asynchronous waiter and what its callback saw
 * @aw:     the waiter
 * @sem:    its psem, for a callback that gives its grant back
 * @give_back: the callback releases a grant at once
 * @calls:  callback runs; RELEASE by the callback
 * @result: the callback's result
 * @in_nmi: whether the callback ran in NMI
 */
struct pnt_req {
	struct psem_async	aw;
	struct psem		*sem;
	bool			give_back;
	int			calls;
	int			result;
	bool			in_nmi;
};

static void pnt_req_fn(struct psem_async *aw, int result)
{
	struct pnt_req *r = container_of(aw, struct pnt_req, aw);

	r->result = result;
	r->in_nmi = in_nmi();
	if (r->give_back && !result)
		psem_release(r->sem, r->aw.w.n);
	/* Publishes the fields above; pairs with pnt_calls(). */
	smp_store_release(&r->calls, r->calls + 1);
}

static int pnt_calls(struct pnt_req *r)
{
	return smp_load_acquire(&r->calls);	/* pairs with pnt_req_fn() */
}

/*
 * An asynchronous waiter for 3 takes the 1 there is and queues; an NMI
 * releases 2: the parked permits complete it from the hand-off's irq_work,
 * whose callback runs once, with 0, not in NMI.
 */
static void psem_test_nmi_grants_async(struct kunit *test)
{
	struct psem *sem = pkt_sem(test, 1);
	struct pnt_nmi *p = pnt_new(test);
	struct pnt_req *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->sem = sem;
	p->sem = sem;
	p->n = 2;
	pnt_arm(test, p, pnt_release);
	pkt_stats_start();
	KUNIT_ASSERT_EQ(test, psem_acquire_async(sem, 3, &r->aw, pnt_req_fn),
			-EINPROGRESS);
	KUNIT_ASSERT_TRUE_MSG(test, pnt_send_other(p), "NMI not served");
	KUNIT_EXPECT_TRUE(test, pkt_wait_for(pnt_calls(r) > 0));
	psem_sync(sem);
	pnt_disarm();
	pnt_expect_runs(test, p, 1);
	KUNIT_EXPECT_EQ(test, p->ret, 0);
	KUNIT_EXPECT_EQ(test, pnt_calls(r), 1);
	KUNIT_EXPECT_EQ(test, r->result, 0);
	KUNIT_EXPECT_FALSE(test, r->in_nmi);
	PKT_EXPECT_STAT(test, PSEM_STAT_DEFERRED, 1);
	KUNIT_EXPECT_FALSE(test, psem_cancel_async(sem, &r->aw));
	/* The waiter holds all 3. */
	KUNIT_EXPECT_EQ(test, psem_available(sem), 0L);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 3), 0);
	PKT_EXPECT_IDLE(test, sem, 3);
	pnt_report(test, p);
}

/**
 * struct pnt_free - the lock-free calls from NMI
 * @nmi:      the NMI
 * @r:        a waiter granted at once by psem_acquire_async() in NMI
 * @release:  psem_release(1 + 3)
 * @took:     psem_try_acquire(2)
 * @missed:   psem_try_acquire(100), which cannot succeed
 * @drained:  psem_drain(1)
 * @async:    psem_acquire_async(1), granted at once
 * @avail:    psem_available() at the end
 */
struct pnt_free {
	struct pnt_nmi	nmi;
	struct pnt_req	r;
	int		release;
	bool		took;
	bool		missed;
	long		drained;
	int		async;
	long		avail;
};

static void pnt_free_fn(struct pnt_nmi *p)
{
	struct pnt_free *f = container_of(p, struct pnt_free, nmi);
	struct psem *sem = p->sem;

	f->release = psem_release(sem, 3);
	f->took = psem_try_acquire(sem, 2);
	f->missed = psem_try_acquire(sem, 100);
	f->drained = psem_drain(sem, 1);
	f->async = psem_acquire_async(sem, 1, &f->r.aw, pnt_req_fn);
	f->avail = psem_available(sem);
}

/*
 * Nobody waits: a release from NMI is one lock-free exchange and defers
 * nothing; the try, drain and an asynchronous acquire granted at once are
 * lock-free too.
 */
static void psem_test_nmi_lock_free(struct kunit *test)
{
	struct pnt_free *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct psem *sem = pkt_sem(test, 1);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->nmi.sem = sem;
	pnt_arm(test, &f->nmi, pnt_free_fn);
	pkt_stats_start();
	KUNIT_ASSERT_TRUE_MSG(test, pnt_send_other(&f->nmi), "NMI not served");
	pnt_disarm();
	pnt_expect_runs(test, &f->nmi, 1);
	KUNIT_EXPECT_EQ(test, f->release, 0);
	KUNIT_EXPECT_TRUE(test, f->took);
	KUNIT_EXPECT_FALSE(test, f->missed);
	KUNIT_EXPECT_EQ(test, f->drained, 1L);
	KUNIT_EXPECT_EQ(test, f->async, 0);
	/* 1 + 3 - 2 - 1 - 1 */
	KUNIT_EXPECT_EQ(test, f->avail, 0L);
	KUNIT_EXPECT_EQ(test, pnt_calls(&f->r), 0);
	PKT_EXPECT_STAT(test, PSEM_STAT_FAST_RELEASE, 1);
	PKT_EXPECT_STAT(test, PSEM_STAT_DEFERRED, 0);
	KUNIT_EXPECT_EQ(test, psem_release(sem, 4), 0);
	PKT_EXPECT_IDLE(test, sem, 4);
	pnt_report(test, &f->nmi);
}

/* ==== teardown right after NMI releases ==== */

/* One round's psem and waiter, kfree()d at the end of the round. */
struct pnt_td {
	struct psem	sem;
	struct pnt_req	r;
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
	struct pnt_nmi *p = pnt_new(test);
	unsigned int round, granted = 0, shut = 0;
	unsigned long start;

	p->n = 2;
	pnt_arm(test, p, pnt_release);
	pkt_stats_start();
	start = jiffies;
	for (round = 0; round < teardown_rounds; round++) {
		struct pnt_td *td = kzalloc(sizeof(*td), GFP_KERNEL);
		bool ok;
		int calls;

		KUNIT_ASSERT_NOT_NULL(test, td);
		if (psem_init_capacity(&td->sem, 4) ||
		    !psem_try_acquire(&td->sem, 4)) {
			kfree(td);
			KUNIT_FAIL(test, "round %u: set-up failed", round);
			break;
		}
		td->r.sem = &td->sem;
		td->r.give_back = true;
		if (psem_acquire_async(&td->sem, 1, &td->r.aw, pnt_req_fn) !=
		    -EINPROGRESS) {
			kfree(td);
			KUNIT_FAIL(test, "round %u: the waiter did not queue", round);
			break;
		}
		/* Read by the handler after the increment in pnt_send(). */
		p->sem = &td->sem;
		ok = pnt_send_other(p);
		if (round & 1) {
			KUNIT_EXPECT_EQ(test, psem_close(&td->sem), 0);
			ok = ok && pnt_send_other(p);
		} else {
			ok = ok && pnt_send_other(p);
			KUNIT_EXPECT_EQ(test, psem_close(&td->sem), 0);
		}
		if (!ok) {
			/* The parked permits may still be on their way. */
			KUNIT_FAIL(test, "round %u: NMI not served", round);
			kunit_err(test, "leaking round %u's psem\n", round);
			break;
		}
		if (psem_quiesce(&td->sem, PKT_HANG_GUARD)) {
			/* Not safe to free: permits are still out. */
			KUNIT_FAIL(test, "round %u: quiesce timed out", round);
			kunit_err(test, "leaking round %u's psem\n", round);
			break;
		}
		calls = pnt_calls(&td->r);
		KUNIT_EXPECT_EQ(test, calls, 1);
		if (calls && !td->r.result)
			granted++;
		else if (calls && td->r.result == -ESHUTDOWN)
			shut++;
		else if (calls)
			KUNIT_FAIL(test, "round %u: callback result %d", round,
				   td->r.result);
		KUNIT_EXPECT_EQ(test, psem_available(&td->sem), 4L);
		KUNIT_EXPECT_EQ(test, psem_debt(&td->sem), 0UL);
		kfree(td);
		if (atomic_read(&p->errors))
			break;
		/*
		 * A bound on the work, not a timing assertion: a round takes
		 * about 2 ms on the debug kernels, 25 ms on PREEMPT_RT, where
		 * the hand-off runs in the irq_work thread.
		 */
		if (round >= PNT_MIN_ROUNDS &&
		    time_after(jiffies, start + PKT_RACE_SEARCH)) {
			round++;
			break;
		}
	}
	pnt_disarm();
	KUNIT_EXPECT_EQ(test, atomic_read(&p->errors), 0);
	/* One run for every NMI sent: every one was served. */
	pnt_expect_runs(test, p, atomic_read(&p->sent));
	KUNIT_EXPECT_EQ(test, granted + shut, round);
	/* At least the first NMI of every round parked its permits. */
	KUNIT_EXPECT_GE(test, pkt_stat(PSEM_STAT_DEFERRED), (u64)round);
	kunit_info(test, "%u rounds: waiter granted in %u, failed by the close in %u\n",
		   round, granted, shut);
	pnt_report(test, p);
}

/* ==== the calls that cannot defer ==== */

/**
 * struct pnt_refuse - the calls that must take the queue lock, from NMI
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
struct pnt_refuse {
	struct pnt_nmi	nmi;
	struct psem	open;
	struct psem	closed;
	struct psem	plain;
	struct pnt_req	r;
	int		close;
	int		reopen;
	int		resize;
	int		reduce;
	int		async;
};

static void pnt_refuse_fn(struct pnt_nmi *p)
{
	struct pnt_refuse *x = container_of(p, struct pnt_refuse, nmi);

	x->close = psem_close(&x->open);
	x->reopen = psem_reopen(&x->closed);
	x->resize = psem_resize(&x->open, 1);
	x->reduce = psem_reduce(&x->plain, 1);
	x->async = psem_acquire_async(&x->plain, 2, &x->r.aw, pnt_req_fn);
}

/* Everything a refused call must leave as it was. */
struct pnt_state {
	long		word;
	long		avail;
	long		capacity;
	unsigned long	debt;
	unsigned int	waiters;
};

static struct pnt_state pnt_snap(struct psem *sem)
{
	struct pnt_state s = {
		.word		= atomic_long_read(&sem->count),
		.avail		= psem_available(sem),
		.capacity	= psem_capacity(sem),
		.debt		= psem_debt(sem),
		.waiters	= pkt_nr_waiters(sem),
	};

	return s;
}

static void pnt_expect_same(struct kunit *test, struct psem *sem,
			    const struct pnt_state *was, const char *what)
{
	struct pnt_state now;

	psem_sync(sem);
	now = pnt_snap(sem);
	KUNIT_EXPECT_EQ_MSG(test, now.word, was->word, "%s: word", what);
	KUNIT_EXPECT_EQ_MSG(test, now.avail, was->avail, "%s: available", what);
	KUNIT_EXPECT_EQ_MSG(test, now.capacity, was->capacity, "%s: capacity",
			    what);
	KUNIT_EXPECT_EQ_MSG(test, now.debt, was->debt, "%s: debt", what);
	KUNIT_EXPECT_EQ_MSG(test, now.waiters, was->waiters, "%s: waiters",
			    what);
}

/*
 * psem_close(), psem_reopen(), psem_resize(), psem_reduce() and a queueing
 * psem_acquire_async() take the queue lock and cannot defer: from NMI each
 * returns -EPERM, counts one refusal and changes nothing.
 */
static void psem_test_nmi_refused(struct kunit *test)
{
	struct pnt_refuse *x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);
	struct pnt_state open, closed, plain;
	u64 refusals;

	KUNIT_ASSERT_NOT_NULL(test, x);
	KUNIT_ASSERT_EQ(test, psem_init_capacity(&x->open, 3), 0);
	KUNIT_ASSERT_TRUE(test, psem_try_acquire(&x->open, 1));
	KUNIT_ASSERT_EQ(test, psem_init_capacity(&x->closed, 2), 0);
	KUNIT_ASSERT_EQ(test, psem_close(&x->closed), 0);
	psem_init(&x->plain, 1);
	x->r.sem = &x->plain;
	pnt_arm(test, &x->nmi, pnt_refuse_fn);
	open = pnt_snap(&x->open);
	closed = pnt_snap(&x->closed);
	plain = pnt_snap(&x->plain);

	psem_set_quiet_warnings(true);
	refusals = psem_warn_count();
	KUNIT_ASSERT_TRUE_MSG(test, pnt_send_other(&x->nmi), "NMI not served");
	refusals = psem_warn_count() - refusals;
	psem_set_quiet_warnings(false);
	pnt_disarm();

	pnt_expect_runs(test, &x->nmi, 1);
	KUNIT_EXPECT_EQ(test, x->close, -EPERM);
	KUNIT_EXPECT_EQ(test, x->reopen, -EPERM);
	KUNIT_EXPECT_EQ(test, x->resize, -EPERM);
	KUNIT_EXPECT_EQ(test, x->reduce, -EPERM);
	KUNIT_EXPECT_EQ(test, x->async, -EPERM);
	KUNIT_EXPECT_EQ(test, refusals, 5ULL);
	pnt_expect_same(test, &x->open, &open, "open");
	pnt_expect_same(test, &x->closed, &closed, "closed");
	pnt_expect_same(test, &x->plain, &plain, "plain");
	KUNIT_EXPECT_FALSE(test, psem_is_closed(&x->open));
	KUNIT_EXPECT_TRUE(test, psem_is_closed(&x->closed));
	/* The refused waiter was never queued, and is never called. */
	KUNIT_EXPECT_FALSE(test, psem_cancel_async(&x->plain, &x->r.aw));
	KUNIT_EXPECT_EQ(test, pnt_calls(&x->r), 0);

	/* From a task the same calls work. */
	KUNIT_EXPECT_EQ(test, psem_resize(&x->open, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_reopen(&x->closed), 0);
	KUNIT_EXPECT_EQ(test, psem_reduce(&x->plain, 1), 0);
	KUNIT_EXPECT_EQ(test, psem_available(&x->plain), 0L);
	KUNIT_EXPECT_EQ(test, psem_release(&x->open, 1), 0);
	PKT_EXPECT_IDLE(test, &x->open, 1);
	pnt_report(test, &x->nmi);
}

/* ==== a storm ==== */

#define PNT_STORM_THREADS	4
#define PNT_STORM_START		8	/* permits "out" at the start */

/**
 * struct pnt_storm - task-side acquirers and NMI releasers on one psem
 * @nmi:      the NMIs; each releases whatever is @owed
 * @sem:      the psem, at 0 with PNT_STORM_START permits owed at first
 * @owed:     permits the acquirers took, for the next NMI to release
 * @released: permits NMIs released
 * @taken:    permits the acquirers took
 */
struct pnt_storm {
	struct pnt_nmi	nmi;
	struct psem	*sem;
	atomic_long_t	owed;
	atomic_long_t	released;
	atomic_long_t	taken;
};

static void pnt_storm_fn(struct pnt_nmi *p)
{
	struct pnt_storm *s = container_of(p, struct pnt_storm, nmi);
	long n = atomic_long_xchg(&s->owed, 0);

	if (!n)
		return;
	if (psem_release(s->sem, n))
		atomic_inc(&p->errors);
	else
		atomic_long_add(n, &s->released);
}

/* Takes 1..PKT_MAX_TAKE permits @iters times; NMIs give them back. */
static int pnt_storm_worker(struct pkt_thread *t)
{
	struct pnt_storm *s = t->arg;
	unsigned int i;
	int ret;

	for (i = 0; i < t->iters && !pkt_aborted(t); i++) {
		long n = 1 + pkt_rand(&t->seed) % PKT_MAX_TAKE;

		WRITE_ONCE(t->n, n);
		ret = pkt_waiter_fn(t);
		if (ret)
			return ret;
		atomic_long_add(n, &s->taken);
		atomic_long_add(n, &s->owed);
		pkt_progress(t);
	}
	return 0;
}

static bool pnt_storm_done(struct pkt_thread **w)
{
	unsigned int i;

	for (i = 0; i < PNT_STORM_THREADS; i++)
		if (!pkt_done(w[i]))
			return false;
	return true;
}

static unsigned long pnt_storm_progress(struct pkt_thread **w)
{
	unsigned long sum = 0;
	unsigned int i;

	for (i = 0; i < PNT_STORM_THREADS; i++)
		sum += READ_ONCE(w[i]->progress);
	return sum;
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
	static const enum pkt_op ops[PNT_STORM_THREADS] = {
		PKT_ACQUIRE, PKT_INTERRUPTIBLE, PKT_KILLABLE, PKT_TIMEOUT,
	};
	struct pnt_storm *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct pkt_thread *w[PNT_STORM_THREADS];
	unsigned long seen = 0, idle_since = jiffies;
	unsigned int i;
	bool ok = true;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->sem = pkt_sem(test, 0);
	atomic_long_set(&s->owed, PNT_STORM_START);
	pnt_arm(test, &s->nmi, pnt_storm_fn);
	pkt_stats_start();
	for (i = 0; i < PNT_STORM_THREADS; i++) {
		const struct pkt_thread tmpl = {
			.fn = pnt_storm_worker, .sem = s->sem, .n = 1,
			.op = ops[i], .timeout = 1000 * HZ,
			.iters = storm_iters, .arg = s,
		};

		w[i] = pkt_spawn(test, &tmpl, -1);
	}
	/* The first NMI finds a waiter queued. */
	KUNIT_ASSERT_TRUE(test, pkt_wait_for(pkt_nr_waiters(s->sem) > 0));
	while (!pnt_storm_done(w)) {
		unsigned long now = pnt_storm_progress(w);

		if (!pnt_send_other(&s->nmi)) {
			KUNIT_FAIL(test, "NMI not served");
			ok = false;
			break;
		}
		if (now != seen) {
			seen = now;
			idle_since = jiffies;
		} else if (time_after(jiffies, idle_since + PKT_HANG_GUARD)) {
			KUNIT_FAIL(test, "no progress at %lu acquisitions", now);
			ok = false;
			break;
		}
		/* Give the threads a tick when there is nothing to release. */
		if (!atomic_long_read(&s->owed))
			pkt_wait_until(atomic_long_read(&s->owed) ||
				       pnt_storm_done(w), 1);
	}
	for (i = 0; i < PNT_STORM_THREADS; i++)
		PKT_EXPECT_RETURNS(test, w[i], 0);
	/* What the last acquisitions took goes home too. */
	while (ok && atomic_long_read(&s->owed))
		ok = pnt_send_other(&s->nmi);
	KUNIT_EXPECT_TRUE(test, ok);
	psem_sync(s->sem);
	pnt_disarm();
	KUNIT_EXPECT_EQ(test, atomic_read(&s->nmi.errors), 0);
	pnt_expect_runs(test, &s->nmi, atomic_read(&s->nmi.sent));
	/* Every acquisition of every thread happened, and went home. */
	KUNIT_EXPECT_EQ(test, pnt_storm_progress(w),
			(unsigned long)PNT_STORM_THREADS * storm_iters);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&s->released),
			atomic_long_read(&s->taken) + PNT_STORM_START);
	KUNIT_EXPECT_GT(test, pkt_stat(PSEM_STAT_DEFERRED), 0ULL);
	PKT_EXPECT_IDLE(test, s->sem, PNT_STORM_START);
	kunit_info(test, "%ld permits taken by tasks and released from NMI; %llu releases deferred, %llu waits slept\n",
		   atomic_long_read(&s->taken), pkt_stat(PSEM_STAT_DEFERRED),
		   pkt_stat(PSEM_STAT_SLEEP));
	pnt_report(test, &s->nmi);
}

/* ==== the rwlock and the mutex ==== */

/**
 * struct pnt_rw - rwlock unlocks from NMI
 * @nmi:    the NMIs; each does @step
 * @rw:     the lock
 * @step:   PNT_RW_TRYLOCK, PNT_RW_UNLOCK or PNT_RW_READ_UNLOCK
 * @locked: the write trylock's result
 */
struct pnt_rw {
	struct pnt_nmi		nmi;
	struct psem_rwlock	rw;
	int			step;
	bool			locked;
};

enum {
	PNT_RW_TRYLOCK,
	PNT_RW_UNLOCK,
	PNT_RW_READ_UNLOCK,
};

static void pnt_rw_fn(struct pnt_nmi *p)
{
	struct pnt_rw *x = container_of(p, struct pnt_rw, nmi);

	switch (READ_ONCE(x->step)) {
	case PNT_RW_TRYLOCK:
		x->locked = psem_write_trylock(&x->rw);
		break;
	case PNT_RW_UNLOCK:
		psem_write_unlock(&x->rw);
		break;
	case PNT_RW_READ_UNLOCK:
		psem_read_unlock_non_owner(&x->rw);
		break;
	}
}

static int pnt_reader(struct pkt_thread *t)
{
	struct pnt_rw *x = t->arg;

	psem_read_lock(&x->rw);
	psem_read_unlock(&x->rw);
	return 0;
}

static int pnt_writer(struct pkt_thread *t)
{
	struct pnt_rw *x = t->arg;

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
	struct pnt_rw *x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);
	struct pkt_thread tmpl = { .fn = pnt_reader };
	struct pkt_thread *r, *wr;

	KUNIT_ASSERT_NOT_NULL(test, x);
	psem_rwlock_init(&x->rw);
	tmpl.arg = x;
	/* If the case gives up, pkt_unstick() frees the reader thus. */
	tmpl.sem = &x->rw.sem;
	tmpl.n = PSEM_RWLOCK_MAX_READERS;
	pnt_arm(test, &x->nmi, pnt_rw_fn);
	pkt_stats_start();

	WRITE_ONCE(x->step, PNT_RW_TRYLOCK);
	KUNIT_ASSERT_TRUE_MSG(test, pnt_send_other(&x->nmi), "NMI not served");
	KUNIT_ASSERT_TRUE(test, x->locked);
	r = pkt_spawn(test, &tmpl, -1);
	KUNIT_ASSERT_TRUE_MSG(test, pkt_wait_for(pkt_nr_waiters(&x->rw.sem) == 1),
			      "reader not queued");
	WRITE_ONCE(x->step, PNT_RW_UNLOCK);
	KUNIT_ASSERT_TRUE_MSG(test, pnt_send_other(&x->nmi), "NMI not served");
	PKT_EXPECT_RETURNS(test, r, 0);
	psem_sync(&x->rw.sem);
	PKT_EXPECT_STAT(test, PSEM_STAT_DEFERRED, 1);

	psem_read_lock_non_owner(&x->rw);
	tmpl.fn = pnt_writer;
	tmpl.n = 1;
	wr = pkt_spawn(test, &tmpl, -1);
	KUNIT_ASSERT_TRUE_MSG(test, pkt_wait_for(pkt_nr_waiters(&x->rw.sem) == 1),
			      "writer not queued");
	WRITE_ONCE(x->step, PNT_RW_READ_UNLOCK);
	KUNIT_ASSERT_TRUE_MSG(test, pnt_send_other(&x->nmi), "NMI not served");
	PKT_EXPECT_RETURNS(test, wr, 0);
	psem_sync(&x->rw.sem);
	pnt_disarm();
	pnt_expect_runs(test, &x->nmi, 3);
	PKT_EXPECT_STAT(test, PSEM_STAT_DEFERRED, 2);
	KUNIT_EXPECT_TRUE(test, psem_write_trylock(&x->rw));
	psem_write_unlock(&x->rw);
	PKT_EXPECT_IDLE(test, &x->rw.sem, PSEM_RWLOCK_MAX_READERS);
	/* Before kunit frees it. */
	psem_rwlock_destroy(&x->rw);
	pnt_report(test, &x->nmi);
}

/**
 * struct pnt_mx - a mutex unlocked from an NMI that interrupted its owner
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
struct pnt_mx {
	struct pnt_nmi		nmi;
	struct psem_mutex	mx;
	int			cpu;
	struct task_struct	*owner;
	bool			locked;
	bool			unlocked;
	atomic_t		misses;
};

static void pnt_mx_fn(struct pnt_nmi *p)
{
	struct pnt_mx *m = container_of(p, struct pnt_mx, nmi);

	/* Only the owner may unlock: the NMI must have interrupted it. */
	if (current != READ_ONCE(m->owner)) {
		atomic_inc(&m->misses);
		return;
	}
	psem_mutex_unlock(&m->mx);
	smp_store_release(&m->unlocked, true);	/* pairs with the readers */
}

static bool pnt_mx_unlocked(struct pnt_mx *m)
{
	return smp_load_acquire(&m->unlocked);	/* pairs with pnt_mx_fn() */
}

/*
 * Locks, then runs on its CPU, preemptible, until an NMI that found it
 * current there has unlocked the mutex, as psem_mutex_unlock() requires of
 * its caller. Preemptible, not with preemption off: on PREEMPT_RT that
 * would also stop this CPU's timers (their softirq is a thread), and with
 * them, when they are queued here, the wake-ups of the test.
 */
static int pnt_mx_owner(struct pkt_thread *t)
{
	struct pnt_mx *m = t->arg;
	unsigned long end = jiffies + 2 * PKT_HANG_GUARD;

	psem_mutex_lock(&m->mx);
	WRITE_ONCE(m->owner, current);
	smp_store_release(&m->locked, true);	/* pairs with the test */
	while (!pnt_mx_unlocked(m) && !pkt_aborted(t) &&
	       time_before(jiffies, end)) {
		cpu_relax();
		cond_resched();
	}
	/* From here no NMI on this CPU unlocks for it. */
	WRITE_ONCE(m->owner, NULL);
	if (!pnt_mx_unlocked(m)) {
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

static int pnt_mx_waiter(struct pkt_thread *t)
{
	struct pnt_mx *m = t->arg;

	psem_mutex_lock(&m->mx);
	psem_mutex_unlock(&m->mx);
	return 0;
}

/*
 * From another CPU than the owner's, sends NMIs to the owner's CPU until
 * one of them finds the owner running there and unlocks.
 */
static int pnt_mx_sender(struct pkt_thread *t)
{
	struct pnt_mx *m = t->arg;
	unsigned long end = jiffies + PKT_HANG_GUARD;

	while (!pnt_mx_unlocked(m) && !pkt_aborted(t) &&
	       time_before(jiffies, end)) {
		if (!pnt_send(&m->nmi, m->cpu))
			return -EIO;
		pkt_progress(t);
	}
	return pnt_mx_unlocked(m) ? 0 : -ETIMEDOUT;
}

/*
 * A task holds the mutex, another waits for it; an NMI that interrupts the
 * owner unlocks it: the hand-off to the waiter is deferred, and the waiter
 * gets the mutex, once.
 */
static void psem_test_nmi_mutex(struct kunit *test)
{
	struct pnt_mx *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	struct pkt_thread tmpl = { .fn = pnt_mx_owner };
	struct pkt_thread *owner, *w, *sender;
	int sent;

	KUNIT_ASSERT_NOT_NULL(test, m);
	psem_mutex_init(&m->mx);
	tmpl.arg = m;
	pnt_arm(test, &m->nmi, pnt_mx_fn);
	pkt_stats_start();
	m->cpu = cpumask_first(cpu_online_mask);
	owner = pkt_spawn(test, &tmpl, m->cpu);
	/* Pairs with the store in pnt_mx_owner(). */
	KUNIT_ASSERT_TRUE(test, pkt_wait_for(smp_load_acquire(&m->locked)));
	tmpl.fn = pnt_mx_waiter;
	/* If the case gives up, pkt_unstick() frees the waiter thus. */
	tmpl.sem = &m->mx.sem;
	tmpl.n = 1;
	w = pkt_spawn(test, &tmpl, -1);
	KUNIT_ASSERT_TRUE_MSG(test, pkt_wait_for(pkt_nr_waiters(&m->mx.sem) == 1),
			      "waiter not queued");
	tmpl.fn = pnt_mx_sender;
	tmpl.sem = NULL;
	sender = pkt_spawn(test, &tmpl, cpumask_any_but(cpu_online_mask, m->cpu));
	PKT_EXPECT_RETURNS(test, sender, 0);
	PKT_EXPECT_RETURNS(test, owner, 0);
	PKT_EXPECT_RETURNS(test, w, 0);
	psem_sync(&m->mx.sem);
	pnt_disarm();
	sent = atomic_read(&m->nmi.sent);
	pnt_expect_runs(test, &m->nmi, sent);
	/* Exactly one NMI found the owner: the one that unlocked. */
	KUNIT_EXPECT_EQ(test, atomic_read(&m->misses), sent - 1);
	KUNIT_EXPECT_TRUE(test, pnt_mx_unlocked(m));
	PKT_EXPECT_STAT(test, PSEM_STAT_DEFERRED, 1);
	KUNIT_EXPECT_FALSE(test, psem_mutex_is_locked(&m->mx));
	KUNIT_EXPECT_TRUE(test, psem_mutex_trylock(&m->mx));
	psem_mutex_unlock(&m->mx);
	PKT_EXPECT_IDLE(test, &m->mx.sem, 1);
	/* Before kunit frees it. */
	psem_mutex_destroy(&m->mx);
	kunit_info(test, "%d NMIs sent to the owner's CPU, %d found another task there\n",
		   sent, atomic_read(&m->misses));
	pnt_report(test, &m->nmi);
}

static struct kunit_case psem_nmi_cases[] = {
	KUNIT_CASE(psem_test_nmi_wakes_sleeper),
	KUNIT_CASE(psem_test_nmi_partial_fifo),
	KUNIT_CASE(psem_test_nmi_grants_async),
	KUNIT_CASE(psem_test_nmi_lock_free),
	KUNIT_CASE(psem_test_nmi_close_quiesce_free),
	KUNIT_CASE(psem_test_nmi_refused),
	KUNIT_CASE(psem_test_nmi_storm),
	KUNIT_CASE(psem_test_nmi_rwlock),
	KUNIT_CASE(psem_test_nmi_mutex),
	{}
};

static struct kunit_suite psem_nmi_suite = {
	.name		= "psem_nmi",
	.init		= pkt_init,
	.exit		= pnt_exit,
	.test_cases	= psem_nmi_cases,
};

kunit_test_suite(psem_nmi_suite);

MODULE_DESCRIPTION("KUnit tests for psem calls from NMI");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(PSEM_NS);
MODULE_IMPORT_NS(PSEM_KNOBS_NS);
