#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make lint`: static checks on psem's C sources and scripts; any finding
# fails. Needs no test kernel: it builds against Debian's stock headers of
# Linux 6.1 and 6.12 and the stock 7.3 module tree (scripts/stock-kernel.sh,
# scripts/build-kernel.sh --stock), the kernel series psem supports, and
# compiles against 7.2 in a prepared-only tree.
#
#   checkpatch.pl --strict, from 6.1's, 6.12's and 7.3's source, on the C
#     files of every directory with a Kbuild (kmod/, kunit/, examples/,
#     torture/, bench/, ...)
#   a W=1 build with sparse (C=2) of all of those modules against each of
#     the trees in PSEM_LINT_KERNELS (default "6.1 6.12-rt 7.3": both older
#     series, PREEMPT_RT's lock types, and 7.3; any name that
#     scripts/stock-kernel.sh takes): no warnings at all. The sparse is the
#     system's where the tree's scripts/checker-valid.sh accepts it (or the
#     tree has none), else sid's through scripts/sid-run.sh (7.x: bookworm's
#     0.6.4 fails 7.3's check on __typeof_unqual__, and kbuild would switch
#     C=2 off without a word). A canary module with an address-space
#     mismatch proves that sparse really runs against the tree; where no
#     sparse can, lint says so and builds W=1 only.
#   a compile-only check against 7.2: the same W=1 (and sparse) build against
#     a tree of linux-source-7.2 that scripts/build-kernel.sh --prepare
#     compile-7.2 configured (tinyconfig, configs/base.config,
#     configs/compile-7.2.config) and ran only modules_prepare on. The tree has
#     no vmlinux and so no Module.symvers: modpost's warning that it is
#     missing and its reports of kernel symbols it cannot resolve (which
#     only a vmlinux could) are dropped, nothing else
#   kernel-doc on kmod/*.[ch], with 6.1's and 6.12's (Perl; -none -v: 6.1's
#     has no -Wall, -v adds its missing-return-description warnings) and
#     7.3's (Python, run by the system's python3; -none -Wall, which is what
#     gives its missing-return warnings), each first shown a canary comment
#     with an undescribed parameter, which it must report
#   misuse that must not compile, against the first of PSEM_LINT_KERNELS
#   no call loop between the files of kmod/ and of torture/
#     (scripts/check-layers.py, on the objects of the first W=1 build)
#   the console scanner's self-test (scripts/check-scan.sh)
#   every variable the Makefile and scripts/*.sh read in the table of
#     Documentation/testing.rst, "Variables"
#   and, where installed, shellcheck -S warning on scripts/*.sh and .ci/run
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

bash "$top/scripts/setup.sh"
# The sources whose checkpatch.pl and kernel-doc run, by series.
src_series=(6.1 6.12 7.3)
# Extracted side by side where the cache has not got them (each is an
# xz stream, which one CPU unpacks); then each is asked for in turn.
for v in "${src_series[@]}"; do
	"$top/scripts/build-kernel.sh" --source "linux-source-$v" >/dev/null 2>&1 &
done
wait
srcs=()
for v in "${src_series[@]}"; do
	srcs+=("$("$top/scripts/build-kernel.sh" --source "linux-source-$v")")
