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
had psem at least as fast. Usage:

    scripts/bench_pool.py [--ref VARIANT]... RUN.txt...

The references default to positive-balance (the seed's rule), sem_t,
pthread and floor.
"""

import argparse
import statistics

from bench_table import Log, label

REFS = ["positive-balance", "sem_t", "pthread", "floor"]


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
                print("%-55s vs %-16s %.3f [%.2f-%.2f], lost %d/%d;"
                      " runs %s (%d of %d >= 1)"
                      % (label(table, cell, n, gap), ref,
                         statistics.median(every), min(every), max(every),
                         sum(1 for r in every if r < 1), len(every),
                         " ".join("%.2f" % m for m in meds),
                         sum(1 for m in meds if m >= 1), len(meds)))


if __name__ == "__main__":
    main()
