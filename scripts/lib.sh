# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Helpers shared by psem's host-side scripts (check.sh, demo.sh, lint.sh,
# torture.sh, ...). Sourced, not run. Nothing here loads a module on
# the host: modules are only built here and loaded inside QEMU guests.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${PSEM_CACHE:-/var/cache/psem}
# shellcheck disable=SC2034 # used by the scripts that source this
logdir=${PSEM_LOGDIR:-$cache/logs}

# stage NAME... / stage_done: announce a step and report how long it took.
stage() {
	stage_name=$*
	stage_t0=$SECONDS
	echo "== $stage_name"
}
stage_done() {
	echo "== $stage_name: $1 in $((SECONDS - stage_t0))s"
}

# build_modules KDIR WORK [MAKE ARGS...]: build psem.ko, the KUnit modules
# (kernels with KUnit only) and the example consumer against KDIR in WORK, a
# copy of the repository kept under the cache, so that builds for different
# kernels do not clobber each other or the checkout. Incremental across runs; a
# failed build is retried once from scratch.
build_modules() {
	_build_modules "$@" && return 0
	echo "build: retrying from scratch in $2" >&2
	rm -rf "$2" && _build_modules "$@"
}
# psem_built WORK: whether WORK holds a psem build that other modules can
# link against (kmod/psem.ko and its Module.symvers): a tree that
# build_modules built, handed to a script that then builds only its own.
psem_built() { [ -f "$1/kmod/psem.ko" ] && [ -f "$1/Module.symvers" ]; }
_build_modules() {
	local kdir=$1 work=$2
	shift 2
	mkdir -p "$work" || return 1
	# Not rsync -a: a changed file must get a new mtime even if the
	# checkout's copy is older than the last build's objects (a branch
	# switch, a restore), or make would skip it. -c leaves unchanged
	# files, and so the incremental build, alone.
	rsync -rlpc --delete --exclude=/.git --exclude='*.o' --exclude='*.ko' \
		--exclude='*.mod' --exclude='*.mod.c' --exclude='.*.cmd' \
		--exclude=modules.order --exclude=Module.symvers \
		"$top/" "$work/" || return 1
	# Only modules this build links may be loaded: kbuild leaves behind the
	# .ko of a module that Kbuild no longer lists.
	find "$work" -name '*.ko' -delete || return 1
	# kbuild reruns an external module's modpost when that module changes,
	# not when the Module.symvers it imports does (KBUILD_EXTRA_SYMBOLS is
	# no prerequisite in 6.1's or 6.12's Makefile.modpost): with
	# CONFIG_MODVERSIONS the consumer, the torture or the bench module
	# would keep the symbol versions of psem's last build and fail to load
	# ("disagrees about version of symbol"). Without its Module.symvers,
	# each of them runs modpost again.
	find "$work" -mindepth 2 -name Module.symvers -delete || return 1
	# (Debian's headers have no vmlinux to generate BTF from: not news.)
	# One job a CPU: about 40% less time than one job on the two CPUs here.
	make -s -j"$(nproc)" -C "$work" KDIR="$kdir" "$@" all 2>&1 |
		sed '/^Skipping BTF generation .* unavailability of vmlinux$/d'
}

# image_version IMAGE: the version a stock kernel image is named by:
# /boot/vmlinuz-<ver>, or (7.2.13, 7.3.4 and later, unpacked without being
# installed) .../lib/modules/<ver>/vmlinuz.
image_version() {
	case $1 in
	*/vmlinuz) basename "$(dirname "$1")" ;;
	*) echo "${1##*/vmlinuz-}" ;;
	esac
}

# stock_kernel [KVER]: the Debian stock kernel that scripts/stock-kernel.sh
# picks for KVER (none: the newest generic one). Sets stock_image,
# stock_kdir and stock_ver (image_version). KVER may also name a test
# kernel without lock debugging that scripts/build-kernel.sh builds
# (sem-7.3, sem-7.3-unpatched): stock_ver is then its release.
# shellcheck disable=SC2034 # used by the scripts that source this
stock_kernel() {
	local s
	case ${1:-} in
	sem-*)
		stock_kdir=$("$top/scripts/build-kernel.sh" "$1") || return 1
		stock_image=$stock_kdir/arch/x86/boot/bzImage
		stock_ver=$(cat "$stock_kdir/include/config/kernel.release")
		return 0 ;;
	esac
	s=$("$top/scripts/stock-kernel.sh" ${1:+"$1"}) || return 1
	stock_image=$(sed -n 's/^KERNEL=//p' <<<"$s")
	stock_kdir=$(sed -n 's/^KDIR=//p' <<<"$s")
	stock_ver=$(image_version "$stock_image")
}

