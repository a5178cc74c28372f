// SPDX-License-Identifier: GPL-2.0
/*
 * psem's trace events (psem_trace.h), defined here, at the bottom: every
 * layer above may emit them.
 */

#define CREATE_TRACE_POINTS
#include "psem_trace.h"
