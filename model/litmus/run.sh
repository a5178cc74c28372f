#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run psem's litmus tests with herd7 against a kernel's tools/memory-model.
#
#   model/litmus/run.sh LKMM_DIR [TEST.litmus...]
#
# Compares each test's Observation (Never, Sometimes, Always) with the
# "Result:" its comment gives for that model: the v6.3+ result where
# LKMM_DIR/linux-kernel.cat defines rmw-sequence, the 6.1 one otherwise.
# Without herd7 it says so and succeeds: make check does not depend on it.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: run.sh LKMM_DIR [TEST.litmus...]" >&2; exit 2; }
lkmm=$(cd "$1" && pwd)
shift
if ! command -v herd7 >/dev/null; then
	echo "litmus: herd7 not installed; skipped"
	exit 0
fi
[ -f "$lkmm/linux-kernel.cfg" ] || { echo "litmus: no linux-kernel.cfg in $lkmm" >&2; exit 2; }
if grep -q 'rmw-sequence' "$lkmm/linux-kernel.cat"; then
	model=v6.3
else
	model=6.1
fi
[ $# -gt 0 ] || set -- "$here"/*.litmus

# expected FILE: Never or Sometimes for $model.
expected() {
	local line
	line=$(sed -n 's/^ \* *\(Result: .*\)$/\1/p; s/^ \* *\(.* under the LKMM of .*\)$/\1/p' "$1")
	if grep -q 'every LKMM' <<<"$line"; then
		sed -n 's/^Result: \([A-Za-z]*\).*/\1/p' <<<"$line" | head -n1
	elif [ $model = v6.3 ]; then
		grep -o '[A-Za-z]* under the LKMM of v6.3' <<<"$line" | head -n1 | cut -d' ' -f1
	else
		grep -o '[A-Za-z]* under the LKMM of 6.1' <<<"$line" | head -n1 | cut -d' ' -f1
	fi
}

bad=0
for t in "$@"; do
	want=$(expected "$t")
	got=$(cd "$lkmm" && herd7 -conf linux-kernel.cfg "$t" 2>&1 |
		sed -n 's/^Observation [^ ]* \([A-Za-z]*\) .*/\1/p')
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		echo "litmus ($model): $(basename "$t"): $got, as expected"
	else
		echo "litmus ($model): $(basename "$t"): herd7 says '${got:-nothing}', expected '${want:-?}'"
		bad=1
	fi
done
exit $bad
