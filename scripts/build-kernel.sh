#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build a psem test kernel from a Debian linux-source-X.Y package.
#
#   scripts/build-kernel.sh FLAVOUR    debug, rt, debug-7.3, kcsan-7.3, ...
#                                  (configs/FLAVOUR.config)
#   scripts/build-kernel.sh FLAVOUR-unpatched
#                                  a flavour with overlays (sem-7.3), built
#                                  without them: the same configuration on
#                                  the pristine source
#   scripts/build-kernel.sh --source [FLAVOUR|linux-source-X.Y]
#                                  only extract; print the source tree
#                                  (default linux-source-6.1)
#   scripts/build-kernel.sh --dir FLAVOUR
#                                  print the build directory FLAVOUR has or
#                                  would have (extracts and builds nothing)
#   scripts/build-kernel.sh --fragments FLAVOUR
#                                  print the flavour's config fragments, one
#                                  path a line, in the order they are merged
#                                  (extracts and builds nothing)
#   scripts/build-kernel.sh --name FLAVOUR
#                                  print the flavour's name with its kernel
#                                  series, e.g. rt-6.12 (extracts nothing;
#                                  a flavour named with its series, such as
#                                  debug-7.3, is printed as it is)
#   scripts/build-kernel.sh --stock UNAME
#                                  a module tree for Debian's stock image
#                                  UNAME (e.g. 7.3.4+deb13-amd64), from its
#                                  series' source, the image's config and
#                                  Module.symvers (scripts/fetch-7x.sh)
#   scripts/build-kernel.sh --prepare FLAVOUR
#                                  configure FLAVOUR as a build would, then
#                                  only modules_prepare: a tree to compile
#                                  modules against, with no vmlinux and so
#                                  no Module.symvers (compile-7.2, lint's
#                                  compile-only check against 7.2)
#
# Which source package a flavour uses is named in its fragment,
# configs/FLAVOUR.config, by a line "# psem-source: linux-source-X.Y" (default
# linux-source-6.1): debug is 6.1, rt (PREEMPT_RT) is 6.12, debug-7.3 and
# kcsan-7.3 are 7.3. A source package that is not installed is taken from
# where scripts/fetch-7x.sh unpacked it. Lines "# psem-overlay: SRC DST"
# lay the repository's file SRC over the source's DST (sem-7.3: the
# series' RFC patch, whole files); such a flavour is built with W=1, its
# log kept in the build directory as .psem-build.log, and its release
# names it (7.3.4-sem-7.3). A line "# psem-build: OPTION..." asks for
# "lean" (configs/lean.config merged after base.config: what no guest
# uses, off), "configured-only=SYM" (CONFIG_SYM stays as the fragments set
# it, for modules built out of tree against the tree, but the tree does
# not build it: kbuild is given CONFIG_SYM= on its command line, which
# only the Makefiles read; debug: XFS_FS, built by scripts/xfs-build.sh),
# W=1 (its log kept as for overlays) and "relative": the object directory is
# then the subdirectory obj/ of the flavour's own hard-linked copy of the
# source, where kbuild's paths are relative ("..", not the source's
# absolute path), so that a copy of source and objects elsewhere is still
# up to date for make (debug-7.3: the series' tree starts from a copy of
# its objects, scripts/check-series.sh).
# The tree is extracted once per package version and the build is cached
# outside the repository under $PSEM_CACHE (default /var/cache/psem), keyed
# by the source package's name and version and the content of the config
# fragments, so a change to any builds afresh. Prints the build directory
# (usable as KDIR) on stdout.
set -euo pipefail

usage="usage: build-kernel.sh FLAVOUR | --source [FLAVOUR|PACKAGE] | --dir FLAVOUR | --fragments FLAVOUR | --name FLAVOUR | --stock UNAME | --prepare FLAVOUR"
mode=build
case ${1:-} in
--source) mode=source; shift ;;
--dir) mode=dir; shift ;;
--fragments) mode=fragments; shift ;;
--name) mode=name; shift ;;
--stock) mode=stock; shift ;;
--prepare) mode=prepare; shift ;;
'') echo "$usage" >&2; exit 2 ;;
esac
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${PSEM_CACHE:-/var/cache/psem}

# The source package: given, named by the flavour's fragment, or 6.1.
flavour=${1:-}
pkg=linux-source-6.1
overlays=() unpatched=0 w1=0 relative=0 unbuilt=()
case $mode:$flavour in
stock:?*)
	# A stock image's release, e.g. 7.3.4+deb13-amd64: its series'
	# source, its config and Module.symvers from scripts/fetch-7x.sh.
	stock=$flavour flavour=stock-$flavour
	pkg=linux-source-$(sed -n 's/^\([0-9]*\.[0-9]*\)\..*/\1/p' <<<"$stock")
	stock_config=$cache/pkg/linux-base-$stock/usr/lib/modules/$stock/config
	stock_symvers=$cache/pkg/linux-headers-$stock/usr/src/linux-headers-$stock/Module.symvers
	for f in "$stock_config" "$stock_symvers"; do
		[ -f "$f" ] || { echo "build-kernel: $f missing; run scripts/setup.sh" >&2; exit 2; }
	done
	frags=("$stock_config")
	;;
