#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot a kernel with an initramfs from scripts/mkinitramfs.sh in QEMU, with
# a hard time limit; the guest's serial console goes to LOG.
#
#   scripts/qemu-run.sh KERNEL INITRAMFS LOG [EXTRA KERNEL CMDLINE...]
#
# Succeeds only if the guest printed the end marker with status 0. On a
# timeout, a panic (panic=-1 with -no-reboot ends QEMU) or a failed payload
# it prints the tail of LOG and fails. The caller scans LOG for splats.
#
# Environment:
#   PSEM_QEMU_TIMEOUT  seconds before QEMU is killed (default 600)
#   PSEM_QEMU_BOOT_TIMEOUT  seconds for the kernel to boot as far as the
#                      payload (default 240); past it the boot counts as hung
#   PSEM_QEMU_SMP      virtual CPUs (default 2)
#   PSEM_QEMU_MEM      guest memory (default 1G)
#   PSEM_QEMU_ARGS     extra QEMU arguments, word-split (e.g. "-icount shift=0")
#   PSEM_QEMU_KVM=1    use KVM instead of TCG (KVM guests hang on some hosts)
#   PSEM_QEMU_TCG      "multi" (default) or "single": TCG's threading. QEMU
#                      7.2's multi-threaded TCG mishandles cross-modifying
#                      code: flipping a static key while another vCPU runs
#                      its code soft-locks the guest in an int3 storm (seen
#                      without psem). Runs that flip switches under load
#                      (the live-flip torture) use "single".
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -ge 3 ] || { echo "usage: qemu-run.sh KERNEL INITRAMFS LOG [CMDLINE...]" >&2; exit 2; }
kernel=$1 initrd=$2 log=$3
shift 3
timeout=${PSEM_QEMU_TIMEOUT:-600}
if [ "${PSEM_QEMU_KVM:-0}" = 1 ]; then
	accel=(-accel kvm -cpu host)
else
	# -icount (deterministic instruction counts) refuses multi-threaded TCG.
	tcg=${PSEM_QEMU_TCG:-multi}
	case $tcg in single | multi) ;; *)
		echo "qemu-run: PSEM_QEMU_TCG must be single or multi" >&2; exit 2 ;;
	esac
	case " ${PSEM_QEMU_ARGS:-} " in *" -icount "*) tcg=single ;; esac
	# shellcheck disable=SC2054 # the commas are QEMU's, not array separators
	accel=(-accel "tcg,thread=$tcg" -cpu max)
fi
read -r -a extra <<<"${PSEM_QEMU_ARGS:-}"
# One CPU per socket: the test kernels have no ACPI and find CPUs in
# SeaBIOS's MP table, which lists only the first CPU of each socket.
smp=${PSEM_QEMU_SMP:-2}

for f in "$kernel" "$initrd"; do
	[ -r "$f" ] || { echo "qemu-run: cannot read $f" >&2; exit 2; }
done

boot_timeout=${PSEM_QEMU_BOOT_TIMEOUT:-240}

# boot CMDLINE...: one run of the guest. Sets rc (QEMU's status, or 125 if
# the kernel never got as far as the payload within boot_timeout) and secs.
boot() {
	local pid booted=0
	start=$SECONDS
	rc=0
	timeout --kill-after=10 "$timeout" \
		qemu-system-x86_64 "${accel[@]}" -smp "$smp,sockets=$smp" \
		-m "${PSEM_QEMU_MEM:-1G}" -nographic -no-reboot \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 log_buf_len=4M $*" \
		"${extra[@]}" </dev/null >"$log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		if [ $booted = 0 ]; then
			if grep -qs '^==== PSEM-GUEST-START' "$log"; then
				booted=1
			elif [ $((SECONDS - start)) -ge "$boot_timeout" ]; then
				kill "$pid" 2>/dev/null || true	# timeout relays it
				wait "$pid" || true
				rc=125
				secs=$((SECONDS - start))
				return
			fi
		fi
		sleep 1
	done
	wait "$pid" || rc=$?
	secs=$((SECONDS - start))
}

# Did the kernel splat while booting, before the payload (and so before any
# psem module) ran? Seen here: 1 boot in 4 of the KASAN kernel under a
# loaded host reported a wild access in rcu_is_watching() during secondary
# CPU bring-up, which also turns lockdep off for the rest of the run.
splat_at_boot() {
	local part rc=1
	part=$(mktemp)
	tr -d '\r' <"$log" | sed '/^==== PSEM-GUEST-START/q' >"$part"
	scan_splats "$part" >/dev/null || rc=0
	rm -f "$part"
	return $rc
}

# Seen here, on a loaded host, with the debug kernel only: a boot stuck
# after "Running RCU-tasks wait API self tests", just before secondary CPU
# bring-up. Neither it nor a boot-time splat involves psem (no module is
# loaded yet), so either one gets one more boot; a second one fails.
boot "$@"
if [ $rc = 125 ]; then
	mv "$log" "$log.boot-hang"
	echo "qemu-run: the kernel did not reach the payload in ${boot_timeout}s;" \
		"kept $log.boot-hang and booting once more" >&2
	boot "$@"
elif splat_at_boot; then
	mv "$log" "$log.boot-splat"
	echo "qemu-run: the kernel splatted while booting, before any module was loaded;" \
		"kept $log.boot-splat and booting once more" >&2
	boot "$@"
fi

fail() {
	echo "qemu-run: $* ($(basename "$kernel"), ${secs}s); last lines of $log:" >&2
	tail -n 40 "$log" | tr -d '\r' | sed 's/^/  | /' >&2
	exit 1
}
case $rc in
124 | 137) fail "timed out after ${timeout}s" ;;
125) fail "the kernel did not reach the payload in ${boot_timeout}s, twice" ;;
esac
end=$(tr -d '\r' <"$log" | sed -n 's/^==== PSEM-GUEST-END rc=\([0-9]*\) ====$/\1/p' | tail -n1)
[ -n "$end" ] || fail "guest did not finish (QEMU exit $rc)"
[ "$end" = 0 ] || fail "guest payload failed with status $end"
[ "$rc" -eq 0 ] || fail "QEMU exited with status $rc"
echo "qemu-run: $(basename "$kernel") ran in ${secs}s" >&2
