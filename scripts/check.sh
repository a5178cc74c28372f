#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make check`: psem's whole test run. Never loads anything on the host.
#
#   scripts/check.sh [--only STAGES] [--kernels KERNELS] [--suites GLOB]
#
# The stages, in the order they run (--only picks some, by name, comma- or
# space-separated; without it, all of them):
#   lint     scripts/lint.sh
#   model    the spin model (scripts/check-model.sh), then the litmus tests
#            with the LKMMs of 6.1, 6.12 and 7.3 (scripts/check-litmus.sh)
#   kunit    for each test kernel (--kernels, default debug rt debug-7.3
#            kcsan-7.3 sem-7.3; also by their printed names, debug-6.1 and
#            rt-6.12; sem-7.3 is 7.3.4 with struct semaphore on psem's word):
#            build the kernel (cached) and the modules, boot it in QEMU,
#            load psem.ko, the kunit/*.ko and the example consumer, flip the
#            debugfs switches, unload; parse the KTAP the KUnit modules
#            logged with the kernel's kunit.py. --suites GLOB runs only the
#            suites (and, where the kernel can, the tests) that KUnit's
#            filter_glob GLOB matches: see run_kernel
#   torture  psem_torture.ko on the same test kernels (scripts/torture.sh),
#            each in the background from the end of its kernel's KUnit
#            stage, one at a time; their output is printed at the end
#   dkms     `dkms build` against the stock 7.3.4 image's module tree in a
#            private DKMS tree under the cache (nothing is installed on the
#            host), then the consumer built against what DKMS left
#   stock    Debian's stock kernels (6.1, 6.12 and 7.3.4, generic and rt, as
#            scripts/stock-kernel.sh --all lists them): build against each
#            one's headers or matching tree, boot it, load, use and unload
#            psem.ko and the consumer the same way; one line "stock <uname
#            -r>: loaded, used, unloaded" each, and one "size (<uname -r>):
#            ..." with the sizes of psem's types and the kernel's locks as
#            compiled for it (scripts/sizes.sh). The kernel DKMS built for
#            boots the DKMS module and its consumer instead: "dkms: built
#            psem <version> for <kver>"
#   native   the native benchmark's smoke round (scripts/bench-native.sh)
#   xfs      XFS with its buffer lock on psem (scripts/check-xfs.sh)
#   tsan     the userspace TSan/ASan harness (scripts/check-tsan.sh)
#   explore  the interleaving explorer and its mutants
#            (scripts/check-explore.sh)
#   series   the patch series against 7.3.4 (scripts/check-series.sh
#            gates kunit torture: checkpatch and a W=1 build at every
#            patch, kunit.py on UML, locktorture with each psem type),
#            then its RFC patch, struct semaphore on psem's word, against
#            7.3.4 unpatched (scripts/check-semaphore.sh); the patched
#            kernel is also the test kernel sem-7.3 of the kunit and
#            torture stages
# scripts/setup.sh runs first, always; then the kernels the kunit, torture
# and series stages need start building in the background. An unknown
# stage or kernel name, or a malformed GLOB, exits 2 before anything runs.
# Any splat on a console, a failed or missing suite, or a failed step fails
# the run. The last line is "N passed, F failed": N KUnit tests passed over
# all test kernels, F failed or crashed tests plus failed steps.
#
# Environment (Documentation/testing.rst lists every variable):
# PSEM_CHECK_STOCK_KERNELS, PSEM_CHECK_DKMS_KERNEL, PSEM_CHECK_TORTURE_BG,
# PSEM_TORTURE_DURATION, PSEM_CACHE, PSEM_LOGDIR, and qemu-run.sh's
# PSEM_QEMU_*.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