prepare:linux-source-* | prepare: | dir:linux-source-* | dir: | fragments:linux-source-* | fragments:)
	echo "$usage" >&2; exit 2 ;;
*:linux-source-*) pkg=$flavour flavour= ;;
*:) [ $mode = source ] || { echo "$usage" >&2; exit 2; } ;;
*)
	# FLAVOUR-unpatched: FLAVOUR's configuration without its overlays.
	[ -f "$top/configs/$flavour.config" ] || [ "${flavour%-unpatched}" = "$flavour" ] ||
		unpatched=1
	frags=("$top/configs/base.config" "$top/configs/${flavour%-unpatched}.config")
	[ -f "${frags[1]}" ] || { echo "build-kernel: no fragment ${frags[1]}" >&2; exit 2; }
	# "# psem-overlay: SRC DST": the repository's file SRC replaces the
	# source's DST (a patch under test, as the series generates it).
	mapfile -t overlays < <(sed -n 's/^# psem-overlay:[[:space:]]*\([^[:space:]]*\)[[:space:]]\{1,\}\([^[:space:]]*\)[[:space:]]*$/\1 \2/p' "${frags[1]}")
	p=$(sed -n 's/^# psem-source:[[:space:]]*\(linux-source-[0-9.]*\)[[:space:]]*$/\1/p' "${frags[1]}")
	pkg=${p:-$pkg}
	[ ${#overlays[@]} -eq 0 ] || w1=1
	read -r -a bopts <<<"$(sed -n 's/^# psem-build:\(.*\)$/\1/p' "${frags[1]}")"
	for o in "${bopts[@]}"; do
		case $o in
		W=1) w1=1 ;;
		relative) relative=1 ;;
		lean) frags=("${frags[0]}" "$top/configs/lean.config" "${frags[1]}") ;;
		configured-only=[A-Z0-9_]*) unbuilt+=("CONFIG_${o#*=}=") ;;
		*) echo "build-kernel: ${frags[-1]}: unknown psem-build option '$o'" >&2; exit 2 ;;
		esac
	done
	[ $relative = 0 ] || [ ${#overlays[@]} -eq 0 ] ||
		{ echo "build-kernel: ${frags[-1]}: overlays and a relative build do not go together" >&2; exit 2; }
	;;
esac
series=${pkg#linux-source-}
if [ $mode = fragments ]; then
	printf '%s\n' "${frags[@]}"
	exit 0
fi
if [ $mode = name ]; then
	case $flavour in
	*-"$series" | *-"$series"-unpatched) echo "$flavour" ;;	# debug-7.3: named with its series
	*) echo "$flavour-$series" ;;
	esac
	exit 0
fi

# Installed (bookworm's 6.1 and 6.12), or unpacked by scripts/fetch-7x.sh
# from a newer suite (7.2, 7.3) without installing it.
tarball=/usr/src/$pkg.tar.xz
if [ -f "$tarball" ]; then
	srcver=$(dpkg-query -W -f='${Version}' "$pkg")
elif [ -f "$cache/pkg/$pkg/usr/src/$pkg.tar.xz" ]; then
	tarball=$cache/pkg/$pkg/usr/src/$pkg.tar.xz
	srcver=$(cat "$cache/pkg/$pkg/.psem-version")
else
	echo "build-kernel: $tarball missing; run scripts/setup.sh" >&2
	exit 2
fi
src=$cache/src/$pkg-$srcver
# The build directory. (The 6.1 flavours' key leaves the package name out,
# as it always did, so that their existing caches stay valid. A
# prepared-only tree has its own key and directory, so that it never
# passes for a built kernel. A relative build: the directory is the
# source's copy, its obj/ the build.)
if [ $mode != source ]; then
	key=$( { [ $mode != prepare ] || echo prepare; [ "$pkg" = linux-source-6.1 ] || echo "$pkg"
		 echo "$srcver"; cat "${frags[@]}"
		 [ ${#overlays[@]} -eq 0 ] || echo "overlays, unpatched=$unpatched"; } |
		sha256sum | cut -c1-12)
	out=$cache/build/$flavour-$key
	[ $mode != prepare ] || out=$cache/build/prepared-$flavour-$key
	[ $relative = 0 ] || out=$out/obj
fi
if [ $mode = dir ]; then
	echo "$out"
	exit 0
fi
mkdir -p "$cache"
(
	flock 8	# one extraction of a package at a time
	mkdir -p "$cache/src"
	if [ ! -f "$src/.psem-extracted" ]; then
		echo "build-kernel: extracting $pkg $srcver" >&2
		rm -rf "$src" "$src.tmp" && mkdir -p "$src.tmp"
		tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
		mv "$src.tmp" "$src" && touch "$src/.psem-extracted"
	fi
) 8>"$cache/.extract-$pkg.lock"
if [ $mode = source ]; then
	echo "$src"
	exit 0
fi

# One build of a flavour at a time: a second would delete the first's tree.
exec 9>"$cache/.build-$flavour.lock"
flock -n 9 || { echo "build-kernel: waiting for another $flavour build" >&2; flock 9; }

# The overlays: one copy of the source a flavour (hard links), in which
# each DST is replaced by a copy of SRC whenever their content differs, so
# that a build sees what changed by its time, as in a developer's tree.
# Its build is keyed by the flavour's fragments, not by the overlays'
# content: when that changes, the build is redone incrementally.
# (FLAVOUR-unpatched builds the pristine source with the same
# configuration.)
okey=''
if [ ${#overlays[@]} -gt 0 ] && [ $unpatched = 0 ]; then
	okey=$(for o in "${overlays[@]}"; do echo "$o"; cat "$top/${o%% *}"; done | sha256sum | cut -c1-12)
	osrc=$src-overlay-$flavour
	(
		flock 8
		if [ ! -f "$osrc/.psem-extracted" ]; then
			rm -rf "$osrc" "$osrc.tmp"
			cp -al "$src" "$osrc.tmp"
			mv "$osrc.tmp" "$osrc"
		fi
		for o in "${overlays[@]}"; do
			[ -f "$osrc/${o#* }" ] || { echo "build-kernel: no ${o#* } in $pkg" >&2; exit 1; }
			cmp -s "$top/${o%% *}" "$osrc/${o#* }" ||
				{ rm -f "$osrc/${o#* }" && cp "$top/${o%% *}" "$osrc/${o#* }"; }
		done
	) 8>"$cache/.extract-$pkg.lock"
	src=$osrc
fi

msrc=$src
[ $relative = 0 ] || msrc=${out%/obj}
mk() { make -C "$msrc" O="$out" -s "$@"; }
# kernel_doc_overlays: kernel-doc on the overlaid C files, as a W=1 build
# runs it (their warnings name the files as the source tree does), for a
# W=1 build that leaves it out of the rest (below).
kernel_doc_overlays() {
	local o
	for o in "${overlays[@]}"; do
		case ${o#* } in
		*.c) (cd "$msrc" && PYTHONDONTWRITEBYTECODE=1 scripts/kernel-doc -none "${o#* }") || true ;;
		esac
	done
}
if [ -f "$out/.psem-built" ]; then
	if [ "$(cat "$out/.psem-overlay-key" 2>/dev/null)" != "$okey" ]; then
		echo "build-kernel: $flavour's overlays changed: rebuilding in $out" >&2
		t0=$SECONDS
		rm -f "$out/.psem-built"
		mk -j"$(nproc)" W=1 cmd_checkdoc= ${unbuilt[@]+"${unbuilt[@]}"} bzImage modules >"$out/.psem-build.log" 2>&1 ||
			{ tail -n 30 "$out/.psem-build.log" >&2; exit 1; }
		kernel_doc_overlays >>"$out/.psem-build.log" 2>&1
		echo "$okey" >"$out/.psem-overlay-key"
		touch "$out/.psem-built"
		echo "build-kernel: rebuilt the $flavour kernel in $((SECONDS - t0))s" >&2
	fi
	echo "$out"
	exit 0
fi

# A stock image's module tree: its series' source configured with the
# image's own config and release, modules_prepare (with this machine's gcc
# 12, which builds the kbuild tools against this machine's glibc), and the
# image's Module.symvers. Debian has MODVERSIONS off since 6.18, so the
# vermagic, which this reproduces, is what the kernel checks.
if [ $mode = stock ]; then
	echo "build-kernel: preparing a module tree for the stock $stock ($pkg $srcver) in $out" >&2
	t0=$SECONDS
	rm -rf "$out" && mkdir -p "$out"
	cp "$stock_config" "$out/.config"
	base=$(make -s -C "$src" kernelversion)
	"$src/scripts/config" --file "$out/.config" --set-str LOCALVERSION "${stock#"$base"}" \
		--disable LOCALVERSION_AUTO
	# Kconfig drops what bookworm's pahole 1.24 is too old for: module
	# BTF, and sched_ext and the rest that depend on BTF. That would change
	# struct module (its BTF fields sit before ->exit: the image then
	# refuses the module, "Invalid relocation target") and struct
	# task_struct. modules_prepare runs no pahole, and module BTF is not
	# generated without a vmlinux here, so Kconfig is told the version the
	# image was built with, and the layout stays the image's.
	pv=$(sed -n 's/^CONFIG_PAHOLE_VERSION=\([0-9]*\)$/\1/p' "$stock_config")
	mkdir -p "$out/.psem-bin"
	printf '#!/bin/sh\necho v%s.%s\n' "${pv%??}" "${pv#"${pv%??}"}" >"$out/.psem-bin/pahole"
	chmod +x "$out/.psem-bin/pahole"
	PATH=$out/.psem-bin:$PATH mk olddefconfig >&2
	PATH=$out/.psem-bin:$PATH mk -j"$(nproc)" modules_prepare >&2
	# What still differs from the image's config: the compiler's and the
	# tools' versions and what they allow (this gcc 12 has no Rust beside
	# it, for one). Shown, so that a layout-relevant difference is seen.
	diff <(grep '^CONFIG_' "$stock_config" | sort) <(grep '^CONFIG_' "$out/.config" | sort) |
		sed -n 's/^\([<>]\) /  \1 /p' >"$out/.psem-config-diff" || true
	echo "build-kernel: config lines that differ from the image's (< image, > tree):" >&2
	cat "$out/.psem-config-diff" >&2
	rel=$(cat "$out/include/config/kernel.release")
	[ "$rel" = "$stock" ] ||
		{ echo "build-kernel: the tree's release is $rel, not $stock" >&2; exit 1; }
	cp "$stock_symvers" "$out/Module.symvers"
	# Module builds against the tree see the same pahole version, or
	# kbuild warns that it differs (module BTF needs a vmlinux, which
	# this tree has not, so pahole itself is never run).
	sed -i "1i export PATH := $out/.psem-bin:\$(PATH)" "$out/Makefile"
	touch "$out/.psem-built"
	echo "build-kernel: prepared the $stock tree in $((SECONDS - t0))s" >&2
	echo "$out"
	exit 0
fi

if [ $mode = prepare ]; then
	echo "build-kernel: preparing a $flavour module tree ($pkg $srcver) in $out" >&2
else
	echo "build-kernel: building the $flavour kernel ($pkg $srcver) in $out (several minutes)" >&2
fi
t0=$SECONDS
if [ $relative = 1 ]; then
	rm -rf "$msrc" "$msrc.tmp" && mkdir -p "$cache/build" &&
		cp -al "$src" "$msrc.tmp" && mv "$msrc.tmp" "$msrc"
fi
rm -rf "$out" && mkdir -p "$out"
mk tinyconfig >&2
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}" >/dev/null
# A flavour with overlays names its builds in their release:
# 7.3.4-sem-7.3 and 7.3.4-sem-7.3-unpatched.
[ ${#overlays[@]} -eq 0 ] || "$src/scripts/config" --file "$out/.config" \
	--set-str LOCALVERSION "-$flavour" --disable LOCALVERSION_AUTO
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

# A prepared-only tree: what an external module build needs (the
# generated headers, the kbuild tools), no vmlinux, so no Module.symvers.
if [ $mode = prepare ]; then
	mk -j"$(nproc)" modules_prepare >&2
	touch "$out/.psem-built"
	echo "build-kernel: prepared the $flavour module tree in $((SECONDS - t0))s" >&2
	echo "$out"
	exit 0
fi

if [ $w1 = 0 ]; then
	mk -j"$(nproc)" ${unbuilt[@]+"${unbuilt[@]}"} bzImage modules >&2
else
	# A patch under test is built with W=1 (both sides, the same
	# flags), the log kept for scripts/check-series.sh to judge the
	# warnings in the overlaid files; so is a build that the series'
	# W=1 builds start from. W=1 also runs kernel-doc on every C file
	# it compiles, a Python process each on 7.x (a sixth of the
	# build's CPU time), on files whose warnings nobody judges:
	# cmd_checkdoc is not among the commands kbuild keeps in .*.cmd,
	# so emptying it changes no object and no later incremental W=1
	# build (the series' builds, which keep it). kernel_doc_overlays
	# runs it on the overlaid C files, as W=1 would have.
	mk -j"$(nproc)" W=1 cmd_checkdoc= ${unbuilt[@]+"${unbuilt[@]}"} bzImage modules >"$out/.psem-build.log" 2>&1 ||
		{ tail -n 30 "$out/.psem-build.log" >&2; exit 1; }
	kernel_doc_overlays >>"$out/.psem-build.log" 2>&1
fi
[ -z "$okey" ] || echo "$okey" >"$out/.psem-overlay-key"
touch "$out/.psem-built"
echo "build-kernel: built the $flavour kernel in $((SECONDS - t0))s" >&2
echo "$out"
