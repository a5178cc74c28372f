/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: CREATE_TRACE_POINTS creates nothing. */
