#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A/B benchmark: XFS on struct semaphore (the unpatched xfs.ko) against XFS
# with its buffer lock on psem (examples/xfs), the same workload in QEMU
# (scripts/guest-xfs.sh: stress-ng dir, dentry, rename and chmod stressors,
# a fixed number of bogo operations each, on a fresh filesystem per round).
#
#   make bench-xfs    or    scripts/bench-xfs.sh
#
# The psem xfs.ko is built by scripts/xfs-build.sh against the stock
# kernel's headers (7.3: the tree build-kernel.sh --stock prepares). The
# stock side (PSEM_BENCH_XFS_STOCK) is either "built", the same source
# unpatched, built the same way (same compiler), or "own", the kernel's own
# xfs.ko as Debian ships it (7.3: from linux-modules-<ver>, which
# scripts/fetch-7x.sh unpacks; built by Debian's compiler, so the build
# differences are part of the ratio). Default: own on 7.3, built on the
# others. The results name the stock side and compare the two xfs.ko
# (vermagic, compiler, text size). Two measurements:
#   1. instruction counts: PSEM_BENCH_XFS_ICOUNT boots of each (default
#      1), interleaved, under -icount shift=0,sleep=off -smp 1, where the
#      guest's ktime advances one ns per instruction: the ktime delta
#      around the workload is its instruction count (not quite the same
#      from boot to boot: the stressors' processes and the buffer lock's
#      sleeps vary; 0.6-0.7% seen over 3 boots on 6.12 and 7.3.4);
#   2. wall clock: PSEM_BENCH_XFS_ROUNDS boots of each under MTTCG -smp 2,
#      interleaved (stock, psem, stock, psem, ...), the guest's ktime delta
#      around the workload each time.
# Reports medians with min and max, the psem/stock ratios, and psem's stats
# (lock-free releases, locked releases, sleeps) for the runs, in
# bench/results/<date>-xfs-<kernel>.{md,csv} (<date>-xfs-<kernel>-<side>
# where PSEM_BENCH_XFS_STOCK picks the side that is not the kernel's
# default).
#
# Environment: PSEM_BENCH_XFS_KERNEL (a stock kernel as stock-kernel.sh
# names it, e.g. 6.12 or 7.3; default 6.12), PSEM_BENCH_XFS_STOCK (own or
# built, see above), PSEM_BENCH_XFS_ICOUNT (default 1),
# PSEM_BENCH_XFS_ROUNDS (default 5),
# PSEM_BENCH_XFS_OPS (bogo operations per stressor, default 2000),
# PSEM_XFS_FIO=1 to add fio to the workload.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

kernel=${PSEM_BENCH_XFS_KERNEL:-6.12}
rounds=${PSEM_BENCH_XFS_ROUNDS:-5}
icount=${PSEM_BENCH_XFS_ICOUNT:-1}
export PSEM_XFS_OPS=${PSEM_BENCH_XFS_OPS:-2000} PSEM_XFS_ROUNDS=1
work=$cache/work/bench-xfs
mkdir -p "$work" "$top/bench/results"

stock_kernel "$kernel"
case $stock_ver in 7.3.*) default_side=own ;; *) default_side=built ;; esac
stock_side=${PSEM_BENCH_XFS_STOCK:-$default_side}
case $stock_side in
own) [ "${stock_ver%%.*}" != 7 ] || "$top/scripts/fetch-7x.sh" --modules ;;
built) ;;
*) echo "bench-xfs: PSEM_BENCH_XFS_STOCK is own or built" >&2; exit 2 ;;
esac

# The two xfs.ko, decompressed, are kept beside the images for xfs_ko_info.
for v in stock psem; do
	iv=$v
	[ "$v:$stock_side" != stock:own ] || iv=own
	img=$("$top/scripts/check-xfs.sh" --image "$iv" "$kernel" "$work/$v.cpio") ||
		{ echo "bench-xfs: building the $v image failed" >&2; exit 1; }
	image=$(sed -n 's/^KERNEL=//p' <<<"$img")
	ko=$(sed -n 's/^XFS_KO=//p' <<<"$img")
	case $ko in
	*.xz) xz -dc "$ko" >"$work/$v.xfs.ko" ;;
	*) cp "$ko" "$work/$v.xfs.ko" ;;
	esac
	echo "$ko" >"$work/$v.xfs.ko.from"
done
kver=$(image_version "$image")

