#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make bench-native`: the contention probe and single-thread rows of the
# original Rust pull request on this machine's real cores. Builds the
# unmodified kmod/ sources natively (-O2, no sanitizer) against the
# userspace shim with the native overrides (tools/psem-user/native/), runs
# psem's four release rules (locked, positive-balance,
# positive-balance+flag, psem) interleaved round by round with glibc's
# sem_t, pthread_rwlock/pthread_mutex, a mutex+condvar counting semaphore
# and the floor, and writes under bench/results/:
#
#   <date>-native.csv          one row per cell and variant, the columns of
#                              `make bench`'s CSV (insns_per_iter where the
#                              machine counts instructions)
#   <date>-native.rounds.csv   every round, for the per-round ratios
#   <date>-native.md           the tables, also printed on stdout
#   <date>-native.png          grouped bars per cell, min-max whiskers
#   <date>-native.txt          the harness's records, from which
#                              scripts/bench_table.py --native
#                              remakes all of the above (and .stats.txt:
#                              psem's event counters, a separate short run)
#   <date>-native.shapes.txt   psem-shapes at 2 threads (the release's
#                              atomics by shape on a bare word, beside
#                              sem_t; Documentation/benchmarks.rst)
#
# QUICK=1 names them <date>-native-quick.* and runs fewer rounds. Runs
# nothing as root and loads nothing: it is an ordinary process whose
# threads are pinned to the CPUs of its affinity mask.
#
# Environment (all optional):
#   QUICK=1                    5 rounds of 50,000 iterations (default: 15 of
#                              200,000, the pull request's probe)
#   PSEM_NATIVE_ROUNDS, PSEM_NATIVE_ITERS, PSEM_NATIVE_SINGLE_ITERS
#   PSEM_NATIVE_THREADS        contention thread counts (default 1, 2, then
#                              4, 8, ... and the CPU count, up to the CPUs
#                              of the affinity mask)
#   PSEM_NATIVE_CELLS          cells (default all)
#   PSEM_NATIVE_COMMIT         build kmod/ as committed at this revision
#                              (git archive), not the working tree's
#   PSEM_NATIVE_KSRC           the kmod/ to build (default this tree's)
#   PSEM_NATIVE_QUIET=1        before measuring, wait until the 1-minute load
#                              average is below PSEM_NATIVE_QUIET_LOAD
#                              (default 1.5), polling every 30 s for at most
#                              20 minutes, and go on regardless after that
#   PSEM_NATIVE_STATS=0        no event-counter run (default 1: 3 rounds of
#                              the contention cells at 2 threads or more
#                              with psem's statistics on, which perturbs
#                              them; their timings are not used)
#   PSEM_NATIVE_SHAPES=0       no psem-shapes run (default 1, where the mask
#                              has 2 CPUs: the run's rounds and iterations)
#   PSEM_NATIVE_PROFILE=1      also `perf record` psem, positive-balance
#                              and locked in the 2-thread RwLock read cell
#                              where perf works,
#                              into <stem>.perf-*.txt
#   PSEM_NATIVE_SMOKE=1        build, run one round of every cell with few
#                              iterations, and one of psem-shapes where
#                              there are 2 CPUs, check the primitives and
#                              the words, write no files; prints
#                              "native: built, one round of N cells ran"
#                              (make check's stage)
#   PSEM_NATIVE_TCG            a `make bench` .rounds.csv to set the native
#                              speedups beside (default: the newest QUICK
#                              one in bench/results by name, else the
#                              newest full one; "none" for none)
#   PSEM_BENCH_OUT             output directory (default bench/results)
set -euo pipefail
# All of it in one compound command, read before any of it runs: the run
# may wait twenty minutes for a quiet machine, and an edit of this file in
# the meantime must not change what the waiting run does.
{
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$top"
start=$SECONDS

native=$top/tools/psem-user/native
work=$(mktemp -d "${TMPDIR:-/tmp}/psem-native.XXXXXX")
trap 'rm -rf "$work"' EXIT
ksrc=${PSEM_NATIVE_KSRC:-$top/kmod}
if [ -n "${PSEM_NATIVE_COMMIT:-}" ]; then
	rev=$(git -C "$top" rev-parse --short "$PSEM_NATIVE_COMMIT")
	mkdir -p "$work/src"
	git -C "$top" archive "$rev" kmod | tar -x -C "$work/src"
	ksrc=$work/src/kmod
	what="kmod/ at $rev"
elif [ "$ksrc" = "$top/kmod" ]; then
	what="kmod/ of the working tree at $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')"
	if git -C "$top" status --porcelain -- kmod 2>/dev/null | grep -q .; then
		what="$what, with uncommitted changes"
	fi
else
	what=$ksrc
fi

# The CPUs of the affinity mask, which is what the harness pins to.
ncpu=$(nproc)
threads=${PSEM_NATIVE_THREADS:-}
if [ -z "$threads" ]; then
	threads=1
	[ "$ncpu" -lt 2 ] || threads=1,2
	n=4
	while [ "$n" -le "$ncpu" ]; do threads=$threads,$n; n=$((n * 2)); done
	case ",$threads," in *",$ncpu,"*) ;; *) threads=$threads,$ncpu ;; esac
