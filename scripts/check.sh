#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make check`: psem's whole test run. Never loads anything on the host.
#
#   1. scripts/setup.sh, scripts/lint.sh, the spin model
#      (scripts/check-model.sh), then the litmus tests with the LKMMs of
#      6.1, 6.12 and 7.3 (scripts/check-litmus.sh);
#   2. for the test kernels, debug-6.1 (lockdep, KASAN), rt-6.12
#      (PREEMPT_RT, lockdep, KASAN), debug-7.3 (lockdep, KASAN) and
#      kcsan-7.3: build the kernel (cached) and
#      the modules, boot it in QEMU, load psem.ko, every kunit/*.ko and the
#      example consumer, flip the debugfs switches, unload; parse the KTAP
#      the KUnit modules logged with the kernel's kunit.py;
#   3. psem_torture.ko on every test kernel (scripts/torture.sh), each in
#      the background from the end of its kernel's KUnit stage, one at a
#      time; their output is printed after the stock stage;
#   4. DKMS: `dkms build` against the stock 7.3.4 image's module tree in a
#      private DKMS tree under the cache (nothing is installed on the
#      host), then the consumer built against what DKMS left;
#   5. Debian's stock kernels (6.1, 6.12 and 7.3.4, generic and rt, as
#      scripts/stock-kernel.sh --all lists them): build against each one's
#      headers or matching tree, boot it, load, use and unload psem.ko and
#      the consumer the same way; one line "stock <uname -r>: loaded, used,
#      unloaded" each. The kernel DKMS built for boots the DKMS module and
#      its consumer instead: "dkms: built psem <version> for <kver>";
#   6. the native benchmark's smoke round (stage native), XFS with its
#      buffer lock on psem (scripts/check-xfs.sh), and
#      scripts/check-tsan.sh.
# Any splat on a console, a failed or missing suite, or a failed step fails
# the run. The last line is "N passed, F failed": N KUnit tests passed over
# all test kernels, F failed or crashed tests plus failed steps.
#
# Environment: PSEM_CHECK_KERNELS (default "debug rt debug-7.3 kcsan-7.3"),
# PSEM_CHECK_STOCK=0 to skip the stock kernels (PSEM_CHECK_STOCK_KERNELS:
# a list of kernel versions instead of all), PSEM_CHECK_DKMS=0 to skip
# DKMS, PSEM_CHECK_TSAN=0 to skip check-tsan.sh, PSEM_CHECK_LINT=0 to skip lint,
# PSEM_CHECK_MODEL=0 to skip the spin model and the litmus tests,
# PSEM_CHECK_TORTURE=0 to skip
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
	{
		echo "KTAP version 1"
		echo "1..$nsuites"
		for m in $mods; do
			cat "$dir/$m.ktap"
		done | awk '/^KTAP version [0-9]+$/ || /^1\.\.[0-9]+$/ { next }
			/^(not )?ok [0-9]+ / { n++; sub(/ok [0-9]+ /, "ok " n " ") }
			{ print }'
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
		{ echo "kunit ($name): failed:"
		  grep -E '^ *(not ok|Expected |# .*(EXPECTATION|ASSERTION|FAILED))' "$dir/all.txt" |
			grep -v '^ *# Subtest' | sed 's/^ *//'; } | why_note
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

# run_kernel NAME KERNEL KDIR [LABEL [PREBUILT]]: build, boot, check one
# kernel; LABEL (default NAME) names it in the KUnit summary. With PREBUILT
# (a directory holding kmod/psem.ko and examples/psem_consumer.ko) nothing
# is built. Returns 2 if the only problem is failed KUnit tests.
run_kernel() {
	local name=$1 kernel=$2 kdir=$3 label=${4:-$1} work=${5:-$cache/work/$1}
	local log=$logdir/$1.log cpio=$cache/work/$1.cpio
	if [ -z "${5:-}" ]; then
		build_modules "$kdir" "$work" || { echo "check: module build failed for $name"; return 1; }
	fi
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
	local splats
	if ! splats=$(scan_splats "$log"); then
		ok=1
		{ echo "$name: splats on the console:"; echo "$splats"; } | why_note
	fi
	[ -z "$splats" ] || echo "$splats"
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
		kunit_results "$log" "$kdir/source" "$label" || krc=$?
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
	stage "litmus tests (herd7)"
	if bash "$top/scripts/check-litmus.sh"; then stage_done ok; else fail_step litmus; fi
fi

# The torture of the test kernels runs in the background, one kernel at a
# time, each from the end of that kernel's KUnit stage: beside the next
# kernel's KUnit guest, and the last one beside the DKMS and stock stages (a
# torture guest runs for a fixed time; a stock step is mostly a short module
# build). So at most two guests run at once. A background worker takes the
# kernels in order and waits for a marker that the main loop leaves when a
# kernel's KUnit stage is over. Each torture's output is printed, and its
# result counted, after the stock stage. PSEM_CHECK_TORTURE_BG=0 runs each
# torture in turn after its kernel's KUnit instead.
torture_pid='' torture_dir=$cache/work/torture-queue
torture_on=0
[ "${PSEM_CHECK_TORTURE:-1}" = 0 ] || torture_on=1
# torture_worker FLAVOUR...: each FLAVOUR's torture once its marker exists.
torture_worker() {
	local f rc
	for f in "$@"; do
		while [ ! -e "$torture_dir/$f.ready" ]; do
			kill -0 $$ 2>/dev/null || return 1	# check.sh is gone
			sleep 2
		done
		rc=0
		PSEM_TORTURE_KERNELS=$f KDIR='' \
			bash "$top/scripts/torture.sh" "" "${PSEM_CHECK_TORTURE_S:-60}" \
			>"$logdir/torture-$f.out" 2>&1 </dev/null || rc=$?
		echo "$rc" >"$torture_dir/$f.rc"
	done
}
# torture_ready FLAVOUR: its KUnit stage is over; let its torture run.
torture_ready() {
	[ $torture_on = 1 ] || return 0
	touch "$torture_dir/$1.ready"
	if [ "${PSEM_CHECK_TORTURE_BG:-1}" = 0 ]; then
		while [ ! -e "$torture_dir/$1.rc" ]; do sleep 2; done
	else
		echo "== torture ($1): running in the background (output: $logdir/torture-$1.out)"
	fi
}
# torture_done: wait for the worker; print each torture's output, count it.
torture_done() {
	[ -n "$torture_pid" ] || return 0
	wait "$torture_pid" || true
	torture_pid=''
	local f
	for f in $kernels; do
		stage "torture ($f: ${PSEM_CHECK_TORTURE_S:-60}s, then the busted lock)"
		cat "$logdir/torture-$f.out" 2>/dev/null
		if [ "$(cat "$torture_dir/$f.rc" 2>/dev/null)" = 0 ]; then
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

kernels=${PSEM_CHECK_KERNELS-debug rt debug-7.3 kcsan-7.3}	# set and empty: none
[ -n "${kernels// /}" ] || torture_on=0
if [ $torture_on = 1 ]; then
	rm -rf "$torture_dir" && mkdir -p "$torture_dir"
	# shellcheck disable=SC2086 # one word per kernel
	torture_worker $kernels &
	torture_pid=$!
fi
for flavour in $kernels; do
	label=$("$top/scripts/build-kernel.sh" --name "$flavour" 2>/dev/null) || label=$flavour
	stage "$label kernel: build"
	blog=$logdir/build-$flavour.log
	if ! kdir=$("$top/scripts/build-kernel.sh" "$flavour" 2>"$blog"); then
		tail -n 30 "$blog" | sed 's/^/  | /'
		fail_step "$flavour kernel build"
		torture_ready "$flavour"
		continue
	fi
	[ ! -s "$blog" ] || echo "built $kdir (log: $blog)"
	stage_done ok
	stage "$label kernel: modules, boot, KUnit"
	rc=0
	run_kernel "$flavour" "$kdir/arch/x86/boot/bzImage" "$kdir" "$label" || rc=$?
	if [ $rc = 0 ]; then stage_done ok; else fail_step "$flavour kernel" $rc; fi
	torture_ready "$flavour"
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
	local ver kver kdir d=$cache/work/dkms stock
	ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/dkms.conf")
	stock=$("$top/scripts/stock-kernel.sh" "${PSEM_CHECK_DKMS_KERNEL:-7.3}") || return 1
	kdir=$(sed -n 's/^KDIR=//p' <<<"$stock")
	dkms_kernel=$(sed -n 's/^KERNEL=//p' <<<"$stock")
	# /boot/vmlinuz-<ver>, or (7.2.13, 7.3.4 and later) .../modules/<ver>/vmlinuz
	case $dkms_kernel in
	*/vmlinuz) kver=$(basename "$(dirname "$dkms_kernel")") ;;
	*) kver=${dkms_kernel##*/vmlinuz-} ;;
	esac
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

if [ "${PSEM_CHECK_DKMS:-1}" != 0 ]; then
	stage "dkms: build in a private tree"
	if dkms_build; then stage_done ok; else fail_step "dkms build"; fi
fi

# stock_kernel VER KERNEL KDIR [PREBUILT]: build (unless PREBUILT), boot,
# check one Debian kernel.
stock_kernel() {
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
if [ "${PSEM_CHECK_STOCK:-1}" != 0 ]; then
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
				stock_kernel "$ver" "$skernel" "$skdir" "$dkms_boot" </dev/null || src=$?
				dkms_boot_ok $src
				dkms_booted=1
				[ $src = 0 ] || sfailed+=("$ver")
			else
				stock_kernel "$ver" "$skernel" "$skdir" </dev/null || sfailed+=("$ver")
			fi
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

torture_done

# The native benchmark's build and one short round of every cell, so that
# it cannot rot (no timing is judged): one failure if either fails.
if [ "${PSEM_CHECK_NATIVE:-1}" != 0 ]; then
	stage "native"
	if PSEM_NATIVE_SMOKE=1 bash "$top/scripts/bench-native.sh"; then stage_done ok; else fail_step native; fi
fi

# XFS with its buffer lock on psem (scripts/check-xfs.sh): a short
# stress-ng metadata run and xfs_repair -n, on the debug-6.1 kernel and
# stock 6.12 and 7.3; one line per kernel. PSEM_CHECK_XFS=0 skips it.
if [ "${PSEM_CHECK_XFS:-1}" != 0 ]; then
	stage "xfs on psem"
	if bash "$top/scripts/check-xfs.sh"; then stage_done ok; else fail_step xfs; fi
fi

# scripts/check-tsan.sh, where it exists (another part of the suite; its
# failure counts as one failed step).
if [ "${PSEM_CHECK_TSAN:-1}" != 0 ] && [ -f "$top/scripts/check-tsan.sh" ]; then
	stage "tsan"
	if bash "$top/scripts/check-tsan.sh"; then stage_done ok; else fail_step tsan; fi
fi

# scripts/check-explore.sh, the interleaving explorer: every scenario,
# then its mutants (PSEM_CHECK_EXPLORE=0 skips it; its failure counts as
# one failed step).
if [ "${PSEM_CHECK_EXPLORE:-1}" != 0 ] && [ -f "$top/scripts/check-explore.sh" ]; then
	stage "explore"
	if bash "$top/scripts/check-explore.sh"; then stage_done ok; else fail_step explore; fi
fi

echo "check: finished in $((SECONDS - t_start))s"
if [ -s "$why" ]; then
	echo "check: why (the first lines of each; the logs are in $logdir):"
	cat "$why"
fi
[ ${#failures[@]} -eq 0 ] || echo "check: failed steps: ${failures[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
