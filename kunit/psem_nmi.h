/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NMI sender of the psem_nmi suite, in psem_nmi_send.c: a case arms
 * it with the work one NMI does (nmi_sender_arm()), sends NMIs to another
 * CPU and waits until each has run (nmi_sender_send_other()), and disarms
 * it before its data goes away (nmi_sender_disarm(), or the suite's exit
 * hook nmi_sender_exit() after an aborted case). Without x86's local APIC,
 * or with one CPU online, nmi_sender_arm() skips the case.
 */
#ifndef _PSEM_NMI_H
#define _PSEM_NMI_H

#include <kunit/test.h>
#include <linux/atomic.h>

#include "psem.h"

/**
 * struct nmi_sender - a case's NMIs: what each does and what the handler saw
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
struct nmi_sender {
	void		(*fn)(struct nmi_sender *p);
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

void nmi_sender_arm(struct kunit *test, struct nmi_sender *p,
		    void (*fn)(struct nmi_sender *p));
void nmi_sender_disarm(void);
struct nmi_sender *nmi_sender_new(struct kunit *test);
bool nmi_sender_send(struct nmi_sender *p, int cpu);
bool nmi_sender_send_other(struct nmi_sender *p);
u64 nmi_send_refused(struct kunit *test, struct nmi_sender *p);
void nmi_sender_expect_runs(struct kunit *test, struct nmi_sender *p, int want);
void nmi_sender_report(struct kunit *test, struct nmi_sender *p);
void nmi_sender_release(struct nmi_sender *p);
void nmi_sender_exit(struct kunit *test);

#endif /* _PSEM_NMI_H */