fi

build() {
	if ! make -s -C "$native" KSRC="$ksrc" O="$work/build" >"$work/build.log" 2>&1; then
		cat "$work/build.log" >&2
		return 1
	fi
	grep -v '^make' "$work/build.log" >&2 || true
}

if [ "${PSEM_NATIVE_SMOKE:-0}" = 1 ]; then
	build || { echo "native: the build failed"; exit 1; }
	if ! "$work/build/psem-bench-native" --threads "$threads" --rounds 1 \
		--iters 2000 --single-iters 2000 --insns >"$work/smoke.txt"; then
		tail -n 5 "$work/smoke.txt" >&2
		echo "native: built, but the run failed"
		exit 1
	fi
	cells=$(sed -n 's/^psem_bench: end,ok,.*,cells=\([0-9]*\),.*$/\1/p' "$work/smoke.txt")
	[ -n "$cells" ] || { echo "native: built, but the run did not end ok"; exit 1; }
	if [ "$ncpu" -ge 2 ] && ! "$work/build/psem-shapes" --threads 2 --rounds 1 \
		--iters 2000 >"$work/shapes.txt" 2>&1; then
		tail -n 5 "$work/shapes.txt" >&2
		echo "native: built, but psem-shapes failed"
		exit 1
	fi
	echo "native: built, one round of $cells cells ran"
	exit 0
fi

quick=${QUICK:-0}
[ "$quick" = 0 ] || [ "$quick" = 1 ] || { echo "bench-native: QUICK must be 0 or 1" >&2; exit 2; }
if [ "$quick" = 1 ]; then
	rounds=${PSEM_NATIVE_ROUNDS:-5}
	iters=${PSEM_NATIVE_ITERS:-50000}
	single_iters=${PSEM_NATIVE_SINGLE_ITERS:-50000}
	tag=-native-quick
else
	rounds=${PSEM_NATIVE_ROUNDS:-15}
	iters=${PSEM_NATIVE_ITERS:-200000}
	single_iters=${PSEM_NATIVE_SINGLE_ITERS:-200000}
	tag=-native
fi
cells=${PSEM_NATIVE_CELLS:-all}
out=${PSEM_BENCH_OUT:-$top/bench/results}
stem=$out/$(date +%F)$tag
mkdir -p "$out"

stage "bench-native: build $what against the shim"
build || { stage_done FAILED; exit 1; }
stage_done ok
bin=$work/build/psem-bench-native

load1() { cut -d' ' -f1 /proc/loadavg; }
if [ "${PSEM_NATIVE_QUIET:-0}" = 1 ]; then
	limit=${PSEM_NATIVE_QUIET_LOAD:-1.5}
	stage "bench-native: wait for the load average to drop below $limit"
	waited=0
	while awk -v l="$(load1)" -v m="$limit" 'BEGIN { exit !(l >= m) }'; do
		if [ $waited -ge 1200 ]; then
			echo "bench-native: load still $(load1) after 20 minutes: measuring anyway" >&2
			break
		fi
		sleep 30
		waited=$((waited + 30))
	done
	stage_done "load $(load1)"
