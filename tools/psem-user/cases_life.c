// SPDX-License-Identifier: GPL-2.0
/*
 * psem-cases: the lifecycle's cases. A waiter or a releaser preempted
 * while the owner closes, quiesces and frees (in task context and from
 * NMI); a release that overflows a closed psem; psem_release_all_held()
 * against the capacity; an acquirer queued behind a quiesce.
 * cases.c runs them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kernel.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "psem.h"
#include "psem-user.h"
#include "cases.h"

/*
 * close-quiesce-free: a waiter W leaves its wait (a signal, a timeout, or
 * psem_close() failing it) and is preempted before it next takes the queue
 * lock; the owner closes, brings the last permit home, quiesces and frees
 * the psem. Once psem_quiesce() has returned 0 after psem_close(), no task
 * may touch the psem: ASan reports it if W does, and the stop's bound lets
 * W go on by itself when quiesce rightly waits for it.
 */
enum cqf_kind { CQF_SIGNAL, CQF_TIMEOUT, CQF_SHUTDOWN };
static const char * const cqf_names[] = { "signal", "timeout", "shutdown" };

struct cqf {
	struct psem	*sem;
	enum cqf_kind	kind;
};

static void cqf_waiter(struct thr *t)
{
	struct cqf *c = t->arg;

	switch (c->kind) {
	case CQF_SIGNAL:
		t->ret = psem_acquire_interruptible(c->sem, 1);
		break;
	case CQF_TIMEOUT:
		t->ret = psem_acquire_timeout(c->sem, 1, 100);
		break;
	case CQF_SHUTDOWN:
		t->ret = psem_acquire_killable(c->sem, 1);
		break;
	}
}

static void close_quiesce_free_one(enum cqf_kind kind)
{
	const char * const *names = cqf_names;
	struct cqf c = { .kind = kind };
	struct thr w;
	int state, ret;

	c.sem = case_psem_owned(1);
	if (!c.sem)
		return;
	if (!thr_start_asleep(&w, "W", cqf_waiter, &c, c.sem)) {
		note("(%s)", names[kind]);
		return;
	}
	if (kind == CQF_SHUTDOWN) {
		/* W stops on its way out of schedule(), once woken by close. */
		psem_user_preempt_arm(w.task, PSEM_USER_AT_WAKE, NULL, 1,
				      STOP_BOUND_MS);
	} else {
		/* W stops before it next takes the queue lock: its cancel. */
		psem_user_preempt_arm(w.task, PSEM_USER_AT_LOCK, &c.sem->lock,
				      1, STOP_BOUND_MS);
		if (kind == CQF_SIGNAL)
			psem_user_signal(w.task, false);
		/* CQF_TIMEOUT: W's 100 ms run out by themselves. */
		state = psem_user_preempt_wait_stopped(w.task, HANG_MS);
		if (state != PSEM_USER_PRE_STOPPED)
			note("%s: W %s before the close", names[kind],
			     pre_state_name(state));
	}

	ret = psem_close(c.sem);
	CHECK(ret == 0, "%s: psem_close() returned %d", names[kind], ret);
	if (kind == CQF_SHUTDOWN) {
		state = psem_user_preempt_wait_stopped(w.task, HANG_MS);
		if (state != PSEM_USER_PRE_STOPPED)
			note("%s: W %s after the close", names[kind],
			     pre_state_name(state));
	}
	ret = psem_release(c.sem, 1);
	CHECK(ret == 0, "%s: the owner's release returned %d", names[kind], ret);
	ret = psem_quiesce(c.sem, HANG_MS);
	if (!CHECK(ret == 0, "%s: psem_quiesce() returned %d", names[kind],
		   ret)) {
		psem_user_preempt_release(w.task);
		thr_join(&w);
		return;
	}
	/* The contract: the owner may free the psem now. */
	state = psem_user_preempt_state(w.task);
	free(c.sem);
	/* Old code: W resumes here, and its psem_cancel() locks freed memory. */
	psem_user_preempt_release(w.task);
	thr_join(&w);
	note("%s: W %s when quiesce returned; W returned %ld", names[kind],
	     pre_state_name(state), w.ret);
	CHECK(w.ret == -ESHUTDOWN ||
	      (kind == CQF_SIGNAL && w.ret == -EINTR) ||
	      (kind == CQF_TIMEOUT && w.ret == -ETIME),
	      "%s: W returned %ld", names[kind], w.ret);
}

/*
 * The same for an asynchronous completion: releaser R serves async waiter
 * A and calls its callback, which gives the permit back and then arms R to
 * stop before R next takes the queue lock. The owner, once the permit is
 * back, closes, quiesces and frees: R, still inside psem_release(), must
 * not touch the psem after that.
 */
static struct psem *cqa_sem;
static int cqa_given_back, cqa_release_ret;

