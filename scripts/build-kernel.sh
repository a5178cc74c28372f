#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build a psem test kernel from Debian's linux-source-6.1 package.
#
#   scripts/build-kernel.sh debug|kcsan
#   scripts/build-kernel.sh --source     only extract; print the source tree
#
# The tree is extracted once and the build is cached outside the repository
# under $PSEM_CACHE (default /var/cache/psem), keyed by the source package's
# version and the content of the config fragments, so a change to either
# builds afresh. Prints the build directory (usable as KDIR) on stdout.
set -euo pipefail

flavour=${1:?usage: build-kernel.sh debug|kcsan|--source}
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${PSEM_CACHE:-/var/cache/psem}
tarball=/usr/src/linux-source-6.1.tar.xz
frags=("$top/kunit/base.config" "$top/kunit/$flavour.config")

[ "$flavour" = --source ] || [ -f "${frags[1]}" ] ||
	{ echo "build-kernel: no fragment ${frags[1]}" >&2; exit 2; }
[ -f "$tarball" ] || { echo "build-kernel: $tarball missing; run scripts/setup.sh" >&2; exit 2; }

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
src=$cache/src/linux-source-6.1-$srcver
mkdir -p "$cache"
(
	flock 8	# one extraction at a time
	mkdir -p "$cache/src"
	if [ ! -f "$src/.psem-extracted" ]; then
		echo "build-kernel: extracting linux-source-6.1 $srcver" >&2
		rm -rf "$src" "$src.tmp" && mkdir -p "$src.tmp"
		tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
		mv "$src.tmp" "$src" && touch "$src/.psem-extracted"
	fi
) 8>"$cache/.extract.lock"
if [ "$flavour" = --source ]; then
	echo "$src"
	exit 0
fi

# One build of a flavour at a time: a second would delete the first's tree.
exec 9>"$cache/.build-$flavour.lock"
flock -n 9 || { echo "build-kernel: waiting for another $flavour build" >&2; flock 9; }

key=$( { echo "$srcver"; cat "${frags[@]}"; } | sha256sum | cut -c1-12)
out=$cache/build/$flavour-$key
if [ -f "$out/.psem-built" ]; then
	echo "$out"
	exit 0
fi

echo "build-kernel: building the $flavour kernel in $out (several minutes)" >&2
rm -rf "$out" && mkdir -p "$out"
mk() { make -C "$src" O="$out" -s "$@"; }
mk tinyconfig >&2
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}" >/dev/null
mk olddefconfig >&2

# merge_config drops options whose dependencies are unmet without failing:
# refuse a kernel that silently lacks what a fragment asked for.
bad=0
for f in "${frags[@]}"; do
	while IFS= read -r line; do
		case "$line" in CONFIG_*=*) ;; *) continue ;; esac
		grep -qxF "$line" "$out/.config" || { echo "build-kernel: $line not set" >&2; bad=1; }
	done <"$f"
done
[ $bad -eq 0 ] || exit 1

mk -j"$(nproc)" bzImage modules >&2
touch "$out/.psem-built"
echo "$out"