fi

model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n1)
perf_insns="no perf"
if command -v perf >/dev/null; then
	if perf stat -x, -e instructions:u true 2>&1 >/dev/null | grep -q 'not supported'; then
		perf_insns="perf stat -e instructions: not supported"
	else
		perf_insns="perf stat -e instructions: counts"
	fi
fi
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
stage "bench-native: $rounds rounds, $iters iterations (single rows $single_iters), threads $threads"
"$bin" --threads "$threads" --cells "$cells" --rounds "$rounds" \
	--iters "$iters" --single-iters "$single_iters" --insns >"$stem.txt"
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
stage_done ok
args=()
# The counters where threads contend: every thread count but 1.
sthreads=$(echo "$threads" | tr ',' '\n' | awk '$1 > 1' | paste -sd, -)
if [ "${PSEM_NATIVE_STATS:-1}" = 1 ] && [ -n "$sthreads" ]; then
	stage "bench-native: event counters (3 rounds, statistics on)"
	"$bin" --table contention --threads "$sthreads" --cells "$cells" \
		--variants locked,positive-balance,positive-balance+flag,psem --rounds 3 \
		--iters "$iters" --stats >"$stem.stats.txt"
	args+=(--stats "$stem.stats.txt")
	stage_done ok
fi

shapes=
if [ "${PSEM_NATIVE_SHAPES:-1}" = 1 ] && [ "$ncpu" -ge 2 ]; then
	stage "bench-native: psem-shapes, 2 threads"
	shapes=$stem.shapes.txt
	"$work/build/psem-shapes" --threads 2 --rounds "$rounds" \
		--iters "$iters" >"$shapes"
	stage_done ok
fi

if [ "${PSEM_NATIVE_PROFILE:-0}" = 1 ] && command -v perf >/dev/null; then
	for v in psem positive-balance locked; do
		stage "bench-native: perf record, RwLock read, 2 threads, $v"
		if perf record -q -o "$work/perf.data" -g -- "$bin" --table contention \
			--cells rwlock_read --threads 2 --gaps none --variants "$v" \
			--rounds 3 --iters "$iters" >/dev/null 2>"$work/perf.err" &&
		   perf report -i "$work/perf.data" --stdio --no-children \
			--percent-limit 2 --sort symbol 2>/dev/null |
			sed -n '/^#/d;/^$/d;p' | head -n 40 >"$stem.perf-$v.txt"; then
			stage_done ok
		else
			stage_done "skipped ($(head -n1 "$work/perf.err"))"
		fi
	done
fi

tcg=${PSEM_NATIVE_TCG:-}
if [ -z "$tcg" ]; then
	tcg=$(find "$top/bench/results" -maxdepth 1 -name '*-quick.rounds.csv' \
		! -name '*native*' ! -name '*icount*' | sort | tail -n1)
	[ -n "$tcg" ] || tcg=$(find "$top/bench/results" -maxdepth 1 -name '*.rounds.csv' \
		! -name '*native*' ! -name '*icount*' | sort | tail -n1)
fi
[ "$tcg" = none ] || [ -z "$tcg" ] || args+=(--tcg "$tcg")

title="psem native: $model, nproc $ncpu"
[ "$quick" = 0 ] || title="$title (QUICK=1)"
# (No plot without gnuplot: exit status 1, after the rest.)
rc=0
python3 "$top/scripts/bench_table.py" --native "$stem.txt" "${args[@]}" \
	--csv "$stem.csv" --rounds-csv "$stem.rounds.csv" --md "$stem.md" \
	--png "$stem.png" --title "$title" \
	--note "CPU: $model; nproc $ncpu; threads pinned one per CPU" \
	--note "load average (1, 5, 15 min): $load_start at the start, $load_end at the end" \
	--note "instruction counter: $perf_insns" \
	--note "built: $what, -O2, against tools/psem-user's shim with native/include first" ||
	rc=1
[ -z "$shapes" ] || cat "$shapes"
echo "bench-native: wrote $stem.* in $((SECONDS - start))s" >&2
exit $rc
}
