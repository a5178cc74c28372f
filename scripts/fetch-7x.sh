#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Fetch the Debian packages of newer suites that psem's tests use, without
# touching the system: Linux 7.3 (trixie-backports: linux-source-7.3, the
# stock 7.3.N+deb13 amd64 and rt-amd64 images with their headers, and the
# amd64 image's own modules, linux-modules-7.3.N+deb13-amd64, whose xfs.ko
# is the stock side of scripts/bench-xfs.sh on 7.3),
# linux-source-7.2 (sid; a compile-only check), and from sid herdtools7
# (herd7, for the litmus tests), sparse (7.3's checker needs a newer one
# than bookworm's) and the libc6 and libgmp10 those binaries need.
#
#   scripts/fetch-7x.sh            fetch what is missing; print nothing
#   scripts/fetch-7x.sh --modules  ... and the 7.3 amd64 image's modules
#   scripts/fetch-7x.sh --dir PKG  print where PKG is unpacked (fails if
#                                  it is not)
#
# The machine stays as it is: the system's apt sources are never edited,
# nothing is installed or upgraded. A private apt configuration, under
# $PSEM_CACHE/apt, has its own source list (the URI is taken at run time
# from the system's own Debian source entry, so that none is written in the
# repository), its own package lists and its own package cache;
# `apt-get download` fetches each package and `dpkg-deb -x` unpacks it
# into $PSEM_CACHE/pkg/NAME, with the version in NAME/.psem-version.
# A package already unpacked is not fetched again; the lists are
# refreshed when something is missing.
set -euo pipefail

cache=${PSEM_CACHE:-/var/cache/psem}
apt=$cache/apt
pkgdir=$cache/pkg

if [ "${1:-}" = --dir ]; then
	[ -f "$pkgdir/$2/.psem-version" ] ||
		{ echo "fetch-7x: $2 is not unpacked; run scripts/setup.sh" >&2; exit 1; }
	echo "$pkgdir/$2"
	exit 0
fi

# The wanted packages, as NAME/SUITE; a NAME with @ is a pattern for the
# newest matching package, resolved once the lists are there.
want=(linux-source-7.3/trixie-backports
      linux-base-@7.3-amd64/trixie-backports linux-binary-@7.3-amd64/trixie-backports
      linux-headers-@7.3-amd64/trixie-backports
      linux-base-@7.3-rt-amd64/trixie-backports linux-binary-@7.3-rt-amd64/trixie-backports
      linux-headers-@7.3-rt-amd64/trixie-backports
      linux-source-7.2/sid herdtools7/sid sparse/sid libc6/sid libgmp10/sid)
# --modules: also the amd64 image's own modules (113 MB unpacked), which
# only scripts/bench-xfs.sh needs; make check does not fetch them.
[ "${1:-}" != --modules ] || want+=(linux-modules-@7.3-amd64/trixie-backports)

# The stock 7.3 release: recorded once found, so that a later run needs
# no lists to know what it has.
rel_file=$pkgdir/.stock-7.3
unpacked() { [ -f "$pkgdir/$1/.psem-version" ]; }
all_there() {
	local w n rel
	rel=$(cat "$rel_file" 2>/dev/null) || return 1
	for w in "${want[@]}"; do
		n=${w%/*}
		n=${n/@7.3/$rel}
		unpacked "$n" || return 1
	done
}
all_there && exit 0

# The system's Debian mirror: the URI of its entry for its own release.
# shellcheck disable=SC1091 # the system's, not ours
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
uri=''
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
	uri=$(awk -v c="$codename" '
		/^[[:space:]]*$/ { u = ""; s = 0 }
		/^URIs:/ { u = $2 }
		/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == c) s = 1 }
		u != "" && s { print u; exit }' /etc/apt/sources.list.d/debian.sources)
fi
if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
	uri=$(awk -v c="$codename" '$1 == "deb" {
		for (i = 2; i < NF; i++) if ($i !~ /^\[/ && $(i + 1) == c) { print $i; exit } }' \
		/etc/apt/sources.list)
fi
[ -n "$uri" ] || { echo "fetch-7x: no Debian $codename entry in the system's apt sources" >&2; exit 1; }

mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$cache/debs" "$pkgdir"
key=/usr/share/keyrings/debian-archive-keyring.gpg
{
	echo "deb [signed-by=$key] $uri trixie-backports main"
	echo "deb [signed-by=$key] $uri sid main"
} >"$apt/sources.list"
o=(-o "Dir::Etc::sourcelist=$apt/sources.list" -o Dir::Etc::sourceparts=/nonexistent
   -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
   -o APT::Sandbox::User=root)
exec 7>"$cache/.fetch-7x.lock"
flock 7
echo "fetch-7x: refreshing the private package lists" >&2
apt-get "${o[@]}" -qq update >&2

rel=$(apt-cache "${o[@]}" pkgnames linux-binary-7.3. |
	sed -n 's/^linux-binary-\(7\.3\.[0-9]*+deb13\)-amd64$/\1/p' | sort -V | tail -n1)
[ -n "$rel" ] || { echo "fetch-7x: no linux-binary-7.3.*+deb13-amd64 in trixie-backports" >&2; exit 1; }

for w in "${want[@]}"; do
	n=${w%/*} suite=${w#*/}
	n=${n/@7.3/$rel}
	ver=$(apt-cache "${o[@]}" show "$n/$suite" 2>/dev/null | sed -n 's/^Version: //p' | head -n1)
	[ -n "$ver" ] || { echo "fetch-7x: $n is not in $suite" >&2; exit 1; }
	[ "$(cat "$pkgdir/$n/.psem-version" 2>/dev/null)" != "$ver" ] || continue
	echo "fetch-7x: fetching $n $ver ($suite)" >&2
	rm -f "$cache/debs/${n}_"*.deb
	(cd "$cache/debs" && apt-get "${o[@]}" -qq download "$n/$suite" >&2)
	deb=$(find "$cache/debs" -maxdepth 1 -name "${n}_*.deb" | head -n1)
	rm -rf "${pkgdir:?}/$n" "$pkgdir/$n.tmp"
	dpkg-deb -x "$deb" "$pkgdir/$n.tmp"
	echo "$ver" >"$pkgdir/$n.tmp/.psem-version"
	mv "$pkgdir/$n.tmp" "$pkgdir/$n"
	rm -f "$deb"
done
echo "$rel" >"$rel_file"
