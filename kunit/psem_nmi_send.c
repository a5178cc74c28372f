// SPDX-License-Identifier: GPL-2.0
/*
 * The NMI sender of the psem_nmi suite (psem_nmi_test.c): an NMI_LOCAL
 * handler that claims only the NMIs a case sends, as IPIs with NMI_VECTOR,
 * to the other CPU (QEMU's TCG guests deliver them). Part of
 * psem_nmi_kunit.ko only; see psem_nmi.h.
 *
 * Every NMI_LOCAL handler runs on every NMI, so the handler claims an NMI
 * only on the CPU a case sent one to, and only while a request of that
 * case is outstanding; the case unregisters it (which waits for a running
 * handler) before its data goes away. The handler counts its runs and
 * those where in_nmi() was false, which the cases check.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/hardirq.h>
#include <linux/jiffies.h>
#include <linux/smp.h>

#if defined(CONFIG_X86) && defined(CONFIG_X86_LOCAL_APIC)
#include <asm/apic.h>
#include <asm/cpufeature.h>
#include <asm/nmi.h>
#define NMI_SENDER_HAVE_NMI	1
#else
#define NMI_SENDER_HAVE_NMI	0
#endif

#include "psem.h"
#include "psem_knobs.h"
#include "psem_nmi.h"
#include "psem_test.h"

/* The armed case's state: set before registering, cleared after. */
static struct nmi_sender *armed;
static bool registered;

#if NMI_SENDER_HAVE_NMI

#define NMI_SENDER_NAME	"psem_nmi_kunit"

