#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages psem's build, tests, demo and benchmarks need.
# Idempotent: packages already present are not fetched again.
#
# Besides the tools: the kernel sources the test kernels are built from
# (linux-source-6.1, and linux-source-6.12 from the security suite), and
# four Debian stock kernels with their headers, which make check boots:
#   6.1 amd64 and 6.1 rt-amd64     (linux-image-amd64, linux-image-rt-amd64)
#   6.12 amd64 and 6.12 rt-amd64   (linux-image-6.12.N+deb12-amd64 and
#                                   -rt-amd64 from the security suite, which
#                                   has no meta-package for them: the newest
#                                   N that apt-cache lists is chosen)
#   7.3 amd64 and 7.3 rt-amd64     (unpacked, not installed: see below)
# The package lists are refreshed (apt-get update) when something is missing
# and otherwise once a day, so that a newer 6.12 release is picked up.
# PSEM_SETUP_REFRESH=0 never refreshes when nothing is missing.
set -euo pipefail

pkgs=(build-essential bc bison flex libelf-dev libssl-dev dwarves cpio
      busybox-static qemu-system-x86 linux-source-6.1 linux-source-6.12 sparse
      linux-image-amd64 linux-headers-amd64 linux-image-rt-amd64 linux-headers-rt-amd64
      spin gnuplot-nox python3 kmod rsync xz-utils dkms shellcheck
      xfsprogs stress-ng fio)

cache=${PSEM_CACHE:-/var/cache/psem}
stamp=$cache/.setup-refreshed

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# newest_612 FLAVOUR: the newest linux-image-6.12.N+deb12-FLAVOUR that
# apt-cache knows, as "image headers" package names.
newest_612() {
	local v
	v=$(apt-cache pkgnames linux-image-6.12. 2>/dev/null |
		sed -n "s/^linux-image-\(6\.12\.[0-9]*+deb12\)-$1\$/\1/p" | sort -V | tail -n1)
	[ -n "$v" ] || return 1
	echo "linux-image-$v-$1 linux-headers-$v-$1"
}

# Linux 7.3 (source, and the stock 7.3.N+deb13 images with their headers),
# linux-source-7.2, and sid's herdtools7, sparse and glibc: from newer
# suites, through a private apt configuration, unpacked under the cache and
# never installed (scripts/fetch-7x.sh).
bash "$(dirname "$0")/fetch-7x.sh"

missing=()
for p in "${pkgs[@]}"; do
	installed "$p" || missing+=("$p")
done
for f in amd64 rt-amd64; do
	if pair=$(newest_612 "$f"); then
		for p in $pair; do
			installed "$p" || missing+=("$p")
		done
	else
		missing+=("6.12-$f")	# apt-cache does not know any yet
	fi
done

refresh=0
[ ${#missing[@]} -eq 0 ] || refresh=1
if [ "${PSEM_SETUP_REFRESH:-1}" != 0 ] && [ "$(id -u)" -eq 0 ] &&
   [ -z "$(find "$stamp" -mmin -1440 2>/dev/null)" ]; then
	refresh=1
fi
[ $refresh = 1 ] || exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "setup: missing packages: ${missing[*]} (run as root or install them)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
mkdir -p "$cache" && touch "$stamp"
missing=()
for p in "${pkgs[@]}"; do
	installed "$p" || missing+=("$p")
done
for f in amd64 rt-amd64; do
	pair=$(newest_612 "$f") ||
		{ echo "setup: apt-cache lists no linux-image-6.12.*+deb12-$f (is the security suite in the sources?)" >&2; exit 1; }
	for p in $pair; do
		installed "$p" || missing+=("$p")
	done
done
# The 6.1 kernels' meta-packages too: installing an installed package
# upgrades it to the newest version, and is a no-op when it is that already.
mapfile -t upgrade < <(apt-cache policy linux-image-amd64 linux-headers-amd64 \
	linux-image-rt-amd64 linux-headers-rt-amd64 |
	awk '/^[^ ]/ { p = $1; sub(/:$/, "", p) } /^ *Installed:/ { i = $2 }
	     /^ *Candidate:/ && $2 != i && i != "(none)" { print p }')
[ ${#missing[@]} -eq 0 ] && [ ${#upgrade[@]} -eq 0 ] && exit 0
echo "setup: installing ${missing[*]} ${upgrade[*]}" >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}" "${upgrade[@]}" >/dev/null
