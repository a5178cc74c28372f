#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# psem's benchmarks: build psem.ko and bench/psem_bench.ko against Debian's
# stock kernel, run them in QEMU, and write under bench/results/:
#
#   <date>-<kernel>.csv           one row per cell and variant (see below)
#   <date>-<kernel>.rounds.csv    every round, for the per-round ratios
#   <date>-<kernel>.md            the tables, also printed on stdout
#   <date>-<kernel>.png           grouped bars per cell, min-max whiskers
#   <date>-<kernel>.{icount,wall}.txt  the guest's psem_bench lines, from
#                                 which scripts/bench_table.py can redo all
#                                 (and .stats.txt with PSEM_BENCH_STATS=1)
#
# (QUICK=1 adds "-quick" to <kernel>, so that a quick run never overwrites
# a full one.) The CSV header is
#   table,cell,threads,gap,variant,median_ns,min_ns,max_ns,rounds,cpu_pct,
#   csw_per_1k,insns_per_iter
#
# Usage:
#   scripts/bench.sh            the full matrix (about 3 minutes on 2 cores)
#   QUICK=1 scripts/bench.sh    fewer rounds and iterations (about 1 minute)
#
# Every variant runs in the same boot, interleaved round by round: psem's
# release rules locked (always-locked), positive-balance (the rule of the
# original Rust pull request), positive-balance+flag and psem (waiters-bit,
# the shipped defaults),
# switched with its static keys between measurements, then kernel (struct
# semaphore, rw_semaphore, mutex) and floor (a bare compare-exchange pair).
#
# Two boots of the stock kernel:
#   1. TCG with -icount shift=0,sleep=off -smp 1, single-thread rows and
#      the latency table only: the guest clock advances one nanosecond per
#      instruction, so the ns per iteration it reports are instructions per
#      iteration, the same on every boot (insns_per_iter in the CSV). The
#      payload first sleeps PSEM_BENCH_ICOUNT_SETTLE seconds (guest time,
#      which sleep=off skips through when idle): on 6.12 and 7.3 something
#      in the guest runs for about two seconds after /init, and a
#      measurement it overlaps counts its instructions too (cpu_pct 35-75;
#      "8 reads + 1 write" 553 or 744 instead of 353 and 346).
#   2. MTTCG (or KVM with PSEM_BENCH_KVM=1) with -smp equal to the host's
#      CPUs: the single-thread rows, the contention cells and the latency
#      table in wall-clock ns (median_ns, min_ns, max_ns, cpu_pct,
#      csw_per_1k).
#
# The latency table is semaphore::async::release_to_grant: cells
# release_to_grant_async (variant psem: an asynchronous waiter's callback)
# and release_to_grant_sleeping (psem: a sleeping psem_acquire(); kernel:
# down() woken by up()), the ns from just before the release to the grant.
#
# Environment (all optional):
#   QUICK=1                  the reduced matrix
#   KVER                     the kernel to boot: a version installed in /boot
#                            with its headers, or a kind (6.1, 6.1-rt, 6.12,
#                            6.12-rt); default 6.1
#   PSEM_BENCH_SMP           guest CPUs for boot 2 (default: host CPUs)
#   PSEM_BENCH_THREADS       contention thread counts (default: 2, 4, 8, ...
#                            up to PSEM_BENCH_SMP)
#   PSEM_BENCH_ROUNDS, PSEM_BENCH_ITERS, PSEM_BENCH_SINGLE_ITERS,
#   PSEM_BENCH_ICOUNT_ROUNDS, PSEM_BENCH_ICOUNT_ITERS, PSEM_BENCH_GRANTS
#                            override the matrix's sizes (GRANTS: grants per
#                            round and kind in the latency table)
#   PSEM_BENCH_CELLS         cells to run (default all)
#   PSEM_BENCH_KVM=1         boot 2 under KVM instead of TCG (where it works)
#   PSEM_BENCH_ICOUNT_ONLY=1 boot 1 only: the instruction counts in about a
#                            minute, for iterating on the fast paths (files
#                            named <date>-<kernel>-icount.*)
#   PSEM_BENCH_ICOUNT_SETTLE seconds boot 1 sleeps before loading psem
#                            (default 5; 0: none, as before)
#   PSEM_BENCH_STATS=1       a third boot with psem's event counters on,
#                            printing fast/locked releases and lost races
#                            per contention cell (costs time, perturbs)
#   PSEM_BENCH_OUT           output directory (default bench/results)
#
# Never benchmark a lockdep, KCSAN or other debug kernel: a lock pair costs
# 30 to 70 times more instructions there. The script refuses such a tree.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$top"
start=$SECONDS

