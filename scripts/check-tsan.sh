#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The userspace build of psem (tools/psem-user/): the unmodified kmod/
# sources against a shim of the kernel headers, run natively and under
# ThreadSanitizer by a multi-threaded stress that checks exact conservation
# (and, on a psem with a capacity, the lifecycle: resize, close, reopen and
# quiesce racing every acquire variant, each outcome checked exactly), then
# the mutants that must be caught:
#
#   acquire-relaxed           psem_take()'s ACQUIRE made relaxed: TSan must
#                             report a race on the data the permits guard
#   add-relaxed               the add-first release's RELEASE made relaxed:
#                             same (the stress's releases add first; the
#                             read-first release's mutants, release-relaxed
#                             and fast-release-with-waiter, are the
#                             explorer's: check-explore.sh)
#   add-lands-in-field        an add onto a waiting word taken for a release
#                             as it stands: the stress must report a wrong
#                             result (lost or created permits, or a call's
#                             return), or its hang guard must trip
#   handoff-acquire-relaxed   the served waiter's smp_load_acquire() of
#                             ->done made READ_ONCE(): TSan must report
#   handoff-release-relaxed   the releaser's smp_store_release() of ->done
#                             made WRITE_ONCE(): TSan must report
#   close-drops-grants        psem_close() fails its waiters without giving
#                             back their partial grants: the stress must
#                             report lost permits, or hang (a quiesce that
#                             waits for them forever)
#   resize-forgets-debt       a shrinking psem_resize() with permits out
#                             records no debt: the stress must report a
#                             wrong result (created permits, an
#                             overflowing release, a grant beyond the
#                             capacity, an open psem read as closed), or
#                             hang
#
# The last two show that the shim's wake-up carries no ordering of its own
# (tools/psem-user/include/linux/sched.h): the hand-off is psem's to order.
#
# Then the forced interleavings and edge cases of tools/psem-user/cases.c,
# each under ThreadSanitizer and under AddressSanitizer (the use-after-free
# cases free the psem where the contract lets the owner free it). The
# shim's preemption hook (tools/psem-user/include/psem-user.h) stops a task
# at a chosen point, so that each case forces its interleaving every run:
#
#   close-quiesce-free        a waiter leaving through a signal, a timeout
#                             or -ESHUTDOWN, or a releaser that has just
#                             called back, is preempted; the owner closes,
#                             quiesces and frees: no later access
#   async-work-withdraw       a served work waiter withdrawn while another
#                             callback runs: a known outcome, then freed
#   cancel-sync-rearm         psem_cancel_async_sync() of a callback that
#                             re-queued itself waits for it to return
#   closed-release-overflow   an overflowing release on a closed psem is
#                             refused; it stays closed, the word unchanged
#   release-all-held-capacity psem_release_all_held() honours the capacity
#   async-chain-iterates      5,000 chained callbacks on a 256 KiB stack:
#                             each runs once, the stack does not grow
#   double-cancel             a second cancel returns false, creates nothing
#   cancel-never-queued       cancel of a wait granted at once, or already
#                             called back, returns false, changes nothing
#   refused-cancel-sync       a refused acquire (plain psem, bad count) over
#                             a poisoned waiter: the cancels return false
#   static-init               DEFINE_PSEM_EXT/_CAPACITY equal psem_init_ext()
#                             and psem_init_capacity(), field by field
#   quiesce-fifo              an acquirer queued behind a quiesce is served
#                             after it
#   nmi-release-quiesce-free  a release from NMI parks its permit for an
#                             irq_work, which is preempted; close from NMI
#                             is refused; close, quiesce, free in task
#                             context: no later access
#   debt-zero-counts          a zero count on an open psem that owes a
#                             debt (its word negative) succeeds: try,
#                             timed acquire, asynchronous from NMI
#   parked-max                a release from NMI over PSEM_PARKED_MAX is
#                             refused, changing nothing; one at the bound
#                             is handed over, debt first
#
# A case named in PSEM_TSAN_CASES_PENDING (one whose fix in kmod/ has not
# landed yet; none by default) is run, but may fail.
#
# Prints, when everything passes, exactly:
#   tsan: N ops, 0 reports
#   tsan mutant <name>: caught          (one line per mutant)
#   tsan case <name>: held              (one line per case)
# and, for a pending case that fails, "tsan case <name>: pending (fails
# until its fix lands)". Exits non-zero on a build failure, a failed stress,
# any TSan report on the real sources, a mutant not caught, or a case that
# is not pending and does not hold. Needs gcc (with libtsan and libasan,
# which Debian's gcc brings) and python3. Nothing is loaded into any kernel.
#
# Environment: PSEM_TSAN_KEEP=1 keeps the work directory (logs, binaries);
# PSEM_TSAN_KSRC=DIR builds another copy of kmod/ (default: kmod/);
# PSEM_TSAN_CASES="A B" runs only those cases; PSEM_TSAN_CASES_PENDING
# overrides the list of pending cases ("" for none).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
tool=$root/tools/psem-user
src=${PSEM_TSAN_KSRC:-$root/kmod}
work=$(mktemp -d "${TMPDIR:-/tmp}/psem-tsan.XXXXXX")
keep=${PSEM_TSAN_KEEP:-0}
jobs=$(nproc 2>/dev/null || echo 2)

