#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The QEMU guest's payload for `make check` and `make demo` (busybox sh; it
# runs as /payload in the initramfs from scripts/mkinitramfs.sh, in /psem,
# and refuses to run anywhere else: it loads modules).
#
# Loads kmod/psem.ko, the suites' helper library (kunit/psem_kunit_lib.ko),
# then each other kunit/*.ko in sorted order (their suites run at load;
# their kernel log follows each): those the host put in the
# initramfs, which check.sh's --suites narrows, as kunit.filter_glob on the
# command line narrows their suites where the kernel can. Checks the modes
# of psem's debugfs files, flips its switches and checks that each refuses
# garbage, loads examples/psem_consumer.ko with psem's trace events on and
# counts what they recorded, prints the stats, then unloads
# everything. Each part of the output sits between "==== PSEM <part> ===="
# lines for the host scripts to pick out. Exits non-zero if a step failed.

if [ ! -e /payload ] || [ "$(pwd)" != /psem ]; then
	echo "guest-psem.sh: runs only inside the psem QEMU guest" >&2
	exit 1
fi

failed=0
knobs=/sys/kernel/debug/psem
part() { echo "==== PSEM $* ===="; }
run() {
	"$@" || { echo "guest: FAILED ($?): $*"; failed=1; return 1; }
}

part UNAME
uname -r

