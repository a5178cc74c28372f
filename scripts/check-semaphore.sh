#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# struct semaphore on psem's word: the series' RFC patch (the two files
# upstream/semaphore.[ch]) against Linux 7.3.4 unpatched, both built from
# configs/sem-7.3.config, a small configuration without lock debugging
# (scripts/build-kernel.sh sem-7.3 and sem-7.3-unpatched, W=1, cached).
#
#   scripts/check-semaphore.sh           make check's part
#   scripts/check-semaphore.sh --bench   the comparison for benchmarks.rst
#
# make check's part (check.sh's series stage; KUnit and the torture run on
# the patched kernel in the kunit and torture stages, as sem-7.3):
#   - sizeof(struct semaphore) on each (scripts/sizes.sh);
#   - the instructions of down_trylock() + up() and down() + up() on each:
#     psem_bench's "kernel" rows try_acquire_release and acquire_release,
#     one -icount boot of each (scripts/bench.sh, PSEM_BENCH_ICOUNT_ONLY=1
#     QUICK=1, into $cache/work/semaphore);
#   - unmodified XFS on the patched kernel, its b_sema now on the word
#     (scripts/check-xfs.sh with PSEM_XFS_VARIANT=own: mkfs, the stress-ng
#     workload, xfs_repair -n; XFS_DEBUG asserts xfs_buf_islocked(), which
#     reads b_sema.count, all over);
# and prints
#   semaphore on psem (<release>): down_trylock+up N -> M insns; down+up
#   N -> M insns; sizeof(struct semaphore) N (was N); xfs N ops, repair
#   clean, 0 splats
# The unpatched side's figures (the N) depend on nothing but the pristine
# source, the configuration, the benchmark module and the compiler: --bench
# records them in bench/results/semaphore-unpatched.txt under a key of
# those, and make check's part takes them from there while the key holds
# (saying so), rather than build a second kernel (about six minutes here)
# to measure them again. Where it does not hold, it builds and measures
# both, as --bench does.
# --bench adds the XFS workload's instructions: PSEM_SEM_BENCH_BOOTS
# (default 3) -icount boots of each kernel, interleaved (the guest's ktime
# delta around the workload, PSEM_XFS_OPS bogo operations per stressor,
# default 2000), and writes bench/results/<date>-semaphore.md with the
# bench rows of both kernels side by side.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

bench=0
case ${1:-} in
'') ;;
--bench) bench=1 ;;
*) echo "usage: check-semaphore.sh [--bench]" >&2; exit 2 ;;
esac
work=$cache/work/semaphore
mkdir -p "$work" "$logdir"
u=sem-7.3-unpatched p=sem-7.3
sides="$u $p"
ok=0
declare -A rel size insns