done
src_names="6.1's, 6.12's and 7.3's"
kdirs=()
for k in ${PSEM_LINT_KERNELS:-6.1 6.12-rt 7.3}; do
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
#    the initializer for the queue lock's lockdep name, exactly as
#    DEFINE_SEMAPHORE() does; the argument is an identifier, not an expression.
#  - psem_queue.h: DEFINE_PSEM_WAKE(name) likewise, for its two list heads.
#  - bench/psem_bench.c and torture/psem_torture_lib.c: BENCH_PARAM_*() and
#    TT_PARAM() declare a module parameter, its variable and description
#    from an identifier and a constant, as kernel/torture.h's torture_param()
#    and lib/test_vmalloc.c's __param() do.
#  - kunit/psem_test.h: __PSEM_NR_CASES_N() counts a suite's cases by the
#    position of its last argument, as the kernel's own __COUNT_ARGS() in
#    <linux/args.h> does, so its placeholder arguments are unused.
#  - psem_compat.h: the one file whose job is to test the kernel version,
#    with LINUX_VERSION_CODE, which checkpatch also takes for a constant on
#    the left of a comparison; and the one that defines EXPORT_SYMBOL_PSEM(),
#    whose definition checkpatch takes for an export far from its symbol.
# and, in every file, one that 7.3's checkpatch added:
#  - ALLOC_WITH_SIZEOF: "Prefer kzalloc_obj over kzalloc with sizeof", for
#    p = kzalloc(sizeof(*p), ...). kmalloc_obj() and kzalloc_obj() are not
#    in 6.1, which psem supports; sizeof(*p) is the form that cannot name
#    the wrong type, and the one older checkpatches ask for.
checkpatch_ignore() {
	local all=ALLOC_WITH_SIZEOF
	case $1 in
	kmod/psem.h|kmod/psem_queue.h) echo "$all,MACRO_ARG_REUSE" ;;
	kunit/psem_test.h) echo "$all,MACRO_ARG_UNUSED" ;;
	bench/psem_bench.c|torture/psem_torture_lib.c)
		echo "$all,MACRO_ARG_REUSE,MACRO_ARG_PRECEDENCE" ;;
	kmod/psem_compat.h) echo "$all,LINUX_VERSION_CODE,CONSTANT_COMPARISON,EXPORT_SYMBOL" ;;
	*) echo "$all" ;;
	esac
}
stage "lint: checkpatch --strict (${#csrc[@]} files, $src_names)"
cp_bad=0
key=$(clean_key checkpatch "${srcs[@]}")
is_clean "$key" && srcs_cp=() || srcs_cp=("${srcs[@]}")
# checkpatch_tree SRC: every file through SRC's checkpatch.pl, one run for
# each set of ignored types (its start-up, which reads its word lists, costs
# as much as a file); fails if one had a finding, which it prints, with the
# file's name.
checkpatch_tree() {
	local f ign out rc=0
	local -A files=()
	for f in "${csrc[@]}"; do
		ign=$(checkpatch_ignore "$f")
		files[$ign]+=" $f"
	done
	for ign in "${!files[@]}"; do
		# shellcheck disable=SC2086 # the list of files, split
		out=$(perl "$1/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types \
			--no-summary ${ign:+--ignore "$ign"} -f ${files[$ign]} 2>&1) && continue
		echo "  checkpatch from $(basename "$1"):"
		echo "$out"
		rc=1
	done
	return $rc
}
# The trees run side by side, each into its own file, printed in order.
cp_out=$(mktemp -d)
cp_pids=()
for i in "${!srcs_cp[@]}"; do
	checkpatch_tree "${srcs_cp[$i]}" >"$cp_out/$i" 2>&1 &
	cp_pids+=($!)
done
for i in "${!cp_pids[@]}"; do
	wait "${cp_pids[$i]}" || cp_bad=1
	cat "$cp_out/$i"
done
rm -rf "$cp_out"
if [ $cp_bad = 1 ]; then
	bad+=(checkpatch)
	stage_done FAILED
elif [ ${#srcs_cp[@]} = 0 ]; then
	stage_done "clean (unchanged since a clean run)"
else
	mark_clean "$key"
	stage_done clean
fi

# sparse_for KDIR: the sparse command line that KDIR's tree accepts. kbuild
# runs the tree's scripts/checker-valid.sh (from 6.13) on $(CHECK) and
# switches C=2 off, printing no warning that lint would see, if it fails;
# 7.3's needs a sparse that knows __typeof_unqual__, which bookworm's 0.6.4
# does not. So: the system's sparse where the tree has no such script or
# its script accepts it, else sid's (scripts/sid-run.sh), else none (fails).
sid_sparse="$top/scripts/sid-run.sh sparse sparse"
sparse_for() {
	local kdir=$1 srctree chk
	srctree=$(sed -n 's/^include \(.*\)\/Makefile$/\1/p' "$kdir/Makefile" | head -n1)
	chk=${srctree:-$kdir}/scripts/checker-valid.sh
	if [ ! -f "$chk" ]; then
		echo sparse
		return 0
	fi
	[ "$(sh "$chk" sparse 2>/dev/null)" != 1 ] || { echo sparse; return 0; }
	"$top/scripts/sid-run.sh" --check sparse sparse 2>/dev/null || return 1
	# shellcheck disable=SC2086 # the command's words, as kbuild splits them
	[ "$(sh "$chk" $sid_sparse 2>/dev/null)" = 1 ] || return 1
	echo "$sid_sparse"
}
# sparse_name CHECK: which sparse, with its package version.
sparse_name() {
	if [ "$1" = sparse ]; then
		echo "sparse $(dpkg-query -W -f='${Version}' sparse 2>/dev/null || echo '(version unknown)')"
	else
		echo "sid's sparse $(cat "$("$top/scripts/fetch-7x.sh" --dir sparse)/.psem-version")"
	fi
}

# sparse_canary KDIR CHECK DIR: build, in DIR, a one-file module with a
# plain pointer initialized from a __user one, which gcc accepts and sparse
# reports (different address spaces); succeed only if sparse reported it.
sparse_canary() {
	local kdir=$1 chk=$2 dir=$3 out
	rm -rf "$dir" && mkdir -p "$dir"
	cat >"$dir/psem_sparse_canary.c" <<-'EOF'
	// SPDX-License-Identifier: GPL-2.0
	#include <linux/module.h>
	int psem_sparse_canary(void __user *p);
	int psem_sparse_canary(void __user *p)
	{
		int *q = p;

		return q != NULL;
	}
	EXPORT_SYMBOL_GPL(psem_sparse_canary);
	MODULE_DESCRIPTION("lint's sparse canary");
	MODULE_LICENSE("GPL");
	EOF
	echo "obj-m += psem_sparse_canary.o" >"$dir/Kbuild"
	out=$(make -s -C "$kdir" M="$dir" C=2 CHECK="$chk" KBUILD_MODPOST_WARN=1 modules 2>&1) || true
	if grep -q 'different address spaces' <<<"$out"; then
		echo "  sparse canary: $(grep -m1 -o 'psem_sparse_canary.c:[0-9:]*.*' <<<"$out")"
		return 0
	fi
	echo "  sparse canary: NOT reported; the build said:"
	sed 's/^/  | /' <<<"$out" | head -n 20
	return 1
}

# compile_only_filter KDIR: drop what a tree without a vmlinux makes modpost
# say, and nothing else: its five-line warning that KDIR/Module.symvers is
# missing, and (with KBUILD_MODPOST_WARN=1) its reports of symbols it cannot
# resolve, those of the kernel, not psem's own (psem_*, __psem_*: exported by
# psem.ko, and so known to modpost in every tree), with the count of those it
# did not list. Writes the number of lines dropped to the file COUNT.
compile_only_filter() {	# compile_only_filter KDIR COUNT
	awk -v symvers="WARNING: $1/Module.symvers is missing." -v count="$2" '
		$0 == symvers { skip = 4; n++; next }
		skip > 0 && /^         (Modules may not have dependencies or modversions\.|You may get many unresolved symbol errors\.|You can set KBUILD_MODPOST_WARN=1 to turn errors into warning|if you want to proceed at your own risk\.)$/ { skip--; n++; next }
		{ skip = 0 }
		/^WARNING: modpost: "[A-Za-z0-9_.]+" \[[^]]+\.ko\] undefined!$/ && !/^WARNING: modpost: "_*psem_/ { n++; next }
		/^WARNING: modpost: suppressed [0-9]+ unresolved symbol warnings because there were too many\)$/ { n++; next }
		{ print }
		END { print n + 0 > count }'
}

# lint_build KDIR WORK LABEL [MAKE ARGS...]: build every module directory W=1
# (and with the given sparse arguments) against KDIR in WORK; sets lint_out
# to the build's output and lint_berr to 1 if a build failed.
lint_build() {
	local kdir=$1 work=$2 d
	shift 2
	lint_berr=0
	rm -rf "$work"
	lint_out=$(build_modules "$kdir" "$work" W=1 "$@" 2>&1) || lint_berr=1
	# The other external modules (the Makefile builds kmod/, kunit/, examples/).
	for d in "${moddirs[@]}"; do
		case $d in kmod | kunit | examples) continue ;; esac
		lint_out+=$'\n'$(make -s -C "$kdir" M="$work/$d" KBUILD_EXTRA_SYMBOLS="$work/Module.symvers" \
			W=1 "$@" modules 2>&1) || lint_berr=1
	done
}
warn_re='(^|[: ])(warning|error):'

