#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make series: generate psem's patch series against Linux 7.3.4
# (linux-source-7.3) from the project's own sources, never by hand.
#
#   scripts/series.sh            write the series into $SERIES_OUT
#                                (default ./series/), cover letter first
#
# The sources: kmod/ (the core, then the primitives), kunit/ (the suites)
# and upstream/ (what has no other home: the Kconfig, Makefile and
# MAINTAINERS text, the locktorture ops, Documentation/locking/psem.rst,
# the commit messages and the cover letter). A scratch git repository, in
# a temporary directory of its own, holds only the files the series
# touches, at their pristine 7.3.4 content (the baseline commit); each
# patch is one commit on it, and git format-patch writes the files.
#
# The transformation for the tree (upstream/README says why each):
# no psem_compat.h (7.3's spellings: string namespaces, hrtimer_setup());
# public headers as <linux/psem*.h>; psem_main.c's module init as an
# initcall; the KUnit suites count their cases with COUNT_ARGS(); the
# project's Documentation/design.rst and api.rst references as the in-tree
# Documentation/locking/psem.rst.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${PSEM_CACHE:-/var/cache/psem}
out=${SERIES_OUT:-$top/series}
up=$top/upstream
src=$("$top/scripts/build-kernel.sh" --source linux-source-7.3)
[ -f "$src/MAINTAINERS" ] || { echo "series: no 7.3 source at $src" >&2; exit 2; }
srcver=$(basename "$src")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
work=$tmp/gen

name=$(git -C "$top" config user.name) || { echo "series: no git user.name" >&2; exit 2; }
email=$(git -C "$top" config user.email) || { echo "series: no git user.email" >&2; exit 2; }
# Reproducible: the same sources give the same files (dated by the last
# commit that changed them, not by the clock).
date=$(git -C "$top" log -1 --format=%cI HEAD -- kmod kunit upstream scripts/series.sh \
	Documentation/benchmarks.rst)
export GIT_AUTHOR_NAME="$name" GIT_AUTHOR_EMAIL="$email" GIT_AUTHOR_DATE="$date"
export GIT_COMMITTER_NAME="$name" GIT_COMMITTER_EMAIL="$email" GIT_COMMITTER_DATE="$date"

# The files of 7.3.4 that the series changes.
touched=(MAINTAINERS kernel/Kconfig.locks kernel/locking/Makefile
	 kernel/locking/locktorture.c Documentation/locking/index.rst
	 include/linux/semaphore.h kernel/locking/semaphore.c)

rm -rf "$work" && mkdir -p "$work"
g() { git -C "$work" "$@"; }
g init -q -b base
g config core.autocrlf false
for f in "${touched[@]}"; do
	mkdir -p "$work/$(dirname "$f")"
	cp "$src/$f" "$work/$f"
done
g add -A && g commit -q -m "Linux 7.3.4 ($srcver): the files the series touches"
base=$(g rev-parse HEAD)

# strip_head FILE: FILE without its leading comment lines ("# ..." or
# "// ..."), the SPDX line and the note that say what the text is for,
# and without the blank line after them.
strip_head() {
	awk 'h == 0 && /^(#|\/\/)/ { next } h == 0 && /^$/ { h = 1; next } { h = 1; print }' "$1"
}

