#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build a psem test kernel from a Debian linux-source-X.Y package.
#
#   scripts/build-kernel.sh debug|kcsan|rt
#   scripts/build-kernel.sh --source [FLAVOUR|linux-source-X.Y]
#                                  only extract; print the source tree
#                                  (default linux-source-6.1)
#   scripts/build-kernel.sh --name FLAVOUR
#                                  print the flavour's name with its kernel
#                                  series, e.g. rt-6.12 (extracts nothing)
#
# Which source package a flavour uses is named in its fragment,
# kunit/FLAVOUR.config, by a line "# psem-source: linux-source-X.Y" (default
# linux-source-6.1): debug and kcsan are 6.1, rt (PREEMPT_RT) is 6.12.
# The tree is extracted once per package version and the build is cached
# outside the repository under $PSEM_CACHE (default /var/cache/psem), keyed
# by the source package's name and version and the content of the config
# fragments, so a change to any builds afresh. Prints the build directory
# (usable as KDIR) on stdout.
set -euo pipefail

usage="usage: build-kernel.sh debug|kcsan|rt | --source [FLAVOUR|PACKAGE] | --name FLAVOUR"
mode=build
case ${1:-} in
--source) mode=source; shift ;;
--name) mode=name; shift ;;
'') echo "$usage" >&2; exit 2 ;;
esac
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${PSEM_CACHE:-/var/cache/psem}

# The source package: given, named by the flavour's fragment, or 6.1.
flavour=${1:-}
pkg=linux-source-6.1
case $flavour in
linux-source-*) pkg=$flavour flavour= ;;
'') [ $mode = source ] || { echo "$usage" >&2; exit 2; } ;;
*)
	frags=("$top/kunit/base.config" "$top/kunit/$flavour.config")
	[ -f "${frags[1]}" ] || { echo "build-kernel: no fragment ${frags[1]}" >&2; exit 2; }
	p=$(sed -n 's/^# psem-source:[[:space:]]*\(linux-source-[0-9.]*\)[[:space:]]*$/\1/p' "${frags[1]}")
	pkg=${p:-$pkg}
	;;
esac
series=${pkg#linux-source-}
if [ $mode = name ]; then
	echo "$flavour-$series"
	exit 0
fi

tarball=/usr/src/$pkg.tar.xz
[ -f "$tarball" ] || { echo "build-kernel: $tarball missing; run scripts/setup.sh" >&2; exit 2; }
srcver=$(dpkg-query -W -f='${Version}' "$pkg")
src=$cache/src/$pkg-$srcver
mkdir -p "$cache"
(
	flock 8	# one extraction at a time
	mkdir -p "$cache/src"
	if [ ! -f "$src/.psem-extracted" ]; then
		echo "build-kernel: extracting $pkg $srcver" >&2
		rm -rf "$src" "$src.tmp" && mkdir -p "$src.tmp"
		tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
		mv "$src.tmp" "$src" && touch "$src/.psem-extracted"
	fi
) 8>"$cache/.extract.lock"
if [ $mode = source ]; then
	echo "$src"
	exit 0
fi

# One build of a flavour at a time: a second would delete the first's tree.
exec 9>"$cache/.build-$flavour.lock"
flock -n 9 || { echo "build-kernel: waiting for another $flavour build" >&2; flock 9; }

# (The 6.1 flavours' key leaves the package name out, as it always did, so
# that their existing caches stay valid.)
key=$( { [ "$pkg" = linux-source-6.1 ] || echo "$pkg"; echo "$srcver"; cat "${frags[@]}"; } |
	sha256sum | cut -c1-12)
out=$cache/build/$flavour-$key
if [ -f "$out/.psem-built" ]; then
	echo "$out"
	exit 0
fi

echo "build-kernel: building the $flavour kernel ($pkg $srcver) in $out (several minutes)" >&2
t0=$SECONDS
rm -rf "$out" && mkdir -p "$out"
mk() { make -C "$src" O="$out" -s "$@"; }
mk tinyconfig >&2
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}" >/dev/null
mk olddefconfig >&2

# merge_config drops options whose dependencies are unmet without failing:
# refuse a kernel that silently lacks what a fragment asked for, or has what
# it switched off ("# CONFIG_X is not set"). A later fragment may override
# an earlier one (rt.config's PREEMPT_RT replaces base.config's PREEMPT):
# the last line about a symbol counts.
bad=0
while read -r sym val; do
	if [ "$val" = n ]; then
		! grep -qE "^$sym=[ym]\$" "$out/.config" || { echo "build-kernel: $sym is set" >&2; bad=1; }
	else
		grep -qxF "$sym=$val" "$out/.config" || { echo "build-kernel: $sym=$val not set" >&2; bad=1; }
	fi
done < <(cat "${frags[@]}" |
	 sed -n 's/^\(CONFIG_[A-Za-z0-9_]*\)=\(.*\)$/\1 \2/p; s/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1 n/p' |
	 awk '{ v[$1] = $2 } END { for (k in v) print k, v[k] }' | sort)
[ $bad -eq 0 ] || exit 1

mk -j"$(nproc)" bzImage modules >&2
touch "$out/.psem-built"
echo "build-kernel: built the $flavour kernel in $((SECONDS - t0))s" >&2
echo "$out"
