#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Make a mutant of a copy of psem's sources, in place.

    mutate.py NAME DIR      DIR holds a copy of kmod/

Each mutant rewrites one pattern inside the body of one named function and
fails loudly (exit 1) unless the function is defined exactly once and the
pattern occurs in it exactly as often as expected, so that a change to the
core cannot turn a mutant into a silent no-op.

  acquire-relaxed           psem_take(): the ACQUIRE cmpxchg made relaxed
  release-relaxed           psem_release_fast(): the RELEASE cmpxchg made
                            relaxed
  fast-release-with-waiter  the fast release allowed while a waiter is
                            linked: psem's rule ignores PSEM_WAITERS (before
                            the waiters bit: the "cur <= 0" test dropped)
  handoff-acquire-relaxed   psem_wait(): the waiter reads ->done with
                            READ_ONCE() instead of smp_load_acquire()
  handoff-release-relaxed   psem_wake_served(): ->done published with
                            WRITE_ONCE() instead of smp_store_release()
  close-drops-grants        psem_close(): the waiters it fails do not give
                            back their partial grants (psem_add_locked()
                            adds 0, not what they were assigned)
  resize-forgets-debt       psem_resize(): a shrink with permits out does
                            not record what the balance could not cover as
                            a debt
"""
import glob
import os
import re
import sys


def die(msg):
    sys.stderr.write("mutate: %s\n" % msg)
    sys.exit(1)


def find_body(src, fn):
    """(start, end) of the braces of fn's definitions in src."""
    spans = []
    for m in re.finditer(r"\b%s\s*\(([^;{)]|\([^)]*\))*\)\s*\{" % fn, src):
        depth, i = 0, m.end() - 1
        while True:
            if src[i] == "{":
                depth += 1
            elif src[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        spans.append((m.end() - 1, i + 1))
    return spans


def mutate(d, fn, old, new, count=1):
    hits = []
    for path in sorted(glob.glob(os.path.join(d, "*.[ch]"))):
        with open(path) as f:
            src = f.read()
        for span in find_body(src, fn):
            hits.append((path, src, span))
    if len(hits) != 1:
        die("%s(): %d definitions found in %s, expected 1" % (fn, len(hits), d))
    path, src, (a, b) = hits[0]
    body = src[a:b]
    n = body.count(old)
    if n != count:
        die("%s(): pattern %r found %d times in %s, expected %d"
            % (fn, old, n, path, count))
    with open(path, "w") as f:
        f.write(src[:a] + body.replace(old, new) + src[b:])
    print("mutate: %s: %s(): %r -> %r" % (os.path.basename(path), fn, old, new))


def waiters_bit(d):
    with open(os.path.join(d, "psem.h")) as f:
        return "PSEM_WAITERS" in f.read()


def main():
    if len(sys.argv) != 3:
        die("usage: mutate.py NAME DIR")
    name, d = sys.argv[1], sys.argv[2]
    if name == "acquire-relaxed":
        mutate(d, "psem_take", "atomic_long_try_cmpxchg_acquire(",
               "atomic_long_try_cmpxchg_relaxed(")
    elif name == "release-relaxed":
        mutate(d, "psem_release_fast", "atomic_long_try_cmpxchg_release(",
               "atomic_long_try_cmpxchg_relaxed(")
    elif name == "fast-release-with-waiter":
        if waiters_bit(d):
            mutate(d, "psem_release_fast",
                   "unlikely(cur & (PSEM_FLAGS | PSEM_CLOSED))",
                   "unlikely(cur & (PSEM_CONTENDED | PSEM_CLOSED))")
        else:
            mutate(d, "psem_release_fast", "cur <= 0 || ", "")
    elif name == "handoff-acquire-relaxed":
        mutate(d, "psem_wait", "smp_load_acquire(&w->done)",
               "READ_ONCE(w->done)")
    elif name == "handoff-release-relaxed":
        mutate(d, "psem_wake_served", "smp_store_release(&w->done, true)",
               "WRITE_ONCE(w->done, true)")
    elif name == "close-drops-grants":
        mutate(d, "psem_close", "psem_add_locked(sem, back, ",
               "psem_add_locked(sem, 0, ")
    elif name == "resize-forgets-debt":
        mutate(d, "psem_resize", "WRITE_ONCE(sem->debt, sem->debt + owed)",
               "WRITE_ONCE(sem->debt, sem->debt)")
    else:
        die("unknown mutant %s" % name)


if __name__ == "__main__":
    main()