# suites_in FILE...: the KUnit suites the C files define (every
# `.name = "psem..."` and `PSEM_TEST_*SUITE("psem..."` at the start of a
# line), one a line.
suites_in() {
	cat "$@" 2>/dev/null |
		sed -n -e 's/.*\.name[[:space:]]*=[[:space:]]*"\(psem[A-Za-z0-9_]*\)".*/\1/p' \
			-e 's/^PSEM_TEST_[A-Z_]*SUITE("\(psem[A-Za-z0-9_]*\)".*/\1/p' |
		sort -u
}
# The expected KUnit suites: every one in kunit/*.c.
expected_suites() { suites_in "$top"/kunit/*.c; }
# module_suites MODULE: the suites the test module holds. By convention
# MODULE is <suite>_kunit and holds that one suite; a module built from a
# source of its own name, kunit/MODULE.c, holds the suites that file names.
module_suites() {
	if [ -f "$top/kunit/$1.c" ]; then
		suites_in "$top/kunit/$1.c"
	else
		echo "${1%_kunit}"
	fi
}

# log_part LOG NAME: the guest output between "==== PSEM NAME ====" and the
# next marker, without the kernel's console messages that fell in between.
log_part() {
	tr -d '\r' <"$1" | awk -v want="==== PSEM $2 ====" '
		$0 == want { on = 1; next }
		/^==== PSEM/ { on = 0 }
		on && !/^\[ *[0-9]+\.[0-9]+\] / { print }'
}

# xfs_ops LOG: the total of stress-ng's bogo operations in a guest-xfs.sh log.
xfs_ops() {
	tr -d '\r' <"$1" |
		awk '/stress-ng: metrc: \[[0-9]+\] (dir|dentry|rename|link|xattr|chmod) +[0-9]+ / {
			for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) { n += $(i + 2); break }
		} END { print n + 0 }'
}

# Console lines that mean the kernel is unhappy. The stock kernel's taint
# notes for unsigned out-of-tree modules do not match.
splat_re='BUG:|WARNING:|Oops|general protection fault|Kernel panic|kernel panic'
splat_re+='|possible recursive locking|possible circular locking|INFO:'
splat_re+='|inconsistent lock state|suspicious RCU|DEBUG_LOCKS_WARN_ON|KASAN|KCSAN:'
splat_re+='|UBSAN|ODEBUG|hung_task|blocked for more than|soft lockup|hard LOCKUP'
splat_re+='|detected stall|Call Trace|refcount_t:|list_add corruption|list_del corruption'

# scan_splats LOG: print the console lines that match splat_re (with the
# lines around the first) and fail if there are any.
#
# One exception: a KCSAN report in which neither racing access is in a
# module (every module in these guests is psem's) is a data race inside the
# core kernel, which KCSAN_STRICT finds in Linux 6.1 on its own (at boot,
# in hrtimers); it is listed as a note and does not fail. A race whose top
# frame is in psem code, even code inlined from a kernel header, fails.
#
# Expected reports: a test that provokes a kernel report on purpose
# (kunit/psem_hostile_test.c) prints "psem-expect-splat: begin KIND ..."
# before and "psem-expect-splat: end KIND" after. Inside that window the
# first report of KIND is not a failure; everything else that matches
# splat_re still is (a second report, lockdep, KASAN, ...). The KINDs:
#   atomic-sleep       might_sleep()'s "BUG: sleeping function called from
#                      invalid context at ..." and the "Call Trace:" of its
#                      stack dump (its other lines do not match splat_re);
#   lockdep-inversion  lockdep's "WARNING: possible circular locking
#                      dependency detected" and the "Call Trace:" of its
#                      stack dump (kunit/psem_lockdep_test.c);
#   refusal            a psem refusal's own WARN: "WARNING: CPU: N PID: N
#                      at .../psem_*.c:N" (the form 6.19 replaced by
#                      "WARNING: .../psem_*.c:N at FUNC, CPU#N: COMM/PID",
#                      also accepted) and its "Call Trace:"
#                      (the loud cases of kunit/psem_mutex_test.c and psem_sem_test.c).
# A window without its report fails too: the test then proved nothing
# (the tests print the markers only where CONFIG_DEBUG_ATOMIC_SLEEP or
# CONFIG_PROVE_LOCKING is set). So do an unknown KIND, an end without its begin, and a window left
# open. The console and the guest's `dmesg -r` copy of a module's log are
# separate windows, each checked.
# A console that loses its turn mid-line (7.x's nbcon consoles, on handover)
# prints the line cut short, then "** replaying previous printk message **",
# then the whole line again. The cut-short copy is not a message: blank it
# and the notice, keeping the line numbers, so that the scanner reads each
# message once.
printk_unreplay() {
	awk '/^(<[0-9]+>)?(\[ *[0-9]+\.[0-9]+\] )?\*\* replaying previous printk message \*\*$/ {
		if (held) print ""
		print ""; held = 0; next
	}
	{ if (held) print last; last = $0; held = 1 }
	END { if (held) print last }'
}

scan_splats() {
	local hits
	hits=$(tr -d '\r' <"$1" | printk_unreplay | awk -v re="$splat_re" '
		{ line = $0; sub(/^(<[0-9]+>)?\[ *[0-9]+\.[0-9]+\] /, "", line) }
		kcsan {			# inside a KCSAN report
			if (line ~ /^=+$/ && length(line) >= 20) {
				if (!mod)
					print "note: " NR ": KCSAN report in core kernel code only (not a psem failure): " title
				else
					for (i = 0; i < n; i++) print held[i]
				kcsan = 0
			} else if (top) {
				if (line ~ /\]$/) mod = 1
				top = 0
			} else if (line ~ / to 0x[0-9a-f]+ of [0-9]+ bytes by .*:$/) {
				top = 1
			}
			next
		}
		kwarn {			# a KCSAN internal warning inside a report
			if (line ~ /^---\[ end trace/) kwarn = 0
			next
		}
		line ~ /^WARNING: (CPU: [0-9]+ PID: [0-9]+ at )?kernel\/kcsan\/report\.c:[0-9]+/ {
			kwarn = 1
			print "note: " NR ": KCSAN internal warning while reporting (core kernel, not a psem failure): " line
			next
		}
		line ~ /^BUG: KCSAN: / {
			kcsan = 1; mod = 0; top = 0; n = 0; title = line
			held[n++] = NR ":" $0
			next
		}
		line ~ /^psem-expect-splat: begin / {
			if (win != "")
				print wnr ":" wline " (window not closed)"
			split(line, w, " "); win = w[3]; wnr = NR; wline = $0
			seen = 0; trace = 0
			if (win != "atomic-sleep" && win != "lockdep-inversion" &&
			    win != "refusal")
				print NR ":" $0 " (unknown kind of expected splat)"
			next
		}
		line ~ /^psem-expect-splat: end / {
			split(line, w, " ")
			if (win == "" || w[3] != win)
				print NR ":" $0 " (no matching begin)"
			else if (!seen)
				print wnr ":" wline " (the expected report is missing)"
			win = ""; trace = 0
			next
		}
		win == "atomic-sleep" && !seen &&
		line ~ /^BUG: sleeping function called from invalid context at / {
			seen = 1; trace = 1
			next
		}
		win == "lockdep-inversion" && !seen &&
		line ~ /^WARNING: possible circular locking dependency detected$/ {
			seen = 1; trace = 1
			next
		}
		win == "refusal" && !seen &&
		(line ~ /^WARNING: CPU: [0-9]+ PID: [0-9]+ at .*\/psem_[a-z_]+\.c:[0-9]+ / ||
		 line ~ /^WARNING: .*\/psem_[a-z_]+\.c:[0-9]+ at [^ ]+( \[[^]]+\])?, CPU#[0-9]+: .+\/[0-9]+$/) {
			seen = 1; trace = 1
			next
		}
		trace && line ~ /^Call Trace:$/ { trace = 0; next }
		$0 ~ re { print NR ":" $0 }
		END {
			for (i = 0; kcsan && i < n; i++) print held[i]	# cut short
			if (win != "")
				print wnr ":" wline " (window not closed)"
		}')
	grep '^note: ' <<<"$hits" | sed 's/^note: /note: line /' | sort -u -t: -k3
	hits=$(printf '%s' "$hits" | grep -v '^note: ') || return 0
	echo "splats in $1:"
	head -n 20 <<<"$hits" | sed 's/^/  | /'
	local first=${hits%%:*}
	echo "context of the first:"
	tr -d '\r' <"$1" | sed -n "$((first > 5 ? first - 5 : 1)),$((first + 40))p" | sed 's/^/  | /'
	return 1
}