# lint_tree KDIR WORK LABEL COMPILE_ONLY: the W=1/sparse stage for one tree.
no_sparse=()
lint_tree() {
	local kdir=$1 work=$2 label=$3 conly=$4 rel chk sname key dropped=0 note=''
	local -a sargs=()
	rel=$(cat "$kdir/include/config/kernel.release" 2>/dev/null || true)
	if chk=$(sparse_for "$kdir"); then
		sname=$(sparse_name "$chk")
		sargs=(C=2 "CHECK=$chk")
	else
		sname="no sparse: none passes $rel's checker-valid.sh"
	fi
	[ "$conly" = 0 ] || sargs+=(KBUILD_MODPOST_WARN=1)
	stage "$label"
	echo "  W=1, $sname${chk:+ (CHECK=${chk/#$top\//})}"
	if [ -z "$chk" ]; then
		echo "lint: sparse did NOT run against $rel ($kdir): neither the system's sparse nor sid's (scripts/sid-run.sh) passes its scripts/checker-valid.sh; W=1 only"
		no_sparse+=("$rel")
		note=", W=1 only: sparse did NOT run"
	fi
	key=$(clean_key sparse "$kdir" "$rel" "$chk" "$sname" "$conly")
	# Skipped only while WORK still holds the objects of that clean run:
	# the layers check reads them, and another checkout's run may have
	# built over them since.
	if is_clean "$key" && [ "$(cat "$work.key" 2>/dev/null)" = "$key" ]; then
		stage_done "clean$note (unchanged since a clean run)"
		return 0
	fi
	if [ -n "$chk" ] && ! sparse_canary "$kdir" "$chk" "$work-sparse-canary"; then
		echo "lint: sparse did NOT run against $rel ($kdir), though its checker-valid.sh accepted $sname"
		bad+=("sparse did not run ($kdir)")
		stage_done FAILED
		return 0
	fi
	rm -f "$work.key"
	lint_build "$kdir" "$work" "${sargs[@]}"
	echo "$key" >"$work.key"
	if [ "$conly" = 1 ]; then
		lint_out=$(compile_only_filter "$kdir" "$work.dropped" <<<"$lint_out")
		dropped=$(cat "$work.dropped")
		echo "  dropped $dropped lines of modpost's about the tree's missing Module.symvers and kernel symbols only a vmlinux resolves"
	fi
	if grep -iE "$warn_re" <<<"$lint_out"; then
		bad+=("W=1/sparse ($kdir)")
		stage_done FAILED
	elif [ $lint_berr = 1 ]; then
		echo "$lint_out"
		bad+=("build ($kdir)")
		stage_done FAILED
	else
		mark_clean "$key"
		stage_done "clean$note"
	fi
}

