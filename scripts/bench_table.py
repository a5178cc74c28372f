#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn psem_bench's records into CSV, markdown tables and plot data.

One generator for both benchmarks, which print the same records (their
cells and loops are bench/psem_bench_cells.h and psem_bench_loops.h): the
in-kernel one (bench/psem_bench.c, scripts/bench.sh), by default, and with
--native the native one (tools/psem-user/native/bench_native.c,
scripts/bench-native.sh).

psem_bench.ko prints, per measurement round and per cell summary:

    psem_bench: round,TABLE,CELL,THREADS,GAP,VARIANT,ROUND,NS,CPU_PCT,VCSW_1K,IVCSW_1K
    psem_bench: csv,TABLE,CELL,THREADS,GAP,VARIANT,MEDIAN,MIN,MAX,ROUNDS,CPU_PCT,CSW_1K,
    psem_bench: dist,latency,CELL,THREADS,GAP,VARIANT,GRANTS,MIN,P10,P50,P90,P99,MAX

Any text before "psem_bench: " (dmesg timestamps, serial noise) is ignored,
so the input can be `dmesg`, a serial log or the filtered .txt files that
scripts/bench.sh keeps. Usage:

    scripts/bench_table.py --wall LOG [--icount LOG] [--stats LOG]
                           [--csv OUT] [--rounds-csv OUT] [--md OUT] [--rst OUT]
                           [--plot-data DIR] [--png OUT] [--title TEXT]
    scripts/bench_table.py --native LOG [--stats LOG] [--tcg ROUNDS_CSV]
                           [--note TEXT]... [--csv OUT] ... [--title TEXT]

--wall is a run timed by the wall clock (real hardware, QEMU MTTCG or KVM);
--icount a run under QEMU -icount shift=0, whose ns are instructions: its
single-thread medians fill insns_per_iter. Either may be "-" for stdin
(e.g. `dmesg | scripts/bench_table.py --wall -`). The markdown goes to
stdout as well as to --md. --png plots with gnuplot (scripts/bench_plot.gp)
from the files --plot-data writes (into a temporary directory without it);
the exit status is 1 where gnuplot is missing or fails, after the rest.

Ratios. Instruction counts are deterministic, so their ratio is a plain
quotient, written as a cost: "0.57xK" means 0.57 times the kernel
primitive's instructions. Wall-clock times are compared round by round
(variants are interleaved within each round): the speedup of A over B in a
round is B's ns / A's ns, and the tables give the median of those per-round
speedups with their min and max. Above 1 means A is faster.

The latency table: the ns from just before psem_release() to
the grant, for an asynchronous waiter (its callback, cell
release_to_grant_async) and a sleeping one (return from psem_acquire(),
release_to_grant_sleeping; variant kernel: down() woken by up()). A
round's value is the median of its grants; the section gives the median,
min and max of the round medians per kind, the percentiles of every grant,
and the ratio sleeping / async, as a ratio of medians and as the median of
per-round ratios (the kinds are interleaved within each round).

