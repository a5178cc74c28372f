#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build a busybox initramfs (uncompressed newc cpio) for psem's QEMU guests.
#
#   scripts/mkinitramfs.sh [-C DIR] [-b BINARY]... OUT.cpio PAYLOAD [FILE...]
#
# FILEs (paths relative to DIR, default .) are copied to /psem/FILE in the
# guest; each host BINARY (e.g. /usr/sbin/mkfs.xfs) is copied to the same
# path, with the shared libraries and the loader ldd names for it, and is
# on the guest's PATH; PAYLOAD, a busybox sh script, becomes /payload. The generic /init
# mounts proc, sysfs, devtmpfs and debugfs, runs `sh /payload` in /psem,
# prints the end marker that scripts/qemu-run.sh waits for, with the
# payload's exit status, and reboots, which ends QEMU (-no-reboot). Needs no
# root: the archive, /dev/console included, is written directly.
set -euo pipefail

base=.
bins=()
while [ $# -gt 0 ]; do
	case $1 in
	-C) base=$2; shift 2 ;;
	-b) bins+=("$2"); shift 2 ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || { echo "usage: mkinitramfs.sh [-C DIR] [-b BINARY]... OUT.cpio PAYLOAD [FILE...]" >&2; exit 2; }
out=$(realpath -m "$1") payload=$(realpath "$2")
shift 2
busybox=/bin/busybox
if [ ! -x "$busybox" ] || readelf -l "$busybox" 2>/dev/null | grep -q 'program interpreter'; then
	echo "mkinitramfs: $busybox is missing or not static; install busybox-static" >&2
	exit 1
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,tmp,psem}
cp "$busybox" "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"
cp "$payload" "$stage/payload"
for f in "$@"; do
	install -D -m 0644 "$base/$f" "$stage/psem/$f"
done
# Host binaries at their own paths, with what ldd says they load (the
# loader included), dereferenced: the guest has no /lib symlinks.
for b in ${bins[@]+"${bins[@]}"}; do
	[ -x "$b" ] || { echo "mkinitramfs: $b is not an executable" >&2; exit 1; }
	libs=$(ldd "$b" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
	for f in "$b" $libs; do
		[ -e "$stage$f" ] || install -D -m 0755 "$(realpath "$f")" "$stage$f"
	done
done

cat >"$stage/init" <<'INIT'
#!/bin/sh
# psem guest /init (from scripts/mkinitramfs.sh).
/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
echo "==== PSEM-GUEST-START $(uname -r) ===="
cd /psem && sh /payload
rc=$?
echo "==== PSEM-GUEST-END rc=$rc ===="
# qemu-run.sh runs QEMU with -no-reboot, so a reboot ends it. (Not
# poweroff: the tinyconfig test kernels have no ACPI and would only halt.)
reboot -f
INIT
chmod 0755 "$stage/init"

# A newc archive with every file owned by root and dated 0, so the same
# inputs give the same bytes, plus the /dev/console node the kernel opens
# for /init's standard streams.
python3 - "$stage" "$out" <<'PY'
import os, stat, sys

root, out = sys.argv[1], sys.argv[2]
ino = 1

def entry(f, name, mode, data=b"", rdev=(0, 0)):
    global ino
    name = name.encode() + b"\0"
    hdr = "070701" + "".join("%08X" % v for v in (
        ino, mode, 0, 0, 2 if stat.S_ISDIR(mode) else 1, 0, len(data),
        0, 0, rdev[0], rdev[1], len(name), 0))
    ino += 1
    f.write(hdr.encode() + name)
    f.write(b"\0" * (-(110 + len(name)) % 4))
    f.write(data)
    f.write(b"\0" * (-len(data) % 4))

paths = []
for dirpath, dirs, files in os.walk(root):
    dirs.sort()
    paths += [os.path.join(dirpath, n) for n in sorted(dirs + files)]

with open(out + ".tmp", "wb") as f:
    for p in paths:
        st = os.lstat(p)
        data = b""
        if stat.S_ISLNK(st.st_mode):
            data = os.fsencode(os.readlink(p))
        elif stat.S_ISREG(st.st_mode):
            with open(p, "rb") as g:
                data = g.read()
        entry(f, os.path.relpath(p, root), st.st_mode, data)
    entry(f, "dev/console", stat.S_IFCHR | 0o600, rdev=(5, 1))
    entry(f, "TRAILER!!!", 0)
    f.write(b"\0" * (-f.tell() % 512))
os.replace(out + ".tmp", out)
PY
