#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn psem-bench-native's records into CSV, markdown tables and plot data.

The native harness (bench_native.c) prints the records of bench/psem_bench.c
("psem_bench: round,...", "csv,...", "stats,...", "begin,...", "end,...")
plus "insns,TABLE,CELL,THREADS,GAP,VARIANT,ROUND,INSNS_PER_ITER" where the
machine counts instructions. scripts/bench_table.py parses them; this script
adds the native variants (sem_t, pthread, condvar, floor beside psem's four
rules), the rounds psem loses, the seed's figures beside the native ones and
the native targets. Usage:

    bench_native_table.py --log LOG [--stats LOG] [--csv OUT]
                          [--rounds-csv OUT] [--md OUT] [--rst OUT]
                          [--plot-data DIR] [--title TEXT] [--note TEXT]...

Speedups are per round (variants are interleaved within each round): A vs B
in a round is B's ns / A's ns, above 1 when A is faster; the tables give
their median with the slowest and fastest round, and "lost" counts the
rounds in which psem was slower than the other variant.
"""

import argparse
import collections
import csv
import importlib.util
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "bench_table", os.path.join(HERE, "..", "..", "..", "scripts", "bench_table.py"))
bt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bt)

VARIANTS = ["locked", "seed", "seed+flag", "psem", "sem_t", "pthread",
            "condvar", "floor"]
OTHERS = [v for v in VARIANTS if v != "psem"]
# What each reference is, per cell (bench_native.c's loops).
REFERENCE = {
    "rwlock_read": "pthread_rwlock rdlock+unlock",
    "rwlock_read_held_across_gap": "pthread_rwlock rdlock, gap, unlock",
    "semaphore_64_take_2": "2x sem_wait + 2x sem_post",
    "semaphore_2_take_1": "sem_wait + sem_post",
    "read_reuse": "pthread_rwlock rdlock+unlock",
    "eight_reads_then_one_write": "pthread_rwlock: 8 rdlock, 8 unlock, wrlock+unlock",
    "uncontended": "pthread_rwlock wrlock+unlock",
    "try_acquire_release_with_spare_permits": "sem_trywait + sem_post (8 permits)",
    "try_acquire_release": "sem_trywait + sem_post (1 permit)",
    "acquire_release": "sem_wait + sem_post (1 permit)",
    "bounded_warm_get_and_return_with_spare_capacity":
        "sem_wait + mutex-locked stack + sem_post",
    "uncontended_reuse": "pthread_mutex lock+unlock",
}
PLOT_COLORS = {"locked": "#7f7f7f", "seed": "#1f77b4", "seed+flag": "#2ca02c",
               "psem": "#d62728", "sem_t": "#ff7f0e", "pthread": "#9467bd",
               "condvar": "#8c564b", "floor": "#000000"}
INSNS = re.compile(r"psem_bench: insns,(.*)$")

# The seed's headline ratios (main / PR, Linux, Hygon): the cells the
# second native target names, with the seed's figures.
HEADLINES = (
    ("single", "try_acquire_release_with_spare_permits", 1, "none",
     "spare-permit try+release", 58.3, 20.2),
    ("single", "read_reuse", 1, "none", "read_reuse", 88.0, 49.0),
    ("contention", "rwlock_read", 2, "none", "RwLock read, 2 threads",
     268.1, 141.3),
    ("contention", "semaphore_64_take_2", 2, "none",
     "Semaphore 64 take 2, 2 threads", 277.8, 168.9),
)
# The rest of the seed's Linux table (main, PR, +flag) where a native cell
# matches it.
SEED_LINUX = {
    ("contention", "rwlock_read", 2, "none"): (268.1, 141.3, 141.8),
    ("contention", "rwlock_read", 4, "none"): (916.7, 423.7, 470.6),
    ("contention", "rwlock_read", 8, "none"): (2486, 999, 997),
    ("contention", "rwlock_read", 2, "short"): (238.1, 168.1, 169.1),
    ("contention", "rwlock_read", 8, "long"): (3943, 1670, 1878),
    ("contention", "rwlock_read_held_across_gap", 4, "short"): (926.5, 549.9, 590.0),
    ("contention", "semaphore_64_take_2", 2, "none"): (277.8, 168.9, 180.3),
    ("contention", "semaphore_64_take_2", 8, "none"): (1963, 445, 444),
    ("contention", "semaphore_2_take_1", 2, "none"): (266.6, 213.1, 242.9),
    ("single", "read_reuse", 1, "none"): (88.0, 49.0, 48.8),
    ("single", "eight_reads_then_one_write", 1, "none"): (775.8, 492.4, 493.3),
    ("single", "try_acquire_release_with_spare_permits", 1, "none"): (58.3, 20.2, 20.2),
    ("single", "bounded_warm_get_and_return_with_spare_capacity", 1, "none"):
        (282.6, 248.6, 246.9),
    ("single", "try_acquire_release", 1, "none"): (58.3, 56.7, 56.7),
    ("single", "uncontended_reuse", 1, "none"): (94.1, 93.9, 93.8),
}


def label(table, cell, n, gap):
    """bench_table.py's label, in the singular for one thread."""
    return bt.label(table, cell, n, gap).replace(", 1 threads", ", 1 thread")