for kdir in "${kdirs[@]}"; do
	# /lib/modules/VER/build is named by VER, a prepared tree by itself.
	w=$(basename "$kdir")
	[ "$w" != build ] || w=$(basename "$(dirname "$kdir")")
	lint_tree "$kdir" "$cache/work/lint-$w" \
		"lint: W=1 and sparse build of ${moddirs[*]} against $kdir" 0
done

# No call loop between the files of psem.ko or of psem_torture.ko: on the
# objects of the first tree's W=1 build (kept from the run that found it
# clean, when that build was skipped).
stage "lint: layers (no call loop in kmod/, torture/)"
w=$(basename "${kdirs[0]}")
[ "$w" != build ] || w=$(basename "$(dirname "${kdirs[0]}")")
if python3 "$top/scripts/check-layers.py" "$cache/work/lint-$w/kmod" \
	"$cache/work/lint-$w/torture" >"$cache/work/lint-layers.out" 2>&1; then
	stage_done ok
else
	cat "$cache/work/lint-layers.out"
	bad+=(layers)
	stage_done FAILED
fi

# Compile-only against 7.2: no test kernel, no stock image, only
# a prepared tree (scripts/build-kernel.sh --prepare; cached, about 15 s).
plog=$logdir/build-compile-7.2.log
mkdir -p "$logdir"
if kdir72=$("$top/scripts/build-kernel.sh" --prepare compile-7.2 2>"$plog"); then
	lint_tree "$kdir72" "$cache/work/lint-compile-7.2" \
		"lint: compile-only against $(cat "$kdir72/include/config/kernel.release") (linux-source-7.2)" 1
else
	stage "lint: compile-only against 7.2 (linux-source-7.2)"
	tail -n 20 "$plog"
	bad+=("compile-only 7.2 (prepare: $plog)")
	stage_done FAILED
fi

# kernel-doc: 6.1's and 6.12's are Perl (-v gives the missing-return
# warnings); 7.3's is Python (it needs 3.6; -v only adds Info lines, -Wall
# gives the return warnings). Each first reads a canary comment that leaves
# a parameter undescribed: a kernel-doc that does not report it did not run.
kd_canary=$cache/work/lint-kernel-doc-canary.h
mkdir -p "${kd_canary%/*}"
printf '%s\n' '/**' ' * psem_kd_canary() - lint canary' ' * @a: described' \
	' *' ' * Return: nothing useful.' ' */' 'int psem_kd_canary(int a, int b);' >"$kd_canary"
