#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Self-test of scan_splats (scripts/lib.sh), the console scanner that every
# guest stage trusts: canned consoles, each with the verdict it must get.
# Run by scripts/lint.sh. Each "fail" case is a console the scanner must
# reject, so a scanner that passes everything fails here.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0 n=0

# expect VERDICT NAME: the console on stdin must scan as VERDICT (ok/fail).
expect() {
	local got=ok
	cat >"$tmp/$2.log"
	scan_splats "$tmp/$2.log" >"$tmp/$2.out" 2>&1 || got=fail
	n=$((n + 1))
	if [ "$got" != "$1" ]; then
		echo "check-scan: $2: expected $1, got $got"
		sed 's/^/  | /' "$tmp/$2.out"
		bad=$((bad + 1))
	fi
}

warn='WARNING: kmod/psem_mutex.c:62 at psem_mutex_unlock+0x22e/0x262 [psem], CPU#0: kunit_try_catch/425'

expect ok refusal-window <<EOF2
[   88.720635] psem-expect-splat: begin refusal psem_mutex_unlock() by a task that does not own it
[   88.724241] $warn
[   88.724300] Call Trace:
[   88.724400] psem-expect-splat: end refusal
EOF2

# 7.3's console in debug-7.3 (CI, 2026-12-04): the marker cut short, then
# replayed whole.
expect ok replayed-marker <<EOF2
[   88.640449]     ok 6 psem_mutex_test_non_owner_unlock
[   88.720635] psem-expect-splat: begin refus
** replaying previous printk message **
[   88.720635] psem-expect-splat: begin refusal psem_mutex_unlock() by a task that does not own it
[   88.724241] $warn
[   88.724300] Call Trace:
[   88.724400] psem-expect-splat: end refusal
EOF2

expect fail cut-marker-not-replayed <<EOF2
[   88.720635] psem-expect-splat: begin refus
[   88.720635] psem-expect-splat: begin refusal psem_mutex_unlock() by a task that does not own it
[   88.724241] $warn
[   88.724400] psem-expect-splat: end refusal
EOF2

expect fail replayed-warning <<EOF2
[   10.000000] WARNING: CPU: 0 PID
** replaying previous printk message **
[   10.000000] WARNING: CPU: 0 PID: 1 at kmod/psem_core.c:10 psem_release+0x1/0x2
EOF2

expect fail window-without-report <<EOF2
[   88.720635] psem-expect-splat: begin refusal psem_down() on a closed psem
[   88.724400] psem-expect-splat: end refusal
EOF2

expect fail second-report-in-window <<EOF2
[   88.720635] psem-expect-splat: begin refusal psem_down() on a closed psem
[   88.724241] $warn
[   88.724241] $warn
[   88.724400] psem-expect-splat: end refusal
EOF2

expect fail stray-hung-task <<EOF2
[  120.000000] INFO: task insmod:245 blocked for more than 30 seconds.
EOF2

if [ "$bad" -gt 0 ]; then
	echo "check-scan: $bad of $n consoles misjudged"
	exit 1
fi
echo "check-scan: $n consoles judged as expected"
