#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build XFS's xfs.ko out of tree with its buffer lock on psem
# (examples/xfs/*.patch), and, for A/B runs, the same XFS unpatched.
#
#   scripts/xfs-build.sh [--stock] KDIR
#
# Copies fs/xfs from the Debian source package of KDIR's series
# (linux-source-X.Y, extracted by scripts/build-kernel.sh --source),
# applies that series' patches (no fuzz): examples/xfs/xfs-psem.patch on
# 6.1, it and xfs-psem-6.12.patch on 6.12, xfs-psem-7.3.patch alone on 7.3;
# other series are refused. Then builds xfs.ko against
# KDIR with KBUILD_EXTRA_SYMBOLS from psem's Module.symvers. --stock builds
# the same copy without the patches: the A side of scripts/bench-xfs.sh,
# built from the same source by the same compiler. psem itself is built
# against KDIR with build_modules (scripts/lib.sh) unless PSEM_XFS_PSEM
# names a psem tree already built for KDIR.
#
# Prints two lines: XFS_KO=<xfs.ko> and PSEM_KO=<psem.ko>. The build lives
# under $PSEM_CACHE/xfs/ and is incremental across runs. Loads nothing.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

variant=psem
if [ "${1:-}" = --stock ]; then variant=stock; shift; fi
[ $# -eq 1 ] || { echo "usage: xfs-build.sh [--stock] KDIR" >&2; exit 2; }
kdir=$(realpath "$1")
rel=$(cat "$kdir/include/config/kernel.release" 2>/dev/null) ||
	{ echo "xfs-build: $kdir is not a configured kernel tree" >&2; exit 2; }
series=$(sed -n 's/^\([0-9]*\.[0-9]*\)[.-].*/\1/p' <<<"$rel")
grep -qx 'CONFIG_XFS_FS=m' "$kdir/include/config/auto.conf" ||
	{ echo "xfs-build: $kdir does not build XFS as a module" >&2; exit 2; }

# The patches of each supported series, in order.
case $series in
6.1) patches=(xfs-psem.patch) ;;
6.12) patches=(xfs-psem.patch xfs-psem-6.12.patch) ;;
7.3) patches=(xfs-psem-7.3.patch) ;;
*)
	echo "xfs-build: no XFS patch for Linux $series (supported: 6.1, 6.12, 7.3)" >&2
	exit 2
	;;
esac
patches=("${patches[@]/#/$top/examples/xfs/}")
src=$("$top/scripts/build-kernel.sh" --source "linux-source-$series")

# One directory per kernel tree, so that builds for different kernels
# keep their objects.
key=$(printf '%s\n' "$kdir" "$src" | sha256sum | cut -c1-12)
work=$cache/xfs/$rel-$key
mkdir -p "$work"
exec 9>"$work/.lock"
flock 9

psem=${PSEM_XFS_PSEM:-$work/psem.ko-build}
if [ -z "${PSEM_XFS_PSEM:-}" ]; then
	build_modules "$kdir" "$psem" >&2
fi
if ! psem_built "$psem"; then
	echo "xfs-build: no built psem in $psem" >&2
	exit 1
fi

# A fresh copy, patched, then synced into the build tree by content: an
# unchanged file keeps its mtime, so make rebuilds only what changed.
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/fs"
cp -r "$src/fs/xfs" "$stage/fs/xfs"
if [ $variant = psem ]; then
	for p in "${patches[@]}"; do
		patch -s -p1 --fuzz=0 --no-backup-if-mismatch -d "$stage" <"$p" ||
			{ echo "xfs-build: $p does not apply to $src/fs/xfs" >&2; exit 1; }
	done
fi
out=$work/$variant
mkdir -p "$out/fs/xfs"
rsync -rc --delete --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
	--exclude='*.mod.c' --exclude='.*.cmd' --exclude=modules.order \
	--exclude=Module.symvers "$stage/fs/xfs/" "$out/fs/xfs/"

# fs/xfs/Makefile finds its own headers as $(srctree)/$(src) on 6.1, which
# is wrong out of tree: give kbuild the include paths directly (this
# replaces the Makefile's two ccflags-y lines), with psem's headers for the
# patched build.
inc="-I$out/fs/xfs -I$out/fs/xfs/libxfs"
[ $variant = stock ] || inc+=" -I$psem/kmod"
# modpost again, for the symbol versions of this psem build (lib.sh's
# build_modules says why).
rm -f "$out/fs/xfs/Module.symvers"
# Without debug information (CONFIG_DEBUG_INFO=, for the Makefiles only),
# which Debian's configurations ask for and no test reads: XFS's 7.3
# objects compile in 209 CPU-s instead of 237 here, and xfs.ko is 9 MB,
# not 95. Both variants alike, so A/B runs compare like with like. Module
# BTF, which pahole makes from that information where the tree has a
# vmlinux (Debian's 6.12 headers ship one), goes with it.
echo "xfs-build: building the $variant xfs.ko for $rel in $out" >&2
if ! nice -n 10 make -s -C "$kdir" M="$out/fs/xfs" -j"$(nproc)" \
	CONFIG_DEBUG_INFO= CONFIG_DEBUG_INFO_BTF_MODULES= \
	ccflags-y="$inc" KBUILD_EXTRA_SYMBOLS="$psem/Module.symvers" modules >&2 ||
   [ ! -f "$out/fs/xfs/xfs.ko" ]; then
	echo "xfs-build: building xfs.ko failed" >&2
	exit 1
fi
echo "XFS_KO=$out/fs/xfs/xfs.ko"
echo "PSEM_KO=$psem/kmod/psem.ko"
