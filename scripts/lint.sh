#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make lint`: static checks on psem's C sources and scripts; any finding
# fails. Needs no test kernel: it builds against Debian's stock headers, of
# Linux 6.1 and of 6.12, the two kernel series psem supports.
#
#   checkpatch.pl --strict, from 6.1's and from 6.12's source, on the C
#     files of every directory with a Kbuild (kmod/, kunit/, examples/,
#     torture/, bench/, ...)
#   a W=1 build with sparse (C=2) of all of those modules against each of
#     the stock headers trees in PSEM_LINT_KERNELS (default "6.1 6.12-rt":
#     both series, and PREEMPT_RT's lock types; any name that
#     scripts/stock-kernel.sh takes): no warnings at all
#   kernel-doc -none -v on kmod/*.[ch], with 6.1's and 6.12's kernel-doc
#     (6.1's has no -Wall; -v adds its missing-return-description warnings)
#   and, where installed, shellcheck -S warning on scripts/*.sh and .ci/run
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

bash "$top/scripts/setup.sh"
srcs=("$("$top/scripts/build-kernel.sh" --source linux-source-6.1)"
      "$("$top/scripts/build-kernel.sh" --source linux-source-6.12)")
kdirs=()
for k in ${PSEM_LINT_KERNELS:-6.1 6.12-rt}; do
	kdirs+=("$("$top/scripts/stock-kernel.sh" "$k" | sed -n 's/^KDIR=//p')")