all_stages="lint model kunit torture dkms stock native xfs tsan explore series"
all_kernels="debug rt debug-7.3 kcsan-7.3 sem-7.3"
usage() {
	echo "usage: check.sh [--only STAGES] [--kernels KERNELS] [--suites GLOB]"
	echo "  STAGES:  $all_stages (comma- or space-separated; default all)"
	echo "  KERNELS: $all_kernels (or their names with the series, e.g. debug-6.1)"
	echo "  GLOB:    KUnit suites and tests, as kunit.filter_glob: 'suite*' or 'suite.test*'"
}
# bad_usage MESSAGE...: a mistake in the selection; nothing has run.
bad_usage() {
	echo "check: $*" >&2
	usage >&2
	exit 2
}
stages=$all_stages kernels=$all_kernels suites=''
while [ $# -gt 0 ]; do
	case $1 in
	--only) [ $# -ge 2 ] || bad_usage "--only needs a value"; stages=${2//,/ }; shift 2 ;;
	--kernels) [ $# -ge 2 ] || bad_usage "--kernels needs a value"; kernels=${2//,/ }; shift 2 ;;
	--suites) [ $# -ge 2 ] || bad_usage "--suites needs a value"; suites=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) bad_usage "unknown argument '$1'" ;;
	esac
done
# The opt-out switches that --only replaced: refuse them rather than run
# everything that they were meant to leave out.
for v in LINT MODEL TORTURE TORTURE_S STOCK DKMS TSAN XFS NATIVE EXPLORE KERNELS; do
	if printenv "PSEM_CHECK_$v" >/dev/null; then
		bad_usage "PSEM_CHECK_$v is gone: select stages with ONLY= (--only) and" \
			"kernels with KERNELS= (--kernels); the torture's length is PSEM_TORTURE_DURATION"
	fi
done
read -r -a words <<<"$stages"
[ ${#words[@]} -gt 0 ] || bad_usage "--only names no stage"
for w in "${words[@]}"; do
	case " $all_stages " in *" $w "*) ;; *) bad_usage "unknown stage '$w'" ;; esac
done
# want STAGE: was STAGE selected?
want() { case " $stages " in *" $1 "*) return 0 ;; esac; return 1; }
# suites_matching: the suite names on stdin that --suites' suite part
# matches (all of them without --suites).
suites_matching() {
	local s
	while read -r s; do
		# shellcheck disable=SC2053 # a glob, on purpose
		[[ $s == ${suite_glob:-*} ]] && echo "$s"
	done
	return 0
}
# The kernels by flavour (debug), or by the name the output gives them
# with their series (debug-6.1).
read -r -a words <<<"$kernels"
[ ${#words[@]} -gt 0 ] || bad_usage "--kernels names no kernel"
kernels=''
for w in "${words[@]}"; do
	f=''
	for k in $all_kernels; do
		if [ "$w" = "$k" ] ||
		   [ "$w" = "$("$top/scripts/build-kernel.sh" --name "$k" 2>/dev/null)" ]; then
			f=$k
		fi
	done
	[ -n "$f" ] || bad_usage "unknown test kernel '$w'"
	kernels+="${kernels:+ }$f"
done

# --suites GLOB: KUnit's filter_glob, "suite_glob" or "suite_glob.test_glob"
# (glob_match(): *, ? and [...]). The suite part must match a suite of
# kunit/*.c. The host packs only the test modules that hold a suite it
# matches (lib.sh's module_suites: psem_basic_kunit.ko holds psem_basic),
# and the guest's command line gets
# kunit.filter_glob=GLOB, which the kernel applies to each module's suites
# and tests where its KUnit filters module suites (6.12 and later; Linux
# 6.1 applies it to built-in suites only, so there the test part is not
# honoured: every test of the chosen suites runs).
suite_glob='' test_glob=''
if [ -n "$suites" ]; then
	want kunit || bad_usage "--suites selects KUnit suites, but the kunit stage is not selected"
	re='^[][A-Za-z0-9_*?!^-]+(\.[][A-Za-z0-9_*?!^-]+)?$'
	[[ $suites =~ $re ]] ||
		bad_usage "bad KUnit glob '$suites': 'suite_glob' or 'suite_glob.test_glob'," \
			"of letters, digits, _, -, *, ? and [...]"
	suite_glob=${suites%%.*}
	[ "$suite_glob" = "$suites" ] || test_glob=${suites#*.}
	if [ -z "$(expected_suites | suites_matching)" ]; then
		echo "check: no KUnit suite matches '$suite_glob'; the suites:" >&2
		expected_suites | paste -sd' ' | fold -s -w 76 | sed 's/^/  /' >&2
		exit 2
	fi
fi

t_start=$SECONDS
passed=0 failed=0 failures=()
# fail_step NAME [RC]: a step failed; it counts as one failure unless RC
# is 2, which means its only failures were KUnit tests, already counted.
fail_step() {
	failures+=("$1")
	[ "${2:-1}" = 2 ] || failed=$((failed + 1))
	stage_done FAILED
}

mkdir -p "$cache" "$logdir"
# why_note: stdin, a few lines saying why a step failed, kept for the end
# of the run, where they are printed just above the summary (the part of a
# long log that a CI report shows).
why=$logdir/why.txt
: >"$why"
why_note() { head -n 6 | sed 's/^/  | /' >>"$why"; }
exec 9>"$cache/.check.lock"
flock -n 9 || { echo "check: waiting for another check to finish"; flock 9; }

# kunit_results LOG KSRC NAME: gather the KTAP that each KUnit module printed
# to the kernel log as it loaded, parse it as one run with KSRC's kunit.py,
# and add to the totals. Returns 2 if the only problem is failed tests. The
# guest sends each module's `dmesg -r`, whose
# lines start with "<level>[time] ", unlike console lines that interleave.
# Every suite in kunit/*.c must have run; with --suites, every suite its
# suite part matches, unless a test part filtered (a suite none of whose
# tests matched does not run), and at least one.
kunit_results() {
	local log=$1 ksrc=$2 name=$3 dir=$logdir/$3.ktap m mods
	rm -rf "$dir" && mkdir -p "$dir"
	mods=$(tr -d '\r' <"$log" | sed -n 's/^==== PSEM KTAP \(.*\) ====$/\1/p')
	for m in $mods; do
		log_part "$log" "KTAP $m" |
			sed -n 's/^<[0-9]*>\(\[[^]]*\] \)\{0,1\}//p' >"$dir/$m.ktap"
	done
	local files=("$dir"/*.ktap) ok=0 s missing=()
	[ -e "${files[0]}" ] || { echo "kunit: no KUnit output in $log"; return 1; }

	# One run out of every module's suites. Linux 6.1's modules print no
	# top-level KTAP header and KUnit numbers their suites from 1 across all
	# modules; 6.12's each print their own header ("KTAP version 1",
	# "1..N") and number their suites from 1. So: drop any module's
	# top-level header, renumber the suites' result lines in order, and put
	# one header over all (the test kernels have no built-in suites).
	local nsuites
	nsuites=$(cat "${files[@]}" | grep -c '^    # Subtest: ' || true)
	if [ "$nsuites" = 0 ]; then
		echo "kunit: no suite ran in $name (--suites '$suites')"
		return 1
	fi
	{
		echo "KTAP version 1"
		echo "1..$nsuites"
		for m in $mods; do
			cat "$dir/$m.ktap"
		done | awk '/^KTAP version [0-9]+$/ || /^1\.\.[0-9]+$/ { next }
			/^(not )?ok [0-9]+ / { n++; sub(/ok [0-9]+ /, "ok " n " ") }
			{ print }'
	} >"$dir/all.txt"
	for s in $(expected_suites | suites_matching); do
		[ -z "$test_glob" ] || break
		grep -qx "    # Subtest: $s" "$dir/all.txt" || missing+=("$s")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "kunit: expected suites that did not run: ${missing[*]}"
		ok=1
	fi

	local out rc=0
	out=$(python3 "$ksrc/tools/testing/kunit/kunit.py" parse "$dir/all.txt" 2>&1) || rc=$?
	echo "$out" >"$dir/parse.txt"
	local summary
	summary=$(sed -n 's/.*\(Testing complete\. .*\)/\1/p' <<<"$out" | tail -n1)
	echo "kunit ($name): ${summary:-no summary from kunit.py}"
	local p f c
	p=$(sed -n 's/.*passed: \([0-9]*\).*/\1/p' <<<"$summary")
	f=$(sed -n 's/.*failed: \([0-9]*\).*/\1/p' <<<"$summary")
	c=$(sed -n 's/.*crashed: \([0-9]*\).*/\1/p' <<<"$summary")
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0} + ${c:-0}))
	if [ -z "$summary" ] || [ -z "$p" ] || [ -n "$c" ] ||
	   grep -qE 'CRASHED|errors:|\[ERROR\]' <<<"$out"; then
		echo "kunit: bad or incomplete KTAP in $name (kunit.py exit $rc); parser output:"
		sed 's/^/  | /' "$dir/parse.txt"
		ok=1
	elif [ $rc -ne 0 ] || [ -n "$f" ]; then
		echo "kunit: failed tests in $name; parser output:"
		sed 's/^/  | /' "$dir/parse.txt"
		{ echo "kunit ($name): failed:"
		  grep -E '^ *(not ok|Expected |# .*(EXPECTATION|ASSERTION|FAILED))' "$dir/all.txt" |
			grep -v '^ *# Subtest' | sed 's/^ *//'; } | why_note
		[ $ok = 1 ] || ok=2
	fi
	return $ok
}

# check_consumer_unload LOG: the exit of the example consumer
# (examples/consumer.c, module psem_consumer) kills the kthread it left
# waiting for 5 permits of a gate holding 2 (it had taken both). The wait
# must end with -EINTR and give both permits back: the console must show
# "waiter woke: -4" and "unloaded; gate balance 2".
check_consumer_unload() {
	local lines bal ok=0
	lines=$(tr -d '\r' <"$1" | sed -n 's/^\[ *[0-9.]*\] //; /^psem_consumer: /p')
	if ! grep -q '^psem_consumer: waiter woke: -4,' <<<"$lines"; then
		echo "check: the consumer's waiter did not end with -EINTR (-4) on unload:"
		grep '^psem_consumer: waiter woke' <<<"$lines" | sed 's/^/  | /'
		ok=1
	fi
	# Every "N (expected M)" the consumer prints must have N == M.
	local wrong
	wrong=$(grep -oE '[-0-9]+ \(expected [-0-9]+\)' <<<"$lines" |
		awk '{ e = $3; sub(/\)$/, "", e); if ($1 != e) print }' | sort -u)
	if [ -n "$wrong" ]; then
		echo "check: the consumer reported values other than expected:"
		grep -E '\(expected' <<<"$lines" | sed 's/^/  | /'
		ok=1
	fi
	bal=$(sed -n 's/^psem_consumer: unloaded; gate balance \(.*\) (expected 2)$/\1/p' <<<"$lines" |
		sort -u)
	if [ "$bal" != 2 ]; then
		echo "check: the consumer's gate balance after unload is '${bal:-(no line)}', expected 2"
		ok=1
	fi
	return $ok
}

# run_kernel NAME KERNEL KDIR [LABEL [PREBUILT]]: build, boot, check one
# kernel; LABEL (default NAME) names it in the KUnit summary. With PREBUILT
# (a directory holding kmod/psem.ko and examples/psem_consumer.ko) nothing
# is built. Returns 2 if the only problem is failed KUnit tests.
# The guest loads every kunit/*.ko in its initramfs: all that were built,
# or, with --suites, those that hold a suite it matches (with the suites'
# library, psem_kunit_lib.ko, whenever one is there), and its command
# line then carries kunit.filter_glob.
run_kernel() {
	local name=$1 kernel=$2 kdir=$3 label=${4:-$1} work=${5:-$cache/work/$1}
	local log=$logdir/$1.log cpio=$cache/work/$1.cpio
	if [ -z "${5:-}" ]; then
		build_modules "$kdir" "$work" || { echo "check: module build failed for $name"; return 1; }
	fi
	local kos=(kmod/psem.ko examples/psem_consumer.ko) cmdline=()
	local kunit=0 built=0 ko m
	for ko in "$work"/kunit/*.ko; do
		[ -f "$ko" ] || continue
		built=1 m=${ko##*/}
		[ "$m" != psem_kunit_lib.ko ] || continue	# the suites' library
		[ -z "$suites" ] || [ -n "$(module_suites "${m%.ko}" | suites_matching)" ] ||
			continue
		kos+=("kunit/$m") && kunit=1
	done
	[ $kunit = 0 ] || kos+=(kunit/psem_kunit_lib.ko)
	if [ $built = 1 ] && [ -n "$suites" ]; then
		if [ $kunit = 0 ]; then
			echo "check: no module in $work/kunit holds a suite matching '$suite_glob'" \
				"(module <suite>_kunit.ko holds suite <suite>)"
			return 1
		fi
		cmdline+=("kunit.filter_glob=$suites")
		if [ -n "$test_glob" ] &&
		   ! grep -q 'kunit_filter_glob()' "$kdir/source/lib/kunit/test.c" 2>/dev/null; then
			echo "check: note: $label's KUnit does not filter the suites of modules:" \
				"every test of the chosen suites runs, not only '$test_glob'"
		fi
	fi
	"$top/scripts/mkinitramfs.sh" -C "$work" "$cpio" "$top/scripts/guest-psem.sh" "${kos[@]}" ||
		return 1
	local ok=0
	"$top/scripts/qemu-run.sh" "$kernel" "$cpio" "$log" "${cmdline[@]}" || ok=1
	echo "console log: $log"
	local splats
	if ! splats=$(scan_splats "$log"); then
		ok=1
		{ echo "$name: splats on the console:"; echo "$splats"; } | why_note
	fi
	[ -z "$splats" ] || echo "$splats"
	log_part "$log" CONSUMER | grep -q '^psem_consumer:' ||
		{ echo "check: no psem_consumer: lines in dmesg"; ok=1; }
	check_consumer_unload "$log" || ok=1
	# The trace events the guest counted while the consumer ran.
	local traced
	traced=$(log_part "$log" TRACE | grep '^trace: ' || true)
	if [[ $traced =~ ^trace:\ psem_release\ [1-9] ]]; then
		echo "  $traced"
	else
		echo "check: the consumer's run traced no psem_release${traced:+ ($traced)}"
		ok=1
	fi
	# kunit/psem_hostile_test.c skips (and prints no expected-splat
	# window, which scan_splats checks) without CONFIG_DEBUG_ATOMIC_SLEEP;
	# on a kernel that has it, a run without a window proved nothing. (Not
	# asked of a run that a test glob cut down: the test that opens the
	# window may not have run.)
	local whole=0
	[ -n "$test_glob" ] || whole=1
	if grep -q '^CONFIG_DEBUG_ATOMIC_SLEEP=y' "$kdir/.config" 2>/dev/null && [ $whole = 1 ] &&
	   [[ " ${kos[*]} " == *" kunit/psem_hostile_kunit.ko "* ]] &&
	   ! grep -qE '^\[ *[0-9.]+\] psem-expect-splat: begin atomic-sleep' "$log"; then
		echo "check: no atomic-sleep window on the console of a CONFIG_DEBUG_ATOMIC_SLEEP kernel"
		ok=1
	fi
	# Likewise kunit/psem_lockdep_test.c on a CONFIG_PROVE_LOCKING kernel.
	if grep -q '^CONFIG_PROVE_LOCKING=y' "$kdir/.config" 2>/dev/null && [ $whole = 1 ] &&
	   [[ " ${kos[*]} " == *" kunit/psem_lockdep_kunit.ko "* ]] &&
	   ! grep -qE '^\[ *[0-9.]+\] psem-expect-splat: begin lockdep-inversion' "$log"; then
		echo "check: no lockdep-inversion window on the console of a CONFIG_PROVE_LOCKING kernel"
		ok=1
	fi
	if [ $kunit = 1 ]; then
		local krc=0
		kunit_results "$log" "$kdir/source" "$label" || krc=$?
		[ $krc = 0 ] || [ $ok = 1 ] || ok=$krc
	elif [ $built = 0 ] && grep -q '^CONFIG_KUNIT=[ym]' "$kdir/.config" 2>/dev/null; then
		echo "check: $kdir has KUnit but no kunit/*.ko was built"
		ok=1
	fi
	return $ok
}