part LOAD
run insmod kmod/psem.ko || exit 1
# A KUnit module runs its suites during insmod and prints their KTAP to the
# kernel log; each module's log goes out in full (dmesg -r: every line starts
# with <level>, unlike the console's copy) as part "KTAP <module>". Linux
# 6.1's debugfs results are no substitute: they lose parameterised cases.
loaded=
# On the KCSAN kernel, watch one access in 50 instead of 4000 while the
# suites run: at the default the ordering test rarely catches a missing
# RELEASE (measured: 0-2 reports a run against a relaxed fast path).
skip=/sys/module/kcsan/parameters/skip_watch
[ -w "$skip" ] && skip_was=$(cat "$skip") && echo 50 >"$skip"
# kunit/psem_nmi_kunit.ko sends NMIs, and each runs every NMI_LOCAL handler,
# the kernel's own too, timed with sched_clock, which counts jiffies in these
# guests (no stable TSC under TCG): a run that spans a tick reads 4 ms, over
# the 1 ms after which x86 prints "INFO: NMI handler (...) took too long to
# run". That reports the clock, not psem: the threshold goes up to 1 s.
nmi_longest=/sys/kernel/debug/x86/nmi_longest_ns
[ -w "$nmi_longest" ] && echo 1000000000 >"$nmi_longest"
load_kunit() {
	m=$(basename "$1" .ko)
	echo "guest: insmod $1"
	dmesg -c >/dev/null
	run insmod "$1" && loaded="$m $loaded"
	# The suites ran during the insmod, but the console may still be
	# printing what they logged: PREEMPT_RT's and 7.x's consoles print
	# from a thread. A marker written meanwhile is cut by kernel lines (a
	# lockdep report cut "==== PSEM KTAP psem_lockdep_kunit ====" on
	# rt-6.12) and its part is lost. The console prints only notices and
	# worse while the modules load (dmesg -n below; the KTAP comes from
	# dmesg -r whatever its level), so only a module that logged one (a
	# splat, or the pr_notice() that brackets an expected one) leaves the
	# console anything to print, and only then a pause lets it catch up.
	# What the tests assert depends on neither.
	if dmesg -r | grep -q '^<[0-5]>'; then
		sleep "${console_drain:-1}"
	fi
	part "KTAP $m"
	dmesg -r
	part "KTAP-END $m"
}
# psem_lockdep_kunit.ko provokes a lockdep report, after which lockdep is
# off for the rest of the boot: it loads last, after the consumer.
# The console's level while they load: KERN_NOTICE and worse (a splat, and
# the "psem-expect-splat:" lines around an expected one, which check.sh
# reads on the console) still reach it; the KTAP's KERN_INFO lines do not.
read -r console_level _ </proc/sys/kernel/printk
dmesg -n 6
# The suites' helper library first: they import its symbols (insmod does
# not load what a module depends on). It holds no suite and prints no KTAP.
lib=kunit/psem_kunit_lib.ko
[ ! -f "$lib" ] || { run insmod "$lib" && loaded="psem_kunit_lib $loaded"; }
for ko in kunit/*.ko; do	# the shell sorts a glob's matches
	[ -f "$ko" ] || continue
	case $ko in *lockdep* | "$lib") continue ;; esac
	load_kunit "$ko"
done
dmesg -n "$console_level"
[ -z "${skip_was:-}" ] || echo "$skip_was" >"$skip"

part KNOBS
# Who may touch them: the switches change psem's behaviour and are root's
# alone (0600); stats is read-only (0400). debugfs is root-only anyway.
modes=
for f in fast_release:600 zero_release:600 contention_flag:600 stats_enabled:600 stats:400; do
	mode=$(stat -c %a "$knobs/${f%%:*}") || mode=none
	modes="$modes ${f%%:*} $mode,"
	if [ "$mode" != "${f#*:}" ]; then
		echo "guest: FAILED: $knobs/${f%%:*} has mode $mode, expected ${f#*:}"
		failed=1
	fi
done
echo "modes:${modes%,}"
for k in fast_release zero_release contention_flag stats_enabled; do
	if [ ! -f "$knobs/$k" ]; then
		echo "guest: FAILED: no $knobs/$k"
		failed=1
		continue
	fi
	line="$k: $(cat "$knobs/$k")"
	for v in 0 1; do
		run sh -c "echo $v > $knobs/$k" && line="$line -> $(cat "$knobs/$k")"
	done
	echo "$line"
done
# Garbage to every switch: each echo must fail (busybox's echo exits 1 on
# the write error) and leave the value as it was. The two long strings are
# 200 characters; the second is zeros ending in "x", which a parser that
# reads only a prefix takes for "0" (kstrtouint_from_user() reads 34 bytes:
# psem's switches accepted it while they used that).
long_a=$(printf '%200s' '' | tr ' ' a)
long_0=$(printf '%199s' '' | tr ' ' 0)x
for k in fast_release zero_release contention_flag stats_enabled; do
	[ -f "$knobs/$k" ] || continue
	was=$(cat "$knobs/$k")
	n=0 refused=0 why=
	for v in 2 -1 "" abc 0x1 "1 1" 01x " 1" "$long_a" "$long_0"; do
		n=$((n + 1))
		shown=$(printf '%.12s' "$v")
		[ "$shown" = "$v" ] || shown="$shown... (${#v} chars)"
		if err=$( (echo "$v" >"$knobs/$k") 2>&1); then
			echo "guest: FAILED: $k accepted 'echo \"$shown\"'"
			failed=1
		else
			refused=$((refused + 1))
			case " $why," in *" ${err##*: },"*) ;; *) why="$why ${err##*: }," ;; esac
		fi
		now=$(head -c 12 "$knobs/$k")
		if [ "$now" != "$was" ]; then
			echo "guest: FAILED: 'echo \"$shown\"' changed $k from $was to $now"
			failed=1
			echo "$was" >"$knobs/$k"
		fi
	done
	why=${why%,}
	echo "$k: refused $refused of $n bad writes (${why# }), value still $(cat "$knobs/$k")"
	[ "$refused" = "$n" ] || failed=1
done
if err=$( (echo 0 >"$knobs/stats") 2>&1); then
	echo "guest: FAILED: 'echo 0 > stats' was accepted"
	failed=1
else
	echo "stats: write refused (${err##*: })"
fi

# psem's trace events (kmod/psem_trace.h), on from before the consumer
# loads; the host fails the run if the count below is missing or holds no
# release (check.sh's run_kernel: every kernel here has event tracing). Turned
# on while no psem code runs, and never off: turning a tracepoint's static
# key while the consumer's timers run through it oopsed a stock 6.12 guest
# on the int3 of the patch site under multi-threaded TCG (the guest-side
# flips of psem's own switches run single-threaded, scripts/torture.sh).
# The count stops the ring buffer instead (tracing_on, a flag, no code
# patched): reading the trace while it filled hung a stock 6.1 guest.
# record-cmd goes off first: with it on, the first event enabled also
# hooks sched_switch to record task names, and turning that key while
# the other CPU schedules oopsed an RT 6.12 guest in __schedule (CI).
tracing=/sys/kernel/tracing
[ -d "$tracing/events" ] || mount -t tracefs nodev "$tracing" 2>/dev/null
if [ -d "$tracing/events/psem" ]; then
	echo 0 >"$tracing/options/record-cmd"
	echo 0 >"$tracing/options/record-tgid"
	echo 0 >"$tracing/trace"
	run sh -c "echo 1 >$tracing/events/psem/enable"
else
	echo "guest: no $tracing/events/psem"
fi

part CONSUMER
run insmod examples/psem_consumer.ko
dmesg | sed -n 's/^\[[^]]*\] //; /^psem_consumer:/p'

# The example's credit pool (examples/credits.c) as debugfs shows it, while
# its submitters run: once at once, once after the resizes (40 ms apart).
part CREDITS
view=/sys/kernel/debug/psem/sems/psem_consumer_credits
if [ -r "$view" ]; then
	cat "$view"
	sleep 1
	echo "-- after the resizes:"
	dmesg | sed -n 's/^\[[^]]*\] //; /^psem_consumer: credits: resized/p'
	cat "$view"
else
	echo "guest: no $view"
fi

part TRACE
if [ -d "$tracing/events/psem" ]; then
	echo 0 >"$tracing/tracing_on"
	# Read once: the kernel formats every event on each read of the file
	# (about 3 s a pass on the debug kernels).
	cat "$tracing/trace" >/tmp/trace
	fast=$(grep -c 'psem_release: .* path=fast' /tmp/trace)
	locked=$(grep -c 'psem_release: .* path=locked' /tmp/trace)
	begin=$(grep -c 'psem_wait_begin: .* needed=' /tmp/trace)
	end=$(grep -c 'psem_wait_end: .* ret=' /tmp/trace)
	rm -f /tmp/trace
	echo "trace: psem_release $((fast + locked)) (fast $fast, locked $locked), psem_wait_begin $begin, psem_wait_end $end"
fi

part STATS
run cat "$knobs/stats"

for ko in kunit/*lockdep*.ko; do
	# Its report is the longest burst of console lines of the run.
	[ -f "$ko" ] && console_drain=3 load_kunit "$ko"
done

part LSMOD
lsmod | grep psem

part UNLOAD
mark=$(dmesg | wc -l)
run rmmod psem_consumer
# What the consumer said on its way out: the doorbell, close and quiesce.
dmesg | tail -n +"$((mark + 1))" | sed -n 's/^\[[^]]*\] //; /^psem_consumer:/p'
for m in $loaded; do	# newest first
	run rmmod "$m"
done
run rmmod psem
if lsmod | grep -q psem; then
	echo "guest: FAILED: still loaded: $(lsmod | grep psem)"
	failed=1
else
	echo "guest: all psem modules unloaded"
fi
exit "$failed"