static void cqa_fn(struct psem_async *aw, int result)
{
	st(&cqa_release_ret, result ? result : psem_release(cqa_sem, 1));
	psem_user_preempt_arm(current, PSEM_USER_AT_LOCK, &cqa_sem->lock, 1,
			      STOP_BOUND_MS);
	__atomic_store_n(&cqa_given_back, 1, __ATOMIC_RELEASE);
}

static void cqa_releaser(struct thr *t)
{
	t->ret = psem_release(cqa_sem, 1);
}

static void close_quiesce_free_async(void)
{
	struct psem_async *aw = calloc(1, sizeof(*aw));
	struct thr r;
	int ret, state;

	if (!aw)
		abort();
	cqa_sem = case_psem_owned(1);
	if (!cqa_sem)
		return;
	ret = psem_acquire_async(cqa_sem, 1, aw, cqa_fn);
	if (!CHECK(ret == -EINPROGRESS, "async: A returned %d", ret))
		return;
	thr_start(&r, "R", cqa_releaser, NULL, 0);
	if (!CHECK(wait_flag(&cqa_given_back), "async: A's callback never ran"))
		return;
	CHECK(ld(&cqa_release_ret) == 0, "async: A's give-back returned %d",
	      ld(&cqa_release_ret));
	ret = psem_close(cqa_sem);
	CHECK(ret == 0, "async: psem_close() returned %d", ret);
	ret = psem_quiesce(cqa_sem, HANG_MS);
	if (!CHECK(ret == 0, "async: psem_quiesce() returned %d", ret)) {
		psem_user_preempt_release(r.task);
		thr_join(&r);
		return;
	}
	state = psem_user_preempt_state(r.task);
	free(cqa_sem);
	psem_user_preempt_release(r.task);
	thr_join(&r);
	note("async: R %s when quiesce returned; its release returned %ld",
	     pre_state_name(state), r.ret);
	CHECK(r.ret == 0, "async: R's release returned %ld", r.ret);
	free(aw);
}

void case_close_quiesce_free(void)
{
	int k;

	for (k = CQF_SIGNAL; k <= CQF_SHUTDOWN && !case_failed; k++)
		if (!case_variant || !strcmp(case_variant, cqf_names[k]))
			close_quiesce_free_one(k);
	if (!case_failed && (!case_variant || !strcmp(case_variant, "async")))
		close_quiesce_free_async();
}

/*
 * closed-release-overflow: a release that overflows a closed psem is
 * refused and changes nothing; the psem stays closed.
 */
static void closed_overflow_one(long cap, long hold)
{
	struct psem_ext cs;
	long before;
	int ret;

	if (cap < 0) {
		psem_init(&cs.sem, 1);
	} else {
		psem_init_capacity(&cs, cap);
		CHECK(psem_try_acquire(&cs.sem, hold), "take %ld", hold);
	}
	CHECK(psem_close(&cs.sem) == 0, "close");
	before = word(&cs.sem);
	ret = psem_release(&cs.sem, PSEM_MAX_PERMITS);
	note("%s: psem_release(PSEM_MAX_PERMITS) returned %d; word %#lx -> %#lx (balance %ld), %s",
	     cap < 0 ? "uncapped, balance 1" : "capacity 10, balance 5", ret,
	     (unsigned long)before, (unsigned long)word(&cs.sem),
	     psem_available(&cs.sem), psem_is_closed(&cs.sem) ? "closed" : "open");
	CHECK(ret == -EOVERFLOW, "returned %d, want -EOVERFLOW", ret);
	CHECK(word(&cs.sem) == before, "the word changed: %#lx -> %#lx",
	      (unsigned long)before, (unsigned long)word(&cs.sem));
	CHECK(psem_is_closed(&cs.sem), "the psem reopened");
}

void case_closed_release_overflow(void)
{
	closed_overflow_one(-1, 0);	/* uncapped, balance 1 */
	closed_overflow_one(10, 5);	/* capacity 10, balance 5 */
}

/*
 * release-all-held-capacity: with capacity 5 and all 5 held, releasing 10
 * "held" permits is refused and changes nothing, as psem_release() is.
 */
void case_release_all_held_capacity(void)
{
	struct psem_ext cs;
	long before;
	int ret;

	psem_init_capacity(&cs, 5);
	CHECK(psem_try_acquire(&cs.sem, 5), "take 5");
	before = word(&cs.sem);
	ret = psem_release(&cs.sem, 10);
	CHECK(ret == -EOVERFLOW, "psem_release(10) returned %d", ret);
	ret = psem_release_all_held(&cs.sem, 10);
	note("psem_release_all_held(10) returned %d, balance %ld",
	     ret, psem_available(&cs.sem));
	CHECK(ret == -EOVERFLOW, "returned %d, want -EOVERFLOW", ret);
	CHECK(word(&cs.sem) == before, "the word changed: %#lx -> %#lx",
	      (unsigned long)before, (unsigned long)word(&cs.sem));
	if (case_failed)
		return;
	CHECK(psem_release_all_held(&cs.sem, 5) == 0, "the real release");
	CHECK(psem_available(&cs.sem) == 5, "available %ld",
	      psem_available(&cs.sem));
}