# The kernel: KVER= (make bench KVER=...) as scripts/stock-kernel.sh takes
# it, a version or a kind (6.1, 6.1-rt, 6.12, 6.12-rt); by default 6.1, the
# newest generic Debian 6.1 kernel, the stock kernel the fast-path targets are
# set on (the PREEMPT_RT and 6.12 kernels only on request).
stock_kernel "${KVER:-6.1}" || exit 2
KERNEL=$stock_image KDIR=$stock_kdir kver=$stock_ver
for opt in CONFIG_LOCKDEP CONFIG_KCSAN CONFIG_KASAN CONFIG_DEBUG_LOCK_ALLOC CONFIG_PROVE_LOCKING; do
	if grep -q "^$opt=y" "$KDIR/.config" 2>/dev/null; then
		echo "bench: $KDIR has $opt=y: benchmark only a production kernel" >&2
		exit 1
	fi
done

quick=${QUICK:-0}
[ "$quick" = 0 ] || [ "$quick" = 1 ] || { echo "bench: QUICK must be 0 or 1" >&2; exit 2; }
icount_only=${PSEM_BENCH_ICOUNT_ONLY:-0}
[ "$icount_only" = 0 ] || [ "$icount_only" = 1 ] ||
	{ echo "bench: PSEM_BENCH_ICOUNT_ONLY must be 0 or 1" >&2; exit 2; }
smp=${PSEM_BENCH_SMP:-$(nproc)}
if [ "$smp" -lt 2 ]; then
	echo "bench: contention cells need at least 2 CPUs (PSEM_BENCH_SMP=$smp)" >&2
	exit 2
fi
if [ -z "${PSEM_BENCH_THREADS:-}" ]; then
	threads=2
	n=4
	while [ "$n" -le "$smp" ]; do threads="$threads,$n"; n=$((n * 2)); done
else
	threads=$PSEM_BENCH_THREADS
fi

# The matrix's sizes, QUICK or full, each overridden by its PSEM_BENCH_*:
# rounds and iterations (contention, single-thread), the -icount boot's
# rounds and iterations, the latency table's grants; and the boots' timeouts.
if [ "$quick" = 1 ]; then
	sizes="11 50000 50000 3 5000 200 300 420" tag=-quick
else
	sizes="21 200000 200000 5 20000 1000 600 1500" tag=
fi
read -r rounds iters single_iters icount_rounds icount_iters grants \
	icount_timeout wall_timeout <<<"$sizes"
rounds=${PSEM_BENCH_ROUNDS:-$rounds}
iters=${PSEM_BENCH_ITERS:-$iters}
single_iters=${PSEM_BENCH_SINGLE_ITERS:-$single_iters}
icount_rounds=${PSEM_BENCH_ICOUNT_ROUNDS:-$icount_rounds}
icount_iters=${PSEM_BENCH_ICOUNT_ITERS:-$icount_iters}
grants=${PSEM_BENCH_GRANTS:-$grants}
icount_settle=${PSEM_BENCH_ICOUNT_SETTLE:-5}
case $icount_settle in
'' | *[!0-9]*) echo "bench: PSEM_BENCH_ICOUNT_SETTLE must be whole seconds" >&2; exit 2 ;;
esac
[ "$icount_only" = 0 ] || tag=$tag-icount
cells=${PSEM_BENCH_CELLS:-all}
out=${PSEM_BENCH_OUT:-$top/bench/results}
stem=$out/$(date +%F)-$kver$tag
work=$cache/work/bench-$kver
mkdir -p "$logdir" "$out"

# Build in a copy of the tree under the cache (lib.sh), so that no other
# build is touched; psem_bench.ko is a separate external module on top.
stage "bench: build psem.ko and psem_bench.ko against $KDIR"
build_modules "$KDIR" "$work"
make -s -C "$KDIR" M="$work/bench" KBUILD_EXTRA_SYMBOLS="$work/Module.symvers" modules 2>&1 |
	sed '/^Skipping BTF generation .* unavailability of vmlinux$/d'
[ -f "$work/bench/psem_bench.ko" ] || { echo "bench: psem_bench.ko was not built" >&2; exit 1; }
stage_done ok