def load(path):
    log = bt.Log(path)
    log.insns = collections.defaultdict(dict)
    with open(path, errors="replace") as f:
        for line in f:
            m = INSNS.search(line.rstrip("\r\n"))
            if not m:
                continue
            x = m.group(1).split(",")
            if len(x) >= 7:
                key = (x[0], x[1], int(x[2]), x[3], x[4])
                log.insns[key][int(x[5])] = float(x[6])
    return log


def insns_median(log, key):
    r = log.insns.get(key)
    return statistics.median(r.values()) if r else None


def losses(log, key_psem, key_other):
    """(rounds psem was slower, rounds compared)."""
    a = log.rounds.get(key_psem, {})
    b = log.rounds.get(key_other, {})
    common = [i for i in a if i in b]
    return sum(1 for i in common if a[i]["ns"] > b[i]["ns"]), len(common)


def present(log, table, keys):
    return [v for v in VARIANTS
            if any(log.value(table, c, n, g, v) for (c, n, g) in keys)]


def ns_section(log, table, title):
    keys = log.cells(table)
    if not keys:
        return ""
    vs = present(log, table, keys)
    rounds = max(log.value(table, c, n, g, v)["rounds"]
                 for (c, n, g) in keys for v in vs if log.value(table, c, n, g, v))
    rows, crows = [], []
    for (cell, n, gap) in keys:
        lab = label(table, cell, n, gap)
        row, crow = [lab], [lab]
        for v in vs:
            x = log.value(table, cell, n, gap, v)
            row.append("" if not x else "%s [%s–%s]" % (
                bt.fmt(x["median"]), bt.fmt(x["min"]), bt.fmt(x["max"])))
            crow.append("" if not x else "%s, %.0f%%, %.2f" % (
                bt.fmt(x["median"]), x["cpu"], x["csw"]))
        rows.append(row)
        crows.append(crow)
    out = ["### %s: ns per iteration, median of %d rounds [min–max]\n" % (title, rounds),
           bt.md_table(["cell"] + vs, rows), ""]
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
            lost, tot = losses(log, kp, ko)
            row.append("%.2f [%.2f–%.2f], lost %d/%d" % (s[0], s[1], s[2], lost, tot))
        srows.append(row)
    out += ["### %s: psem's speedup over each variant, median of per-round ratios "
            "[min–max], and the rounds psem lost\n" % title,
            "psem vs B = B's ns / psem's ns in the same round; above 1: psem is "
            "faster. \"lost k/R\": psem was slower than B in k of R rounds.\n",
            bt.md_table(["cell"] + ["psem vs %s" % v for v in vs if v != "psem"], srows), ""]
    out += ["### %s: ns, CPU utilisation, context switches per 1,000 iterations "
            "(medians)\n" % title, bt.md_table(["cell"] + vs, crows), ""]
    return "\n".join(out)


def insns_section(log):
    keys = log.cells("single")
    if not any(log.insns.get(("single", c, n, g, v))
               for (c, n, g) in keys for v in VARIANTS):
        return ("### Single-thread rows: instructions per iteration\n\n"
                "Not measured: this machine has no instruction counter for "
                "perf_event_open() (`perf stat -e instructions` reports "
                "\"not supported\").\n")
    vs = [v for v in VARIANTS if any(log.insns.get(("single", c, n, g, v))
                                     for (c, n, g) in keys)]
    rows = []
    for (cell, n, gap) in keys:
        row = [bt.SINGLE_LABELS.get(cell, cell)]
        for v in vs:
            m = insns_median(log, ("single", cell, n, gap, v))
            row.append("" if m is None else "%.1f" % m)
        rows.append(row)
    return ("### Single-thread rows: user-space instructions per iteration "
            "(perf_event_open, median of rounds)\n\n"
            + bt.md_table(["row"] + vs, rows) + "\n")