user_check=tsan
# shellcheck source=scripts/check-user-lib.sh
. "$root/scripts/check-user-lib.sh"

# build NAME KSRC SAN [PROGRAM]: tools/psem-user built from KSRC into
# $work/NAME (only PROGRAM, e.g. psem-stress, if given).
build() {
	if ! make -s -j"$jobs" -C "$tool" KSRC="$2" O="$work/$1" SAN="$3" \
		${4:+"$work/$1/$4"} >"$work/$1.build.log" 2>&1; then
		cat "$work/$1.build.log" >&2
		fail "build of $1 failed (-fsanitize=thread and =address need gcc's libtsan and libasan, dependencies of Debian's gcc)"
	fi
}

# stress NAME LOG TSAN_OPTIONS ARGS...: runs $work/NAME/psem-stress, exit
# status in $rc. A kernel with more mmap randomisation than this TSan
# runtime knows gets one more try without ASLR.
stress() {
	local name=$1 log=$2 opts=$3

	shift 3
	rc=0
	TSAN_OPTIONS=$opts timeout 300 "$work/$name/psem-stress" "$@" \
		>"$log" 2>&1 || rc=$?
	if grep -q "unexpected memory mapping" "$log" &&
	   command -v setarch >/dev/null; then
		rc=0
		TSAN_OPTIONS=$opts timeout 300 setarch "$(uname -m)" -R \
			"$work/$name/psem-stress" "$@" >"$log" 2>&1 || rc=$?
	fi
}

