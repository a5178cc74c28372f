#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The interleaving explorer, psem-explore (tools/psem-user/explore/): the
# unmodified kmod/ sources under a deterministic scheduler that runs every
# schedule of each scenario up to a preemption bound (or PCT runs), under
# AddressSanitizer, with happens-before tracked from the orders psem's
# atomics name. Documentation/userspace.rst, "The interleaving explorer".
#
#   scripts/check-explore.sh
#       builds psem-explore from kmod/, runs every scenario (each at its
#       own bound, 2 unless it says otherwise, or its PCT runs), then each
#       mutant of tools/psem-user/mutate.py in find mode against the
#       scenarios that must catch it. Prints a line per scenario, then
#         explore mutant NAME: caught after N schedules (SCENARIO)
#       per mutant, and last
#         explore: N scenarios, M schedules, 0 failures
#       Exits non-zero on a build failure, a failed scenario (its
#       interleaving and replay token are printed), a mutant not caught,
#       or a mutant whose pattern is gone from the sources.
#
#   scripts/check-explore.sh --old REV [GLOB...]
#       failing first: builds psem-explore (these scenarios) against
#       kmod/ as it was at git revision REV and runs, in find mode, the
#       scenarios that must fail there (GLOBs, or the list below for the
#       revisions it knows), printing per scenario the schedules explored
#       until it failed, the bound, and why it failed. Exits non-zero if
#       one of them does not fail.
#
# Environment: SCENARIO="GLOB..." runs only the matching scenarios (and no
# mutants, unless PSEM_EXPLORE_MUTANTS=1); EXPLORE_BOUND=N runs every
# bounded scenario at bound N, uncapped; PSEM_EXPLORE_MUTANTS=0 skips the
# mutants, PSEM_EXPLORE_MUTANTS="A B" runs only those; PSEM_EXPLORE_KSRC=DIR
# builds another copy of kmod/; PSEM_EXPLORE_JOBS=N (default: the CPUs)
# scenarios or mutants at a time; PSEM_EXPLORE_KEEP=1 keeps the work
# directory. Needs gcc with libasan (Debian's gcc has it), python3 and git.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
tool=$root/tools/psem-user
src=${PSEM_EXPLORE_KSRC:-$root/kmod}
jobs=${PSEM_EXPLORE_JOBS:-$(nproc 2>/dev/null || echo 2)}
keep=${PSEM_EXPLORE_KEEP:-0}
work=$(mktemp -d "${TMPDIR:-/tmp}/psem-explore.XXXXXX")
t0=$SECONDS

user_check=explore
# shellcheck source=scripts/check-user-lib.sh
. "$root/scripts/check-user-lib.sh"

# The scenarios that found each defect on the sources before its fix.
#   d5eb824: a release from NMI still parking when close, quiesce and free
#   ran; teardown of a pool, mutex and rwlock with a hand-off pending; the
#   work cancel against a work that queues itself again; a parked release
#   refused although it pays a debt; psem_is_held() and psem_available()
#   with a permit parked; psem_cancel_async_sync() returning while a
#   second callback runs.
#   7930926: the eight defects that check-tsan.sh's cases were written
#   for (close-quiesce-free by its signal and timeout variants).
old_scenarios() {
	case $1 in
	d5eb824*)
		echo defer/nmi-quiesce-free defer/pool-destroy-nmi-put \
			defer/mutex-unlock-nmi-free defer/rwlock-unlock-nmi-free \
			async/work-cancel-requeue defer/nmi-release-pays-debt \
			defer/is-held-parked async/cancel-sync-second-callback
		;;
	7930926*)
		echo life/close-quiesce-free-signal \
			life/close-quiesce-free-timeout async/work-withdraw \
			async/cancel-sync-rearm life/closed-release-overflow \
			life/release-all-held-capacity async/chain-iterates \
			async/double-cancel-partial async/cancel-not-queued
		;;
	esac
}