/*
 * quiesce-fifo: an acquirer B queued behind a quiesce Q is served after Q
 * is: while Q, served, is stopped before it runs again, B is still queued
 * (Q holds every permit); once Q gives them back, B is granted. Whether B
 * returns before Q's caller does is recorded, not asserted: the kernel-doc
 * promises only "served after it".
 */
static struct psem *qf_sem;
static int qf_q_returned, qf_b_returned, qf_order;

static void qf_quiesce(struct thr *t)
{
	t->ret = psem_quiesce(qf_sem, MAX_SCHEDULE_TIMEOUT);
	__atomic_store_n(&qf_q_returned, __atomic_add_fetch(&qf_order, 1,
			 __ATOMIC_RELAXED), __ATOMIC_RELEASE);
}

static void qf_acquirer(struct thr *t)
{
	t->ret = psem_acquire_killable(qf_sem, 1);
	__atomic_store_n(&qf_b_returned, __atomic_add_fetch(&qf_order, 1,
			 __ATOMIC_RELAXED), __ATOMIC_RELEASE);
}

void case_quiesce_fifo(void)
{
	struct thr q, b;
	int state;

	qf_sem = case_psem_owned(2);
	if (!qf_sem)
		return;
	if (!thr_start_asleep(&q, "Q", qf_quiesce, NULL, qf_sem) ||
	    !thr_start_asleep(&b, "B", qf_acquirer, NULL, qf_sem))
		return;
	/* Q stops once served, on its way out of schedule(). */
	psem_user_preempt_arm(q.task, PSEM_USER_AT_WAKE, NULL, 1, HANG_MS);
	CHECK(psem_release(qf_sem, 2) == 0, "the release");
	state = psem_user_preempt_wait_stopped(q.task, HANG_MS);
	CHECK(state == PSEM_USER_PRE_STOPPED, "Q %s", pre_state_name(state));
	/* The release served Q with every permit: B cannot have been. */
	CHECK(linked(qf_sem) && !ld(&qf_b_returned),
	      "B was served before Q ran again");
	psem_user_preempt_release(q.task);
	thr_join(&q);
	thr_join(&b);
	note("B returned %s Q's caller", ld(&qf_b_returned) < ld(&qf_q_returned) ?
	     "before" : "after");
	CHECK(q.ret == 0 && b.ret == 0, "Q returned %ld, B %ld", q.ret, b.ret);
	CHECK(psem_release(qf_sem, 1) == 0 && psem_available(qf_sem) == 2,
	      "accounting: available %ld", psem_available(qf_sem));
	free(qf_sem);
}

/*
 * nmi-release-quiesce-free: a release from NMI, where the queue lock may
 * not be taken, with a waiter queued: its permit is parked for an
 * irq_work, whose task is stopped before it takes the queue lock. From
 * NMI, psem_close() is refused (-EPERM). The owner then, in task context,
 * closes (failing the waiter), gives back its other permit, quiesces and
 * frees the psem: quiesce must have waited for the hand-off, which counts
 * the parked permit home, and nothing touches the psem after it.
 */
static struct psem *nrq_sem;

static void nrq_waiter(struct thr *t)
{
	t->ret = psem_acquire_killable(nrq_sem, 1);
}

void case_nmi_release_quiesce_free(void)
{
	struct task_struct *irq = psem_user_irq_work_task();
	struct thr w;
	int ret, state, old;

	nrq_sem = case_psem_owned(2);
	if (!nrq_sem)
		return;
	if (!thr_start_asleep(&w, "W", nrq_waiter, NULL, nrq_sem))
		return;
	psem_user_preempt_arm(irq, PSEM_USER_AT_LOCK, &nrq_sem->lock, 1,
			      STOP_BOUND_MS);
	old = psem_user_set_context(NMI_OFFSET);
	ret = psem_release(nrq_sem, 1);
	CHECK(ret == 0, "the release from NMI returned %d", ret);
	ret = psem_close(nrq_sem);
	psem_user_set_context(old);
	if (!CHECK(ret == -EPERM,
		   "psem_close() from NMI returned %d, want -EPERM", ret)) {
		psem_user_preempt_disarm(irq);
		return;		/* W may hold a permit now: no quiesce */
	}
	state = psem_user_preempt_wait_stopped(irq, 2 * STOP_BOUND_MS);
	note("the irq_work task %s after the release from NMI",
	     pre_state_name(state));

	ret = psem_close(nrq_sem);
	CHECK(ret == 0, "psem_close() returned %d", ret);
	ret = psem_release(nrq_sem, 1);
	CHECK(ret == 0, "the owner's release returned %d", ret);
	ret = psem_quiesce(nrq_sem, HANG_MS);
	if (!CHECK(ret == 0, "psem_quiesce() returned %d", ret)) {
		psem_user_preempt_release(irq);
		thr_join(&w);
		return;
	}
	state = psem_user_preempt_state(irq);
	free(nrq_sem);
	psem_user_preempt_release(irq);
	thr_join(&w);
	note("the irq_work task %s when quiesce returned; W returned %ld",
	     pre_state_name(state), w.ret);
	/* W was served by the hand-off, or failed by the close. */
	if (w.ret == 0)
		fail("W was granted a permit that quiesce then counted home");
	CHECK(w.ret == -ESHUTDOWN, "W returned %ld", w.ret);
	psem_user_preempt_disarm(irq);
}