def seed_section(log):
    rows = []
    for key, (main, pr, flag) in SEED_LINUX.items():
        t, cell, n, gap = key
        got = {v: log.value(t, cell, n, gap, v) for v in PSEM_RULES}
        if not got["locked"]:
            continue
        kp = key + ("psem",)
        sp = log.key_speedup(kp, key + ("locked",))
        ss = log.key_speedup(key + ("seed",), key + ("locked",))
        rows.append([label(t, cell, n, gap),
                     "%s / %s / %s" % (bt.fmt(main), bt.fmt(pr), bt.fmt(flag)),
                     "%.2f" % (main / pr),
                     " / ".join(bt.fmt(got[v]["median"]) if got[v] else "-"
                                for v in PSEM_RULES),
                     "" if ss is None else "%.2f" % ss[0],
                     "" if sp is None else "%.2f" % sp[0]])
    if not rows:
        return ""
    return ("### Beside the seed's Linux figures (Hygon C86 7360)\n\n"
            "The seed's ns per iteration for main / PR / +flag, its ratio main / PR, "
            "and this run's medians for locked / seed / seed+flag / psem with the "
            "median per-round speedups seed vs locked and psem vs locked.\n\n"
            + bt.md_table(["cell", "seed: main / PR / +flag (ns)", "seed main/PR",
                           "native: locked / seed / seed+flag / psem (ns)",
                           "native seed vs locked", "native psem vs locked"], rows) + "\n")


PSEM_RULES = ["locked", "seed", "seed+flag", "psem"]


def load_tcg(path):
    """The wall-clock rounds of a `make bench` run (its .rounds.csv):
    {(table, cell, threads, gap, variant): {round: ns}}."""
    out = collections.defaultdict(dict)
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["clock"] != "wall":
                continue
            key = (r["table"], r["cell"], int(r["threads"]), r["gap"], r["variant"])
            out[key][int(r["round"])] = float(r["ns_per_iter"])
    return out


def tcg_speedup(tcg, key, a, b):
    ra, rb = tcg.get(key + (a,), {}), tcg.get(key + (b,), {})
    r = [rb[i] / ra[i] for i in ra if i in rb and ra[i] > 0]
    return statistics.median(r) if r else None


TCG_PAIRS = (("psem", "locked"), ("seed", "locked"), ("seed+flag", "locked"),
             ("psem", "seed"))


def tcg_section(log, tcg, name):
    rows = []
    for t in ("single", "contention"):
        for (cell, n, gap) in log.cells(t):
            key = (t, cell, n, gap)
            if not tcg.get(key + ("psem",)):
                continue
            row = [label(t, cell, n, gap)]
            for a, b in TCG_PAIRS:
                s = log.key_speedup(key + (a,), key + (b,))
                q = tcg_speedup(tcg, key, a, b)
                row.append("%s / %s" % ("-" if s is None else "%.2f" % s[0],
                                        "-" if q is None else "%.2f" % q))
            rows.append(row)
    if not rows:
        return ""
    return ("### Beside QEMU TCG (`make bench`, %s)\n\n"
            "Median per-round speedups, native / TCG, for the cells both runs "
            "have.\n\n" % name
            + bt.md_table(["cell"] + ["%s vs %s (native / TCG)" % p for p in TCG_PAIRS],
                          rows) + "\n")


def targets_section(log):
    rows = []

    def speed(key, a, b):
        return log.key_speedup(key + (a,), key + (b,))

    def add(text, key, a, b, limit, how="ge"):
        s = speed(key, a, b)
        if s is None:
            rows.append([text, "not measured", "", "not measured"])
            return
        lost, tot = losses(log, key + (a,), key + (b,))
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

    # 1. psem at least as fast as seed in every cell.
    for t in ("single", "contention"):
        for (cell, n, gap) in log.cells(t):
            if log.value(t, cell, n, gap, "seed"):
                add("psem vs seed: %s" % label(t, cell, n, gap),
                    (t, cell, n, gap), "psem", "seed", 1.0)
    # 2. psem vs locked by at least the seed's ratios in its four headline cells.
    for (t, cell, n, gap, what, main, pr) in HEADLINES:
        add("psem vs locked: %s (the seed's main/PR %.2f×)" % (what, main / pr),
            (t, cell, n, gap), "psem", "locked", round(main / pr, 2))
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
            + bt.md_table(["target", "measured", "threshold", "verdict"], rows) + "\n")


