#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# XFS with its buffer lock on psem, under a real workload in QEMU.
#
#   scripts/check-xfs.sh [KERNEL...]
#   scripts/check-xfs.sh --image stock|own|psem KERNEL OUT.cpio
#   scripts/check-xfs.sh --build [KERNEL...]
#
# KERNEL is "debug" (the lockdep + KASAN test kernel, scripts/build-kernel.sh
# debug) or a Debian stock kernel as scripts/stock-kernel.sh names it (e.g.
# 6.12 or 7.3); default: $PSEM_XFS_KERNELS, or "debug 6.12 7.3". For each:
# builds the psem xfs.ko (scripts/xfs-build.sh), boots a guest whose
# initramfs holds it,
# its dependencies (from the kernel's own modules, decompressed), brd
# (built from the series' source where the kernel's modules are not here),
# psem.ko, mkfs.xfs, xfs_repair and stress-ng, and runs scripts/guest-xfs.sh
# there: mkfs.xfs on a RAM disk, mount, a fixed-count stress-ng metadata
# workload, umount, xfs_repair -n. Prints per kernel
#   xfs on psem (<kernel>): <N> ops, repair clean, 0 splats
# and fails if the repair found anything, a splat was logged (scan_splats)
# or the guest failed. --image only builds the guest image of one variant
# (stock: the unpatched XFS built the same way; own: the kernel's own
# xfs.ko, installed in /lib/modules or, for 7.3, from the
# linux-modules-<ver> package that scripts/fetch-7x.sh unpacks) and prints
# KERNEL=<image> and XFS_KO=<the xfs.ko it holds, as found: .ko or .ko.xz>;
# scripts/bench-xfs.sh boots it. --build only builds the psem xfs.ko for
# each KERNEL (make check's background builds, ahead of its xfs stage).
#
# Environment: PSEM_XFS_OPS (bogo operations per stressor, default 200),
# PSEM_XFS_ROUNDS (default 1), PSEM_XFS_FIO=1 (add fio's random writes and
# print "fio (<kernel>): <KiB> KiB written, <KiB/s>, <IOPS>, <ms>"; its
# libraries make the image about 85 MB larger), PSEM_XFS_PSEM (a psem
# tree already built for the kernel, see xfs-build.sh), PSEM_QEMU_* (see
# qemu-run.sh).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

ops=${PSEM_XFS_OPS:-200}
rounds=${PSEM_XFS_ROUNDS:-1}
fio=${PSEM_XFS_FIO:-0}

# resolve KERNEL: sets k_image, k_kdir, k_modroot (where the kernel's own
# modules are: the build tree, or /lib/modules/<ver>/kernel) and k_label.
resolve() {
	if [ -f "$top/configs/${1%-unpatched}.config" ]; then	# a test kernel: debug, sem-7.3
		k_kdir=$("$top/scripts/build-kernel.sh" "$1") || return 1
		k_image=$k_kdir/arch/x86/boot/bzImage
		k_modroot=$k_kdir
		k_label=$("$top/scripts/build-kernel.sh" --name "$1")
	else
		stock_kernel "$1" || return 1
		k_image=$stock_image k_kdir=$stock_kdir k_label=$stock_ver
		k_modroot=/lib/modules/$k_label/kernel
	fi
}

# find_mod NAME: the kernel's own module NAME (- and _ alike), or nothing.
find_mod() {
	[ -d "$k_modroot" ] || return 0
	find "$k_modroot" -name "${1//[-_]/[-_]}.ko" -o -name "${1//[-_]/[-_]}.ko.xz" |
		head -n 1
}

# own_brd: brd.ko built from the series' Debian source against $k_kdir,
# for a stock kernel whose module files are not on this machine (the 7.3
# images are unpacked without their modules; brd is a module there and
# xfs.ko needs nothing else). Prints its path.
own_brd() {
	local rel series src d
	rel=$(cat "$k_kdir/include/config/kernel.release") || return 1
	series=$(sed -n 's/^\([0-9]*\.[0-9]*\)[.-].*/\1/p' <<<"$rel")
	src=$("$top/scripts/build-kernel.sh" --source "linux-source-$series") || return 1
	d=$cache/xfs/brd-$rel
	mkdir -p "$d"
	cmp -s "$src/drivers/block/brd.c" "$d/brd.c" || cp "$src/drivers/block/brd.c" "$d/"
	echo 'obj-m := brd.o' >"$d/Kbuild"
	nice -n 10 make -s -C "$k_kdir" M="$d" modules 2>&1 |
		sed '/^Skipping BTF generation .* unavailability of vmlinux$/d' >&2
	[ "${PIPESTATUS[0]}" -eq 0 ] && [ -f "$d/brd.ko" ] ||
		{ echo "check-xfs: building brd.ko for $rel failed" >&2; return 1; }
	echo "$d/brd.ko"
}

