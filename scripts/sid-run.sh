#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run a program from a package of Debian's sid that scripts/fetch-7x.sh
# unpacked under the cache (herd7 from herdtools7, sparse), through sid's
# own unpacked glibc: sid's binaries need a newer glibc than Debian 12's,
# and the system's stays as it is.
#
#   scripts/sid-run.sh PKG PROG [ARGS...]    run PKG's usr/bin/PROG
#   scripts/sid-run.sh --check PKG PROG      succeed if it can be run
#
# The dynamic loader of sid's libc6 is run with sid's libc6 and libgmp10
# directories as its library path; PROG is never run by the system's own
# loader, and nothing under /usr is touched.
set -euo pipefail

fetch=$(dirname "$0")/fetch-7x.sh
check=0
[ "${1:-}" != --check ] || { check=1; shift; }
[ $# -ge 2 ] || { echo "usage: sid-run.sh [--check] PKG PROG [ARGS...]" >&2; exit 2; }
pkg=$1 prog=$2
shift 2

libc=$("$fetch" --dir libc6) || exit 2
gmp=$("$fetch" --dir libgmp10) || exit 2
dir=$("$fetch" --dir "$pkg") || exit 2
ld=$libc/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
bin=$dir/usr/bin/$prog
for f in "$ld" "$bin"; do
	[ -x "$f" ] || { echo "sid-run: $f missing; run scripts/setup.sh" >&2; exit 2; }
done
[ $check = 0 ] || exit 0
exec "$ld" --library-path "$libc/usr/lib/x86_64-linux-gnu:$gmp/usr/lib/x86_64-linux-gnu" \
	"$bin" "$@"