# The record of the unpatched side, and the key it must carry to count.
record=$top/bench/results/semaphore-unpatched.txt
rkey=$( { basename "$("$top/scripts/build-kernel.sh" --dir $u)"
	  cat "$top"/bench/Kbuild "$top"/bench/*.[ch]; gcc --version | head -n 1; } |
	sha256sum | cut -c1-12)
# rec FIELD: a field of the record.
rec() { sed -n "s/^$1 //p" "$record" 2>/dev/null; }
recorded=''
if [ $bench = 0 ] && [ "$(rec key)" = "$rkey" ]; then
	recorded=" (7.3.4 unpatched: recorded by make bench-semaphore, ${record#"$top"/})"
	sides=$p
	rel[$u]=$(rec release) size[$u]=$(rec sizeof)
	insns[$u:try_acquire_release]=$(rec try_acquire_release)
	insns[$u:acquire_release]=$(rec acquire_release)
elif [ $bench = 0 ]; then
	echo "semaphore: ${record#"$top"/} is for another build, benchmark module or compiler" \
		"(key $(rec key), now $rkey): measuring both sides; make bench-semaphore records them"
fi

for k in $sides; do
	kdir=$("$top/scripts/build-kernel.sh" "$k") || { echo "semaphore: $k does not build"; exit 1; }
	rel[$k]=$(cat "$kdir/include/config/kernel.release")
	size[$k]=$(bash "$top/scripts/sizes.sh" "$kdir" | sed -n 's/.*struct semaphore \([0-9]*\),.*/\1/p')
	[ -n "${size[$k]}" ] || { echo "semaphore: no sizeof(struct semaphore) for $k"; exit 1; }
done

# The kernel rows of one -icount boot of each (QUICK: a minute a boot).
for k in $sides; do
	rm -rf "${work:?}/$k" && mkdir -p "$work/$k"
	if ! PSEM_BENCH_ICOUNT_ONLY=1 QUICK=${PSEM_SEM_BENCH_QUICK:-1} PSEM_BENCH_OUT="$work/$k" KVER=$k \
		bash "$top/scripts/bench.sh" >"$logdir/semaphore-bench-$k.log" 2>&1; then
		tail -n 20 "$logdir/semaphore-bench-$k.log"
		echo "semaphore: the instruction-count boot of $k failed ($logdir/semaphore-bench-$k.log)"
		exit 1
	fi
	for c in try_acquire_release acquire_release; do
		# insns_per_iter, the last column, rounded.
		insns[$k:$c]=$(awk -F, -v c="$c" '$1 == "single" && $2 == c && $5 == "kernel" {
			printf "%d", $NF + 0.5 }' "$work/$k"/*-icount.csv)
		[ -n "${insns[$k:$c]}" ] || { echo "semaphore: no $c row for $k"; exit 1; }
	done
done

# Unmodified XFS on the patched kernel.
xfs=$(PSEM_XFS_VARIANT=own bash "$top/scripts/check-xfs.sh" sem-7.3 2>&1) || ok=1
grep -v '^xfs (own xfs.ko)' <<<"$xfs" || true
xline=$(sed -n 's/^xfs (own xfs\.ko) ([^)]*): //p' <<<"$xfs")

line="semaphore on psem (${rel[$p]}): down_trylock+up ${insns[$u:try_acquire_release]} ->"
line+=" ${insns[$p:try_acquire_release]} insns; down+up ${insns[$u:acquire_release]} ->"
line+=" ${insns[$p:acquire_release]} insns; sizeof(struct semaphore) ${size[$p]} (was ${size[$u]});"
line+=" xfs ${xline:-FAILED}"
[ $ok = 0 ] || line+=" (FAILED)"
echo "$line$recorded"
[ $bench = 1 ] || exit $ok

# --bench: the XFS workload's instructions, interleaved boots of each.
boots=${PSEM_SEM_BENCH_BOOTS:-3}
export PSEM_XFS_OPS=${PSEM_XFS_OPS:-2000} PSEM_XFS_ROUNDS=1
csv=$work/xfs.csv
echo "kernel,boot,ktime_ns,ops" >"$csv"
for k in $sides; do
	PSEM_XFS_OPS=$PSEM_XFS_OPS bash "$top/scripts/check-xfs.sh" --image own "$k" "$work/xfs-$k.cpio" >/dev/null
done
for n in $(seq 1 "$boots"); do
	for k in $sides; do
		log=$work/xfs-$k-$n.log
		kdir=$("$top/scripts/build-kernel.sh" "$k")
		PSEM_QEMU_SMP=1 PSEM_QEMU_ARGS="-icount shift=0,sleep=off" PSEM_QEMU_TIMEOUT=1800 \
			"$top/scripts/qemu-run.sh" "$kdir/arch/x86/boot/bzImage" "$work/xfs-$k.cpio" "$log" ||
			{ echo "semaphore: the $k XFS boot $n failed ($log)"; exit 1; }
		scan_splats "$log" || exit 1
		ns=$(log_part "$log" "WORK 1" | sed -n 's/^ktime_ns //p')
		echo "$k,$n,$ns,$(xfs_ops "$log")" >>"$csv"
		echo "semaphore: $k XFS boot $n: $ns instructions"
	done
done
stem=$top/bench/results/$(date -u +%F)-semaphore
python3 - "$csv" "$work/$u"/*-icount.csv "$work/$p"/*-icount.csv "${rel[$u]}" "${rel[$p]}" \
	"${size[$u]}" "${size[$p]}" "$PSEM_XFS_OPS" >"$stem.md" <<'PY'
import csv, statistics, sys

xfs, bu, bp, ru, rp, su, sp, ops = sys.argv[1:]
print(f"# struct semaphore on psem's word: {rp} against {ru}\n")
print("Both built from configs/sem-7.3.config (no lock debugging), in QEMU "
      "-icount shift=0,sleep=off -smp 1: instructions.\n")
print(f"sizeof(struct semaphore): {su} -> {sp} bytes.\n")
rows = {}
for side, f in (("u", bu), ("p", bp)):
    for r in csv.DictReader(open(f)):
        if r["variant"] == "kernel" and r["insns_per_iter"]:
            rows.setdefault((r["table"], r["cell"]), {})[side] = float(r["insns_per_iter"])
print("| psem_bench row, kernel variant | unpatched | patched | ratio |")
print("|---|---|---|---|")
for (t, c), v in sorted(rows.items()):
    if "u" in v and "p" in v:
        print(f"| {t} {c} | {v['u']:.2f} | {v['p']:.2f} | {v['p'] / v['u']:.3f} |")
x = list(csv.DictReader(open(xfs)))
a = [int(r["ktime_ns"]) for r in x if r["kernel"].endswith("-unpatched")]
b = [int(r["ktime_ns"]) for r in x if not r["kernel"].endswith("-unpatched")]
print(f"\nXFS workload (unmodified XFS, stress-ng {ops} bogo ops per stressor), "
      f"{len(a)} boots of each, interleaved, millions of instructions:\n")
print("| kernel | median (min-max) | ops |")
print("|---|---|---|")
for name, v in ((ru, a), (rp, b)):
    o = sorted({r["ops"] for r in x if (r["kernel"].endswith("-unpatched")) == (v is a)})
    print(f"| {name} | {statistics.median(v) / 1e6:.1f} ({min(v) / 1e6:.1f}-{max(v) / 1e6:.1f}) "
          f"| {', '.join(o)} |")
print(f"\npatched/unpatched, medians: {statistics.median(b) / statistics.median(a):.4f}")
PY
cp "$csv" "$stem.xfs.csv"
{
	echo "# Written by scripts/check-semaphore.sh --bench: the unpatched side of"
	echo "# make check's semaphore line, for as long as the key holds."
	echo "key $rkey"
	echo "release ${rel[$u]}"
	echo "sizeof ${size[$u]}"
	echo "try_acquire_release ${insns[$u:try_acquire_release]}"
	echo "acquire_release ${insns[$u:acquire_release]}"
} >"$record"
cat "$stem.md"
echo "semaphore: results in $stem.md"