# cpu_idle: the CPUs' idle and busy time so far (/proc/stat, in ticks).
cpu_idle() { awk '$1 == "cpu" { print $5 + $6, $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
read -r idle0 busy0 < <(cpu_idle)

stage "setup"
bash "$top/scripts/setup.sh"
stage_done ok

# The kernels' builds start at once, in the background, one at a time, in
# the order the run needs them (the series' gates start from debug-7.3's
# objects and build sem-7.3): the stages before them (lint, the model)
# leave a CPU idle much of the time, and so do the KUnit guests that follow
# each. A stage that needs a kernel asks scripts/build-kernel.sh for it as
# before, which waits on that flavour's lock while the builder holds it
# and then finds it built; a build that failed here is tried again there,
# where its error is shown. (Nothing to do when they are all cached.)
prebuilt=$logdir/prebuild
rm -rf "$prebuilt" && mkdir -p "$prebuilt"
if want kunit || want torture || want series; then
	order=''
	! want series || order="debug-7.3 sem-7.3"
	if want kunit || want torture; then
		for f in $kernels; do
			case " $order " in *" $f "*) ;; *) order+=" $f" ;; esac
		done
	fi
	order=${order# }
	# Then psem's xfs.ko for the xfs stage's kernels, and kunit.py's UML
	# kernel in the series' tree (each build is incremental and locked:
	# the stage finds it built).
	also=''
	! want xfs || also+="; the psem xfs.ko for ${PSEM_XFS_KERNELS:-debug 6.12 7.3}"
	! want series || also+="; kunit.py's UML kernel"
	# At nice 10: they fill the time the stages leave, and a QEMU guest
	# beside them keeps its CPUs. A vCPU thread preempted while the
	# guest's other vCPU spins on it (a lock, an IPI's reply) makes the
	# host burn that spin: at equal priority, rt-6.12's KUnit guest took
	# 177 CPU-s in an empty-cache run, where its whole stage takes 130
	# alone, and all guests 1059 and 1238 CPU-s in two such runs.
	(
		renice -n 10 -p "$BASHPID" >/dev/null
		for f in $order; do
			"$top/scripts/build-kernel.sh" "$f" >/dev/null 2>"$prebuilt/$f.log" ||
				echo "build-kernel $f: failed" >>"$prebuilt/$f.log"
		done
		! want xfs || bash "$top/scripts/check-xfs.sh" --build >"$prebuilt/xfs.log" 2>&1 ||
			echo "check-xfs.sh --build: failed" >>"$prebuilt/xfs.log"
		! want series || SERIES_OUT=$cache/work/series-um bash "$top/scripts/check-series.sh" \
			um_build >"$prebuilt/um.log" 2>&1 || true
	) </dev/null &
	echo "== kernels: building in the background, in this order: $order$also (logs: $prebuilt)"
fi
# prebuilt FLAVOUR: what the background build of FLAVOUR said (its time).
prebuilt() { sed -n 's/^build-kernel: built /  (in the background) &/p' "$prebuilt/$1.log" 2>/dev/null; }

if want lint; then
	stage "lint"
	if bash "$top/scripts/lint.sh"; then stage_done ok; else fail_step lint; fi
fi

if want model; then
	# A clean result is kept under the cache, keyed by the model, the
	# script and the versions of spin and gcc, and not searched for again
	# on the same input, as lint's checks (PSEM_MODEL_CACHE=0 runs it).
	stage "spin model"
	mkey=$( { cat "$top"/model/*.pml "$top/scripts/check-model.sh"; spin -V; gcc --version | head -n 1; } |
		sha256sum | cut -c1-16)
	mdone=$cache/model-clean/$mkey
	if [ "${PSEM_MODEL_CACHE:-1}" != 0 ] && [ -f "$mdone" ]; then
		cat "$mdone"
		echo "model: the result above is that of a clean run on the same model, script, spin and gcc"
		stage_done "ok (cached)"
	elif mkdir -p "$cache/model-clean" && bash "$top/scripts/check-model.sh" | tee "$mdone.tmp"; then
		mv "$mdone.tmp" "$mdone"
		stage_done ok
	else
		rm -f "$mdone.tmp"
		fail_step "spin model"
	fi
	stage "litmus tests (herd7)"
	if bash "$top/scripts/check-litmus.sh"; then stage_done ok; else fail_step litmus; fi
fi

# The series' gates (scripts/check-series.sh gates: checkpatch, a W=1
# build after every patch), early, so that its locktorture, which boots
# the kernel they leave, can run in the background with the tortures.
series_gates='' series_torture_pid=''
if want series; then
	stage "series: gates"
	if bash "$top/scripts/check-series.sh" gates; then
		stage_done ok
		series_gates=ok
		mkdir -p "$cache/work"
		rm -f "$logdir/series-torture.rc"
		# Its status goes to a file, as the tortures' do (torture_start).
		(
			flock 8
			rc=0
			SERIES_OUT=$cache/work/series-bg bash "$top/scripts/check-series.sh" torture \
				>"$logdir/series-torture.out" 2>&1 || rc=$?
			echo "$rc" >"$logdir/series-torture.rc"
		) 8>"$cache/work/.torture.lock" </dev/null &
		series_torture_pid=$!
		echo "== series: locktorture running in the background (output: $logdir/series-torture.out)"
	else
		fail_step "series gates"
	fi
fi
# series_torture_done: wait for the series' locktorture; print it, count it.
series_torture_done() {
	[ -n "$series_torture_pid" ] || return 0
	local rc
	wait "$series_torture_pid" 2>/dev/null || true
	rc=$(cat "$logdir/series-torture.rc" 2>/dev/null) || rc=none
	stage "series: locktorture (it ran in the background)"
	cat "$logdir/series-torture.out"
	if [ "$rc" = 0 ]; then
		stage_done ok
	else
		{ echo "series locktorture: status $rc"
		  grep -E 'FAILED|splat' "$logdir/series-torture.out" || true; } | why_note
		fail_step "series locktorture"
	fi
}

# The torture of the test kernels runs in the background, one kernel at a
# time, each from the end of that kernel's KUnit stage: beside the next
# kernel's KUnit guest, and the last ones beside the stages after it (a
# torture guest runs for a fixed time). So at most two guests run at once:
# each torture, and the series' locktorture, takes a lock that the one
# before holds while it runs. Each torture's output is printed, and its
# result counted, at the end of the run.
# PSEM_CHECK_TORTURE_BG=0 runs each torture in turn after its kernel's
# KUnit instead.
# Each torture's status goes to a file, torture-FLAVOUR.rc: bash forgets
# the status of a finished background job whose PID a new child of the
# shell gets, and PIDs wrap within one run here (pid_max 32768, the builds'
# compilers): an empty-cache run lost the oldest job's that way ("wait: pid
# ... is not a child of this shell").
torture_s=${PSEM_TORTURE_DURATION:-60}
torture_pids=()
# torture_start FLAVOUR [MODULES]: start FLAVOUR's torture; MODULES, the
# tree its KUnit stage built psem in (run_kernel, this run: nothing else
# builds there after it), spares the torture a build of its own.
torture_start() {
	want torture || return 0
	rm -f "$logdir/torture-$1.rc"
	(
		flock 8
		rc=0
		PSEM_TORTURE_KERNELS=$1 KDIR='' PSEM_TORTURE_MODULES=${2:-} \
			bash "$top/scripts/torture.sh" "" "$torture_s" >"$logdir/torture-$1.out" 2>&1 || rc=$?
		echo "$rc" >"$logdir/torture-$1.rc"
	) 8>"$cache/work/.torture.lock" </dev/null &
	torture_pids+=("$!")
	if [ "${PSEM_CHECK_TORTURE_BG:-1}" = 0 ]; then
		wait "$!" || true
	else
		echo "== torture ($1): running in the background (output: $logdir/torture-$1.out)"
	fi
}
# torture_done: wait for each torture in turn; print its output, count it.
torture_done() {
	local f i=0 rc
	want torture || return 0
	for f in $kernels; do
		wait "${torture_pids[i]}" 2>/dev/null || true
		rc=$(cat "$logdir/torture-$f.rc" 2>/dev/null) || rc=none
		i=$((i + 1))
		stage "torture ($f: ${torture_s}s, then the busted lock)"
		cat "$logdir/torture-$f.out" 2>/dev/null
		if [ $rc = 0 ]; then
			stage_done "ok (it ran in the background)"
		else
			# A few violations, then the verdicts. The busted run's
			# violations are expected, so they are left out.
			{ echo "torture ($f):"
			  grep -hF 'VIOLATION' "$logdir/torture-$f.out" 2>/dev/null |
				grep -vF '(busted): VIOLATION' | head -n 3
			  grep -hE 'did not|splat|torture: FAILED' "$logdir/torture-$f.out" 2>/dev/null
			} | why_note
			fail_step "torture $f"
		fi
	done
}

mkdir -p "$cache/work"
for flavour in $kernels; do
	if ! want kunit; then
		torture_start "$flavour"
		continue
	fi
	label=$("$top/scripts/build-kernel.sh" --name "$flavour" 2>/dev/null) || label=$flavour
	stage "$label kernel: build"
	blog=$logdir/build-$flavour.log
	if ! kdir=$("$top/scripts/build-kernel.sh" "$flavour" 2>"$blog"); then
		tail -n 30 "$blog" | sed 's/^/  | /'
		fail_step "$flavour kernel build"
		torture_start "$flavour"
		continue
	fi
	[ ! -s "$blog" ] || echo "built $kdir (log: $blog)"
	prebuilt "$flavour"
	stage_done ok
	stage "$label kernel: modules, boot, KUnit"
	rc=0
	run_kernel "$flavour" "$kdir/arch/x86/boot/bzImage" "$kdir" "$label" || rc=$?
	if [ $rc = 0 ]; then stage_done ok; else fail_step "$flavour kernel" $rc; fi
	# (rc 1 may be a failed module build: the torture then builds its own.)
	if [ $rc = 1 ]; then torture_start "$flavour"; else torture_start "$flavour" "$cache/work/$flavour"; fi
done

# dkms_build: `dkms build` in a private DKMS tree (--dkmstree, --sourcetree,
# --installtree under the cache; never `dkms install`, which runs depmod on
# the host's /lib/modules) against the newest 7.3 stock kernel's module tree
# (PSEM_CHECK_DKMS_KERNEL: another kind, e.g. 6.12);
# then the example consumer built the way a consumer of the DKMS package
# builds it (its headers from the DKMS source copy, its symbols from the
# Module.symvers that dkms.conf keeps in the DKMS tree). The DKMS module is
# signed with a throwaway key kept in the same private tree (Debian's
# kernels do not require signatures). Sets dkms_ver, dkms_kver, dkms_kdir
# and dkms_boot (kmod/psem.ko and examples/psem_consumer.ko, for the stock
# stage to boot instead of building its own for that kernel).
dkms_ver='' dkms_kver='' dkms_kdir='' dkms_boot='' dkms_kernel=''
dkms_build() {
	local ver kver kdir d=$cache/work/dkms
	ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/dkms.conf")
	stock_kernel "${PSEM_CHECK_DKMS_KERNEL:-7.3}" || return 1
	kdir=$stock_kdir kver=$stock_ver dkms_kernel=$stock_image
	rm -rf "$d" && mkdir -p "$d/tree" "$d/src" "$d/install" "$d/keys" "$d/boot" || return 1
	local ex=(--exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c'
		  --exclude='.*.cmd' --exclude=Module.symvers --exclude=modules.order)
	rsync -a --exclude=/.git --exclude=/bench/results "${ex[@]}" \
		"$top/" "$d/src/psem-$ver/" || return 1
	local o=(--dkmstree "$d/tree" --sourcetree "$d/src" --installtree "$d/install")
	local dlog=$logdir/dkms.log
	echo "dkms: dkms add, dkms build -k $kver (log: $dlog)"
	if ! { dkms add -m psem -v "$ver" "${o[@]}" &&
	       sign_file=$kdir/scripts/sign-file mok_signing_key=$d/keys/mok.key \
	       mok_certificate=$d/keys/mok.pub \
	       dkms build -m psem -v "$ver" -k "$kver" "${o[@]}" --kernelsourcedir "$kdir"; } >"$dlog" 2>&1; then
		echo "check: dkms build failed (log: $dlog):"
		tail -n 20 "$dlog" | sed 's/^/  | /'
		tail -n 20 "$d/tree/psem/$ver/build/make.log" 2>/dev/null | sed 's/^/  | /'
		return 1
	fi
	local built=$d/tree/psem/$ver/$kver/x86_64
	mkdir -p "$d/boot/kmod" "$d/boot/examples"
	if [ -f "$built/module/psem.ko.xz" ]; then
		xz -dc "$built/module/psem.ko.xz" >"$d/boot/kmod/psem.ko"
	else
		cp "$built/module/psem.ko" "$d/boot/kmod/psem.ko"
	fi || { echo "check: DKMS left no psem.ko in $built/module"; return 1; }
	[ -f "$built/Module.symvers" ] || { echo "check: DKMS left no Module.symvers in $built"; return 1; }
	rsync -a "${ex[@]}" "$top/examples/" "$d/boot/examples/" || return 1
	rm -f "$d/boot/examples/Module.symvers"	# modpost again (build_modules)
	make -s -C "$kdir" M="$d/boot/examples" KBUILD_EXTRA_SYMBOLS="$built/Module.symvers" \
		PSEM_DIR="$d/src/psem-$ver" modules 2>&1 |
		sed '/^Skipping BTF generation .* unavailability of vmlinux$/d'
	[ -f "$d/boot/examples/psem_consumer.ko" ] ||
		{ echo "check: the consumer did not build against the DKMS tree"; return 1; }
	dkms_ver=$ver dkms_kver=$kver dkms_kdir=$kdir dkms_boot=$d/boot
}

# dkms_boot_ok RC: report the boot of the DKMS-built module.
dkms_boot_ok() {
	if [ "$1" = 0 ]; then
		echo "dkms: built psem $dkms_ver for $dkms_kver"
	else
		echo "dkms: the module DKMS built for $dkms_kver failed in QEMU"
		failures+=("dkms boot")
		failed=$((failed + 1))
	fi
}

if want dkms; then
	stage "dkms: build in a private tree"
	if dkms_build; then stage_done ok; else fail_step "dkms build"; fi
fi

# check_stock VER KERNEL KDIR [PREBUILT]: build (unless PREBUILT), boot,
# check one Debian kernel. (lib.sh's stock_kernel finds one.)
check_stock() {
	local ver=$1 kernel=$2 kdir=$3 rc=0 uname
	echo "-- stock $ver: headers $kdir${4:+ (the modules DKMS built)}"
	run_kernel "stock-$ver" "$kernel" "$kdir" "stock-$ver" "${4:-}" || rc=$?
	uname=$(log_part "$logdir/stock-$ver.log" UNAME 2>/dev/null | head -n1)
	if [ $rc = 0 ] && [ "$uname" = "$ver" ]; then
		echo "stock $uname: loaded, used, unloaded"
	else
		echo "stock $ver: FAILED (guest uname: ${uname:-none})"
		return 1
	fi
}

dkms_booted=0
if want stock; then
	# One stage for all of them: each build is about a minute, each boot
	# of a stock kernel well under one. The kernel DKMS built for boots the
	# modules DKMS and the consumer build left, not a second build of them.
	stage "stock kernels: modules, boot, load/use/unload"
	nstock=0 sfailed=()
	if list=$("$top/scripts/stock-kernel.sh" --all); then
		while read -r ver skernel skdir; do
			case " ${PSEM_CHECK_STOCK_KERNELS:-$ver} " in *" $ver "*) ;; *) continue ;; esac
			nstock=$((nstock + 1))
			if [ -n "$dkms_boot" ] && [ "$ver" = "$dkms_kver" ]; then
				src=0
				check_stock "$ver" "$skernel" "$skdir" "$dkms_boot" </dev/null || src=$?
				dkms_boot_ok $src
				dkms_booted=1
				[ $src = 0 ] || sfailed+=("$ver")
			else
				check_stock "$ver" "$skernel" "$skdir" </dev/null || sfailed+=("$ver")
			fi
			bash "$top/scripts/sizes.sh" "$skdir" "$ver" </dev/null ||
				sfailed+=("$ver (sizes)")
		done <<<"$list"
	fi
	if [ $nstock = 0 ]; then
		echo "check: no stock kernel to run"
		fail_step "stock kernels"
	elif [ ${#sfailed[@]} -gt 0 ]; then
		failures+=("${sfailed[@]/#/stock }")
		failed=$((failed + ${#sfailed[@]}))
		stage_done FAILED
	else
		stage_done ok
	fi
fi
if [ -n "$dkms_boot" ] && [ $dkms_booted = 0 ]; then
	stage "dkms: boot $dkms_kver with the module DKMS built"
	rc=0
	run_kernel "dkms-$dkms_kver" "$dkms_kernel" \
		"$dkms_kdir" "dkms-$dkms_kver" "$dkms_boot" || rc=$?
	dkms_boot_ok $rc
	if [ $rc = 0 ]; then stage_done ok; else stage_done FAILED; fi
fi

# The native benchmark's build and one short round of every cell, so that
# it cannot rot (no timing is judged): one failure if either fails.
if want native; then
	stage "native"
	if PSEM_NATIVE_SMOKE=1 bash "$top/scripts/bench-native.sh"; then stage_done ok; else fail_step native; fi
fi

# XFS with its buffer lock on psem (scripts/check-xfs.sh): a short
# stress-ng metadata run and xfs_repair -n, on the debug-6.1 kernel and
# stock 6.12 and 7.3; one line per kernel.
if want xfs; then
	stage "xfs on psem"
	if bash "$top/scripts/check-xfs.sh"; then stage_done ok; else fail_step xfs; fi
fi

# scripts/check-tsan.sh (its failure counts as one failed step).
if want tsan; then
	stage "tsan"
	if bash "$top/scripts/check-tsan.sh"; then stage_done ok; else fail_step tsan; fi
fi

# scripts/check-explore.sh, the interleaving explorer: every scenario,
# then its mutants (its failure counts as one failed step).
if want explore; then
	stage "explore"
	if bash "$top/scripts/check-explore.sh"; then stage_done ok; else fail_step explore; fi
fi

# The series' kunit.py on UML, then its RFC patch, struct semaphore on
# psem's word, against 7.3.4 unpatched (each failure counts as one failed
# step); then the tortures that ran in the background, the series'
# locktorture among them.
if want series; then
	stage "series: kunit.py"
	if [ "$series_gates" = ok ] &&
	   PSEM_SERIES_KUNIT=${PSEM_SERIES_KUNIT:-um2} bash "$top/scripts/check-series.sh" kunit; then
		stage_done ok
	else
		fail_step "series kunit.py"
	fi
	stage "struct semaphore on psem's word"
	if bash "$top/scripts/check-semaphore.sh"; then stage_done ok; else fail_step semaphore; fi
fi
torture_done
series_torture_done

read -r idle1 busy1 < <(cpu_idle)
echo "check: finished in $((SECONDS - t_start))s; the CPUs were idle" \
	"$(( 100 * (idle1 - idle0) / (idle1 - idle0 + busy1 - busy0 + 1) ))% of it"
if [ -s "$why" ]; then
	echo "check: why (the first lines of each; the logs are in $logdir):"
	cat "$why"
fi
[ ${#failures[@]} -eq 0 ] || echo "check: failed steps: ${failures[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
