#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The QEMU guest's payload for scripts/check-xfs.sh and scripts/bench-xfs.sh
# (busybox sh; it runs as /payload in the initramfs from
# scripts/mkinitramfs.sh, in /psem, and refuses to run anywhere else: it
# loads modules and makes a filesystem).
#
# Loads the modules listed in mods/order ("FILE [PARAMS]" a line, in load
# order: xfs.ko's dependencies, the RAM disk, psem.ko where XFS is the psem
# one, xfs.ko), makes an XFS filesystem on /dev/ram0, mounts it, runs a
# fixed-count stress-ng metadata workload (and fio where xfs.conf asks),
# unmounts it and checks it with xfs_repair -n. Prints each part between
# "==== PSEM <part> ====" lines for the host scripts: the guest's ktime
# around the workload (instruction counts under -icount shift=0), the
# stress-ng metrics, psem's stats before and after, the repair's verdict.
# xfs.conf sets OPS (bogo operations per stressor), ROUNDS (times the
# workload runs, each on a fresh filesystem) and FIO (1 to add fio).

if [ ! -e /payload ] || [ "$(pwd)" != /psem ]; then
	echo "guest-xfs.sh: runs only inside the psem QEMU guest" >&2
	exit 1
fi

OPS=2000 ROUNDS=1 FIO=0
# shellcheck disable=SC1091 # written by the host script into the image
. ./xfs.conf
failed=0
knobs=/sys/kernel/debug/psem
part() { echo "==== PSEM $* ===="; }
run() {
	"$@" || { echo "guest: FAILED ($?): $*"; failed=1; return 1; }
}
# The guest's monotonic clock in ns (/proc/timer_list is in every kernel).
now() { sed -n 's/^now at \([0-9]*\) nsecs$/\1/p' /proc/timer_list | head -n 1; }

part UNAME
uname -r

part LOAD
while read -r ko params; do
	# shellcheck disable=SC2086 # the parameters are words
	run insmod "mods/$ko" $params || exit 1
done <mods/order
# Which XFS this is: the psem one uses psem.ko.
if grep -q '^psem .* xfs,' /proc/modules; then
	echo "xfs: on psem"
else
	echo "xfs: stock (struct semaphore)"
fi
[ -d "$knobs" ] && [ -w "$knobs/stats_enabled" ] && echo 1 >"$knobs/stats_enabled"

mkdir -p /mnt
round=0
while [ $round -lt "$ROUNDS" ]; do
	round=$((round + 1))
	part "MKFS $round"
	# mkfs.xfs refuses filesystems under 300 MB unless run by fstests:
	# the RAM disk is sized to pass without that exemption.
	run mkfs.xfs -q -f /dev/ram0 || break
	run mount -t xfs /dev/ram0 /mnt || break

	part "STATS-BEFORE $round"
	[ -r "$knobs/stats" ] && cat "$knobs/stats"
	part "WORK $round"
	t0=$(now)
	# Four metadata stressors at once, each a fixed number of bogo
	# operations: directories, dentries, renames, mode changes.
	run stress-ng --temp-path /mnt --metrics-brief \
		--dir 1 --dir-ops "$OPS" --dentry 1 --dentry-ops "$OPS" \
		--rename 1 --rename-ops "$OPS" --chmod 1 --chmod-ops "$OPS" 2>&1
	if [ "$FIO" = 1 ]; then
		# Small random writes with an fsync every 16, then a read back:
		# log and extent buffers. A fixed size, so the same work.
		run fio --name=psem-xfs --directory=/mnt --thread --numjobs=2 \
			--size=8m --bs=4k --rw=randwrite --ioengine=psync \
			--fsync=16 --randrepeat=1 --norandommap --group_reporting \
			--minimal 2>&1
	fi
	sync
	t1=$(now)
	echo "ktime_ns $((t1 - t0))"
	part "STATS-AFTER $round"
	[ -r "$knobs/stats" ] && cat "$knobs/stats"
	run umount /mnt || break

	part "REPAIR $round"
	if xfs_repair -n /dev/ram0 >/tmp/repair.log 2>&1; then
		echo "repair: clean"
	else
		echo "repair: FAILED ($?)"
		cat /tmp/repair.log
		failed=1
	fi
done

part END
echo "guest: failed=$failed"
exit $failed
