#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One table of psem's fast paths in instructions per operation across
stock kernels, from the -icount rounds that scripts/bench.sh writes
(<date>-<kernel>[-quick]-icount.rounds.csv, or the .rounds.csv of a full
run): a row per fast path, for each kernel psem's figure and the kernel
primitive's, as the median over rounds [min-max].

  scripts/icount_table.py A.rounds.csv B.rounds.csv ...
  scripts/icount_table.py --before OLD_A.rounds.csv ... -- NEW_A.rounds.csv ...

With --before (as many files as after, same kernels in the same order),
each psem figure is followed by the change of its median against the
before run, and a last column names the kernels on which psem got slower
(median up by more than --tolerance instructions, default 0.5: under
-icount a long row's fraction is timer ticks, not the fast path).
"""
import argparse
import csv
import os
import re
import statistics
import sys

# (cell, table, label, kernel primitive or None)
ROWS = [
    ("try_acquire_release", "single",
     "try_acquire + release, 1 permit", "down_trylock+up"),
    ("try_acquire_release_with_spare_permits", "single",
     "try_acquire + release, 8 permits (spare)", "down_trylock+up"),
    ("acquire_release", "single",
     "acquire + release, 1 permit", "down+up"),
    ("uncontended_reuse", "single",
     "mutex lock + unlock", "mutex_lock+mutex_unlock"),
    ("uncontended", "single",
     "rwlock write_lock + write_unlock", "down_write+up_write"),
    ("read_reuse", "single",
     "rwlock read_lock + read_unlock", "down_read+up_read"),
    ("eight_reads_then_one_write", "single",
     "rwlock 8 reads + 1 write", "rw_semaphore, the same"),
    ("bounded_warm_get_and_return_with_spare_capacity", "single",
     "pool get + put (8)", "down + spinlocked stack + up"),
    ("release_to_grant_async", "latency",
     "release -> grant, async waiter's callback", None),
    ("release_to_grant_sleeping", "latency",
     "release -> grant, sleeping waiter", "up() -> down() returns"),
    ("release_to_grant_hardirq", "latency",
     "release from hard IRQ -> sleeping waiter", None),
]


def load(path):
    """{(cell, variant): [insns per round]} of the -icount clock."""
    d = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["clock"] != "icount":
                continue
            key = (r["table"], r["cell"], r["variant"])
            d.setdefault(key, []).append(float(r["ns_per_iter"]))
    return d


def kernel_of(path):
    m = re.match(r"\d{4}-\d\d-\d\d-(.+?)(-quick)?(-icount)?\.rounds\.csv$",
                 os.path.basename(path))
    return m.group(1) if m else os.path.basename(path)


def num(x):
    s = "%.2f" % x
    return s[:-3] if s.endswith(".00") else s


def fig(v):
    if not v:
        return ""
    return "%s [%s-%s]" % (num(statistics.median(v)), num(min(v)), num(max(v)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", nargs="+", default=[],
                    help="the before run's .rounds.csv, one per kernel")
    ap.add_argument("--tolerance", type=float, default=0.5,
                    help="instructions a median may rise before it counts as slower")
    ap.add_argument("after", nargs="+", help=".rounds.csv, one per kernel")
    a = ap.parse_args()
    if a.before and len(a.before) != len(a.after):
        sys.exit("icount_table: --before needs as many files as after")
    runs = [load(p) for p in a.after]
    olds = [load(p) for p in a.before]
    names = [kernel_of(p) for p in a.after]

    head = ["fast path"]
    for n in names:
        m = re.match(r"\d+\.\d+", n)
        short = m.group(0) if m else n
        head += ["%s psem" % short, "%s kernel" % short]
    head.append("kernel primitive")
    if olds:
        head.append("psem slower on")
    print("Instructions per operation under QEMU -icount -smp 1, median over"
          " rounds [min-max]; kernels: %s." % ", ".join(names))
    print()
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for cell, table, label, prim in ROWS:
        line = [label]
        slower = []
        for i, run in enumerate(runs):
            p = run.get((table, cell, "psem"), [])
            cp = fig(p)
            if olds and p:
                o = olds[i].get((table, cell, "psem"), [])
                if o:
                    d = statistics.median(p) - statistics.median(o)
                    cp += " (%s%s)" % ("+" if d >= 0 else "", num(d))
                    if d > a.tolerance:
                        slower.append(names[i])
            line += [cp, fig(run.get((table, cell, "kernel"), [])) if prim else ""]
        line.append(prim or "")
        if olds:
            line.append(", ".join(slower) or "none")
        print("| " + " | ".join(line) + " |")


if __name__ == "__main__":
    main()
