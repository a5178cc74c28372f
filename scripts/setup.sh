#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages psem's build, tests, demo and benchmarks need.
# Idempotent: packages already present are not fetched again.
set -euo pipefail

pkgs=(build-essential bc bison flex libelf-dev libssl-dev dwarves cpio
      busybox-static qemu-system-x86 linux-source-6.1 sparse
      linux-image-amd64 linux-headers-amd64 spin gnuplot-nox python3 kmod rsync xz-utils
      shellcheck)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "setup: missing packages: ${missing[*]} (run as root or install them)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
