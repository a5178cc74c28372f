#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""No call loop between the files of a module: check-layers.py DIR...

Each DIR is a built module directory (kmod/, torture/). For every object
that a composite module links (its Kbuild's "NAME-y" lines), nm gives the
symbols it defines and those it uses; a file uses another when it uses a
symbol (a function, or data such as a trace event or a counter) that the
other defines. A cycle in that graph is a call loop: the layers are not
layers. Prints each module's graph and exits 1 if any cycle is found.
Run by scripts/lint.sh on the objects of its W=1 build.
"""
import os
import re
import subprocess
import sys


def members(d):
    """The objects the composite modules of DIR's Kbuild link."""
    objs = []
    with open(os.path.join(d, "Kbuild")) as f:
        for line in f:
            m = re.match(r"^[A-Za-z0-9_]+-y\s*[:+]?=\s*(.*)$", line)
            if m:
                objs += [o for o in m.group(1).split() if o.endswith(".o")]
    return objs


def nm(path, *opts):
    r = subprocess.run(["nm", *opts, path], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"check-layers: nm {path}: {r.stderr.strip() or 'failed'}"
                 " (is the module built there?)")
    return [line.split() for line in r.stdout.splitlines()]


def graph(d):
    objs = members(d)
    defs, uses = {}, {o: set() for o in objs}
    for o in objs:
        for f in nm(os.path.join(d, o)):
            if len(f) == 3 and f[1] in "TDBRG":
                defs[f[2]] = o
    for o in objs:
        for f in nm(os.path.join(d, o), "-u"):
            if f[-1] in defs and defs[f[-1]] != o:
                uses[o].add(defs[f[-1]])
    return uses


def cycles(uses):
    state, found = {}, []

    def visit(u, path):
        state[u] = 1
        for v in sorted(uses[u]):
            if state.get(v) == 1:
                found.append(path[path.index(v):] + [v])
            elif not state.get(v):
                visit(v, path + [v])
        state[u] = 2

    for o in sorted(uses):
        if not state.get(o):
            visit(o, [o])
    return found


def main():
    bad = 0
    for d in sys.argv[1:]:
        uses = graph(d)
        loops = cycles(uses)
        for o in sorted(uses):
            print(f"  {os.path.basename(d.rstrip('/'))}/{o} -> "
                  + (" ".join(sorted(uses[o])) or "(nothing)"))
        for c in loops:
            print(f"check-layers: {d}: a call loop: {' -> '.join(c)}")
        bad += len(loops)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