done
cd "$top"
shopt -s nullglob
moddirs=() csrc=()
for k in */Kbuild; do
	moddirs+=("${k%/Kbuild}")
	csrc+=("${k%/Kbuild}"/*.[ch])
done
kdoc=(kmod/*.[ch])
bad=()

# A check that found nothing is not run again on the same input: clean_key
# NAME ARGS... hashes this script, ARGS (tool and tree paths, which carry
# their versions) and every file a module build reads; is_clean / mark_clean
# look up and record a clean result under the cache. PSEM_LINT_CACHE=0
# runs everything.
okdir=$cache/lint-clean
clean_key() {
	local name=$1
	shift
	echo "$name-$( { printf '%s\n' "$@"; cat "$0" Makefile Kbuild;
		for d in "${moddirs[@]}"; do cat "$d/Kbuild" "$d"/*.[ch]; done; } |
		sha256sum | cut -c1-16)"
}
is_clean() { [ "${PSEM_LINT_CACHE:-1}" != 0 ] && [ -f "$okdir/$1" ]; }
mark_clean() { mkdir -p "$okdir" && touch "$okdir/$1"; }

# checkpatch.pl --strict with no types ignored, except per file where a
# check cannot apply:
#  - psem.h: DEFINE_PSEM(name, ...) names its variable and also passes it to
#    the initializer for the wait queue's self-pointing list head, exactly as
#    DEFINE_SEMAPHORE() does; the argument is an identifier, not an expression.
#  - psem_queue.h: DEFINE_PSEM_WAKE(name) likewise, for its two list heads.
#  - psem_compat.h: the one file whose job is to test the kernel version,
#    with LINUX_VERSION_CODE, which checkpatch also takes for a constant on
#    the left of a comparison; and the one that defines EXPORT_SYMBOL_PSEM(),
#    whose definition checkpatch takes for an export far from its symbol.
checkpatch_ignore() {
	case $1 in
	kmod/psem.h|kmod/psem_queue.h) echo MACRO_ARG_REUSE ;;
	kmod/psem_compat.h) echo LINUX_VERSION_CODE,CONSTANT_COMPARISON,EXPORT_SYMBOL ;;
	esac
}
stage "lint: checkpatch --strict (${#csrc[@]} files, 6.1's and 6.12's)"
cp_bad=0
key=$(clean_key checkpatch "${srcs[@]}")
is_clean "$key" && srcs_cp=() || srcs_cp=("${srcs[@]}")
for src in "${srcs_cp[@]}"; do
	for f in "${csrc[@]}"; do
		ign=$(checkpatch_ignore "$f")
		perl "$src/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types \
			--no-summary ${ign:+--ignore "$ign"} -f "$f" || cp_bad=1
	done
done
if [ $cp_bad = 1 ]; then
	bad+=(checkpatch)
	stage_done FAILED
elif [ ${#srcs_cp[@]} = 0 ]; then
	stage_done "clean (unchanged since a clean run)"
else
	mark_clean "$key"
	stage_done clean
fi

for kdir in "${kdirs[@]}"; do
	stage "lint: W=1 and sparse build of ${moddirs[*]} against $kdir"
	key=$(clean_key sparse "$kdir" "$(cat "$kdir/include/config/kernel.release" 2>/dev/null)")
	if is_clean "$key"; then
		stage_done "clean (unchanged since a clean run)"
		continue
	fi
	work=$cache/work/lint-$(basename "$(dirname "$kdir")")
	rm -rf "$work"
	berr=0
	out=$(build_modules "$kdir" "$work" W=1 C=2 CHECK=sparse 2>&1) || berr=1
	# The other external modules (the Makefile builds kmod/, kunit/, examples/).
	for d in "${moddirs[@]}"; do
		case $d in kmod | kunit | examples) continue ;; esac
		out+=$'\n'$(make -s -C "$kdir" M="$work/$d" KBUILD_EXTRA_SYMBOLS="$work/Module.symvers" \
			W=1 C=2 CHECK=sparse modules 2>&1) || berr=1
	done
	if grep -iE '(^|[: ])(warning|error):' <<<"$out"; then
		bad+=("W=1/sparse ($kdir)")
		stage_done FAILED
	elif [ $berr = 1 ]; then
		echo "$out"
		bad+=("build ($kdir)")
		stage_done FAILED
	else
		mark_clean "$key"
		stage_done clean
	fi
done

stage "lint: kernel-doc (${#kdoc[@]} files, 6.1's and 6.12's)"
kd_bad=0
for src in "${srcs[@]}"; do
	if [ ${#kdoc[@]} -gt 0 ] &&
	   { ! out=$(perl "$src/scripts/kernel-doc" -none -v "${kdoc[@]}" 2>&1) ||
	     grep -iE '(^|[: ])(warning|error):' <<<"$out"; }; then
		kd_bad=1
	fi
done
if [ ${#kdoc[@]} -eq 0 ]; then
	stage_done "nothing to check"
elif [ $kd_bad = 1 ]; then
	bad+=(kernel-doc)
	stage_done FAILED
else
	stage_done clean
fi

# Misuse that must not compile (issue 12): each case is a one-file module
# against the first stock kernel's headers, with a control that must build,
# so that a failure is the psem header refusing it, not the setup.
stage "lint: misuse that must not compile"
mnc_bad=0
mnc=$cache/work/lint-must-not-compile
mnc_case() {	# mnc_case NAME EXPECT(ok|fail) PATTERN BODY
	local name=$1 expect=$2 pattern=$3 body=$4 dir=$mnc/$1 out rc=0
	rm -rf "$dir" && mkdir -p "$dir"
	printf '%s\n' "// SPDX-License-Identifier: GPL-2.0" "#include <linux/module.h>" \
		"#include <psem.h>" "$body" 'MODULE_LICENSE("GPL");' >"$dir/$name.c"
	echo "obj-m += $name.o" >"$dir/Kbuild"
	out=$(make -s -C "${kdirs[0]}" M="$dir" ccflags-y="-I$top/kmod -Werror=unused-result" \
		KBUILD_MODPOST_WARN=1 modules 2>&1) || rc=1
	if [ "$expect" = ok ] && [ $rc = 0 ]; then
		echo "  $name: builds, as it must"
	elif [ "$expect" = fail ] && [ $rc = 1 ] && grep -qE "$pattern" <<<"$out"; then
		echo "  $name: refused ($(grep -oE "$pattern" <<<"$out" | head -n1))"
	else
		echo "  $name: expected $expect${pattern:+ with /$pattern/}, got exit $rc:"
		sed 's/^/  | /' <<<"$out" | head -n 20
		mnc_bad=1
	fi
}
mnc_case psem_mnc_control ok '' \
	'static DEFINE_PSEM(good, 3);
int psem_mnc_try(void) { return psem_try_acquire(&good, 1) ? 0 : -EBUSY; }
EXPORT_SYMBOL_GPL(psem_mnc_try);'
mnc_case psem_mnc_negative fail 'negative width in bit-field' \
	'static DEFINE_PSEM(bad, -1);
long psem_mnc_avail(void) { return psem_available(&bad); }
EXPORT_SYMBOL_GPL(psem_mnc_avail);'
mnc_case psem_mnc_capacity fail 'negative width in bit-field' \
	'static DEFINE_PSEM_CAPACITY(bad, PSEM_MAX_PERMITS + 1);
long psem_mnc_avail(void) { return psem_available(&bad); }
EXPORT_SYMBOL_GPL(psem_mnc_avail);'
mnc_case psem_mnc_unchecked fail 'ignoring return value' \
	'static DEFINE_PSEM(good, 3);
void psem_mnc_try(void) { psem_try_acquire(&good, 1); }
EXPORT_SYMBOL_GPL(psem_mnc_try);'
if [ $mnc_bad = 0 ]; then
	stage_done ok
else
	bad+=(must-not-compile)
	stage_done FAILED
fi

stage "lint: shellcheck"
if ! command -v shellcheck >/dev/null; then
	stage_done "skipped (no shellcheck)"
elif shellcheck -x -S warning scripts/*.sh .ci/run; then
	stage_done clean
else
	bad+=(shellcheck)
	stage_done FAILED
fi

if [ ${#bad[@]} -gt 0 ]; then
	echo "lint: FAILED: ${bad[*]}"
	exit 1
fi
echo "lint: clean"
