#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make demo [KVER=...]`: build psem against a Debian stock kernel's headers
# (KVER: a version, or 6.1, 6.1-rt, 6.12, 6.12-rt, 7.3, 7.3-rt; default the
# newest generic kernel, as scripts/stock-kernel.sh picks it), boot that
# kernel in QEMU, load psem.ko and the example consumer, flip psem's debugfs
# switches, show the statistics, unload; then print a summary of what the
# guest did. XFS=1 then also runs XFS with its buffer lock on psem on the
# same kernel (scripts/check-xfs.sh); without it, one line says so. The
# host never loads anything. Full console log: $logdir/demo.log.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

bash "$top/scripts/setup.sh"
stock_kernel "${KVER:-}"
kernel=$stock_image kdir=$stock_kdir kver=$stock_ver
work=$cache/work/demo-$kver log=$logdir/demo.log
mkdir -p "$logdir"

stage "demo: build against $kdir"
build_modules "$kdir" "$work"
stage_done ok

stage "demo: boot $kernel in QEMU"
"$top/scripts/mkinitramfs.sh" -C "$work" "$work.cpio" "$top/scripts/guest-psem.sh" \
	kmod/psem.ko examples/psem_consumer.ko
rc=0
"$top/scripts/qemu-run.sh" "$kernel" "$work.cpio" "$log" || rc=$?
stage_done "$([ $rc = 0 ] && echo ok || echo FAILED)"

show() {	# show TITLE PART: one guest part, indented under a title
	echo "$1:"
	log_part "$log" "$2" | sed 's/^/    /'
}
echo
echo "psem demo on Debian's stock kernel $kver, in QEMU (console log: $log)"
show "guest kernel (uname -r)" UNAME
show "loaded modules (lsmod | grep psem)" LSMOD
show "the consumer's kernel log (psem_consumer: lines)" CONSUMER
show "the credit pool in /sys/kernel/debug/psem/sems/ (waiters and all)" CREDITS
show "debugfs switches (initial -> after echo 0 -> after echo 1)" KNOBS
show "/sys/kernel/debug/psem/stats" STATS
show "unload (the credit pool closes and quiesces)" UNLOAD
taints=$(tr -d '\r' <"$log" | grep -cE 'module verification failed|taints kernel' || true)
echo "taint notes: $taints (expected: psem is an unsigned out-of-tree module)"
if scan_splats "$log" >/dev/null; then
	echo "console: no warnings, oopses or lockdep reports"
else
	scan_splats "$log" || true
	rc=1
fi
# XFS with its buffer lock on psem, on the same kernel: make demo XFS=1.
if [ "${XFS:-0}" = 1 ]; then
	echo
	PSEM_XFS_OPS=${PSEM_XFS_OPS:-200} "$top/scripts/check-xfs.sh" "$kver" || rc=1
	# psem's stats around the workload (only xfs.ko uses psem there).
	xlog=$logdir/xfs-$kver.log
	{ log_part "$xlog" "STATS-BEFORE 1" | sed 's/^/- /'; log_part "$xlog" "STATS-AFTER 1"; } |
		awk '$1 == "-" { d[$2] -= $3; next } { d[$1] += $2 }
		END { if (length(d)) printf "xfs: psem during the workload: %d buffer unlocks lock-free, %d through the queue lock, %d lockers slept\n",
			d["fast_release"], d["locked_release"], d["sleep"] }'
else
	echo "xfs: make demo XFS=1 also runs XFS with its buffer lock on psem (stress-ng, xfs_repair -n)"
fi
exit $rc
