#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make check`: psem's whole test run. Never loads anything on the host.
#
#   1. scripts/setup.sh, scripts/lint.sh, then the spin model
#      (scripts/check-model.sh);
#   2. for the debug (lockdep, KASAN) and KCSAN test kernels: build the
#      kernel (cached) and the modules, boot it in QEMU, load psem.ko, every
#      kunit/*.ko and the example consumer, flip the debugfs switches, unload;
#      parse the KTAP the KUnit modules logged with the kernel's kunit.py;
#   3. psem_torture.ko on both test kernels (scripts/torture.sh);
#   4. Debian's stock kernel: build against its headers, boot it, load and
#      unload psem.ko and the consumer the same way.
# Any splat on a console, a failed or missing suite, or a failed step fails
# the run. The last line is "N passed, F failed": N KUnit tests passed over
# both test kernels, F failed or crashed tests plus failed steps.
#
# Environment: PSEM_CHECK_KERNELS (default "debug kcsan"), PSEM_CHECK_STOCK=0
# to skip the stock kernel, PSEM_CHECK_LINT=0 to skip lint,
# PSEM_CHECK_MODEL=0 to skip the spin model, PSEM_CHECK_TORTURE=0 to skip
# the torture (PSEM_CHECK_TORTURE_S: its length, default 60), PSEM_CACHE,
# PSEM_LOGDIR, and qemu-run.sh's PSEM_QEMU_*.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

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
exec 9>"$cache/.check.lock"
flock -n 9 || { echo "check: waiting for another check to finish"; flock 9; }

# kunit_results LOG KSRC NAME: gather the KTAP that each KUnit module printed
# to the kernel log as it loaded, parse it as one run with KSRC's kunit.py,
# and add to the totals. Returns 2 if the only problem is failed tests. The
# guest sends each module's `dmesg -r`, whose
# lines start with "<level>[time] ", unlike console lines that interleave.
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

	# Modules print no top-level KTAP header; KUnit numbers the suites from 1
	# across all modules (the test kernels have no built-in suites).
	local nsuites
	nsuites=$(cat "${files[@]}" | grep -c '^    # Subtest: ' || true)
	{
		echo "KTAP version 1"
		echo "1..$nsuites"
		for m in $mods; do
			cat "$dir/$m.ktap"
		done
	} >"$dir/all.txt"
	for s in $(expected_suites); do
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
		[ $ok = 1 ] || ok=2
	fi
	return $ok
}

# check_consumer_unload LOG: examples/psem_consumer.c's exit kills the
# kthread it left waiting for 5 permits of a gate holding 2 (it had taken
# both). The wait must end with -EINTR and give both permits back: the
# console must show "waiter woke: -4" and "unloaded; gate balance 2".
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