# One boot per clock: the payload loads psem, runs the benchmark (it runs
# while psem_bench.ko loads) and unloads both. Console log: $logdir/bench-NAME.log.
boot() {	# NAME SMP QEMU_ARGS TIMEOUT KVM SETTLE PARAMS...
	local name=$1 bsmp=$2 qargs=$3 tmo=$4 kvm=$5 settle=$6 log=$logdir/bench-$1.log
	shift 6
	stage "bench: boot '$name': -smp $bsmp ${qargs:-${kvm:-MTTCG}}${kvm:+KVM}: $*"
	printf '%s\n' "sleep $settle" "insmod kmod/psem.ko || exit 1" \
		"insmod bench/psem_bench.ko $* || exit 1" \
		"rmmod psem_bench && rmmod psem" >"$work/bench-$name.sh"
	"$top/scripts/mkinitramfs.sh" -C "$work" "$work/bench-$name.cpio" \
		"$work/bench-$name.sh" kmod/psem.ko bench/psem_bench.ko
	if ! PSEM_QEMU_SMP=$bsmp PSEM_QEMU_ARGS=$qargs PSEM_QEMU_TIMEOUT=$tmo \
		PSEM_QEMU_KVM=${kvm:-0} \
		"$top/scripts/qemu-run.sh" "$KERNEL" "$work/bench-$name.cpio" "$log"; then
		stage_done FAILED
		return 1
	fi
	if ! scan_splats "$log" >&2; then
		stage_done "FAILED (console splat)"
		return 1
	fi
	# Keep only the benchmark's own lines, without printk timestamps.
	tr -d '\r' <"$log" | sed -n 's/^.*\(psem_bench: .*\)$/\1/p' >"$work/bench-$name.txt"
	stage_done ok
}

rc=0
args=()
# The instruction counts need QEMU's -icount, which needs single-threaded
# TCG; without them the tables still come out, with insns_per_iter empty.
if boot icount 1 "-icount shift=0,sleep=off" "$icount_timeout" "" "$icount_settle" \
	table=single,latency "cells=$cells" variants=all \
	"single_iters=$icount_iters" "rounds=$icount_rounds" "grants=$grants"; then
	cp "$work/bench-icount.txt" "$stem.icount.txt"
	args+=(--icount "$stem.icount.txt")
else
	echo "bench: the -icount boot failed: no instruction counts (see above)" >&2
	rc=1
fi
kvm=
[ "${PSEM_BENCH_KVM:-0}" = 1 ] && kvm=1
if [ "$icount_only" = 1 ]; then
	[ $rc = 0 ] || exit $rc
	python3 "$top/scripts/bench_table.py" "${args[@]}" --csv "$stem.csv" \
		--rounds-csv "$stem.rounds.csv" --md "$stem.md" \
		--title "psem on $kver: -icount -smp 1 only"
	echo "bench: wrote $stem.* in $((SECONDS - start))s" >&2
	exit 0
fi
boot wall "$smp" "" "$wall_timeout" "$kvm" 0 \
	table=all "cells=$cells" variants=all "threads=$threads" gaps=none,short,long \
	"iters=$iters" "single_iters=$single_iters" "rounds=$rounds" "grants=$grants"
cp "$work/bench-wall.txt" "$stem.wall.txt"
args+=(--wall "$stem.wall.txt")
if [ "${PSEM_BENCH_STATS:-0}" = 1 ]; then
	boot stats "$smp" "" "$wall_timeout" "$kvm" 0 \
		table=contention "cells=$cells" variants=locked,positive-balance,positive-balance+flag,psem \
		"threads=$threads" gaps=none,short,long \
		"iters=$iters" rounds=3 stats=1
	cp "$work/bench-stats.txt" "$stem.stats.txt"
	args+=(--stats "$stem.stats.txt")
fi

# (No plot without gnuplot: exit status 1, after the rest.)
python3 "$top/scripts/bench_table.py" "${args[@]}" --csv "$stem.csv" \
	--rounds-csv "$stem.rounds.csv" --md "$stem.md" --png "$stem.png" \
	--title "psem on $kver: QEMU ${kvm:+KVM}${kvm:-MTTCG} -smp $smp, -icount -smp 1${tag:+ (QUICK=1)}" ||
	rc=1
echo "bench: wrote $stem.* in $((SECONDS - start))s" >&2
exit $rc