# kfile SRC DST: a kmod/ or kunit/ source as the tree spells it.
kfile() {
	local s=$1 d=$work/$2 inc_knobs='"psem_knobs.h"'
	mkdir -p "$(dirname "$d")"
	case $2 in kernel/locking/psem-tests/*) inc_knobs='"..\/psem_knobs.h"' ;; esac
	sed -e 's/EXPORT_SYMBOL_PSEM_KNOBS(\([A-Za-z0-9_]*\))/EXPORT_SYMBOL_NS_GPL(\1, "PSEM_KNOBS")/' \
	    -e 's/EXPORT_SYMBOL_PSEM_KUNIT(\([A-Za-z0-9_]*\))/EXPORT_SYMBOL_NS_GPL(\1, "PSEM_KUNIT")/' \
	    -e 's/MODULE_IMPORT_NS(PSEM_KUNIT_NS);/MODULE_IMPORT_NS("PSEM_KUNIT");/' \
	    -e 's/EXPORT_SYMBOL_PSEM(\([A-Za-z0-9_]*\))/EXPORT_SYMBOL_NS_GPL(\1, "PSEM")/' \
	    -e '/^#include "psem_compat.h"/d' \
	    -e 's/^#include "\(psem\|psem_mutex\|psem_rwlock\|psem_pool\|psem_sem\)\.h"/#include <linux\/\1.h>/' \
	    -e "s/^#include \"psem_knobs.h\"/#include $inc_knobs/" \
	    -e 's/^#include <asm\/cpufeature.h>$/#include <linux\/cpufeature.h>/' \
	    -e 's@Documentation/\(design\|api\|primitives\)\.rst@Documentation/locking/psem.rst@g' \
	    -e 's/^\(\t*\)\([a-z_]*\) = \(k[mz]alloc\)(sizeof(\*\2), /\1\2 = \3_obj(*\2, /' \
	    "$top/$s" | cat -s >"$d"
	case $2 in
	include/linux/psem*.h)
		sed -i -e 's/\b_\(PSEM[A-Z_]*_H\)\b/_LINUX_\1/g' "$d" ;;
	esac
	case $2 in
	include/linux/psem.h)
		# psem_compat.h gave the namespace's name; 7.3 spells it as a string.
		sed -i 's/^\(\/\* Symbols are exported in namespace PSEM: .*\*\/\)$/\1\n#define PSEM_NS\t\t"PSEM"/' "$d"
		grep -q '^#define PSEM_NS' "$d" || { echo "series: PSEM_NS not placed in $2" >&2; exit 1; } ;;
	kernel/locking/psem_knobs.h)
		sed -i 's/^\(#include <linux\/types.h>\)$/\1\n\n#define PSEM_KNOBS_NS\t"PSEM_KNOBS"/' "$d"
		grep -q '^#define PSEM_KNOBS_NS' "$d" || { echo "series: PSEM_KNOBS_NS not placed" >&2; exit 1; } ;;
	kernel/locking/psem_main.c)
		# Built in: an initcall; the exit path never runs, so it goes.
		awk '/^static void __exit psem_module_exit\(void\)$/ { skip = 1; next }
		     skip && /^}$/ { skip = 2; next }
		     skip == 2 && /^$/ { skip = 0; next }
		     skip == 1 { next }
		     /^module_exit\(/ || /^MODULE_/ { next }
		     /^#include <linux\/module.h>$/ { next }
		     { sub(/^module_init\(psem_module_init\);$/, "device_initcall(psem_module_init);"); print }' \
			"$d" >"$d.tmp" && mv "$d.tmp" "$d"
		# The header comment says what the file is in the tree.
		awk 'NR == 2 && $0 == "/*" { c = 1; next }
		     c && $0 == " */" { c = 0
			print "/*"
			print " * psem: a counting semaphore whose release is lock-free while nobody"
			print " * waits, and the primitives built on it. At boot, psem creates its"
			print " * debugfs directory, psem/; every psem lives in its users\047 memory."
			print " */"; next }
		     c { next } { print }' "$d" | cat -s >"$d.tmp" && mv "$d.tmp" "$d"
		sed -i 's/^\(static int __init\) psem_module_init(void)$/\1 psem_boot_init(void)/; s/^device_initcall(psem_module_init);$/device_initcall(psem_boot_init);/' "$d"
		! grep -q 'module_exit\|MODULE_' "$d" || { echo "series: psem_main.c still modular" >&2; exit 1; } ;;
	kernel/locking/psem-tests/psem_test.h)
		# 7.3's COUNT_ARGS() counts to 15 (6.1's to 12, hence the
		# library's own counter, whose placeholders checkpatch flags).
		perl -0pi -e 's/ The count is\n \* the library.s own: the kernel.s COUNT_ARGS\(\) stops at 12 in Linux 6\.1\.\n \*\/\n#define __PSEM_NR_CASES\(\.\.\.\).*?_20, n, \.\.\.\) n\n/ The count is\n * COUNT_ARGS()\x27s, which counts to 15.\n *\/\n#define __PSEM_NR_CASES(...)\tCOUNT_ARGS(__VA_ARGS__)\n/s;
			      s/\b20 at\n \* most\b/15 at\n * most/; s/20 at most/15 at most/g;
			      s/^(#include <linux\/atomic.h>)$/#include <linux\/args.h>\n$1/m' "$d"
		if ! grep -q 'COUNT_ARGS(__VA_ARGS__)' "$d" || grep -q '__PSEM_NR_CASES_N' "$d"; then
			echo "series: psem_test.h: the case counter was not replaced" >&2; exit 1
		fi ;;
	esac
}

