#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make series-check: upstream's gates and tools on the generated series
# (scripts/series.sh), on a fresh copy of linux-source-7.3 (7.3.4).
#
#   scripts/check-series.sh [STEP...]   steps: gates kunit qemu torture (default all)
#
# gates    apply the patches one by one with patch -p1 to a copy of the
#          pristine tree; checkpatch.pl --strict on every patch file (no
#          finding but those upstream/checkpatch-allow lists, with their
#          reasons); after each patch an incremental W=1 build of the
#          debug-7.3 test kernel (the fragments that
#          scripts/build-kernel.sh --fragments debug-7.3 names, plus
#          upstream/series.config), after one build of the pristine tree
#          (from a copy of the debug-7.3 test kernel's objects) that is
#          cached under $PSEM_CACHE/build/series-debug-7.3-<key>/obj, keyed
#          by the source's version and the fragments' content; no warning in what
#          each rebuilds; kernel-doc -Wall on the new files;
#          get_maintainer.pl -f names the MAINTAINERS entry for each.
#          Prints "series: N patches, checkpatch clean, builds at every patch".
# um_build only kunit.py build, the UML kernel of the kunit step (make
#          check builds it in the background, ahead of that step)
# kunit    tools/testing/kunit/kunit.py run --kunitconfig=kernel/locking/psem-tests
#          on UML in the patched tree (build cached under
#          $PSEM_CACHE/build/series-um), twice: as is (one CPU: what needs
#          two skips), then with --kernel_args seccomp=on --kernel_args
#          ncpus=2 (SMP, which UML runs only with seccomp), where the race
#          suites run in full; prints "kunit.py (um): N tests, N passed"
#          and "kunit.py (um, ncpus=2): ...".
# qemu     kunit.py's QEMU mode, run --arch=x86_64 with two vCPUs
#          (--qemu_args '-smp 2'; TCG, as every guest here), on the kernel
#          kunit.py builds from the .kunitconfig and its x86_64 QEMU
#          configuration (cached under $PSEM_CACHE/build/series-kunit-x86_64);
#          prints "kunit.py (qemu x86_64, 2 vCPUs): N tests, N passed".
# torture  locktorture in one QEMU guest of the patched debug-7.3 kernel,
#          each psem type for $PSEM_SERIES_TORTURE_S seconds (default 60),
#          unloaded at the end; prints "locktorture (series, TYPE): SUCCESS".
#
# The results are recorded under $PSEM_CACHE/series/results-<key>.txt
# (key: the patches' content), where scripts/series.sh finds them for the
# cover letter's test matrix. Each step prints its wall time.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

steps=${*:-gates kunit qemu torture}
for s in $steps; do
	case $s in gates | kunit | um_build | qemu | torture) ;; *)
		echo "usage: check-series.sh [gates|kunit|um_build|qemu|torture]..." >&2; exit 2 ;;
	esac
done
jobs=${PSEM_SERIES_JOBS:-2}
# The kunit step's runs: um (one CPU), um2 (two); make check runs um2 only.
kruns=${PSEM_SERIES_KUNIT:-um um2}
for r in $kruns; do
	case $r in um | um2) ;; *) echo "check-series: PSEM_SERIES_KUNIT: um, um2" >&2; exit 2 ;; esac
done
tsecs=${PSEM_SERIES_TORTURE_S:-60}
types="psem_lock psem_mutex_lock psem_rwlock"
out=${SERIES_OUT:-$top/series}
mkdir -p "$cache/series" "$logdir"
# The tree and its builds are one run's at a time. The torture step alone
# only boots the built kernel, so it does not wait (make check runs it in
# the background while the foreground goes on); it generates the series
# into SERIES_OUT, which such a run points to a directory of its own.
if [ "$steps" != torture ]; then
	exec 7>"$cache/.series.lock"
	flock -n 7 || { echo "check-series: waiting for another run" >&2; flock 7; }