# Each mutant of mutate.py, with the scenarios that must catch it (the
# first that does counts). Grouped by the file they change, so that a
# lane rebuilds little between two; the psem_word.h ones last in their
# lanes (a header rebuilds everything).
mutants_a="
handoff-skips-debt:life/reduce-vs-release
leave-uncounted:life/close-quiesce-free-signal,life/close-quiesce-free-timeout
leave-skips-wake:life/close-quiesce-free-signal,life/close-quiesce-free-timeout
cancel-keeps-partial:release/timeout,release/signal
queue-lifo:release/acquire-fifo,life/quiesce-fifo
handoff-overgrants:release/acquire-fifo
failed-wait-succeeds:life/close-vs-partial-waiter
callback-not-calling:async/cancel-sync-rearm,async/cancel-sync-second-callback
callbacks-nest:async/chain-iterates
settle-ignores-calls:life/close-quiesce-free-async
park-no-irq-work:defer/nmi-on-lock-holder
handoff-acquire-relaxed:sem/down-up-is-held
handoff-release-relaxed:sem/down-up-is-held
balance-overflow-unchecked:life/closed-release-overflow
let-go-ignores-kick:defer/sync-parked-home,defer/kick-overlap-sync-home
handoff-skips-let-go-wake:defer/sync-parked-home,defer/kick-overlap-sync-home
available-counts-parked:defer/is-held-parked
parked-sum-unfitted:defer/nmi-over-release,defer/nmi-release-pays-debt
take-parked-keeps-kick:defer/sync-parked-home,defer/kick-two-psems-free
add-lands-in-field:add/add-vs-mark,release/acquire-fifo
add-keeps-field:add/credit-settle,add/add-vs-mark
over-kept:add/over-max-vs-takes,retry/release-at-capacity
over-onto-over-stands:add/double-over
acquire-relaxed:sem/down-up-is-held
add-relaxed:sem/down-up-is-held
release-relaxed:retry/large-release-release-take
retry-relaxed:retry/large-release-release-take
retry-to-lock:retry/large-release-release-take
settle-ignores-field:add/credit-settle,add/credit-settle-nmi
"
mutants_b="
cancel-sync-ignores-requeue:async/cancel-sync-second-callback,async/cancel-sync-rearm
cancel-sync-ignores-calling:async/cancel-sync-rearm,async/cancel-sync-second-callback
work-cancel-single-round:async/work-cancel-requeue
quiesce-no-sync:life/close-quiesce-free-signal,life/close-quiesce-free-timeout
resize-keeps-big-waiters:life/resize-shrink-vs-waiter
resize-forgets-debt:life/resize-shrink-vs-waiter,defer/nmi-release-pays-debt
close-stays-open:life/close-vs-partial-waiter
close-drops-grants:life/close-vs-partial-waiter
reopen-stays-closed:life/reopen-vs-acquire
reopen-unblocks-debt:life/reopen-with-debt
capped-release-unchecked:retry/capped-release-vs-resize,life/release-all-held-capacity
owe-in-field:life/reduce-vs-release,defer/nmi-vs-reduce
mark-drops-closed:life/close-then-debt-paid,life/closed-debt-paid
try-ignores-credit:retry/capped-release-release-take
refusal-unsettled:add/refused-add-settles
grow-limit-first:add/grow-vs-over-release
clear-with-waiter:release/acquire-fifo
downgrade-releases-all:rwlock/downgrade-vs-lock
mutex-unlock-lost:mutex/unlock-vs-lock
mutex-destroy-no-sync:defer/mutex-cancel-nmi-free,defer/mutex-unlock-nmi-free
rwlock-destroy-no-sync:defer/rwlock-cancel-nmi-free,defer/rwlock-unlock-nmi-free
pool-put-lost:pool/destroy-hardirq-put
pool-destroy-no-sync:defer/pool-cancel-nmi-free,defer/pool-destroy-nmi-put
fast-release-with-waiter:retry/large-release-vs-waiter
capped-retry-to-lock:retry/capped-release-release-take
capped-retry-stale-limit:retry/capped-release-vs-resize
retry-ignores-flag:retry/release-vs-flag
"

# build NAME KSRC [KSRC_TAG]: psem-explore from KSRC into $work/NAME.
build() {
	if ! make -s -j"$jobs" -C "$tool" EXPLORE=1 SAN=address KSRC="$2" \
		${3:+KSRC_TAG="$3"} O="$work/$1" "$work/$1/psem-explore" \
		>"$work/$1.build.log" 2>&1; then
		cat "$work/$1.build.log" >&2
		fail "build of $1 failed (needs gcc's libasan)"
	fi
}