static int nmi_sender_handler(unsigned int type, struct pt_regs *regs)
{
	struct nmi_sender *p = READ_ONCE(armed);
	int seq;

	if (!p)
		return NMI_DONE;
	/* ACQUIRE: pairs with the increment in nmi_sender_send(), after @cpu. */
	seq = atomic_read_acquire(&p->sent);
	if (READ_ONCE(p->cpu) != smp_processor_id() ||
	    seq == atomic_read(&p->served))
		return NMI_DONE;	/* not ours, or served already */
	if (!in_nmi())
		atomic_inc(&p->not_nmi);
	p->fn(p);
	atomic_inc(&p->runs);
	/* RELEASE: publishes what @fn wrote; pairs with nmi_sender_wait_served(). */
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
static int nmi_sender_register(void)
{
	return register_nmi_handler(NMI_LOCAL, nmi_sender_handler, 0, NMI_SENDER_NAME);
}

/* Waits for a handler that is running to return (synchronize_rcu()). */
static void nmi_sender_unregister(void)
{
	unregister_nmi_handler(NMI_LOCAL, NMI_SENDER_NAME);
}

/* Whether an NMI can be sent to another CPU: a local APIC in use. */
static bool nmi_sender_can_send(void)
{
	return boot_cpu_has(X86_FEATURE_APIC) && apic && apic->send_IPI;
}

static void nmi_sender_raise(int cpu)
{
	apic->send_IPI(cpu, NMI_VECTOR);
}

#else /* !NMI_SENDER_HAVE_NMI */

static bool nmi_sender_can_send(void)
{
	return false;
}

static int nmi_sender_register(void)
{
	return -EOPNOTSUPP;
}

static void nmi_sender_unregister(void)
{
}

static void nmi_sender_raise(int cpu)
{
}

#endif /* NMI_SENDER_HAVE_NMI */

/**
 * nmi_sender_arm() - register the handler, with the work of a case's NMIs
 * @test: the test case; skipped where no NMI can be sent to another CPU
 * @p:    the case's sender, from nmi_sender_new()
 * @fn:   the work of one NMI, run in NMI context
 */
void nmi_sender_arm(struct kunit *test, struct nmi_sender *p,
		    void (*fn)(struct nmi_sender *p))
{
	if (!nmi_sender_can_send())
		kunit_skip(test, "needs x86 with a local APIC: NMIs are sent as IPIs");
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs: NMIs go to the other CPU");
	p->fn = fn;
	p->cpu = -1;
	/* Published by the registration (list_add_rcu()). */
	WRITE_ONCE(armed, p);
	KUNIT_ASSERT_EQ(test, nmi_sender_register(), 0);
	registered = true;
}

/**
 * nmi_sender_disarm() - unregister the handler, if it is registered
 *
 * Waits for a handler that is running to return: from here on it touches
 * nothing of the case.
 */
void nmi_sender_disarm(void)
{
	if (!registered)
		return;
	nmi_sender_unregister();
	registered = false;
	WRITE_ONCE(armed, NULL);
}

/**
 * nmi_sender_new() - a sender that lives until the case is over
 * @test: the test case
 *
 * Return: the sender, zeroed.
 */
struct nmi_sender *nmi_sender_new(struct kunit *test)
{
	struct nmi_sender *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	return p;
}

/* Whether request @seq was served; ACQUIRE, pairs with nmi_sender_handler(). */
static bool nmi_sender_served(struct nmi_sender *p, int seq)
{
	return atomic_read_acquire(&p->served) == seq;
}

/*
 * Waits for the handler to serve request @seq: a short spin (the NMI is
 * usually there within microseconds), then polls once a jiffy up to the
 * hang guard. False if it never came.
 */
static bool nmi_sender_wait_served(struct nmi_sender *p, int seq)
{
	unsigned long end = jiffies + 2;

	while (time_before(jiffies, end)) {
		if (nmi_sender_served(p, seq))
			return true;
		cpu_relax();
	}
	return psem_test_wait_for(nmi_sender_served(p, seq));
}

/**
 * nmi_sender_send() - send one NMI for @p's work, and wait until it has run
 * @p:   the armed sender
 * @cpu: the CPU to send it to
 *
 * Return: whether the handler served it within the hang guard.
 */
bool nmi_sender_send(struct nmi_sender *p, int cpu)
{
	int seq;

	WRITE_ONCE(p->cpu, cpu);
	/* Fully ordered: publishes @cpu and the case's set-up to the handler. */
	seq = atomic_inc_return(&p->sent);
	nmi_sender_raise(cpu);
	return nmi_sender_wait_served(p, seq);
}

/**
 * nmi_sender_send_other() - nmi_sender_send() to a CPU not the caller's
 * @p: the armed sender
 *
 * Return: whether the handler served it within the hang guard.
 */
bool nmi_sender_send_other(struct nmi_sender *p)
{
	int cpu = get_cpu();
	int seq, other = cpumask_any_but(cpu_online_mask, cpu);

	WRITE_ONCE(p->cpu, other);
	/* Fully ordered: as in nmi_sender_send(). */
	seq = atomic_inc_return(&p->sent);
	nmi_sender_raise(other);
	put_cpu();
	return nmi_sender_wait_served(p, seq);
}

/**
 * nmi_send_refused() - send to another CPU, counting psem's refusals
 * @test: the test case
 * @p:    the armed sender, disarmed on return
 *
 * Sends with the refusals' warnings quiet, for a case whose NMI makes
 * calls that psem refuses on purpose.
 *
 * Return: the refusals counted meanwhile.
 */
u64 nmi_send_refused(struct kunit *test, struct nmi_sender *p)
{
	u64 refusals = psem_warn_count();
	bool served;

	psem_set_quiet_warnings(true);
	served = nmi_sender_send_other(p);
	refusals = psem_warn_count() - refusals;
	psem_set_quiet_warnings(false);
	nmi_sender_disarm();
	KUNIT_EXPECT_TRUE_MSG(test, served, "NMI not served");
	return refusals;
}

/**
 * nmi_sender_expect_runs() - expect so many NMIs claimed, each in NMI
 * @test: the test case
 * @p:    the sender
 * @want: the NMIs the handler must have claimed for @p
 */
void nmi_sender_expect_runs(struct kunit *test, struct nmi_sender *p, int want)
{
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&p->runs), want, "NMIs served");
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&p->not_nmi), 0,
			    "NMIs served where in_nmi() was false");
}

/**
 * nmi_sender_report() - log how many NMIs the handler claimed for @p
 * @test: the test case
 * @p:    the sender
 */
void nmi_sender_report(struct kunit *test, struct nmi_sender *p)
{
	kunit_info(test, "%d NMIs served\n", atomic_read(&p->runs));
}

/**
 * nmi_sender_release() - the NMI work of the release cases
 * @p: the sender: psem_release(@p->sem, @p->n); a result other than 0
 *     counts in @p->errors
 */
void nmi_sender_release(struct nmi_sender *p)
{
	int ret = psem_release(p->sem, p->n);

	WRITE_ONCE(p->ret, ret);
	if (ret)
		atomic_inc(&p->errors);
}

/**
 * nmi_sender_exit() - psem_nmi's .exit: disarm, then psem_test_exit()
 * @test: the test case, even one an assertion aborted
 */
void nmi_sender_exit(struct kunit *test)
{
	/* Before the helpers are reaped and the case's memory is freed. */
	nmi_sender_disarm();
	psem_test_exit(test);
}
