#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check's litmus stage: model/litmus/run.sh with the memory model of
# each supported series' source (linux-source-6.1, -6.12, -7.3), with sid's
# herd7 where none is installed (scripts/setup.sh fetches it). Prints each
# test's line and one summary line per LKMM:
#
#   litmus (LKMM of 6.1.N, 6.1 rules): 20 tests, all as expected
#
# Fails if herd7 cannot run or any test's Observation differs from the
# result its comment gives for that model.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

export PSEM_LITMUS_REQUIRE=1
bad=0
for pkg in ${PSEM_LITMUS_SOURCES:-linux-source-6.1 linux-source-6.12 linux-source-7.3}; do
	src=$("$top/scripts/build-kernel.sh" --source "$pkg")
	ver=$(make -s -C "$src" kernelversion)
	rc=0
	out=$("$top/model/litmus/run.sh" "$src/tools/memory-model") || rc=$?
	echo "$out" | sed 's/^/  /'
	n=$(grep -c '^litmus (' <<<"$out" || true)
	good=$(grep -c ', as expected$' <<<"$out" || true)
	rules=$(sed -n '1s/^litmus (\([^)]*\)).*/\1/p' <<<"$out")
	if [ $rc = 0 ] && [ "$n" -gt 0 ] && [ "$good" = "$n" ]; then
		echo "litmus (LKMM of $ver, $rules rules): $n tests, all as expected"
	else
		echo "litmus (LKMM of $ver): $good of $n tests as expected (run.sh exit $rc)"
		bad=1
	fi
done
exit $bad
