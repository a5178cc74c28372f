/* SPDX-License-Identifier: GPL-2.0 */
/* The credit-pool driver of the example consumer (credits.c). */
#ifndef _PSEM_EXAMPLE_CREDITS_H
#define _PSEM_EXAMPLE_CREDITS_H

int credits_start(void);
void credits_stop(void);

#endif /* _PSEM_EXAMPLE_CREDITS_H */
