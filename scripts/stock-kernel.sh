#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Find Debian's stock kernels for QEMU runs (installed by scripts/setup.sh).
#
#   scripts/stock-kernel.sh [KVER]   two lines for one kernel:
#                                      KERNEL=/boot/vmlinuz-<ver>
#                                      KDIR=/lib/modules/<ver>/build
#                                    (or /usr/src/linux-headers-<ver>): KVER's,
#                                    or by default the newest generic
#                                    (non-rt) kernel. Use as
#                                    eval "$(scripts/stock-kernel.sh)".
#   scripts/stock-kernel.sh --all    one line "<ver> <kernel> <kdir>" per kind
#                                    (6.1 amd64, 6.1 rt-amd64, 6.12 amd64,
#                                    6.12 rt-amd64, 7.3 amd64, 7.3 rt-amd64,
#                                    ...): the newest installed (or unpacked)
#                                    version of each series and flavour that
#                                    has both an image and a headers tree,
#                                    oldest series first.
# KVER may also name a kind, e.g. 6.12-rt or 6.1: the newest of it.
# Fails if there is none.
set -euo pipefail

# kdir_of VER: the headers tree of VER, if it is complete.
kdir_of() {
	local kdir
	for kdir in "/lib/modules/$1/build" "/usr/src/linux-headers-$1"; do
		if [ -f "$kdir/Makefile" ] && [ -f "$kdir/Module.symvers" ]; then
			echo "$kdir"
			return 0
		fi
	done
	return 1
}

# kind_of VER: "<series>-<flavour>", e.g. 6.1-amd64, 6.12-rt-amd64.
kind_of() {
	local series flavour
	series=$(sed -n 's/^\([0-9]*\.[0-9]*\)[.-].*/\1/p' <<<"$1")
	case $1 in
	*-rt-amd64) flavour=rt-amd64 ;;
	*-cloud-amd64) flavour=cloud-amd64 ;;
	*-amd64) flavour=amd64 ;;
	*) flavour=other ;;
	esac
	echo "$series-$flavour"
}

# Every usable kernel, newest first: "ver kind kernel kdir".
all=()
while read -r ver; do
	[ -n "$ver" ] || continue
	kdir=$(kdir_of "$ver") || continue
	all+=("$ver $(kind_of "$ver") /boot/vmlinuz-$ver $kdir")
done < <(find /boot -maxdepth 1 -name 'vmlinuz-*' -printf '%f\n' | sed 's/^vmlinuz-//' | sort -rV)
# From 6.19 the image is in linux-binary-<ver> and, from 7.2.13 and 7.3.4,
# at /usr/lib/modules/<ver>/vmlinuz rather than in /boot: installed there,
# or unpacked under the cache by scripts/fetch-7x.sh (the 7.3 images),
# whose module tree scripts/build-kernel.sh --stock prepares (once; cached).
cache=${PSEM_CACHE:-/var/cache/psem}
while read -r img; do
	[ -n "$img" ] || continue
	ver=$(basename "$(dirname "$img")")
	case " ${all[*]} " in *" $ver "*) continue ;; esac	# found in /boot
	if ! kdir=$(kdir_of "$ver"); then
		[ -f "$cache/pkg/linux-headers-$ver/usr/src/linux-headers-$ver/Module.symvers" ] ||
			continue
		kdir=$("$(dirname "$0")/build-kernel.sh" --stock "$ver") || continue
	fi
	all+=("$ver $(kind_of "$ver") $img $kdir")
done < <(find /usr/lib/modules "$cache"/pkg/linux-binary-*/usr/lib/modules \
	      -mindepth 2 -maxdepth 2 -name vmlinuz 2>/dev/null | sort -rV)
if [ ${#all[@]} -eq 0 ]; then
	echo "stock-kernel: no kernel in /boot with a matching headers tree;" \
	     "run scripts/setup.sh" >&2
	exit 1
fi

print() {	# print VER KERNEL KDIR
	if [ ! -r "$2" ]; then
		echo "stock-kernel: $2 is not readable" >&2
		exit 1
	fi
	echo "KERNEL=$2"
	echo "KDIR=$3"
}

case ${1:-} in
--all)
	seen=" "
	for e in "${all[@]}"; do
		read -r ver kind kernel kdir <<<"$e"
		case $kind in *-cloud-amd64 | *-other) continue ;; esac
		case $seen in *" $kind "*) continue ;; esac
		seen+="$kind "
		echo "$kind $ver $kernel $kdir"
	done | sort -V | cut -d' ' -f2-
	;;
'')
	for e in "${all[@]}"; do
		read -r ver kind kernel kdir <<<"$e"
		[ "${kind#*-}" = amd64 ] || continue
		print "$ver" "$kernel" "$kdir"
		exit 0
	done
	read -r ver kind kernel kdir <<<"${all[0]}"
	print "$ver" "$kernel" "$kdir"
	;;
*)
	want=$1
	for e in "${all[@]}"; do
		read -r ver kind kernel kdir <<<"$e"
		if [ "$ver" = "$want" ] || [ "$kind" = "$want-amd64" ] ||
		   { [ "${want%-rt}" != "$want" ] && [ "$kind" = "${want%-rt}-rt-amd64" ]; }; then
			print "$ver" "$kernel" "$kdir"
			exit 0
		fi
	done
	echo "stock-kernel: no installed stock kernel '$want' with headers; installed:" >&2
	for e in "${all[@]}"; do echo "  ${e%% *}" >&2; done
	exit 1
	;;
esac