# own_xfs: the kernel's own xfs.ko (.ko or .ko.xz): from its installed
# modules, or from the linux-modules-<ver> package that scripts/fetch-7x.sh
# unpacks (7.3). Fails if neither has it, as for the debug flavour, whose
# build leaves the tree's xfs.ko out (configs/debug.config).
own_xfs() {
	local d f
	for d in "$k_modroot" "$cache/pkg/linux-modules-$k_label/usr/lib/modules/$k_label/kernel"; do
		[ -d "$d" ] || continue
		f=$(find "$d" -path '*/fs/xfs/*' \( -name xfs.ko -o -name xfs.ko.xz \) | head -n 1)
		[ -z "$f" ] || { echo "$f"; return 0; }
	done
	echo "check-xfs: no xfs.ko of $k_label's own (a stock 7.3: run scripts/fetch-7x.sh --modules; a test kernel whose fragment says configured-only=XFS_FS, as debug does, builds none)" >&2
	return 1
}

# add_mod NAME: NAME's dependencies, then NAME, into $stage/mods (once).
add_mod() {
	local f dep
	case " $added " in *" $1 "*) return 0 ;; esac
	f=$(find_mod "$1")
	[ -n "$f" ] || [ "$1" != brd ] || [ -d "$k_modroot" ] || f=$(own_brd) || return 1
	[ -n "$f" ] || { echo "check-xfs: no module $1 under $k_modroot" >&2; return 1; }
	for dep in $(modinfo -F depends "$f" | tr ',' ' '); do
		add_mod "$dep" || return 1
	done
	case $f in
	*.xz) xz -dc "$f" >"$stage/mods/$1.ko" ;;
	*) cp "$f" "$stage/mods/$1.ko" ;;
	esac
	echo "$1.ko" >>"$stage/mods/order"
	added+=" $1"
}

# image VARIANT KERNEL OUT.cpio: resolve KERNEL, build its VARIANT xfs.ko
# and the guest image.
image() {
	local variant=$1 out=$3 built xfs_ko psem_ko dep opt=()
	resolve "$2" || return 1
	if [ "$variant" = own ]; then
		xfs_ko=$(own_xfs) || return 1
	else
		[ "$variant" = psem ] || opt=(--stock)
		built=$("$top/scripts/xfs-build.sh" ${opt[@]+"${opt[@]}"} "$k_kdir") || return 1
		xfs_ko=$(sed -n 's/^XFS_KO=//p' <<<"$built")
		psem_ko=$(sed -n 's/^PSEM_KO=//p' <<<"$built")
	fi
	image_xfs_ko=$xfs_ko
	stage=$(mktemp -d)
	mkdir -p "$stage/mods"
	: >"$stage/mods/order"
	added=
	# libcrc32c asks the crypto API for crc32c, which has no modprobe to
	# load it in the guest: load the generic one first where it is a module.
	[ -z "$(find_mod crc32c_generic)" ] || add_mod crc32c_generic
	for dep in $(modinfo -F depends "$xfs_ko" | tr ',' ' '); do
		[ "$dep" = psem ] || add_mod "$dep"
	done
	add_mod brd
	# One RAM disk of 320 MiB: mkfs.xfs refuses less than 300 MB.
	sed -i 's/^brd\.ko$/brd.ko rd_nr=1 rd_size=327680/' "$stage/mods/order"
	if [ "$variant" = psem ]; then
		cp "$psem_ko" "$stage/mods/psem.ko"
		echo psem.ko >>"$stage/mods/order"
	fi
	case $xfs_ko in
	*.xz) xz -dc "$xfs_ko" >"$stage/mods/xfs.ko" ;;
	*) cp "$xfs_ko" "$stage/mods/xfs.ko" ;;
	esac
	echo xfs.ko >>"$stage/mods/order"
	printf 'OPS=%s\nROUNDS=%s\nFIO=%s\n' "$ops" "$rounds" "$fio" >"$stage/xfs.conf"
	local bins=(-b /usr/sbin/mkfs.xfs -b /usr/sbin/xfs_repair -b /usr/bin/stress-ng)
	[ "$fio" != 1 ] || bins+=(-b /usr/bin/fio)
	local files
	files=(xfs.conf mods/order)
	for f in "$stage"/mods/*.ko; do files+=("mods/${f##*/}"); done
	local rc=0
	"$top/scripts/mkinitramfs.sh" -C "$stage" "${bins[@]}" "$out" \
		"$top/scripts/guest-xfs.sh" "${files[@]}" || rc=1
	rm -rf "$stage"
	return $rc
}