# commit N: commit everything with upstream/msg/N-*.txt's message ("#"
# lines dropped) and the Signed-off-by of the repository's identity.
commit() {
	local m
	m=$(echo "$up"/msg/"$1"-*.txt)
	[ -f "$m" ] || { echo "series: no message $m" >&2; exit 1; }
	g add -A
	g commit -q --cleanup=strip -s -F "$m"
}

# insert_before FILE ANCHOR TEXTFILE: TEXTFILE's lines before the first
# line of FILE that is exactly ANCHOR; fails if there is none.
insert_before() {
	grep -qxF "$2" "$1" || { echo "series: anchor '$2' not in $1" >&2; exit 1; }
	awk -v a="$2" -v t="$3" '!done && $0 == a { while ((getline l < t) > 0) print l; done = 1 } { print }' \
		"$1" >"$1.tmp" && mv "$1.tmp" "$1"
}
# insert_after FILE ANCHOR TEXTFILE: likewise, after the first ANCHOR.
insert_after() {
	grep -qxF "$2" "$1" || { echo "series: anchor '$2' not in $1" >&2; exit 1; }
	awk -v a="$2" -v t="$3" '{ print } !done && $0 == a { while ((getline l < t) > 0) print l; done = 1 }' \
		"$1" >"$1.tmp" && mv "$1.tmp" "$1"
}
# series_key DIR: the key of the patches in DIR (not the cover letter, not
# their dates),
# under which scripts/check-series.sh records its results.
series_key() {
	local f
	for f in "$1"/*.patch; do
		case ${f##*/} in 0000-*) ;; *) cat "$f" ;; esac
	done | grep -vE '^(From [0-9a-f]{40} |Date: )' | sha256sum | cut -c1-12
}
# text NAME: upstream/NAME without its header comment, in $tmp/NAME.
text() { strip_head "$up/$1" >"$tmp/$1"; echo "$tmp/$1"; }

# The objects of kmod/Kbuild, in its order: the core, then the primitives.
prims="psem_rwlock psem_mutex psem_pool psem_sem"
objs=$(sed -n 's/^psem-y[[:space:]]*+\{0,1\}:\{0,1\}=[[:space:]]*\(psem_[a-z_]*\)\.o$/\1/p' "$top/kmod/Kbuild")
core=() prim=()
for o in $objs; do
	case " $prims " in *" $o "*) prim+=("$o") ;; *) core+=("$o") ;; esac