kd_names=() kd_py=()
for i in "${!srcs[@]}"; do
	if head -n1 "${srcs[$i]}/scripts/kernel-doc" | grep -q python; then
		kd_py+=(1)
		pyver=$(python3 -c 'import platform; print(platform.python_version())' 2>/dev/null) ||
			pyver="that does not run"
		kd_names+=("${src_series[$i]}'s (python3 $pyver)")
	else
		kd_py+=(0)
		kd_names+=("${src_series[$i]}'s (perl)")
	fi
done
stage "lint: kernel-doc (${#kdoc[@]} files; $(IFS=,; echo "${kd_names[*]}" | sed 's/,/, /g'))"
kd_bad=0
for i in "${!srcs[@]}"; do
	if [ "${kd_py[$i]}" = 1 ]; then
		kd_run=(python3 "${srcs[$i]}/scripts/kernel-doc" -none -Wall)
	else
		kd_run=(perl "${srcs[$i]}/scripts/kernel-doc" -none -v)
	fi
	out=$("${kd_run[@]}" "$kd_canary" 2>&1) || true
	if ! grep -qE "'b' not described" <<<"$out"; then
		echo "lint: kernel-doc from ${srcs[$i]} did NOT run (${kd_run[0]}): its canary warning is missing; it said:"
		sed 's/^/  | /' <<<"$out" | head -n 10
		kd_bad=1
		continue
	fi
	if [ ${#kdoc[@]} -gt 0 ] &&
	   { ! out=$("${kd_run[@]}" "${kdoc[@]}" 2>&1) ||
	     grep -iE "$warn_re" <<<"$out"; }; then
		echo "  (kernel-doc from ${srcs[$i]})"
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

# Misuse that must not compile: each case is a one-file module
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

stage "lint: console scanner"
if bash "$top/scripts/check-scan.sh"; then
	stage_done ok
else
	bad+=(check-scan)
	stage_done FAILED
fi

# Every variable the Makefile and the scripts read from their command line
# or environment is in testing.rst's table (its rows start "* - ``NAME``"):
# every PSEM_* one read anywhere; every other upper-case one that a script
# expands with a default (the :-, - and :+ forms: an input that may be
# unset), but the system's TMPDIR and os-release's VERSION_CODENAME; and
# the Makefile's own (?=, or := with nothing).
stage "lint: variables in testing.rst"
vars_read() {
	{ grep -ohE '\$\{?PSEM_[A-Z0-9_]+' scripts/*.sh Makefile | tr -d '${'
	  grep -ohE '\$\{[A-Z][A-Z0-9_]*:?[-+]' scripts/*.sh | sed 's/^\$[{]//; s/:\{0,1\}[-+]$//'
	  sed -n 's/^\([A-Z][A-Z0-9_]*\)[[:space:]]*?=.*/\1/p
		  s/^\([A-Z][A-Z0-9_]*\)[[:space:]]*:=[[:space:]]*$/\1/p' Makefile
	} | grep -vxE 'TMPDIR|VERSION_CODENAME' | sort -u
}
vars_documented() {
	sed -n 's/^ *\* - ``\([A-Z][A-Z0-9_]*\)``$/\1/p' Documentation/testing.rst | sort -u
}
undocumented=$(comm -23 <(vars_read) <(vars_documented))
if [ -z "$undocumented" ]; then
	stage_done "clean ($(vars_read | wc -l) variables)"
else
	echo "lint: read by Makefile or scripts/*.sh, but not in Documentation/testing.rst's table:"
	for v in $undocumented; do
		echo "  $v ($(grep -lE "\\\$\\{?${v}\b|^${v}[[:space:]]*[?:]=" scripts/*.sh Makefile |
			xargs -n1 basename | paste -sd' '))"
	done
	bad+=(variables)
	stage_done FAILED
fi

# No source file grows past what one reader takes in: 900 lines (the run
# logs under bench/results, the data and the prose are not source).
stage "lint: file lengths (900 lines at most)"
long=$(git ls-files -z -- ':!bench/results' ':!*.rst' ':!*.md' ':!*.csv' \
	':!*.txt' ':!*.patch' ':!*.svg' | xargs -0 wc -l 2>/dev/null |
	awk '$2 != "total" && $1 > 900 { print "  " $2 ": " $1 " lines" }' ||
	true)	# a file deleted but not yet committed: wc skips it
if [ -z "$long" ]; then
	stage_done clean
else
	echo "lint: split these:"
	echo "$long"
	bad+=(lengths)
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
if [ ${#no_sparse[@]} -gt 0 ]; then
	echo "lint: clean, but sparse did NOT run against ${no_sparse[*]} (W=1 only there)"
else
	echo "lint: clean"
fi