def write_csv(path, log):
    with open(path, "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(bt.HEADER)
        for key, x in log.summary.items():
            m = insns_median(log, key)
            out.writerow(list(key) + [
                "%.2f" % x["median"], "%.2f" % x["min"], "%.2f" % x["max"],
                x["rounds"], "%.2f" % x["cpu"], "%.2f" % x["csw"],
                "" if m is None else "%.2f" % m])


def write_plot_data(d, log, title):
    """The inputs of scripts/bench_plot.gp (see bench_table.py)."""
    os.makedirs(d, exist_ok=True)
    short = {"rwlock_read": "rw read", "rwlock_read_held_across_gap": "rw held",
             "semaphore_64_take_2": "sem64 take2", "semaphore_2_take_1": "sem2 take1",
             "read_reuse": "read reuse", "eight_reads_then_one_write": "8 reads+1 write",
             "try_acquire_release_with_spare_permits": "try+rel spare",
             "try_acquire_release": "try+rel 1 permit",
             "uncontended": "write lock+unlock", "acquire_release": "acq+rel 1 permit",
             "bounded_warm_get_and_return_with_spare_capacity": "pool get+put",
             "uncontended_reuse": "mutex"}
    panels = []
    for name, table, ptitle in (
            ("contention", "contention",
             "Contention cells, native: ns per iteration of one thread, median "
             "of rounds, whiskers min-max"),
            ("single_wall", "single", "Single-thread rows, native: ns per iteration")):
        keys = log.cells(table)
        vs = present(log, table, keys)
        if not keys or not vs:
            continue
        with open(os.path.join(d, name + ".dat"), "w") as f:
            f.write("# label " + " ".join("%s_med %s_min %s_max" % (v, v, v)
                                          for v in vs) + "\n")
            for (cell, n, gap) in keys:
                lab = short.get(cell, cell)
                if table == "contention":
                    lab = "%s %dt %s" % (lab, n, gap)
                cols = []
                for v in vs:
                    x = log.value(table, cell, n, gap, v)
                    cols += (["%.2f" % x["median"], "%.2f" % x["min"],
                              "%.2f" % x["max"]] if x else ["-", "-", "-"])
                f.write('"%s" %s\n' % (lab, " ".join(cols)))
        panels.append((name, vs, "ns per iteration", ptitle))
    with open(os.path.join(d, "panels.gp"), "w") as f:
        f.write("# generated by tools/psem-user/native/bench_native_table.py\n")
        f.write("npanels = %d\n" % len(panels))
        f.write("plot_title = \"%s\"\n" % title.replace('"', "'"))
        for i, (name, vs, ylabel, ptitle) in enumerate(panels, 1):
            f.write('panel%d_file = "%s.dat"\n' % (i, name))
            f.write('panel%d_vars = "%s"\n' % (i, " ".join(vs)))
            f.write('panel%d_colors = "%s"\n' % (i, " ".join(PLOT_COLORS[v] for v in vs)))
            f.write('panel%d_ylabel = "%s"\n' % (i, ylabel))
            f.write('panel%d_title = "%s"\n' % (i, ptitle))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--log", required=True, help="psem-bench-native's output")
    ap.add_argument("--stats", help="output of a run with --stats")
    ap.add_argument("--csv")
    ap.add_argument("--rounds-csv")
    ap.add_argument("--md")
    ap.add_argument("--rst")
    ap.add_argument("--plot-data")
    ap.add_argument("--title", default="psem native benchmark")
    ap.add_argument("--tcg", help="a `make bench` .rounds.csv to set beside")
    ap.add_argument("--note", action="append", default=[],
                    help="a line for the header (CPU, load, ...)")
    a = ap.parse_args()
    log = load(a.log)
    if not log.summary:
        sys.exit("bench_native_table: no records in %s" % a.log)
    if not log.end.startswith("ok"):
        print("bench_native_table: warning: %s has no successful end record" % a.log,
              file=sys.stderr)
    st = bt.Log(a.stats) if a.stats else None
    parts = ["## %s\n" % a.title]
    parts += ["- %s" % n for n in a.note]
    parts.append("- run: `%s`" % log.begin)
    parts.append("- end: `%s`" % log.end)
    parts.append("")
    parts.append(ns_section(log, "single", "Single-thread rows"))
    parts.append(insns_section(log))
    parts.append(ns_section(log, "contention", "Contention"))
    parts.append(seed_section(log))
    if a.tcg:
        parts.append(tcg_section(log, load_tcg(a.tcg), os.path.basename(a.tcg)))
    if st:
        parts.append(bt.stats_section(st))
    parts.append(targets_section(log))
    md = "\n".join(p for p in parts if p is not None)
    md = md.replace(", 1 threads", ", 1 thread")
    print(md)
    if a.md:
        with open(a.md, "w") as f:
            f.write(md)
    if a.rst:
        with open(a.rst, "w") as f:
            f.write(bt.md_to_rst(md))
    if a.csv:
        write_csv(a.csv, log)
    if a.rounds_csv:
        bt.write_rounds_csv(a.rounds_csv, [("native", log)])
    if a.plot_data:
        write_plot_data(a.plot_data, log, a.title)


if __name__ == "__main__":
    main()
