#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make lint`: static checks on psem's C sources and scripts; any finding
# fails. Needs no test kernel: it builds against Debian's stock headers.
#
#   checkpatch.pl --strict on the C files of every directory with a Kbuild
#     (kmod/, kunit/, examples/, torture/, bench/, ...)
#   a W=1 build with sparse (C=2) of all of those modules: no warnings at all
#   kernel-doc -none -v on kmod/*.[ch] (6.1's kernel-doc has no -Wall;
#     -v adds its missing-return-description warnings)
#   and, where installed, shellcheck -S warning on scripts/*.sh and .ci/run
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

bash "$top/scripts/setup.sh"
src=$("$top/scripts/build-kernel.sh" --source)
kdir=$("$top/scripts/stock-kernel.sh" | sed -n 's/^KDIR=//p')
cd "$top"
shopt -s nullglob
moddirs=() csrc=()
for k in */Kbuild; do
	moddirs+=("${k%/Kbuild}")
	csrc+=("${k%/Kbuild}"/*.[ch])
done
kdoc=(kmod/*.[ch])
bad=()

# checkpatch.pl --strict with no types ignored, except per file where a
# check cannot apply:
#  - psem.h: DEFINE_PSEM(name, ...) names its variable and also passes it to
#    the initializer for the wait queue's self-pointing list head, exactly as
#    DEFINE_SEMAPHORE() does; the argument is an identifier, not an expression.
checkpatch_ignore() {
	case $1 in
	kmod/psem.h) echo MACRO_ARG_REUSE ;;
	esac
}
stage "lint: checkpatch --strict (${#csrc[@]} files)"
cp_bad=0
for f in "${csrc[@]}"; do
	ign=$(checkpatch_ignore "$f")
	perl "$src/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types \
		--no-summary ${ign:+--ignore "$ign"} -f "$f" || cp_bad=1
done
if [ $cp_bad = 1 ]; then
	bad+=(checkpatch)
	stage_done FAILED
else
	stage_done clean
fi

stage "lint: W=1 and sparse build of ${moddirs[*]} against $kdir"
work=$cache/work/lint
rm -rf "$work"
out=$(build_modules "$kdir" "$work" W=1 C=2 CHECK=sparse 2>&1) || bad+=(build)
# The other external modules (the Makefile builds kmod/, kunit/, examples/).
for d in "${moddirs[@]}"; do
	case $d in kmod | kunit | examples) continue ;; esac
	out+=$'\n'$(make -s -C "$kdir" M="$work/$d" KBUILD_EXTRA_SYMBOLS="$work/Module.symvers" \
		W=1 C=2 CHECK=sparse modules 2>&1) || bad+=(build)
done
if grep -iE '(^|[: ])(warning|error):' <<<"$out"; then
	bad+=(W=1/sparse)
	stage_done FAILED
elif [[ " ${bad[*]} " = *" build "* ]]; then
	echo "$out"
	stage_done FAILED
else
	stage_done clean
fi

stage "lint: kernel-doc (${#kdoc[@]} files)"
if [ ${#kdoc[@]} -gt 0 ] &&
   out=$(perl "$src/scripts/kernel-doc" -none -v "${kdoc[@]}" 2>&1) &&
   ! grep -iE '(^|[: ])(warning|error):' <<<"$out"; then
	stage_done clean
elif [ ${#kdoc[@]} -eq 0 ]; then
	stage_done "nothing to check"
else
	bad+=(kernel-doc)
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
