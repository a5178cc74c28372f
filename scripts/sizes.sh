#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# sizes.sh KDIR [RELEASE]: the sizes of struct psem, psem_mutex and psem_rwlock, of
# the struct semaphore drop-in (psem_sem.h: a struct psem), and of the
# kernel's struct semaphore, mutex and rw_semaphore, for the kernel whose
# build tree is KDIR, measured from an object compiled against it
# (tools/sizes/psem_sizes.c, one of each, read with nm -S): one line,
#   size (RELEASE): struct psem N, psem_mutex N, psem_rwlock N, psem_sem N
#   bytes; struct semaphore N, mutex N, rw_semaphore N
# and one for the type that carries what only some psems need,
#   size (RELEASE): struct psem_ext N bytes (...)
# RELEASE (the image's uname -r) defaults to the tree's kernel.release.
# Run by check.sh's stock stage for every stock kernel.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

kdir=${1:?usage: sizes.sh KDIR [RELEASE]}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tools"
cp -r "$top/kmod" "$work/kmod"
cp -r "$top/tools/sizes" "$work/tools/sizes"
make -s -C "$kdir" M="$work/tools/sizes" psem_sizes.o >/dev/null
rel=${2:-$(cat "$kdir/include/config/kernel.release")}
# nm -S: "VALUE SIZE TYPE NAME", the size in hex.
declare -A size
while read -r _ sz _ name; do
	size[${name#psem_sizeof_}]=$((16#$sz))
done < <(nm -S "$work/tools/sizes/psem_sizes.o" | grep ' psem_sizeof_')
for t in psem psem_ext psem_mutex psem_rwlock semaphore mutex rw_semaphore; do
	[ -n "${size[$t]:-}" ] || { echo "sizes: no size for $t in the probe" >&2; exit 1; }
done
echo "size ($rel): struct psem ${size[psem]}, psem_mutex ${size[psem_mutex]}," \
	"psem_rwlock ${size[psem_rwlock]}, psem_sem ${size[psem]} bytes;" \
	"struct semaphore ${size[semaphore]}, mutex ${size[mutex]}, rw_semaphore ${size[rw_semaphore]}"
echo "size ($rel): struct psem_ext ${size[psem_ext]} bytes (a psem with a capacity or asynchronous waiters)"