fi

t_all=$SECONDS
stage "series: generate"
bash "$top/scripts/series.sh"
mapfile -t all_patches < <(find "$out" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' | sort)
n=${#all_patches[@]}
[ "$n" -gt 1 ] || { echo "check-series: no patches in $out" >&2; exit 1; }
# (Not their dates, nor the commit ids that follow from them.)
key=$(for p in "${all_patches[@]}"; do cat "$p"; done | grep -vE '^(From [0-9a-f]{40} |Date: )' |
	sha256sum | cut -c1-12)
# The last patch is the RFC, struct semaphore on psem's word; the others,
# psem itself, are "the series" that the tree is built after, one by one,
# and that kunit.py and locktorture run on. The RFC changes
# <linux/semaphore.h>, which most of the kernel includes: it is built
# once in the lockdep configuration of the others (its own object, on
# top of them) and whole in configs/sem-7.3.config's (scripts/build-kernel.sh
# sem-7.3, the test kernel scripts/check-semaphore.sh boots), and its
# files are never left changed in the series' tree.
rfc=${all_patches[-1]}
grep -q '^Subject: \[PATCH RFC ' "$rfc" || { echo "check-series: ${rfc##*/} is not the RFC" >&2; exit 1; }
patches=("${all_patches[@]:0:n-1}")
results=$cache/series/results-$key.txt
stage_done "$n patches (key $key)"

src=$("$top/scripts/build-kernel.sh" --source linux-source-7.3)
srcver=$(basename "$src")
# The build: its key is the source's version and the fragments' content
# (not the series': later builds are incremental on it). Its objects are
# in the tree's obj/, where kbuild's paths are relative, as in the
# debug-7.3 test kernel's build (scripts/build-kernel.sh's "relative"),
# whose objects the first build here starts from.
mapfile -t frags < <("$top/scripts/build-kernel.sh" --fragments debug-7.3)
frags+=("$top/upstream/series.config")
bkey=$( { echo "$srcver W=1 relative"; cat "${frags[@]}"; } | sha256sum | cut -c1-12)
tree=$cache/build/series-debug-7.3-$bkey
bout=$tree/obj
fails=()
summary=()

# The files the series (the RFC aside) changes or adds, by their paths in
# the tree.
series_files() { sed -n 's@^+++ b/\(.*\)$@\1@p' "${patches[@]}" | sort -u; }
rfc_files() { sed -n 's@^+++ b/\(.*\)$@\1@p' "$rfc" | sort -u; }

# reset_tree: the tree back to the pristine 7.3.4, unchanged files keeping
# their times (so the cached build stays valid for them); every file the
# series touches gets a new time, so that no object built from a patched
# version of it passes for current.
reset_tree() {
	mkdir -p "$tree"
	rsync -a --delete --exclude=/.psem-extracted --exclude=/.psem-series-key --exclude=/obj/ \
		"$src/" "$tree/"
	rm -f "$tree/.psem-series-key"
	local f
	while read -r f; do
		[ ! -f "$tree/$f" ] || touch "$tree/$f"
	done < <(series_files)
}
apply() { patch -d "$tree" -p1 -s --fuzz=0 --no-backup-if-mismatch --forward <"$1"; }
# final_tree: the tree with every patch applied (the gates leave it so, and
# mark it with the series' key).
final_tree() {
	[ "$(cat "$tree/.psem-series-key" 2>/dev/null)" = "$key" ] && return 0
	reset_tree
	local p
	for p in "${patches[@]}"; do apply "$p" || return 1; done
	echo "$key" >"$tree/.psem-series-key"
}

kmake() { make -C "$tree" O="$bout" "$@"; }
# config_for K: the configuration after patch K (0: the pristine tree).
config_for() {
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$bout" "$bout/.config" "${frags[@]}" >/dev/null 2>&1
	kmake -s olddefconfig >/dev/null
	local want=(CONFIG_LOCK_TORTURE_TEST=m) c
	[ "$1" -lt 1 ] || want+=(CONFIG_PSEM=y)
	[ "$1" -lt 3 ] || want+=(CONFIG_PSEM_KUNIT_TEST=m)
	for c in "${want[@]}"; do
		grep -qxF "$c" "$bout/.config" || { echo "check-series: $c not set after patch $1" >&2; return 1; }
	done
}

# rfc_gate: the RFC on top of the series: it applies, and its object
# builds W=1 in the series' (lockdep, KASAN) configuration; then its files
# go back to 7.3.4's, their times included, and the object goes, so that
# nothing built in this tree sees the patched header. The whole kernel
# with it is the sem-7.3 test kernel, built W=1 from 7.3.4 and the RFC's
# two files (scripts/build-kernel.sh, cached by their content): no warning
# in them.
rfc_gate() {
	local t0=$SECONDS log=$logdir/series-build-$n.log ok=0 f kdir warn
	apply "$rfc" || { echo "series: ${rfc##*/} does not apply on top of the others"; return 1; }
	if ! kmake W=1 kernel/locking/semaphore.o >"$log" 2>&1; then
		grep -E 'error|Error' "$log" | head -n 20; echo "series: kernel/locking/semaphore.o does not build ($log)"; ok=1
	elif grep -E 'warning:|WARNING:' "$log"; then
		echo "series: warnings in kernel/locking/semaphore.o ($log)"; ok=1
	fi
	patch -d "$tree" -p1 -s -R --no-backup-if-mismatch <"$rfc" || ok=1
	while read -r f; do
		if cmp -s "$src/$f" "$tree/$f"; then
			touch -r "$src/$f" "$tree/$f"
		else
			echo "series: $f not restored"; ok=1
		fi
	done < <(rfc_files)
	rm -f "$bout/kernel/locking/semaphore.o"
	kdir=$("$top/scripts/build-kernel.sh" sem-7.3) || { echo "series: the sem-7.3 kernel does not build"; return 1; }
	warn=$(grep -iE 'warning:' "$kdir/.psem-build.log" | grep -E "$(rfc_files | paste -sd'|')" || true)
	[ -z "$warn" ] || { echo "$warn"; echo "series: warnings in the RFC's files ($kdir/.psem-build.log)"; ok=1; }
	echo "series: $n/$n ${rfc##*/}: its object built W=1 on top of the others in $((SECONDS - t0))s;" \
		"the whole kernel W=1 as sem-7.3 ($kdir)"
	return $ok
}

gates() {
	local ok=0 t0 i p log cp_bad=0 allow=$top/upstream/checkpatch-allow

	stage "series: apply to $srcver, build W=1 at every patch (-j$jobs)"
	reset_tree
	if [ ! -f "$bout/.psem-series-built" ]; then
		# The pristine tree's build, cached for later runs: a copy of
		# the debug-7.3 test kernel's objects (built here first if the
		# cache has not got it), the same configuration but for
		# series.config, built W=1 as here, with paths that make
		# finds the same in this tree, then built again in it; make
		# redoes whatever differs (locktorture), and a full build
		# where nothing matches.
		local dk
		dk=$("$top/scripts/build-kernel.sh" debug-7.3) ||
			{ echo "series: the debug-7.3 kernel does not build"; stage_done FAILED; return 1; }
		t0=$SECONDS
		rm -rf "$bout" && cp -a "$dk" "$bout" && rm -f "$bout"/.psem-*
		echo "series: the pristine tree's build in $bout: debug-7.3's objects ($dk), copied in $((SECONDS - t0))s, then built again here"
		t0=$SECONDS
		config_for 0
		log=$logdir/series-build-0.log
		if ! kmake -j"$jobs" W=1 bzImage modules >"$log" 2>&1; then
			tail -n 30 "$log"; echo "series: the pristine tree does not build ($log)"
			stage_done FAILED; return 1
		fi
		touch "$bout/.psem-series-built"
		echo "series: pristine build $((SECONDS - t0))s ($(grep -cE '^ +(CC|LD|AR)( \[M\])? ' "$log" || true) objects), $(grep -c 'warning:' "$log" || true) warnings outside the series (not judged)"
	fi
	for i in "${!patches[@]}"; do
		p=${patches[$i]}
		if ! apply "$p"; then
			echo "series: ${p##*/} does not apply"; ok=1; break
		fi
		t0=$SECONDS
		log=$logdir/series-build-$((i + 1)).log
		# A patch to Documentation/ and MAINTAINERS alone changes
		# nothing kbuild reads (no Kconfig, Makefile or source): the
		# build before it stands.
		if ! grep '^+++ ' "$p" | grep -qvE '^\+\+\+ b/(Documentation/|MAINTAINERS$)'; then
			echo "series: $((i + 1))/$n ${p##*/}: Documentation/ and MAINTAINERS only, which kbuild does not read: the build before it stands"
			continue
		fi
		config_for $((i + 1)) || { ok=1; break; }
		if ! kmake -j"$jobs" W=1 bzImage modules >"$log" 2>&1; then
			grep -E 'error|Error' "$log" | head -n 20
			echo "series: the tree does not build after ${p##*/} ($log)"; ok=1; break
		fi
		# What this build compiled is the series' (and what its options
		# touch): any warning in it is the series'.
		if grep -E 'warning:|WARNING:' "$log"; then
			echo "series: warnings after ${p##*/} ($log)"; ok=1
		fi
		echo "series: $((i + 1))/$n ${p##*/}: built in $((SECONDS - t0))s ($(grep -cE '^ +(CC|LD|AR)( \[M\])? ' "$log" || true) objects)"
	done
	[ $ok = 0 ] || { stage_done FAILED; return 1; }
	rfc_gate || { stage_done FAILED; return 1; }
	echo "$key" >"$tree/.psem-series-key"
	echo "$key" >"$bout/.psem-series-key"
	stage_done ok

	stage "series: checkpatch --strict, kernel-doc, get_maintainer"
	local out_cp bad allowed=0
	for p in "${all_patches[@]}"; do
		out_cp=$(cd "$tree" && perl scripts/checkpatch.pl --strict --show-types -q "$p" 2>&1) || true
		# Findings, one a record: TYPE, FILE, the first line of code.
		bad=$(awk -v allow="$allow" '
			BEGIN { while ((getline l < allow) > 0) if (l !~ /^#/ && l != "") {
				split(l, f, "\t"); a[++na] = f[1] "\t" f[2] "\t" f[3] } }
			/^(ERROR|WARNING|CHECK):/ { if (rec != "") judge(); split($0, t, ":"); type = t[2]; file = ""; code = ""; rec = $0; next }
			rec != "" && /^#[0-9]+: FILE: / { file = $3; sub(/:[0-9]+:$/, "", file); next }
			rec != "" && /^\+/ && code == "" { code = substr($0, 2); next }
			/^$/ { if (rec != "") judge(); rec = "" }
			END { if (rec != "") judge() }
			function judge(  i, f) {
				for (i = 1; i <= na; i++) { split(a[i], f, "\t")
					if (f[1] == type && f[2] == file && index(code, f[3]) == 1) { print "ALLOWED"; rec = ""; return } }
				print rec " (" file ": " code ")"; rec = "" }' <<<"$out_cp")
		allowed=$((allowed + $(grep -c '^ALLOWED$' <<<"$bad" || true)))
		bad=$(grep -v '^ALLOWED$' <<<"$bad" || true)
		if [ -n "$bad" ]; then
			echo "checkpatch: ${p##*/}:"; sed 's/^/  /' <<<"$bad"; cp_bad=1
		fi
	done
	[ $cp_bad = 0 ] && echo "checkpatch --strict: no findings in $n patches beyond the $allowed listed in upstream/checkpatch-allow" ||
		ok=1
	local newc kd
	mapfile -t newc < <(series_files | grep -E '^(include/linux/psem.*\.h|kernel/locking/psem.*\.[ch])$')
	# The RFC's files as it leaves them: upstream/'s (the tree has 7.3.4's).
	while read -r f; do newc+=("$top/upstream/${f##*/}"); done < <(rfc_files)
	kd=$(cd "$tree" && python3 scripts/kernel-doc -none -Wall "${newc[@]}" 2>&1) || true
	if [ -n "$kd" ]; then
		echo "kernel-doc:"; sed 's/^/  /' <<<"$kd"; ok=1
	else
		echo "kernel-doc -Wall: ${#newc[@]} files clean"
	fi
	# The new document, with docutils where installed (make htmldocs
	# needs Sphinx, which this machine has not).
	local rst
	rst=$(command -v rst2html.py || command -v rst2html || true)
	if [ -n "$rst" ]; then
		if "$rst" --halt=warning "$tree/Documentation/locking/psem.rst" >/dev/null 2>"$logdir/series-rst.log"; then
			echo "docutils: Documentation/locking/psem.rst clean"
		else
			sed 's/^/  /' "$logdir/series-rst.log"; ok=1
		fi
	fi
	local f gm who nm=0
	who=$(git -C "$top" config user.email)
	while read -r f; do
		gm=$(cd "$tree" && perl scripts/get_maintainer.pl --nogit --nogit-fallback -f "$f" 2>&1) || true
		if grep -qF "$who" <<<"$gm"; then
			nm=$((nm + 1))
		else
			echo "get_maintainer: $f: not the psem entry:"; sed 's/^/  /' <<<"$gm"; ok=1
		fi
	done < <(series_files | grep -E 'psem')
	echo "get_maintainer.pl -f: $nm new files name the PSEM entry"
	if [ $ok = 0 ]; then
		summary+=("series: $n patches, checkpatch clean, builds at every patch")
		echo "${summary[-1]}"
	fi
	stage_done "$([ $ok = 0 ] && echo ok || echo FAILED)"
	return $ok
}

# kunit_run LABEL BUILD_DIR ARGS...: one kunit.py run in the patched tree,
# built in BUILD_DIR, with ARGS (UML unless they name an --arch); prints
# its summary and adds "kunit.py (LABEL): ..." to $summary. Every test
# that ran must pass; a skip (an option that the configuration lacks, or a
# second CPU) is counted and shown.
kunit_run() {
	local label=$1 build=$2 ok=0 log line tests passed skipped
	shift 2
	log=${label,,}; log=$logdir/series-kunit-${log//[^a-z0-9]/-}.log
	(cd "$tree" && python3 tools/testing/kunit/kunit.py run --kunitconfig=kernel/locking/psem-tests \
		--build_dir="$build" --jobs="$jobs" --timeout=900 "$@") >"$log" 2>&1 || ok=1
	line=$(grep -E 'Testing complete\. Ran [0-9]+ tests' "$log" | tail -n 1) || true
	if [ -z "$line" ]; then
		tail -n 40 "$log"; echo "kunit.py: no summary ($log)"
		summary+=("kunit.py ($label): no summary: FAILED"); return 1
	fi
	echo "$line"
	# "Ran N tests: passed: P, skipped: S" (failed, crashed and errors
	# only where there are some).
	tests=$(sed -n 's/.*Ran \([0-9]*\) tests.*/\1/p' <<<"$line")
	passed=$(sed -n 's/.*passed: \([0-9]*\).*/\1/p' <<<"$line")
	skipped=$(sed -n 's/.*skipped: \([0-9]*\).*/\1/p' <<<"$line")
	grep -E '^\[[0-9:]+\] +\[(FAILED|CRASHED)\]' "$log" | head -n 20 || true
	grep -E '^\[[0-9:]+\] +\[SKIPPED\] psem_[a-z_]+ \(' "$log" | sed 's/^\[[0-9:]*\] */  /' | head -n 30 || true
	if [ $ok = 0 ] && [ "$tests" -gt 0 ] && [ $((${passed:-0} + ${skipped:-0})) = "$tests" ] &&
	   ! grep -qE 'failed:|crashed:|errors:' <<<"$line"; then
		summary+=("kunit.py ($label): $tests tests, $passed passed${skipped:+, $skipped skipped}")
	else
		summary+=("kunit.py ($label): $tests tests, ${passed:-0} passed: FAILED"); ok=1
	fi
	echo "${summary[-1]}"
	return $ok
}

# The plain run first, as upstream's users run it (UML, one CPU: what
# needs a second CPU skips), then with two CPUs (SMP, which UML runs only
# with seccomp), where the race suites run in full.
# um_dir: the UML build's directory, keyed by the options, not the comments.
um_dir() {
	echo "$cache/build/series-um-$( { echo "$srcver"; grep -v '^#' "$top/upstream/kunitconfig"; } |
		sha256sum | cut -c1-12)"
}
um_build() {
	local ok=0 log=$logdir/series-kunit-build.log
	stage "series: kunit.py build on UML (-j$jobs)"
	final_tree || { echo "check-series: the series does not apply"; stage_done FAILED; return 1; }
	(cd "$tree" && python3 tools/testing/kunit/kunit.py build --kunitconfig=kernel/locking/psem-tests \
		--build_dir="$(um_dir)" --jobs="$jobs") >"$log" 2>&1 || { tail -n 20 "$log"; ok=1; }
	stage_done "$([ $ok = 0 ] && echo ok || echo FAILED)"
	return $ok
}

kunit() {
	local ok=0 ubuild what=''
	case " $kruns " in *" um "*) what='one CPU' ;; esac
	case " $kruns " in *" um2 "*) what+="${what:+ and }two CPUs" ;; esac
	stage "series: kunit.py run on UML (-j$jobs), $what"
	final_tree || { echo "check-series: the series does not apply"; stage_done FAILED; return 1; }
	ubuild=$(um_dir)
	case " $kruns " in *" um "*) kunit_run um "$ubuild" || ok=1 ;; esac
	case " $kruns " in *" um2 "*)
		kunit_run "um, ncpus=2" "$ubuild" --kernel_args seccomp=on --kernel_args ncpus=2 || ok=1 ;;
	esac
	stage_done "$([ $ok = 0 ] && echo ok || echo FAILED)"
	return $ok
}