if [ "${1:-}" = --image ]; then
	case ${2:-} in stock | own | psem) ;; *) set -- ;; esac
	[ $# -eq 4 ] || { echo "usage: check-xfs.sh --image stock|own|psem KERNEL OUT.cpio" >&2; exit 2; }
	image "$2" "$3" "$4"
	echo "KERNEL=$k_image"
	echo "XFS_KO=$image_xfs_ko"
	exit 0
fi

build_only=0
if [ "${1:-}" = --build ]; then build_only=1; shift; fi
# shellcheck disable=SC2086 # one word per kernel
[ $# -gt 0 ] || set -- ${PSEM_XFS_KERNELS:-debug 6.12 7.3}
if [ $build_only = 1 ]; then
	for k in "$@"; do
		resolve "$k" && "$top/scripts/xfs-build.sh" "$k_kdir" >/dev/null || exit 1
	done
	exit 0
fi
# What runs: psem's xfs.ko ("xfs on psem"), or the kernel's own
# ("xfs (own xfs.ko)"): on the sem-7.3 kernel, unmodified XFS on
# struct semaphore on psem's word (scripts/check-semaphore.sh).
variant=${PSEM_XFS_VARIANT:-psem}
case $variant in
psem) what="xfs on psem" ;;
own) what="xfs (own xfs.ko)" ;;
*) echo "check-xfs: PSEM_XFS_VARIANT is psem or own" >&2; exit 2 ;;
esac
mkdir -p "$logdir" "$cache/work"
failed=0
for k in "$@"; do
	t0=$SECONDS
	cpio=$cache/work/xfs-$variant-$k.cpio
	if ! image "$variant" "$k" "$cpio"; then
		echo "$what ($k): FAILED to build"
		failed=1
		continue
	fi
	log=$logdir/xfs-$variant-$k_label.log
	ok=1
	PSEM_QEMU_TIMEOUT=${PSEM_QEMU_TIMEOUT:-900} \
		"$top/scripts/qemu-run.sh" "$k_image" "$cpio" "$log" || ok=0
	splats=0
	scan_splats "$log" || { ok=0; splats=$(tr -d '\r' <"$log" | grep -cE "$splat_re" || true); }
	if [ "$variant" = psem ]; then
		log_part "$log" LOAD | grep -qx 'xfs: on psem' ||
			{ echo "check-xfs: the guest's xfs.ko did not use psem"; ok=0; }
	fi
	nrep=$(tr -d '\r' <"$log" | grep -cx 'repair: clean' || true)
	[ "$nrep" = "$rounds" ] || { echo "check-xfs: $nrep of $rounds repairs clean"; ok=0; }
	n=$(xfs_ops "$log")
	[ "$n" -gt 0 ] || { echo "check-xfs: no stress-ng operations counted"; ok=0; }
	if [ "$fio" = 1 ]; then
		# fio's terse (v3) lines: write KiB, KiB/s, IOPS, ms are fields 47-50.
		fl=$(tr -d '\r' <"$log" | awk -F';' '/^3;fio-/ {
			kb += $47; bw += $48; io += $49; ms += $50; n++ }
			END { if (n) printf "%d KiB written, %d KiB/s, %d IOPS, %d ms", kb, bw / n, io / n, ms }')
		[ -n "$fl" ] || { echo "check-xfs: no fio result"; ok=0; }
		echo "fio ($k_label): ${fl:-none}"
	fi
	echo "console log: $log ($((SECONDS - t0))s)"
	if [ $ok = 1 ]; then
		echo "$what ($k_label): $n ops, repair clean, 0 splats"
	else
		echo "$what ($k_label): FAILED ($n ops, $nrep of $rounds repairs clean, $splats splat lines)"
		failed=1
	fi
done
exit $failed