# run_case BUILD CASE: $work/BUILD/psem-cases CASE, exit status in $rc,
# log in $work/case-BUILD-CASE.log (a / in CASE becomes _).
run_case() {
	local log=$work/case-$1-${2//\//_}.log

	# A case that aborts (a BUG, a sanitizer) is reported in its log,
	# by the subshell, and not on this script's output.
	rc=0
	(TSAN_OPTIONS="halt_on_error=1 exitcode=66 report_signal_unsafe=0" \
	 ASAN_OPTIONS="detect_leaks=0 exitcode=67" \
		timeout 120 "$work/$1/psem-cases" "$2"; exit $?) \
		>"$log" 2>&1 || rc=$?
	if grep -q "unexpected memory mapping" "$log" &&
	   command -v setarch >/dev/null; then
		rc=0
		(TSAN_OPTIONS="halt_on_error=1 exitcode=66 report_signal_unsafe=0" \
			timeout 120 setarch "$(uname -m)" -R \
			"$work/$1/psem-cases" "$2"; exit $?) >"$log" 2>&1 ||
			rc=$?
	fi
	if [ "$rc" = 0 ] &&
	   { ! grep -q "^psem-cases: $2: held$" "$log" ||
	     grep -q "^WARNING: ThreadSanitizer:\|ERROR: AddressSanitizer" "$log"; }; then
		rc=1
	fi
}

# A copy of kmod/ with one mutant applied; fails if the pattern is gone.
mutant_src() {
	mkdir -p "$work/src-$1"
	cp "$src"/*.[ch] "$src"/Kbuild "$work/src-$1/"
	python3 "$tool/mutate.py" "$1" "$work/src-$1" >"$work/src-$1.log" 2>&1 ||
		{ cat "$work/src-$1.log" >&2; fail "mutant $1 could not be made"; }
}

# The real sources: natively first (fast, many operations), then under TSan.
build native "$src" ""
build tsan "$src" thread
build asan "$src" address
stress native "$work/native.log" "" -e 20 -m 100 -H 10000
[ "$rc" = 0 ] || { cat "$work/native.log" >&2; fail "native stress exited $rc"; }

stress tsan "$work/tsan.log" "halt_on_error=0 exitcode=66 report_signal_unsafe=0" \
	-e 20 -m 150 -H 10000
reports=$(grep -c "^WARNING: ThreadSanitizer:" "$work/tsan.log" || true)
ops=$(sed -n 's/^psem-stress: ops=\([0-9]*\) .*/\1/p' "$work/tsan.log")
if [ "$rc" != 0 ] || [ "$reports" != 0 ] || [ -z "$ops" ]; then
	cat "$work/tsan.log" >&2
	fail "TSan stress exited $rc with $reports reports"
fi
echo "tsan: $ops ops, 0 reports"

uncaught=0
caught() {
	if [ "$2" = 1 ]; then
		echo "tsan mutant $1: caught"
	else
		echo "tsan mutant $1: NOT caught (log: $work/$1.log)"
		uncaught=$((uncaught + 1))
		keep=1
	fi
}

# The ordering mutants: TSan must report a data race. The real sources ran
# without any report, so any race is the mutant's doing: on the data the
# stress guards with psem (its globals, psem_stress_*), or on psem's own
# waiter (->result, read after ->done).
for m in acquire-relaxed add-relaxed handoff-acquire-relaxed \
	handoff-release-relaxed; do
	mutant_src "$m"
	build "$m" "$work/src-$m" thread psem-stress
	stress "$m" "$work/$m.log" "halt_on_error=1 exitcode=66 report_signal_unsafe=0" \
		-e 40 -m 150 -H 10000
	ok=0
	if [ "$rc" = 66 ] &&
	   grep -q "^WARNING: ThreadSanitizer: data race" "$work/$m.log"; then
		ok=1
	fi
	caught "$m" "$ok"
done

# The invariant and lifecycle mutants, natively: lost or created permits,
# or a hang. A lifecycle mutant's hang must be one the stress explains by
# lost or created permits of life_sem (its accounting at the hang).
for m in add-lands-in-field close-drops-grants resize-forgets-debt; do
	mutant_src "$m"
	build "$m" "$work/src-$m" "" psem-stress
	stress "$m" "$work/$m.log" "" -e 40 -m 100
	hang_pat="^psem-stress: HANG"
	fail_pat="^psem-stress: FAIL: .*permits"
	# An add left in a waiting word's field, or a debt forgotten in the
	# word that holds the debt, corrupts what the locked paths read there
	# (the debt, the credit): any wrong result is their catch.
	[ "$m" = close-drops-grants ] || fail_pat="^psem-stress: FAIL: "
	[ "$m" = add-lands-in-field ] ||
		hang_pat="^psem-stress: HANG .*: permits \(lost\|created\)"
	ok=0
	if { [ "$rc" = 2 ] && grep -q "$fail_pat" "$work/$m.log"; } ||
	   { [ "$rc" = 3 ] && grep -q "$hang_pat" "$work/$m.log"; }; then
		ok=1
	fi
	caught "$m" "$ok"
done

[ "$uncaught" = 0 ] || fail "$uncaught mutant(s) not caught"


# The cases: each must hold under TSan and under ASan, unless pending.
# Every case's fix has landed: none is pending by default.
pending=${PSEM_TSAN_CASES_PENDING-}
cases=${PSEM_TSAN_CASES:-$("$work/native/psem-cases" -l)}
broken=0
for c in $cases; do
	held=1
	for b in tsan asan; do
		run_case "$b" "$c"
		[ "$rc" = 0 ] || held=0
	done
	if [ "$held" = 1 ]; then
		echo "tsan case $c: held"
	elif [[ " $pending " == *" $c "* ]]; then
		echo "tsan case $c: pending (fails until its fix lands)"
	else
		for b in tsan asan; do
			cat "$work/case-$b-${c//\//_}.log" >&2
		done
		echo "tsan case $c: NOT held (logs: $work/case-*-$c.log)"
		broken=$((broken + 1))
		keep=1
	fi
done
[ "$broken" = 0 ] || fail "$broken case(s) not held"