# run_kernel NAME KERNEL KDIR: build, boot, check one kernel. Returns 2 if
# the only problem is failed KUnit tests.
run_kernel() {
	local name=$1 kernel=$2 kdir=$3 work=$cache/work/$1
	local log=$logdir/$1.log cpio=$cache/work/$1.cpio
	build_modules "$kdir" "$work" || { echo "check: module build failed for $name"; return 1; }
	local kos=(kmod/psem.ko examples/psem_consumer.ko)
	local kunit=0 ko
	for ko in "$work"/kunit/*.ko; do
		[ -f "$ko" ] && kos+=("kunit/${ko##*/}") && kunit=1
	done
	"$top/scripts/mkinitramfs.sh" -C "$work" "$cpio" "$top/scripts/guest-psem.sh" "${kos[@]}" ||
		return 1
	local ok=0
	"$top/scripts/qemu-run.sh" "$kernel" "$cpio" "$log" || ok=1
	echo "console log: $log"
	scan_splats "$log" || ok=1
	log_part "$log" CONSUMER | grep -q '^psem_consumer:' ||
		{ echo "check: no psem_consumer: lines in dmesg"; ok=1; }
	check_consumer_unload "$log" || ok=1
	# kunit/psem_hostile_kunit.c skips (and prints no expected-splat
	# window, which scan_splats checks) without CONFIG_DEBUG_ATOMIC_SLEEP;
	# on a kernel that has it, a run without a window proved nothing.
	if grep -q '^CONFIG_DEBUG_ATOMIC_SLEEP=y' "$kdir/.config" 2>/dev/null &&
	   [ -f "$work/kunit/psem_hostile_kunit.ko" ] &&
	   ! grep -qE '^\[ *[0-9.]+\] psem-expect-splat: begin atomic-sleep' "$log"; then
		echo "check: no atomic-sleep window on the console of a CONFIG_DEBUG_ATOMIC_SLEEP kernel"
		ok=1
	fi
	# Likewise kunit/psem_lockdep_kunit.c on a CONFIG_PROVE_LOCKING kernel.
	if grep -q '^CONFIG_PROVE_LOCKING=y' "$kdir/.config" 2>/dev/null &&
	   [ -f "$work/kunit/psem_lockdep_kunit.ko" ] &&
	   ! grep -qE '^\[ *[0-9.]+\] psem-expect-splat: begin lockdep-inversion' "$log"; then
		echo "check: no lockdep-inversion window on the console of a CONFIG_PROVE_LOCKING kernel"
		ok=1
	fi
	if [ $kunit = 1 ]; then
		local krc=0
		kunit_results "$log" "$kdir/source" "$name" || krc=$?
		[ $krc = 0 ] || [ $ok = 1 ] || ok=$krc
	elif grep -q '^CONFIG_KUNIT=[ym]' "$kdir/.config" 2>/dev/null; then
		echo "check: $kdir has KUnit but no kunit/*.ko was built"
		ok=1
	fi
	return $ok
}

stage "setup"
bash "$top/scripts/setup.sh"
stage_done ok

if [ "${PSEM_CHECK_LINT:-1}" != 0 ]; then
	stage "lint"
	if bash "$top/scripts/lint.sh"; then stage_done ok; else fail_step lint; fi
fi

if [ "${PSEM_CHECK_MODEL:-1}" != 0 ]; then
	stage "spin model"
	if bash "$top/scripts/check-model.sh"; then stage_done ok; else fail_step "spin model"; fi
fi

for flavour in ${PSEM_CHECK_KERNELS:-debug kcsan}; do
	stage "$flavour kernel: build"
	blog=$logdir/build-$flavour.log
	if ! kdir=$("$top/scripts/build-kernel.sh" "$flavour" 2>"$blog"); then
		tail -n 30 "$blog" | sed 's/^/  | /'
		fail_step "$flavour kernel build"
		continue
	fi
	[ ! -s "$blog" ] || echo "built $kdir (log: $blog)"
	stage_done ok
	stage "$flavour kernel: modules, boot, KUnit"
	rc=0
	run_kernel "$flavour" "$kdir/arch/x86/boot/bzImage" "$kdir" || rc=$?
	if [ $rc = 0 ]; then stage_done ok; else fail_step "$flavour kernel" $rc; fi
done

if [ "${PSEM_CHECK_TORTURE:-1}" != 0 ]; then
	stage "torture (${PSEM_CHECK_TORTURE_S:-60}s per kernel, then the busted lock)"
	if PSEM_TORTURE_KERNELS="${PSEM_CHECK_KERNELS:-debug kcsan}" KDIR='' \
	   bash "$top/scripts/torture.sh" "" "${PSEM_CHECK_TORTURE_S:-60}"; then
		stage_done ok
	else
		fail_step torture
	fi
fi

if [ "${PSEM_CHECK_STOCK:-1}" != 0 ]; then
	stage "stock kernel: modules, boot, load/unload"
	if stock=$("$top/scripts/stock-kernel.sh") &&
	   skernel=$(sed -n 's/^KERNEL=//p' <<<"$stock") &&
	   skdir=$(sed -n 's/^KDIR=//p' <<<"$stock") &&
	   echo "stock kernel: $skernel, headers $skdir" &&
	   run_kernel stock "$skernel" "$skdir"; then
		stage_done ok
	else
		fail_step "stock kernel"
	fi
fi

echo "check: finished in $((SECONDS - t_start))s"
[ ${#failures[@]} -eq 0 ] || echo "check: failed steps: ${failures[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