# boot VARIANT MODE N: one boot; appends "mode,variant,n,ktime_ns,stats..."
# to the raw CSV.
raw=$work/raw.csv
echo "mode,variant,boot,ktime_ns,ops,fast_release,locked_release,sleep" >"$raw"
boot() {
	local v=$1 mode=$2 n=$3 log=$work/$1-$2-$3.log
	if [ "$mode" = icount ]; then
		PSEM_QEMU_SMP=1 PSEM_QEMU_ARGS="-icount shift=0,sleep=off" \
			PSEM_QEMU_TIMEOUT=1800 "$top/scripts/qemu-run.sh" "$image" "$work/$v.cpio" "$log"
	else
		PSEM_QEMU_SMP=2 PSEM_QEMU_TIMEOUT=1800 "$top/scripts/qemu-run.sh" "$image" "$work/$v.cpio" "$log"
	fi || { echo "bench-xfs: the $v $mode boot $n failed" >&2; return 1; }
	scan_splats "$log" || return 1
	local ns ops st
	ns=$(log_part "$log" "WORK 1" | sed -n 's/^ktime_ns //p')
	ops=$(tr -d '\r' <"$log" | awk '/stress-ng: metrc: \[[0-9]+\] (dir|dentry|rename|chmod) +[0-9]+ / {
		for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) { n += $(i + 2); break } } END { print n + 0 }')
	st=$(log_part "$log" "STATS-AFTER 1" |
		awk '{ v[$1] = $2 } END { printf "%s,%s,%s", v["fast_release"] + 0, v["locked_release"] + 0, v["sleep"] + 0 }')
	echo "$mode,$v,$n,$ns,$ops,$st" >>"$raw"
	echo "bench-xfs: $mode $v boot $n: ${ns} ns, $ops ops" >&2
}

for n in $(seq 1 "$icount"); do
	for v in stock psem; do boot "$v" icount "$n"; done
done
for n in $(seq 1 "$rounds"); do
	for v in stock psem; do boot "$v" wall "$n"; done
done

stem=$top/bench/results/$(date -u +%F)-xfs-$kver
[ "$stock_side" = "$default_side" ] || stem+=-$stock_side
cp "$raw" "$stem.csv"
# xfs_ko_info V: one table row on the V side's xfs.ko: where it came from,
# vermagic, compiler (.comment), size(1)'s text, data and bss, and .text.
xfs_ko_info() {
	local ko=$work/$1.xfs.ko from text data bss tsec cc vm
	from=$(cat "$work/$1.xfs.ko.from")
	from=${from#"$cache/"}
	from=${from#"$top/"}
	read -r text data bss _ < <(size "$ko" | sed -n 2p)
	tsec=$(objdump -h "$ko" | awk '$2 == ".text" { print $3 }')
	tsec=$((16#${tsec:-0}))
	cc=$(readelf -p .comment "$ko" 2>/dev/null | sed -n 's/^ *\[ *[0-9a-f]*\] *//p' |
		grep -m1 GCC || echo '?')
	vm=$(modinfo -F vermagic "$ko" | sed 's/ *$//')
	echo "| $1 | $from | $vm | $cc | $text | $data | $bss | $tsec |"
}
{
	echo "| side | xfs.ko | vermagic | compiler | text | data | bss | .text |"
	echo "|---|---|---|---|---|---|---|---|"
	xfs_ko_info stock
	xfs_ko_info psem
} >"$work/ko.md"

python3 - "$raw" "$kver" "$PSEM_XFS_OPS" "$rounds" "$stock_side" "$work/ko.md" "$icount" >"$stem.md" <<'PY'
import csv, statistics, sys

raw, kver, ops, rounds, side, komd, icount = sys.argv[1:]
rows = list(csv.DictReader(open(raw)))

def vals(mode, v, key="ktime_ns"):
    return [int(r[key]) for r in rows if r["mode"] == mode and r["variant"] == v]

print(f"# XFS's buffer lock: struct semaphore (stock) vs psem, {kver}\n")
print(f"stress-ng dir, dentry, rename, chmod: {ops} bogo ops each per boot; "
      f"{icount} instruction-count and {rounds} wall-clock boots of each, interleaved.\n")
if side == "own":
    print("stock: the kernel's own xfs.ko, as Debian built it; psem: "
          "examples/xfs on the same release's source, built here by "
          "scripts/xfs-build.sh (the build differences are in the ratio).\n")
else:
    print("stock: the same source unpatched, built by scripts/xfs-build.sh "
          "like the psem one (same compiler, same headers).\n")
print("| measure | stock median (min-max) | psem median (min-max) | psem/stock |")
print("|---|---|---|---|")
for mode, unit, div in (("icount", "instructions (M)", 1e6), ("wall", "guest ktime (ms)", 1e6)):
    a, b = vals(mode, "stock"), vals(mode, "psem")
    if not a or not b:
        continue
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"| {mode}: {unit} | {ma / div:.1f} ({min(a) / div:.1f}-{max(a) / div:.1f}) "
          f"| {mb / div:.1f} ({min(b) / div:.1f}-{max(b) / div:.1f}) | {mb / ma:.4f} |")
print()
print("psem's stats in the psem boots (the buffer lock is psem's only user there):\n")
print("| boot | ops | lock-free releases | locked releases | sleeps |")
print("|---|---|---|---|---|")
for r in rows:
    if r["variant"] == "psem":
        print(f"| {r['mode']} {r['boot']} | {r['ops']} | {r['fast_release']} "
              f"| {r['locked_release']} | {r['sleep']} |")
print("\nThe two xfs.ko (size(1)'s text includes .text, .init.text, .exit.text "
      "and read-only data):\n")
print(open(komd).read(), end="")
PY
cat "$stem.md"
echo "bench-xfs: results in $stem.md and $stem.csv"
