#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Pool psem's per-round speedups over several runs of one benchmark.

A cell whose rounds are noisier than the difference it measures gives a
verdict by chance in one run. This reads the records of several runs
(psem-bench-native's or psem_bench.ko's .txt files, as
scripts/bench_table.py does), and prints, for every cell, psem's speedup
over each reference (the reference's ns over psem's, round by round, in
the same run) pooled over all the rounds of all the runs: median
[min-max], the rounds psem lost, then each run's median and how many runs
had psem at least as fast; last, the 95% confidence interval of the
pooled median (distribution-free, from the order statistics: no
assumption on the rounds' spread) and what it says: "ahead" or "behind"
where the interval excludes 1, "level" where it holds 1, a cell whose
difference this machine does not resolve with these rounds. Usage:

    scripts/bench_pool.py [--ref VARIANT]... RUN.txt...

The references default to positive-balance (the seed's rule), sem_t,
pthread and floor.
"""

import argparse
import math
import statistics

from bench_table import Log, label

REFS = ["positive-balance", "sem_t", "pthread", "floor"]


def median_ci(xs, level=0.95):
    """The order statistics (low, high) that hold the median of the
    population @xs was drawn from with probability @level or more: x(k)
    and x(n-k+1), k the largest with P(B < k) <= (1 - level) / 2 for B
    binomial(n, 1/2). None where @xs has too few values for @level."""
    xs = sorted(xs)
    n = len(xs)
    tail, cdf, k = (1 - level) / 2, 0.0, 0
    for i in range(n + 1):
        cdf += math.comb(n, i) / 2 ** n
        if cdf > tail:
            break
        k = i + 1
    return (xs[k - 1], xs[n - k]) if k else None


def verdict(ci):
    """Where the interval @ci of psem's speedup lies against 1."""
    if ci is None:
        return "too few rounds"
    if ci[0] > 1:
        return "ahead"
    if ci[1] < 1:
        return "behind"
    return "level"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ref", action="append", help="a reference variant")
    p.add_argument("runs", nargs="+", help="a run's records")
    a = p.parse_args()
    logs = [Log(path) for path in a.runs]
    print("%d runs: %s" % (len(logs), " ".join(a.runs)))
    for table in ("contention", "single"):
        for cell, n, gap in logs[0].cells(table):
            for ref in a.ref or REFS:
                key = (table, cell, n, gap)
                runs = [log.ratios(key + ("psem",), key + (ref,))
                        for log in logs]
                every = [r for run in runs for r in run]
                if not every:
                    continue
                meds = [statistics.median(run) for run in runs if run]
                ci = median_ci(every)
                print("%-55s vs %-16s %.3f [%.2f-%.2f], lost %d/%d;"
                      " runs %s (%d of %d >= 1); 95%% CI %s: %s"
                      % (label(table, cell, n, gap), ref,
                         statistics.median(every), min(every), max(every),
                         sum(1 for r in every if r < 1), len(every),
                         " ".join("%.2f" % m for m in meds),
                         sum(1 for m in meds if m >= 1), len(meds),
                         "%.3f-%.3f" % ci if ci else "-", verdict(ci)))


if __name__ == "__main__":
    main()