# kunit.py's QEMU mode: its own x86_64 kernel (the .kunitconfig on
# olddefconfig, with kunit.py's 8250 console and qboot), two vCPUs, so
# that the race and NMI suites run. kunit.py asks QEMU for KVM first
# (-accel kvm -accel hvf -accel tcg), and KVM guests fail on this machine
# (a KVM "emulation failure" on the first lock cmpxchg16b): a wrapper
# first on PATH drops every -accel but tcg.
qemu() {
	local ok=0 qkey qbuild qbin=$cache/work/series-qemu-tcg real
	stage "series: kunit.py run --arch=x86_64 in QEMU (-j$jobs), two vCPUs"
	final_tree || { echo "check-series: the series does not apply"; stage_done FAILED; return 1; }
	qkey=$( { echo "$srcver x86_64"; grep -v '^#' "$top/upstream/kunitconfig"; } | sha256sum | cut -c1-12)
	qbuild=$cache/build/series-kunit-x86_64-$qkey
	real=$(command -v qemu-system-x86_64) || { echo "check-series: no qemu-system-x86_64"; stage_done FAILED; return 1; }
	mkdir -p "$qbin"
	cat >"$qbin/qemu-system-x86_64" <<-EOF
	#!/usr/bin/env bash
	# Written by scripts/check-series.sh: $real with TCG only.
	a=()
	while [ \$# -gt 0 ]; do
		if [ "\$1" = -accel ] && [ "\${2:-}" != tcg ]; then shift 2; continue; fi
		a+=("\$1"); shift
	done
	exec $real "\${a[@]}"
	EOF
	chmod +x "$qbin/qemu-system-x86_64"
	PATH=$qbin:$PATH kunit_run "qemu x86_64, 2 vCPUs" "$qbuild" --arch=x86_64 --qemu_args='-smp 2' || ok=1
	stage_done "$([ $ok = 0 ] && echo ok || echo FAILED)"
	return $ok
}

torture() {
	local ok=0 log=$logdir/series-locktorture.log pl=$cache/work/series-locktorture.payload
	local cpio=$cache/work/series-locktorture.cpio t lines
	stage "series: locktorture on the patched debug-7.3 kernel, ${tsecs}s per type ($types)"
	[ "$(cat "$bout/.psem-series-key" 2>/dev/null)" = "$key" ] ||
		{ echo "check-series: $bout is not built from these patches (run the gates first)"; stage_done FAILED; return 1; }
	cat >"$pl" <<-EOF
	# locktorture payload, generated by scripts/check-series.sh.
	insmod kernel/torture.ko || exit 10
	for t in $types; do
		echo "series: locktorture torture_type=\$t"
		insmod kernel/locking/locktorture.ko torture_type=\$t stat_interval=15 || exit 11
		sleep $tsecs
		rmmod locktorture || exit 12
	done
	EOF
	"$top/scripts/mkinitramfs.sh" -C "$bout" "$cpio" "$pl" kernel/torture.ko kernel/locking/locktorture.ko
	PSEM_QEMU_TIMEOUT=${PSEM_QEMU_TIMEOUT:-$((3 * tsecs + 420))} \
		"$top/scripts/qemu-run.sh" "$bout/arch/x86/boot/bzImage" "$cpio" "$log" || ok=1
	lines=$(tr -d '\r' <"$log" | sed 's/^\[ *[0-9.]*\] //')
	for t in $types; do
		# The type's last statistics before its end of test.
		awk -v t="$t" '$0 == "series: locktorture torture_type=" t { on = 1 }
			on && /^Writes:/ { w = $0 }
			on && /^Reads ?:/ { r = $0 }
			on && index($0, t "-torture:--- End of test") == 1 {
				print "  " t ": " w; if (r != "") print "  " t ": " r; exit }' <<<"$lines"
		if grep -qE "^$t-torture:--- End of test: SUCCESS" <<<"$lines"; then
			summary+=("locktorture (series, $t): SUCCESS")
		else
			summary+=("locktorture (series, $t): FAILED"); ok=1
		fi
		echo "${summary[-1]}"
	done
	scan_splats "$log" || ok=1
	echo "console log: $log"
	stage_done "$([ $ok = 0 ] && echo ok || echo FAILED)"
	return $ok
}

for s in $steps; do
	"$s" || fails+=("$s")
done
# The results, merged with those of earlier runs on the same patches (a
# line replaces the one of the same step).
if [ ${#summary[@]} -gt 0 ]; then
	(
		flock 6
		{ [ ! -f "$results" ] || cat "$results"; printf '%s\n' "${summary[@]}"; } |
			awk '{ k = $0; sub(/:.*/, "", k); if (!(k in v)) o[n++] = k; v[k] = $0 }
			     END { for (i = 0; i < n; i++) print v[o[i]] }' >"$results.tmp"
		mv "$results.tmp" "$results"
	) 6>"$cache/series/.results.lock"
	bash "$top/scripts/series.sh" >/dev/null	# the cover letter's test matrix
fi
echo "series-check: $((SECONDS - t_all))s; ${#fails[@]} steps failed${fails[*]:+: ${fails[*]}}"
[ ${#fails[@]} -eq 0 ]