/*
 * debt-zero-counts: api.rst "Counts": a zero count is an immediate success
 * unless the psem is closed; psem_try_acquire()'s kernel-doc: true for
 * n == 0 unless closed. Here the psem is open and owes a debt
 * (psem_reduce(), or a shrinking psem_resize()), whose word is negative
 * (PSEM_BLOCKED): the take of zero must not read that as closed, nor may
 * psem_acquire_async() of zero from NMI.
 */
static void dzc_fn(struct psem_async *aw, int result)
{
	fail("callback of a zero-count async acquire (%d)", result);
}

void case_debt_zero_counts(void)
{
	struct psem *sem = case_psem(0), *ext = case_psem_ext(0), *cap;
	struct psem_async aw;
	unsigned long w0;
	int ret, old;

	CHECK(psem_reduce(sem, 3) == 0, "reduce");
	note("plain psem: debt %lu, closed %d, word %#lx", psem_debt(sem),
	     psem_is_closed(sem), (unsigned long)word(sem));
	CHECK(psem_try_acquire(sem, 0), "psem_try_acquire(0) false on an open psem with a debt");
	ret = psem_acquire_timeout(sem, 0, 0);
	CHECK(ret == 0, "psem_acquire_timeout(0, 0) returned %d", ret);

	cap = case_psem_owned(2);
	if (cap) {
		CHECK(psem_resize(cap, 1) == 0, "resize");
		note("capped psem: debt %lu", psem_debt(cap));
		CHECK(psem_try_acquire(cap, 0), "psem_try_acquire(0) false after a shrinking resize");
	}

	CHECK(psem_reduce(ext, 3) == 0, "reduce ext");
	w0 = psem_user_warnings();
	old = psem_user_set_context(NMI_OFFSET);
	ret = psem_acquire_async(ext, 0, &aw, dzc_fn);
	psem_user_set_context(old);
	CHECK(ret == 0, "psem_acquire_async(0) from NMI returned %d (warnings +%lu)",
	      ret, psem_user_warnings() - w0);
	free(sem);
	free(container_of(ext, struct psem_ext, sem));
	free(container_of(cap, struct psem_ext, sem));
}

/*
 * parked-max: api.rst, "Contexts": a deferred release that would park
 * more than PSEM_PARKED_MAX permits on one psem is refused with
 * -EOVERFLOW and changes nothing; one that fits is handed over, debt
 * first. A debt keeps the word negative, so the release from NMI parks.
 */
void case_parked_max(void)
{
	struct psem *sem = case_psem(0);
	int ret, old;

	CHECK(psem_reduce(sem, 1) == 0, "reduce");
	old = psem_user_set_context(NMI_OFFSET);
	ret = psem_release(sem, PSEM_PARKED_MAX + 1);
	psem_user_set_context(old);
	CHECK(ret == -EOVERFLOW, "release of PSEM_PARKED_MAX + 1 from NMI returned %d", ret);
	CHECK(!atomic_read(&sem->pending) && psem_debt(sem) == 1 &&
	      !psem_available(sem),
	      "the refusal changed something: pending %#x, debt %lu, available %ld",
	      atomic_read(&sem->pending), psem_debt(sem), psem_available(sem));

	old = psem_user_set_context(NMI_OFFSET);
	ret = psem_release(sem, PSEM_PARKED_MAX);
	psem_user_set_context(old);
	CHECK(ret == 0, "release of PSEM_PARKED_MAX from NMI returned %d", ret);
	psem_sync(sem);
	CHECK(!psem_debt(sem) && psem_available(sem) == PSEM_PARKED_MAX - 1 &&
	      !atomic_read(&sem->pending),
	      "after the hand-off: debt %lu, available %ld (want %ld), pending %#x",
	      psem_debt(sem), psem_available(sem), PSEM_PARKED_MAX - 1,
	      atomic_read(&sem->pending));
	free(sem);
}