done
[ ${#prim[@]} -eq 4 ] || { echo "series: kmod/Kbuild lacks a primitive of: $prims" >&2; exit 1; }

# 1: the core.
kfile kmod/psem.h include/linux/psem.h
for h in psem_internal psem_knobs psem_queue psem_trace psem_word; do
	kfile "kmod/$h.h" "kernel/locking/$h.h"
done
for o in "${core[@]}"; do kfile "kmod/$o.c" "kernel/locking/$o.c"; done
{
	echo
	echo "obj-\$(CONFIG_PSEM) += ${core[*]/%/.o}" | fold -s -w 72 | sed '2,$s/^/\t/; $!s/ *$/ \\/'
	echo "# define_trace.h includes psem_trace.h by its path, relative to this directory."
	echo "CFLAGS_psem_trace.o := -I\$(src)"
} >>"$work/kernel/locking/Makefile"
text Kconfig.psem >/dev/null
{ echo; cat "$tmp/Kconfig.psem"; } >>"$work/kernel/Kconfig.locks"
text MAINTAINERS.psem >/dev/null
sed -i -e "s/@NAME@/$name/" -e "s/@EMAIL@/$email/" "$tmp/MAINTAINERS.psem"
insert_before "$work/MAINTAINERS" "PSP SECURITY PROTOCOL" "$tmp/MAINTAINERS.psem"
commit 1

# 2: the primitives on top.
for p in "${prim[@]}"; do
	kfile "kmod/$p.h" "include/linux/$p.h"
	kfile "kmod/$p.c" "kernel/locking/$p.c"
done
echo "obj-\$(CONFIG_PSEM) += ${prim[*]/%/.o}" >>"$work/kernel/locking/Makefile"
printf 'F:\tinclude/linux/psem_*.h\n' >"$tmp/f2"
insert_after "$work/MAINTAINERS" "$(printf 'F:\tinclude/linux/psem.h')" "$tmp/f2"
commit 2

# 3: the KUnit suites, kernel/locking/psem-tests/.
t=kernel/locking/psem-tests
for f in "$top"/kunit/*.[ch]; do kfile "kunit/${f##*/}" "$t/${f##*/}"; done
strip_head "$up/kunitconfig" >"$work/$t/.kunitconfig"
cp "$up/psem-tests.Makefile" "$work/$t/Makefile"
# One module a suite, named after its file; the NMI suite's two objects.
suites=$(cd "$top/kunit" && for f in *_test.c; do echo "${f%.c}"; done | grep -vx psem_nmi_test)
{
	echo
	for s in $suites; do echo "obj-\$(CONFIG_PSEM_KUNIT_TEST) += $s.o"; done
} >>"$work/$t/Makefile"
echo "obj-\$(CONFIG_PSEM_KUNIT_TEST) += psem-tests/" >>"$work/kernel/locking/Makefile"
text Kconfig.psem-kunit >/dev/null
{ echo; cat "$tmp/Kconfig.psem-kunit"; } >>"$work/kernel/Kconfig.locks"
printf 'F:\tkernel/locking/psem-tests/\n' >"$tmp/f3"
insert_after "$work/MAINTAINERS" "$(printf 'F:\tkernel/locking/psem*')" "$tmp/f3"
commit 3

# 4: locktorture's psem types.
lt=$work/kernel/locking/locktorture.c
text locktorture_psem.c >/dev/null
grep -qxF '	.name		= "percpu_rwsem_lock"' "$lt" ||
	{ echo "series: locktorture.c has no percpu_rwsem_lock ops" >&2; exit 1; }
awk -v t="$tmp/locktorture_psem.c" '{ print }
     !done && prev == "\t.name\t\t= \"percpu_rwsem_lock\"" && $0 == "};" {
	print ""; while ((getline l < t) > 0) print l; done = 1 }
     { prev = $0 }' "$lt" >"$lt.tmp" && mv "$lt.tmp" "$lt"
printf '#ifdef CONFIG_PSEM\n\t\t&psem_lock_ops, &psem_mutex_lock_ops, &psem_rwlock_ops,\n#endif\n' >"$tmp/ops"
insert_after "$lt" '		&percpu_rwsem_lock_ops,' "$tmp/ops"
commit 4

# The instruction counts of Documentation/benchmarks.rst's first table,
# for psem.rst and the cover letter.
awk '/^Instruction counts \(stock 6\.1\)$/ { sec = 1 }
     sec && /^   "/ {
	sub(/^   "/, ""); sub(/"$/, ""); split($0, f, /", "/)
	row = f[1]; last = row; sub(/.*::/, "", last); sub(/::.*/, "", row); row = row "::" last
	if (!hdr++) printf "  %-48s %5s %7s\n", "row (benchmarks.rst)", "psem", "kernel"
	printf "  %-48s %5s %7s\n", row, f[5], f[6]
     }
     sec && /^[A-Z].*/ && !/^Instruction counts/ && hdr { exit }' \
	"$top/Documentation/benchmarks.rst" >"$tmp/bench"
[ -s "$tmp/bench" ] || { echo "series: no instruction counts in Documentation/benchmarks.rst" >&2; exit 1; }
# And the first literal block of its section "struct semaphore on psem's
# word", for the cover letter.
awk '/^struct semaphore on psem.s word$/ { sec = 1; next }
     sec && !lit && /::$/ { lit = 1; next }
     lit && /^$/ { if (n) blank++; next }
     lit && /^    / { for (; blank > 0; blank--) print ""; sub(/^    /, "  "); print; n++; next }
     lit && n { exit }' "$top/Documentation/benchmarks.rst" >"$tmp/sem"
[ -s "$tmp/sem" ] || { echo "series: no struct semaphore table in Documentation/benchmarks.rst" >&2; exit 1; }

# 5: the documentation, with the counts as a literal block.
awk -v b="$tmp/bench" '$0 == "@BENCH@" { while ((getline l < b) > 0) print l; next } { print }' \
	"$up/psem.rst" >"$work/Documentation/locking/psem.rst"
printf '    psem\n' >"$tmp/idx"
insert_after "$work/Documentation/locking/index.rst" "    percpu-rw-semaphore" "$tmp/idx"
printf 'F:\tDocumentation/locking/psem.rst\n' >"$tmp/f5"
insert_before "$work/MAINTAINERS" "$(printf 'F:\tinclude/linux/psem.h')" "$tmp/f5"
commit 5

# 6 (RFC): struct semaphore on psem's word. upstream/semaphore.[ch] are the
# two files as the patch leaves them (configs/sem-7.3.config lays the same
# files over 7.3.4 for the test kernel that scripts/check-semaphore.sh
# boots); they touch no file of patches 1-5.
cp "$up/semaphore.h" "$work/include/linux/semaphore.h"
cp "$up/semaphore.c" "$work/kernel/locking/semaphore.c"
commit 6

# The cover letter: upstream/cover-letter.txt, its first paragraph the
# subject, with @N@ (the number of patches), @BENCH@ (the instruction
# counts of Documentation/benchmarks.rst's first table), @SEM@ (the RFC's
# figures, from the same file) and @MATRIX@ (what scripts/check-series.sh
# recorded for exactly these patches) filled in.
n=$(g rev-list --count "$base..HEAD")
strip_head "$up/cover-letter.txt" | sed "s/@N@/$n/g" >"$tmp/cover"
g config branch.base.description "$(cat "$tmp/cover")"
printf 'MAINTAINERS\nDocumentation/*\ninclude/*\nkernel/*\n' >"$tmp/order"
rm -rf "$out" && mkdir -p "$out"
g format-patch -q -O"$tmp/order" --cover-letter --cover-from-description=subject \
	--subject-prefix=PATCH -o "$out" "$base..HEAD"
# The last patch is an RFC.
rfc=$(printf '%s/%04d-*.patch' "$out" "$n")
# shellcheck disable=SC2086 # the glob
sed -i "s/^Subject: \[PATCH $n\/$n\] /Subject: [PATCH RFC $n\/$n] /" $rfc
# shellcheck disable=SC2086
grep -q "^Subject: \[PATCH RFC $n/$n\] " $rfc || { echo "series: patch $n not marked RFC" >&2; exit 1; }

key=$(series_key "$out")
results=$cache/series/results-$key.txt
{
	cat <<-'EOF'
	  test                      where
	  checkpatch.pl --strict    every patch
	  W=1 build                 after every patch: x86_64, lockdep
	                            (PROVE_RAW_LOCK_NESTING), KASAN, DEBUG_MUTEXES
	  kunit.py run (UML)        the whole series, kernel/locking/psem-tests,
	                            on one CPU and on two
	  kunit.py run (QEMU)       the same, --arch=x86_64 (TCG, 2 vCPUs: the
	                            NMI suite too)
	  locktorture, 60 s a type  the W=1 build's kernel in QEMU (TCG, 2 vCPUs)
	  out of tree (the project) the same KUnit suites and a torture module on
	                            6.1 (lockdep, KASAN), 6.12 PREEMPT_RT, 7.3
	                            (lockdep, KASAN; KCSAN), Debian's stock
	                            kernels; a spin model, LKMM litmus tests,
	                            TSan and an interleaving explorer in userspace

	EOF
	if [ -f "$results" ]; then
		echo "  Results for exactly these patches (scripts/check-series.sh):"
		sed 's/^/    /' "$results"
	else
		echo "  (scripts/check-series.sh has not run on these patches yet)"
	fi
} >"$tmp/matrix"
cover=$(echo "$out"/0000-*.patch)
awk -v b="$tmp/bench" -v m="$tmp/matrix" -v sm="$tmp/sem" '
	$0 == "@BENCH@" { while ((getline l < b) > 0) print l; next }
	$0 == "@SEM@" { while ((getline l < sm) > 0) print l; next }
	$0 == "@MATRIX@" { while ((getline l < m) > 0) print l; next }
	{ print }' "$cover" >"$cover.tmp" && mv "$cover.tmp" "$cover"
echo "series: $n patches and a cover letter in $out (key $key)"
