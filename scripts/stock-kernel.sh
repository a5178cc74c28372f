#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Find Debian's stock kernel for QEMU runs: prints two lines,
#   KERNEL=/boot/vmlinuz-<ver>
#   KDIR=/lib/modules/<ver>/build   (or /usr/src/linux-headers-<ver>)
# for the newest installed <ver> that has both an image and a headers tree.
# Use as: eval "$(scripts/stock-kernel.sh)". Fails if there is none.
set -euo pipefail

for ver in $(find /boot -maxdepth 1 -name 'vmlinuz-*' -printf '%f\n' |
	     sed 's/^vmlinuz-//' | sort -rV); do
	for kdir in "/lib/modules/$ver/build" "/usr/src/linux-headers-$ver"; do
		if [ -f "$kdir/Makefile" ] && [ -f "$kdir/Module.symvers" ]; then
			if [ ! -r "/boot/vmlinuz-$ver" ]; then
				echo "stock-kernel: /boot/vmlinuz-$ver is not readable" >&2
				exit 1
			fi
			echo "KERNEL=/boot/vmlinuz-$ver"
			echo "KDIR=$kdir"
			exit 0
		fi
	done
done
echo "stock-kernel: no kernel in /boot with a matching headers tree;" \
     "run scripts/setup.sh (installs linux-image-amd64 and linux-headers-amd64)" >&2
exit 1