--native reads the native harness's records, the same plus
"insns,TABLE,CELL,THREADS,GAP,VARIANT,ROUND,INSNS_PER_ITER" where the
machine counts instructions, with its variants (sem_t, pthread, condvar
and floor beside psem's four rules): psem's speedup over each with the
rounds psem lost, the pull request's Linux figures beside the native ones,
a `make bench` run's speedups beside them (--tcg) and the native targets.
"""

import argparse
import collections
import csv
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in bench/
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "bench"))
from psem_bench_cells import (  # noqa: E402  (the cells' names, bench/)
    CONTENTION_LABELS, HEADLINES, KERNEL_PRIMITIVE, LATENCY_LABELS,
    NATIVE_VARIANTS, PLOT_COLORS, PR_LINUX, SHORT_LABELS, SINGLE_LABELS,
    VARIANT_ALIASES, VARIANTS)

HEADER = ["table", "cell", "threads", "gap", "variant", "median_ns", "min_ns",
          "max_ns", "rounds", "cpu_pct", "csw_per_1k", "insns_per_iter"]
LINE = re.compile(r"psem_bench: (round|csv|stats|dist|insns|begin|end),(.*)$")


class Log:
    """The psem_bench records of one run."""

    def __init__(self, path):
        self.path = path
        self.summary = collections.OrderedDict()  # key -> csv fields
        self.rounds = collections.defaultdict(dict)  # key -> {round: fields}
        self.stats = collections.defaultdict(collections.Counter)
        self.dist = {}  # key -> grants, min, p10, p50, p90, p99, max
        self.insns = collections.defaultdict(dict)  # key -> {round: insns}
        self.begin = ""
        self.end = ""
        stream = sys.stdin if path == "-" else open(path, errors="replace")
        with stream:
            for line in stream:
                m = LINE.search(line.rstrip("\r\n"))
                if m:
                    self._record(m.group(1), m.group(2).split(","))

    def _record(self, kind, f):
        if kind == "begin":
            self.begin = ",".join(f)
            return
        if kind == "end":
            self.end = ",".join(f)
            return
        if len(f) < 5:
            return
        key = (f[0], f[1], int(f[2]), f[3], VARIANT_ALIASES.get(f[4], f[4]))
        if kind == "csv" and len(f) >= 11:
            self.summary[key] = {
                "median": float(f[5]), "min": float(f[6]), "max": float(f[7]),
                "rounds": int(f[8]), "cpu": float(f[9]), "csw": float(f[10])}
        elif kind == "round" and len(f) >= 10:
            self.rounds[key][int(f[5])] = {
                "ns": float(f[6]), "cpu": float(f[7]), "vcsw": float(f[8]),
                "ivcsw": float(f[9])}
        elif kind == "insns" and len(f) >= 7:
            self.insns[key][int(f[5])] = float(f[6])
        elif kind == "dist" and len(f) >= 12:
            self.dist[key] = [int(x) for x in f[5:12]]
        elif kind == "stats":
            for kv in f[5:]:
                name, _, val = kv.partition("=")
                self.stats[key][name] += int(val or 0)

    def cells(self, table):
        """(cell, threads, gap) in the order the run measured them."""
        seen = []
        for (t, c, n, g, _v) in self.summary:
            if t == table and (c, n, g) not in seen:
                seen.append((c, n, g))
        return seen

    def value(self, table, cell, n, gap, variant):
        return self.summary.get((table, cell, n, gap, variant))

    def speedup(self, table, cell, n, gap, variant, ref):
        """Median, min, max over rounds of ref ns / variant ns, or None."""
        return self.key_speedup((table, cell, n, gap, variant),
                                (table, cell, n, gap, ref))

    def ratios(self, ka, kb):
        """kb's ns over ka's, round by round, for two keys of one run."""
        a = self.rounds.get(ka, {})
        b = self.rounds.get(kb, {})
        return [b[i]["ns"] / a[i]["ns"] for i in a if i in b and a[i]["ns"] > 0]

    def key_speedup(self, ka, kb):
        """The same for any two keys measured in the same rounds."""
        r = self.ratios(ka, kb)
        if not r:
            return None
        return statistics.median(r), min(r), max(r), len(r)


def label(table, cell, n, gap):
    if table == "single":
        return SINGLE_LABELS.get(cell, cell)
    if table == "latency":
        return LATENCY_LABELS.get(cell, cell)
    name = CONTENTION_LABELS.get(cell, cell).format(gap=gap)
    text = "%s, %d thread%s" % (name, n, "" if n == 1 else "s")
    if gap != "none" and "{gap}" not in CONTENTION_LABELS.get(cell, ""):
        text += ", %s gap" % gap
    return text


def fmt(x):
    if x is None:
        return ""
    if x >= 1000:
        return "%.0f" % x
    if x >= 100:
        return "%.1f" % x
    return "%.2f" % x


def fmt_range(x):
    """A summary's median [min–max]."""
    return "%s [%s–%s]" % (fmt(x["median"]), fmt(x["min"]), fmt(x["max"]))


def ns_tables(log, table, keys, variants, title):
    """The markdown of two tables of @keys' cells for @variants: ns per
    iteration, median [min–max], and ns, CPU share, context switches."""
    rows, crows = [], []
    for (cell, n, gap) in keys:
        xs = [log.value(table, cell, n, gap, v) for v in variants]
        lab = [label(table, cell, n, gap)]
        rows.append(lab + [fmt_range(x) if x else "" for x in xs])
        crows.append(lab + ["%s, %.0f%%, %.2f" % (fmt(x["median"]), x["cpu"], x["csw"])
                            if x else "" for x in xs])
    rounds = max([x["rounds"] for (c, n, g) in keys for v in variants
                  for x in [log.value(table, c, n, g, v)] if x] or [0])
    return (["### %s: ns per iteration, median of %d rounds [min–max]\n" % (title, rounds),
             md_table(["cell"] + variants, rows), ""],
            ["### %s: ns, CPU utilisation, context switches per 1,000 iterations "
             "(medians)\n" % title, md_table(["cell"] + variants, crows), ""])


def present(log, table, keys, variants):
    """The @variants measured in one or more of @keys' cells."""
    return [v for v in variants
            if any(log.value(table, c, n, g, v) for (c, n, g) in keys)]


def summary_fields(x, cpu=True):
    """A summary's CSV columns median_ns to csw_per_1k; @cpu: cpu_pct too."""
    return ["%.2f" % x["median"], "%.2f" % x["min"], "%.2f" % x["max"],
            x["rounds"], "%.2f" % x["cpu"] if cpu else "", "%.2f" % x["csw"]]


def md_table(head, rows):
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def insns_section(ic):
    rows = []
    for (cell, n, gap) in ic.cells("single"):
        v = {var: ic.value("single", cell, n, gap, var) for var in VARIANTS}
        med = {k: (x["median"] if x else None) for k, x in v.items()}
        row = [SINGLE_LABELS.get(cell, cell)]
        for var in VARIANTS:
            if med[var] is None:
                row.append("")
                continue
            text = "%.1f" % med[var]
            if var != "locked" and med["locked"]:
                text += " · %.2f×L" % (med[var] / med["locked"])
            if var != "kernel" and med["kernel"]:
                text += " · %.2f×K" % (med[var] / med["kernel"])
            if var not in ("floor", "locked") and med["floor"]:
                text += " · %.2f×F" % (med[var] / med["floor"])
            row.append(text)
        row.append(KERNEL_PRIMITIVE.get(cell, ""))
        rows.append(row)
    if not rows:
        return ""
    return ("### Single-thread rows: instructions per iteration (QEMU -icount, -smp 1)\n\n"
            "Deterministic: ns per iteration with the guest clock at one ns per "
            "instruction. ×L, ×K and ×F: the variant's instructions as a multiple of "
            "always-locked's, the kernel primitive's and the floor's (below 1 is "
            "cheaper).\n\n"
            + md_table(["row"] + VARIANTS + ["kernel primitive"], rows) + "\n")


# The per-round speedups the wall-clock tables show: (A, B) is "A vs B".
SPEEDUPS = (("positive-balance", "locked"), ("positive-balance+flag", "locked"),
            ("psem", "locked"), ("psem", "positive-balance"),
            ("psem", "positive-balance+flag"), ("psem", "kernel"),
            ("positive-balance", "kernel"))


def wall_section(w, table, title):
    keys = w.cells(table)
    if not keys:
        return ""
    has_floor = any(w.value(table, c, n, g, "floor") for (c, n, g) in keys)
    ns, cpu = ns_tables(w, table, keys, VARIANTS if has_floor else VARIANTS[:-1],
                        title)
    srows = []
    for (cell, n, gap) in keys:
        srow = [label(table, cell, n, gap)]
        for var, ref in SPEEDUPS:
            s = w.speedup(table, cell, n, gap, var, ref)
            srow.append("" if s is None else "%.2f [%.2f–%.2f]" % s[:3])
        srows.append(srow)
    return "\n".join(ns + [
        "### %s: speedup, median of per-round ratios [min–max]\n" % title,
        "A vs B = B's ns / A's ns in the same round; above 1: A is faster.\n",
        md_table(["cell"] + ["%s vs %s" % p for p in SPEEDUPS], srows), ""] + cpu)


LAT_ASYNC = ("latency", "release_to_grant_async", 1, "none", "psem")
LAT_SLEEP = ("latency", "release_to_grant_sleeping", 2, "none", "psem")
LAT_KSLEEP = ("latency", "release_to_grant_sleeping", 2, "none", "kernel")
LAT_HARD = ("latency", "release_to_grant_hardirq", 2, "none", "psem")
LAT_WHAT = {
    LAT_ASYNC: ("async", "psem_acquire_async() callback, in the release's context"),
    LAT_SLEEP: ("sleeping", "return from psem_acquire()"),
    LAT_KSLEEP: ("sleeping, kernel", "return from down() (struct semaphore), woken by up()"),
    LAT_HARD: ("sleeping, released from hard IRQ",
               "return from psem_acquire(); deferred hand-off where the kernel forbids the lock there"),
}


# The ratios under the latency table: (what, numerator, denominator).
LAT_RATIOS = (("sleeping / async", LAT_SLEEP, LAT_ASYNC),
              ("kernel sleeping / psem sleeping", LAT_KSLEEP, LAT_SLEEP),
              ("kernel sleeping / async", LAT_KSLEEP, LAT_ASYNC),
              ("released from hard IRQ / from a task", LAT_HARD, LAT_SLEEP))


def latency_section(log, clock):
    """The release-to-grant table of one run; @clock says what its ns are."""
    keys = [k for k in (LAT_ASYNC, LAT_SLEEP, LAT_KSLEEP, LAT_HARD) if k in log.summary]
    if not keys:
        return ""
    unit = "instructions" if clock == "icount" else "ns"
    m = re.search(r"grants=(\d+)", log.begin)
    m2 = re.search(r"cpus=(\d+)", log.begin)
    rows = []
    for k in keys:
        x = log.summary[k]
        d = log.dist.get(k)
        rows.append([LAT_WHAT[k][0], LAT_WHAT[k][1],
                     fmt_range(x), "" if not d else "%d · %d · %d · %d · %d · %d" % tuple(d[1:]),
                     "%.0f" % x["csw"]])
    head = ("### semaphore::async::release_to_grant (%s, -smp %s): %s from "
            "release to grant, %d rounds of %s grants per kind\n\n"
            % ("QEMU -icount" if clock == "icount" else "wall clock",
               m2.group(1) if m2 else "?", unit,
               log.summary[keys[0]]["rounds"], m.group(1) if m else "?"))
    text = (head + "A releaser stamps `ktime_get_ns()` just before "
            "`psem_release(sem, 1)` on a psem of zero permits; the waiter "
            "stamps when it runs. Round medians: the median of each round's "
            "grants, then their median [min–max]; every grant: min · p10 · p50 · "
            "p90 · p99 · max over all grants of all rounds.\n\n"
            + md_table(["kind", "stamped at", "round medians", "every grant",
                        "waiter's context switches per 1,000 grants"], rows) + "\n")
    lines = []
    for what, num, den in LAT_RATIOS:
        a, b = log.summary.get(num), log.summary.get(den)
        if not a or not b or not b["median"]:
            continue
        s = log.key_speedup(den, num)
        lines.append("- %s: **%.2f×** (ratio of medians)%s" % (
            what, a["median"] / b["median"], "" if s is None else
            "; median of per-round ratios %.2f× [%.2f–%.2f], %d rounds" % s))
    if lines:
        text += "\n" + "\n".join(lines) + "\n"
    return text


def fast_share(fast, total):
    """The share of lock-free releases, never rounded up to 100%."""
    if not total:
        return ""
    if fast == total:
        return "100%"
    return "%.2f%%" % (math.floor(10000.0 * fast / total) / 100)


def stats_section(st):
    if not st.stats:
        return ""
    rows = []
    for key, c in st.stats.items():
        t, cell, n, gap, var = key
        rel = c["fast_release"] + c["locked_release"]
        rows.append([label(t, cell, n, gap), var, str(rel),
                     fast_share(c["fast_release"], rel),
                     str(c["fast_cas_fail"]), str(c["flag_trip"]),
                     str(c["flag_honoured"]), str(c["sleep"])])
    return ("### psem event counters (separate run with statistics on)\n\n"
            + md_table(["cell", "variant", "releases", "fast", "fast CAS lost",
                        "flag trips", "flag honoured", "sleeps"], rows) + "\n")


def targets_section(w, ic):
    """The fast-path targets for variant psem. Instructions under -icount: an
    absolute ceiling and/or a ceiling on the ratio to a reference. Wall
    clock: the median of per-round speedups, with the slowest and fastest
    round and how many rounds fell below the threshold."""
    rows = []

    def insn(cell, var):
        # Whole instructions: the medians carry the timing calls' own cost
        # spread over the iterations (x.01), which is not the row's.
        x = ic.value("single", cell, 1, "none", var) if ic else None
        return round(x["median"]) if x else None

    def fmt_r(r, limit):
        # Enough digits that a loss never rounds to the threshold.
        return "%.3f" % r if abs(r - limit) < 0.005 else "%.2f" % r

    def add_insn(cell, limit=None, ref=None, ratio=None, what=None):
        a = insn(cell, "psem")
        text = "insns: %s, psem" % SINGLE_LABELS.get(cell, cell)
        if a is None:
            rows.append([text, "not measured", "", "not measured"])
            return
        meas, thr, ok = ["%d" % a], [], True
        if limit is not None:
            thr.append("≤ %d" % limit)
            ok = ok and a <= limit
        if ref is not None:
            b = insn(cell, ref)
            if b is None:
                meas.append("%s not measured" % ref)
                ok = False
            else:
                meas.append("%s %d: %s×" % (what or ref, b, fmt_r(a / b, ratio)))
                thr.append("≤ %.2f× %s" % (ratio, what or ref))
                ok = ok and a / b <= ratio
        rows.append([text, "; ".join(meas), ", ".join(thr),
                     "met" if ok else "**MISSED**"])

    def add_wall(text, table, cell, n, gap, var, ref, limit):
        s = w.speedup(table, cell, n, gap, var, ref) if w else None
        if s is None:
            rows.append([text, "not measured", "", "not measured"])
            return
        a = w.rounds.get((table, cell, n, gap, var), {})
        b = w.rounds.get((table, cell, n, gap, ref), {})
        below = sum(1 for i in a if i in b and a[i]["ns"] > 0 and
                    b[i]["ns"] / a[i]["ns"] < limit)
        meas = "%s× [%.2f–%.2f]; %d of %d rounds below %.2f×" % (
            fmt_r(s[0], limit), s[1], s[2], below, s[3], limit)
        rows.append([text, meas, "≥ %.2f× (median)" % limit,
                     "met" if s[0] >= limit else "**MISSED**"])

    add_insn("try_acquire_release", 43, "kernel", 0.4, "down_trylock+up")
    add_insn("uncontended_reuse", 31, "kernel", 1.1, "struct mutex")
    add_insn("try_acquire_release_with_spare_permits", 33, "floor", 1.3, "floor")
    add_insn("read_reuse", 40)
    add_insn("eight_reads_then_one_write", None, "kernel", 1.0, "rw_semaphore")
    add_insn("uncontended", None, "kernel", 1.0, "down_write+up_write")
    add_insn("acquire_release", None, "kernel", 0.4, "down+up")
    if w:
        for (cell, n, gap) in w.cells("single"):
            add_wall("wall: %s, psem vs locked" % SINGLE_LABELS.get(cell, cell),
                     "single", cell, n, gap, "psem", "locked", 1.0)
        for (cell, n, gap) in w.cells("contention"):
            if n != 2:
                continue
            add_wall("wall: %s, psem vs positive-balance" % label("contention", cell, n, gap),
                     "contention", cell, n, gap, "psem", "positive-balance", 0.95)
    return ("### Targets\n\nThe fast-path targets for variant `psem`. Instructions "
            "per iteration under `-icount` (deterministic), as absolute counts "
            "and as a cost against a reference (lower is better); wall-clock "
            "ratios are speedups (median of per-round reference ns / psem ns, "
            "higher is better) with the slowest and fastest round and the "
            "rounds below the threshold.\n\n"
            + md_table(["target", "measured", "threshold", "verdict"], rows) + "\n")


def write_csv(path, w, ic):
    keys = list(w.summary) if w else []
    if ic:
        keys += [k for k in ic.summary
                 if k[0] in ("single", "latency") and k not in keys]
    with open(path, "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(HEADER)
        for key in keys:
            t, cell, n, gap, var = key
            x = w.summary.get(key) if w else None
            i = ic.summary.get(key) if (ic and t in ("single", "latency")) else None
            # The latency table measures no CPU share: left empty.
            out.writerow(list(key) + (summary_fields(x, t != "latency") if x else [""] * 6)
                         + ["%.2f" % i["median"] if i else ""])


def write_rounds_csv(path, logs):
    with open(path, "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["clock", "table", "cell", "threads", "gap", "variant",
                      "round", "ns_per_iter", "cpu_pct", "vcsw_per_1k",
                      "ivcsw_per_1k"])
        for clock, log in logs:
            if not log:
                continue
            for key, rr in log.rounds.items():
                for i in sorted(rr):
                    r = rr[i]
                    out.writerow([clock] + list(key) + [
                        i, "%.2f" % r["ns"], "%.2f" % r["cpu"],
                        "%.2f" % r["vcsw"], "%.2f" % r["ivcsw"]])


def write_plot(a, log, clock, variants, ic=None):
    """--plot-data and --png: the gnuplot inputs of the wall-clock or native
    @log (and the -icount @ic), and scripts/bench_plot.gp's plot of them.
    Returns the exit status: 1 where no plot could be made."""
    if not a.plot_data and not a.png:
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        d = a.plot_data or tmp
        write_plot_data(d, (
            ("contention", log, "contention", "ns per iteration",
             "Contention cells, %s: ns per iteration of one thread, median of "
             "rounds, whiskers min-max" % clock),
            ("single_wall", log, "single", "ns per iteration",
             "Single-thread rows, %s: ns per iteration" % clock),
            ("single_insns", ic, "single", "instructions per iteration",
             "Single-thread rows: instructions per iteration (QEMU -icount, "
             "deterministic)")), variants, a.title)
        if not a.png:
            return 0
        if not shutil.which("gnuplot"):
            print("bench_table: gnuplot not installed: no plot "
                  "(apt-get install gnuplot-nox)", file=sys.stderr)
            return 1
        gp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_plot.gp")
        return subprocess.run(["gnuplot", "-e", "dir='%s'; out='%s'" % (d, a.png),
                               gp]).returncode and 1


def write_plot_data(d, panels_in, variants, title):
    """Gnuplot inputs for scripts/bench_plot.gp: one data file per panel
    (label, then median min max per variant present) and panels.gp, which
    names each panel's variants and colours. @panels_in: (name, log, table,
    ylabel, title) per panel; a panel without a log is left out."""
    os.makedirs(d, exist_ok=True)
    panels = []
    for name, log, table, ylabel, ptitle in panels_in:
        keys = log.cells(table) if log else []
        vs = present(log, table, keys, variants) if log else []
        if not vs:
            continue
        with open(os.path.join(d, name + ".dat"), "w") as f:
            f.write("# label " + " ".join("%s_med %s_min %s_max" % (v, v, v)
                                          for v in vs) + "\n")
            for (cell, n, gap) in keys:
                lab = SHORT_LABELS.get(cell, cell)
                if table == "contention":
                    lab = "%s %dt %s" % (lab, n, gap)
                cols = []
                for v in vs:
                    x = log.value(table, cell, n, gap, v)
                    cols += ["%.2f" % x[k] for k in ("median", "min", "max")] if x else ["-"] * 3
                f.write('"%s" %s\n' % (lab, " ".join(cols)))
        panels.append((name, vs, ylabel, ptitle))
    with open(os.path.join(d, "panels.gp"), "w") as f:
        f.write("# generated by scripts/bench_table.py\n")
        f.write("npanels = %d\n" % len(panels))
        f.write("plot_title = \"%s\"\n" % title.replace('"', "'"))
        for i, (name, vs, ylabel, ptitle) in enumerate(panels, 1):
            f.write('panel%d_file = "%s.dat"\n' % (i, name))
            f.write('panel%d_vars = "%s"\n' % (i, " ".join(vs)))
            f.write('panel%d_colors = "%s"\n' % (i, " ".join(PLOT_COLORS[v] for v in vs)))
            f.write('panel%d_ylabel = "%s"\n' % (i, ylabel))
            f.write('panel%d_title = "%s"\n' % (i, ptitle))


def md_to_rst(md):
    """The same report as reStructuredText, for Documentation/: headings,
    paragraphs and each pipe table as a csv-table directive."""
    out, table = [], []

    def flush():
        if not table:
            return
        rows = [[c.strip() for c in r.strip().strip("|").split("|")] for r in table]
        rows = [r for r in rows if not all(set(c) <= set("-:") for c in r)]
        out.append(".. csv-table::")
        out.append("   :header: " + ", ".join('"%s"' % c for c in rows[0]))
        out.append("")
        for r in rows[1:]:
            out.append("   " + ", ".join('"%s"' % c.replace('"', "'") for c in r))
        out.append("")
        table.clear()

    for line in md.splitlines():
        if line.startswith("|"):
            table.append(line)
            continue
        flush()
        line = re.sub(r"`([^`]+)`", r"``\1``", line)
        if line.startswith("## "):
            out += [line[3:], "-" * len(line[3:])]
        elif line.startswith("### "):
            out += [line[4:], "~" * len(line[4:])]
        else:
            out.append(line)
    flush()
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------
# --native: the native harness (tools/psem-user/native/bench_native.c)
# ------------------------------------------------------------------

def native_insns_median(log, key):
    r = log.insns.get(key)
    return statistics.median(r.values()) if r else None


def native_losses(log, key_psem, key_other):
    """(rounds psem was slower, rounds compared)."""
    a = log.rounds.get(key_psem, {})
    b = log.rounds.get(key_other, {})
    common = [i for i in a if i in b]
    return sum(1 for i in common if a[i]["ns"] > b[i]["ns"]), len(common)


def native_ns_section(log, table, title):
    keys = log.cells(table)
    if not keys:
        return ""
    vs = present(log, table, keys, NATIVE_VARIANTS)
    ns, cpu = ns_tables(log, table, keys, vs, title)
    srows = []
    for (cell, n, gap) in keys:
        kp = (table, cell, n, gap, "psem")
        if kp not in log.summary:
            continue
        row = [label(table, cell, n, gap)]
        for v in vs:
            if v == "psem":
                continue
            ko = (table, cell, n, gap, v)
            s = log.key_speedup(kp, ko)
            if s is None:
                row.append("")
                continue
            lost, tot = native_losses(log, kp, ko)
            row.append("%.2f [%.2f–%.2f], lost %d/%d" % (s[0], s[1], s[2], lost, tot))
        srows.append(row)
    return "\n".join(ns + [
        "### %s: psem's speedup over each variant, median of per-round ratios "
        "[min–max], and the rounds psem lost\n" % title,
        "psem vs B = B's ns / psem's ns in the same round; above 1: psem is "
        "faster. \"lost k/R\": psem was slower than B in k of R rounds.\n",
        md_table(["cell"] + ["psem vs %s" % v for v in vs if v != "psem"], srows), ""] + cpu)


def native_insns_section(log):
    keys = log.cells("single")
    vs = [v for v in NATIVE_VARIANTS
          if any(log.insns.get(("single", c, n, g, v)) for (c, n, g) in keys)]
    if not vs:
        return ("### Single-thread rows: instructions per iteration\n\n"
                "Not measured: this machine has no instruction counter for "
                "perf_event_open() (`perf stat -e instructions` reports "
                "\"not supported\").\n")
    rows = []
    for (cell, n, gap) in keys:
        row = [SINGLE_LABELS.get(cell, cell)]
        for v in vs:
            m = native_insns_median(log, ("single", cell, n, gap, v))
            row.append("" if m is None else "%.1f" % m)
        rows.append(row)
    return ("### Single-thread rows: user-space instructions per iteration "
            "(perf_event_open, median of rounds)\n\n"
            + md_table(["row"] + vs, rows) + "\n")


def native_pr_section(log):
    rows = []
    for key, (main, pr, flag) in PR_LINUX.items():
        t, cell, n, gap = key
        got = {v: log.value(t, cell, n, gap, v) for v in PSEM_RULES}
        if not got["locked"]:
            continue
        kp = key + ("psem",)
        sp = log.key_speedup(kp, key + ("locked",))
        ss = log.key_speedup(key + ("positive-balance",), key + ("locked",))
        rows.append([label(t, cell, n, gap),
                     "%s / %s / %s" % (fmt(main), fmt(pr), fmt(flag)),
                     "%.2f" % (main / pr),
                     " / ".join(fmt(got[v]["median"]) if got[v] else "-"
                                for v in PSEM_RULES),
                     "" if ss is None else "%.2f" % ss[0],
                     "" if sp is None else "%.2f" % sp[0]])
    if not rows:
        return ""
    return ("### Beside the pull request's Linux figures (Hygon C86 7360)\n\n"
            "The pull request's ns per iteration for main / PR / +flag, its ratio "
            "main / PR, and this run's medians for locked / positive-balance / "
            "positive-balance+flag / psem with the median per-round speedups "
            "positive-balance vs locked and psem vs locked.\n\n"
            + md_table(["cell", "PR: main / PR / +flag (ns)", "PR main/PR",
                        "native: locked / positive-balance / positive-balance+flag / "
                        "psem (ns)", "native positive-balance vs locked",
                        "native psem vs locked"], rows) + "\n")


PSEM_RULES = ["locked", "positive-balance", "positive-balance+flag", "psem"]


def native_load_tcg(path):
    """The wall-clock rounds of a `make bench` run (its .rounds.csv):
    {(table, cell, threads, gap, variant): {round: ns}}."""
    out = collections.defaultdict(dict)
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["clock"] != "wall":
                continue
            key = (r["table"], r["cell"], int(r["threads"]), r["gap"],
                   VARIANT_ALIASES.get(r["variant"], r["variant"]))
            out[key][int(r["round"])] = float(r["ns_per_iter"])
    return out


def native_tcg_speedup(tcg, key, a, b):
    ra, rb = tcg.get(key + (a,), {}), tcg.get(key + (b,), {})
    r = [rb[i] / ra[i] for i in ra if i in rb and ra[i] > 0]
    return statistics.median(r) if r else None


TCG_PAIRS = (("psem", "locked"), ("positive-balance", "locked"),
             ("positive-balance+flag", "locked"), ("psem", "positive-balance"))


def native_tcg_section(log, tcg, name):
    rows = []
    for t in ("single", "contention"):
        for (cell, n, gap) in log.cells(t):
            key = (t, cell, n, gap)
            if not tcg.get(key + ("psem",)):
                continue
            row = [label(t, cell, n, gap)]
            for a, b in TCG_PAIRS:
                s = log.key_speedup(key + (a,), key + (b,))
                q = native_tcg_speedup(tcg, key, a, b)
                row.append("%s / %s" % ("-" if s is None else "%.2f" % s[0],
                                        "-" if q is None else "%.2f" % q))
            rows.append(row)
    if not rows:
        return ""
    return ("### Beside QEMU TCG (`make bench`, %s)\n\n"
            "Median per-round speedups, native / TCG, for the cells both runs "
            "have.\n\n" % name
            + md_table(["cell"] + ["%s vs %s (native / TCG)" % p for p in TCG_PAIRS],
                          rows) + "\n")


def native_targets_section(log):
    rows = []

    def add(text, key, a, b, limit):
        s = log.key_speedup(key + (a,), key + (b,))
        if s is None:
            rows.append([text, "not measured", "", "not measured"])
            return
        lost, tot = native_losses(log, key + (a,), key + (b,))
        # Enough digits that a miss never rounds to the threshold.
        digits = 2
        while digits < 5 and s[0] < limit and round(s[0], digits) >= limit:
            digits += 1
        if digits == 2 and abs(s[0] - limit) < 0.005:
            digits = 3
        meas = "%.*f× [%.2f–%.2f]; psem slower in %d of %d rounds" % (
            digits, s[0], s[1], s[2], lost, tot)
        miss = 100 * (limit - s[0]) / limit
        rows.append([text, meas, "≥ %.2f×" % limit,
                     "met" if s[0] >= limit else
                     "**missed** by %s" % ("%.1f%%" % miss if miss >= 0.1
                                           else "less than 0.1%")])

    # 1. psem at least as fast as positive-balance in every cell.
    for t in ("single", "contention"):
        for (cell, n, gap) in log.cells(t):
            if log.value(t, cell, n, gap, "positive-balance"):
                add("psem vs positive-balance: %s" % label(t, cell, n, gap),
                    (t, cell, n, gap), "psem", "positive-balance", 1.0)
    # 2. psem vs locked by at least the pull request's ratios in its four
    # headline cells.
    for key, what in HEADLINES:
        main, pr, _ = PR_LINUX[key]
        add("psem vs locked: %s (the PR's main/PR %.2f×)" % (what, main / pr),
            key, "psem", "locked", round(main / pr, 2))
    # 3. single-permit try+release within 1.2x of sem_trywait+sem_post, and no
    # worse than sem_t at 2 threads (the semaphore contention cells).
    add("psem vs sem_t: single-permit try+release, uncontended (within 1.2×)",
        ("single", "try_acquire_release", 1, "none"), "psem", "sem_t", 1 / 1.2)
    for (cell, n, gap) in log.cells("contention"):
        if n == 2 and cell.startswith("semaphore") and \
                log.value("contention", cell, n, gap, "sem_t"):
            add("psem vs sem_t: %s" % label("contention", cell, n, gap),
                ("contention", cell, n, gap), "psem", "sem_t", 1.0)
    # 4. psem_mutex within 1.2x of pthread_mutex uncontended.
    add("psem vs pthread_mutex: uncontended_reuse (within 1.2×)",
        ("single", "uncontended_reuse", 1, "none"), "psem", "pthread", 1 / 1.2)
    met = sum(1 for r in rows if r[3] == "met")
    return ("### Targets\n\nThe native targets for variant `psem` on this "
            "machine's cores: median of per-round speedups (higher is better) "
            "with the slowest and fastest round, and the rounds psem lost. "
            "\"Within 1.2×\" is a speedup of at least 1/1.2 = 0.83×. "
            "%d of %d met.\n\n" % (met, len(rows))
            + md_table(["target", "measured", "threshold", "verdict"], rows) + "\n")


def native_write_csv(path, log):
    with open(path, "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(HEADER)
        for key, x in log.summary.items():
            m = native_insns_median(log, key)
            out.writerow(list(key) + summary_fields(x) + ["" if m is None else "%.2f" % m])


def native_report(a):
    """The --native mode: psem-bench-native's records."""
    log = Log(a.native)
    if not log.summary:
        sys.exit("bench_table: no records in %s" % a.native)
    if not log.end.startswith("ok"):
        print("bench_table: warning: %s has no successful end record" % a.native,
              file=sys.stderr)
    st = Log(a.stats) if a.stats else None
    parts = ["## %s\n" % a.title]
    parts += ["- %s" % n for n in a.note]
    parts.append("- run: `%s`" % log.begin)
    parts.append("- end: `%s`" % log.end)
    parts.append("")
    parts.append(native_ns_section(log, "single", "Single-thread rows"))
    parts.append(native_insns_section(log))
    parts.append(native_ns_section(log, "contention", "Contention"))
    parts.append(native_pr_section(log))
    if a.tcg:
        parts.append(native_tcg_section(log, native_load_tcg(a.tcg),
                                        os.path.basename(a.tcg)))
    if st:
        parts.append(stats_section(st))
    parts.append(native_targets_section(log))
    if a.csv:
        native_write_csv(a.csv, log)
    if a.rounds_csv:
        write_rounds_csv(a.rounds_csv, [("native", log)])
    return parts, write_plot(a, log, "native", NATIVE_VARIANTS)


def kernel_report(a):
    """The default mode: psem_bench.ko's records, --wall and/or --icount."""
    w = Log(a.wall) if a.wall else None
    ic = Log(a.icount) if a.icount else None
    st = Log(a.stats) if a.stats else None
    for log in (w, ic, st):
        if log and not log.summary and not log.stats:
            sys.exit("bench_table: no psem_bench records in %s" % log.path)
        if log and not log.end.startswith("ok"):
            print("bench_table: warning: %s has no successful end record"
                  % log.path, file=sys.stderr)
    parts = ["## %s\n" % a.title]
    for name, log in (("wall-clock run", w), ("icount run", ic)):
        if log and log.begin:
            parts.append("- %s: `%s`" % (name, log.begin))
    parts.append("")
    if ic:
        parts.append(insns_section(ic))
        parts.append(latency_section(ic, "icount"))
    if w:
        parts.append(wall_section(w, "single", "Single-thread rows, wall clock"))
        parts.append(wall_section(w, "contention", "Contention"))
        parts.append(latency_section(w, "wall"))
    if st:
        parts.append(stats_section(st))
    parts.append(targets_section(w, ic))
    if a.csv:
        write_csv(a.csv, w, ic)
    if a.rounds_csv:
        write_rounds_csv(a.rounds_csv, [("wall", w), ("icount", ic)])
    return parts, write_plot(a, w, "wall clock", VARIANTS, ic)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wall", help="log of a wall-clock run ('-' for stdin)")
    ap.add_argument("--icount", help="log of a QEMU -icount run")
    ap.add_argument("--native", help="psem-bench-native's output (the native mode)")
    ap.add_argument("--stats", help="log of a run with stats=1 (or --stats)")
    ap.add_argument("--tcg", help="--native: a `make bench` .rounds.csv to set beside")
    ap.add_argument("--note", action="append", default=[],
                    help="--native: a line for the header (CPU, load, ...)")
    ap.add_argument("--csv", help="write the summary CSV here")
    ap.add_argument("--rounds-csv", help="write every round here")
    ap.add_argument("--md", help="write the markdown tables here")
    ap.add_argument("--rst", help="write the tables as reStructuredText here")
    ap.add_argument("--plot-data", help="write gnuplot data files into this directory")
    ap.add_argument("--png", help="plot them (scripts/bench_plot.gp) into this file")
    ap.add_argument("--title")
    a = ap.parse_args()
    if a.native:
        if a.wall or a.icount:
            ap.error("--native goes alone, without --wall and --icount")
        a.title = a.title or "psem native benchmark"
        parts, rc = native_report(a)
    elif a.wall or a.icount:
        if a.tcg or a.note:
            ap.error("--tcg and --note go with --native")
        a.title = a.title or "psem benchmarks"
        parts, rc = kernel_report(a)
    else:
        ap.error("give --wall and/or --icount, or --native")
    md = "\n".join(p for p in parts if p is not None)
    print(md)
    if a.md:
        with open(a.md, "w") as f:
            f.write(md)
    if a.rst:
        with open(a.rst, "w") as f:
            f.write(md_to_rst(md))
    return rc


if __name__ == "__main__":
    sys.exit(main())