# ---- failing first: the scenarios against an old kmod/ ---------------
if [ "${1:-}" = --old ]; then
	rev=${2:?usage: check-explore.sh --old REV [GLOB...]}
	shift 2
	full=$(git -C "$root" rev-parse --verify -q "$rev^{commit}") ||
		fail "no revision $rev"
	short=$(git -C "$root" rev-parse --short "$full")
	mkdir -p "$work/old"
	git -C "$root" archive "$full" kmod | tar -x -C "$work/old"
	[ -f "$work/old/kmod/Kbuild" ] || fail "$rev has no kmod/Kbuild"
	list=${*:-$(old_scenarios "$short")}
	[ -n "$list" ] || fail "no scenarios known for $short: name them"
	build old "$work/old/kmod"
	echo "explore --old $short: psem-explore of the working tree's scenarios, built against kmod/ of $short"
	missed=0
	for sc in $list; do
		log=$work/old-${sc//\//_}.log
		rc=0
		"$work/old/psem-explore" -f "$sc" >"$log" 2>&1 || rc=$?
		found=$(sed -n 's/^explore: [^ ]*: found after \([0-9]*\) schedule(s) (\(.*\))$/\1 \2/p' "$log")
		why=$(sed -n 's/^explore: [^ ]*: FAIL after [0-9]* schedule(s): //p' "$log" | head -n 1)
		token=$(sed -n "s/^explore: [^ ]*: replay: psem-explore -r '\(.*\)'$/\1/p" "$log" | head -n 1)
		# A sanitizer's report: its summary, from a replay of the schedule.
		if [[ "$why" == "exit status"* || "$why" == "killed by"* ]] &&
		   [ -n "$token" ]; then
			"$work/old/psem-explore" -r "$token" >"$log.replay" 2>&1 || true
			# Its kind and place; the first frame in kmod/, if any.
			asan=$(sed -n 's/^SUMMARY: AddressSanitizer: //p' \
				"$log.replay" | head -n 1)
			at=$(sed -n 's/^ *#[0-9]* 0x[0-9a-f]* in \([a-z0-9_]*\) .*\(kmod\/[^ ]*\).*/\1 (\2)/p' \
				"$log.replay" | head -n 1)
			[ -z "$asan" ] || why="AddressSanitizer: $asan${at:+, from $at}"
		fi
		if [ "$rc" = 0 ] && [ -n "$found" ]; then
			echo "explore --old $short: $sc: failed after ${found%% *} schedules (${found#* }): $why"
		else
			cat "$log" >&2
			echo "explore --old $short: $sc: did NOT fail"
			missed=$((missed + 1))
		fi
	done
	echo "explore --old $short: $(echo "$list" | wc -w) scenarios, $missed did not fail ($((SECONDS - t0)) s)"
	[ "$missed" = 0 ] || { keep=1; exit 1; }
	exit 0
fi
[ $# = 0 ] || fail "usage: check-explore.sh [--old REV [GLOB...]]"

# ---- the scenarios ------------------------------------------------------
# A pristine copy of the sources (mtimes kept), which the mutant lanes
# copy again, with the objects built from it.
mkdir -p "$work/src"
cp -p "$src"/*.[ch] "$src"/Kbuild "$work/src/"
tag=psem-explore-src
build main "$work/src" "$tag"

run_mutants=${PSEM_EXPLORE_MUTANTS:-1}
[ -z "${SCENARIO:-}" ] || [ "$run_mutants" != 1 ] || run_mutants=0
[ -z "${SCENARIO:-}" ] || [ "${PSEM_EXPLORE_MUTANTS:-}" != 1 ] || run_mutants=1
only=""
[ "$run_mutants" = 1 ] || [ "$run_mutants" = 0 ] || only=$run_mutants

# selected MUTANT: whether this run makes MUTANT.
selected() {
	[ -z "$only" ] || [[ " $only " == *" $1 "* ]]
}

# lane NAME LIST: the mutants of LIST one after another in their own copy
# of the sources and objects; a line per mutant in $work/NAME.out.
lane() {
	local list=$2 d=$work/$1 prev="" entry m scs sc file ok n
	cp -a "$work/src" "$d.src"
	cp -a "$work/main" "$d"
	: >"$d.out"
	for entry in $list; do
		m=${entry%%:*}
		scs=${entry#*:}
		selected "$m" || continue
		# The file the last mutant changed comes back from the pristine copy.
		[ -z "$prev" ] || cp "$work/src/$prev" "$d.src/$prev"
		if ! python3 "$tool/mutate.py" "$m" "$d.src" >"$d.$m.log" 2>&1; then
			echo "explore mutant $m: NOT made: $(tail -n 1 "$d.$m.log")" >>"$d.out"
			prev=""
			continue
		fi
		# One file per mutant, named once per edit.
		file=$(sed -n 's/^mutate: \([^:]*\): .*/\1/p' "$d.$m.log" | sort -u)
		if [ "$(wc -l <<<"$file")" != 1 ]; then
			echo "explore mutant $m: NOT made: it changes more than one file" >>"$d.out"
			prev=""
			continue
		fi
		prev=$file
		if ! make -s -C "$tool" EXPLORE=1 SAN=address KSRC="$d.src" \
			KSRC_TAG="$tag" O="$d" "$d/psem-explore" >>"$d.$m.log" 2>&1; then
			echo "explore mutant $m: NOT built (log: $d.$m.log)" >>"$d.out"
			continue
		fi
		ok=""
		for sc in ${scs//,/ }; do
			# At the scenario's own bound, whatever EXPLORE_BOUND says.
			EXPLORE_BOUND='' "$d/psem-explore" -f "$sc" >>"$d.$m.log" 2>&1 ||
				true
			n=$(sed -n "s|^explore: $sc: found after \\([0-9]*\\) schedule(s).*|\\1|p" \
				"$d.$m.log" | tail -n 1)
			if [ -n "$n" ]; then
				ok="caught after $n schedules ($sc)"
				break
			fi
		done
		echo "explore mutant $m: ${ok:-NOT caught by ${scs//,/, } (log: $d.$m.log)}" >>"$d.out"
	done
}

# The scenarios and the mutant lanes run side by side: the scenarios'
# longest search would otherwise leave a CPU idle at its end.
# The globs, split on blanks and not expanded here.
read -r -a globs <<<"${SCENARIO:-}"
( rc=0
  "$work/main/psem-explore" -v -j"$jobs" "${globs[@]}" \
	>"$work/scenarios.log" 2>&1 || rc=$?
  echo "$rc" >"$work/scenarios.rc" ) &
ps=$!
lanes=()
if [ "$run_mutants" != 0 ]; then
	if [ "$jobs" -ge 2 ]; then
		lane lane-a "$mutants_a" &
		lanes+=($!)
		lane lane-b "$mutants_b" &
		lanes+=($!)
	else
		{ lane lane-a "$mutants_a"; lane lane-b "$mutants_b"; } &
		lanes+=($!)
	fi
fi
wait "$ps" || true
rc=$(cat "$work/scenarios.rc" 2>/dev/null || echo 2)
# The scenarios' lines, and a failure's interleaving and replay token.
grep -v '^==[0-9]*==WARNING: ASan doesn' "$work/scenarios.log" |
	grep -v '^explore: [0-9]* scenarios, ' || true
summary=$(grep '^explore: [0-9]* scenarios, ' "$work/scenarios.log" | tail -n 1)
[ -n "$summary" ] || fail "psem-explore exited $rc without a summary"
# "explore: N scenarios, M schedules, F failures (T s)"
read -r _ nsc _ nsched _ nfail _ <<<"$summary"
echo "explore: the scenarios took $((SECONDS - t0)) s (the build included)"
bad=0
[ "$rc" = 0 ] && [ "$nfail" = 0 ] || bad=$((nfail > 0 ? nfail : 1))

for p in "${lanes[@]}"; do
	wait "$p" || true
done
if [ "$run_mutants" != 0 ]; then
	cat "$work/lane-a.out" "$work/lane-b.out"
	nm=$(cat "$work/lane-a.out" "$work/lane-b.out" | wc -l)
	nbad=$(cat "$work/lane-a.out" "$work/lane-b.out" | grep -c ': NOT ' ||
		true)
	# A lane that died part of the way reports fewer lines than it had
	# mutants: each missing one counts as not caught.
	nwant=0
	for entry in $mutants_a $mutants_b; do
		selected "${entry%%:*}" || continue
		nwant=$((nwant + 1))
	done
	if [ "$nm" -lt "$nwant" ]; then
		echo "explore: $((nwant - nm)) of $nwant mutants never reported (a lane died: $work/lane-*.out)"
		nbad=$((nbad + nwant - nm))
		nm=$nwant
	fi
	echo "explore: $((nm - nbad)) of $nm mutants caught"
	bad=$((bad + nbad))
fi
if [ "$bad" != 0 ]; then
	keep=1
	echo "explore: took $((SECONDS - t0)) s"
	echo "explore: $nsc scenarios, $nsched schedules, $bad failures"
	exit 1
fi
echo "explore: took $((SECONDS - t0)) s"
echo "explore: $nsc scenarios, $nsched schedules, 0 failures"
