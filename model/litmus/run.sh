#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run psem's litmus tests with herd7 against a kernel's tools/memory-model.
#
#   model/litmus/run.sh LKMM_DIR [TEST.litmus...]
#
# Compares each test's Observation (Never, Sometimes, Always) with the
# "Result:" its comment gives for that model: the v6.3+ result where
# LKMM_DIR/linux-kernel.cat defines rmw-sequence, the 6.1 one otherwise.
# herd7 is the installed one, else sid's herdtools7 that scripts/fetch-7x.sh
# unpacked (run through sid's glibc by scripts/sid-run.sh, with -I at its
# unpacked share/herdtools7/herd). Without either it says so and exits 0,
# unless PSEM_LITMUS_REQUIRE=1 (scripts/check-litmus.sh, in make check).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
sidrun=$here/../../scripts/sid-run.sh
[ $# -ge 1 ] || { echo "usage: run.sh LKMM_DIR [TEST.litmus...]" >&2; exit 2; }
lkmm=$(cd "$1" && pwd)
shift
if command -v herd7 >/dev/null; then
	herd=(herd7)
elif "$sidrun" --check herdtools7 herd7 2>/dev/null; then
	share=$("$here/../../scripts/fetch-7x.sh" --dir herdtools7)/usr/share/herdtools7/herd
	herd=("$sidrun" herdtools7 herd7 -I "$share")
elif [ "${PSEM_LITMUS_REQUIRE:-0}" = 1 ]; then
	echo "litmus: no herd7 (run scripts/setup.sh)" >&2
	exit 2
else
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
	got=$(cd "$lkmm" && "${herd[@]}" -conf linux-kernel.cfg "$t" 2>&1 |
		sed -n 's/^Observation [^ ]* \([A-Za-z]*\) .*/\1/p')
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		echo "litmus ($model): $(basename "$t"): $got, as expected"
	else
		echo "litmus ($model): $(basename "$t"): herd7 says '${got:-nothing}', expected '${want:-?}'"
		bad=1
	fi
done
exit $bad
