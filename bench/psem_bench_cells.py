# SPDX-License-Identifier: GPL-2.0
"""The benchmark cells' names for people, and the reference figures.

The cells themselves (what each loop does) are bench/psem_bench_cells.h,
shared by bench/psem_bench.c and tools/psem-user/native/bench_native.c;
this is what scripts/bench_table.py, which turns both benchmarks' records
into tables, calls them and sets beside them.
"""

# psem's release rules (bench/psem_bench_cells.h): locked = always-locked,
# fast_release=0;
# positive-balance = lock-free only on a positive balance, flag off (the
# rule of the original Rust pull request); positive-balance+flag = the
# same with the contention flag; psem = the shipped defaults (lock-free
# whenever nobody waits, flag on: waiters-bit). Then the references.
VARIANTS = ["locked", "positive-balance", "positive-balance+flag", "psem",
            "kernel", "floor"]
# Older logs named the positive-balance rules "seed" and "seed+flag" (and,
# before the waiters bit, "fast" and "fast+flag").
VARIANT_ALIASES = {"seed": "positive-balance", "seed+flag": "positive-balance+flag",
                   "fast": "positive-balance", "fast+flag": "positive-balance+flag"}

NATIVE_VARIANTS = ["locked", "positive-balance", "positive-balance+flag", "psem",
                   "sem_t", "pthread", "condvar", "floor"]

CONTENTION_LABELS = {
    "rwlock_read": "RwLock read",
    "rwlock_read_held_across_gap": "RwLock read held across a {gap} gap",
    "semaphore_64_take_2": "Semaphore 64 permits, take 2",
    "semaphore_2_take_1": "Semaphore 2 permits",
}
SINGLE_LABELS = {
    "read_reuse": "rwlock::read::read_reuse",
    "eight_reads_then_one_write": "rwlock::read::eight_reads_then_one_write",
    "uncontended": "rwlock::write::uncontended",
    "try_acquire_release_with_spare_permits":
        "semaphore::acquire::try_acquire_release_with_spare_permits",
    "try_acquire_release": "semaphore::acquire::try_acquire_release",
    "acquire_release": "semaphore::acquire::acquire_release",
    "bounded_warm_get_and_return_with_spare_capacity":
        "pool::bounded::bounded_warm_get_and_return_with_spare_capacity",
    "uncontended_reuse": "mutex::lock::uncontended_reuse",
}
LATENCY_LABELS = {
    "release_to_grant_async": "semaphore::async::release_to_grant, async",
    "release_to_grant_sleeping": "semaphore::async::release_to_grant, sleeping",
    "release_to_grant_hardirq": "semaphore::async::release_to_grant, from hard IRQ",
}
# What the kernel variant is in each cell.
KERNEL_PRIMITIVE = {
    "rwlock_read": "down_read+up_read",
    "rwlock_read_held_across_gap": "down_read+up_read",
    "semaphore_64_take_2": "2x down + 2x up",
    "semaphore_2_take_1": "down+up",
    "read_reuse": "down_read+up_read",
    "eight_reads_then_one_write": "8x down_read, 8x up_read, down_write+up_write",
    "uncontended": "down_write+up_write",
    "try_acquire_release_with_spare_permits": "down_trylock+up",
    "try_acquire_release": "down_trylock+up",
    "acquire_release": "down+up",
    "bounded_warm_get_and_return_with_spare_capacity":
        "down + spinlocked stack + up",
    "uncontended_reuse": "mutex_lock+mutex_unlock",
    "release_to_grant_sleeping": "down() woken by up()",
}

PLOT_COLORS = {"locked": "#7f7f7f", "positive-balance": "#1f77b4",
               "positive-balance+flag": "#2ca02c", "psem": "#d62728",
               "kernel": "#ff7f0e", "sem_t": "#ff7f0e",
               "pthread": "#9467bd", "condvar": "#8c564b", "floor": "#000000"}
SHORT_LABELS = {
    "rwlock_read": "rw read", "rwlock_read_held_across_gap": "rw held",
    "semaphore_64_take_2": "sem64 take2", "semaphore_2_take_1": "sem2 take1",
    "read_reuse": "read reuse", "eight_reads_then_one_write": "8 reads+1 write",
    "try_acquire_release_with_spare_permits": "try+rel spare",
    "try_acquire_release": "try+rel 1 permit",
    "uncontended": "write lock+unlock", "acquire_release": "acq+rel 1 permit",
    "bounded_warm_get_and_return_with_spare_capacity": "pool get+put",
    "uncontended_reuse": "mutex"}

# The pull request's Linux table (Hygon C86 7360), where a native cell
# matches it: ns per iteration of main, the PR and the PR with the flag.
PR_LINUX = {(t, cell, int(n), gap): (float(main), float(pr), float(flag))
            for t, cell, n, gap, main, pr, flag in map(str.split, """
contention rwlock_read                                      2 none   268.1 141.3 141.8
contention rwlock_read                                      4 none   916.7 423.7 470.6
contention rwlock_read                                      8 none    2486   999   997
contention rwlock_read                                      2 short  238.1 168.1 169.1
contention rwlock_read                                      8 long    3943  1670  1878
contention rwlock_read_held_across_gap                      4 short  926.5 549.9 590.0
contention semaphore_64_take_2                              2 none   277.8 168.9 180.3
contention semaphore_64_take_2                              8 none    1963   445   444
contention semaphore_2_take_1                               2 none   266.6 213.1 242.9
single     read_reuse                                       1 none    88.0  49.0  48.8
single     eight_reads_then_one_write                       1 none   775.8 492.4 493.3
single     try_acquire_release_with_spare_permits           1 none    58.3  20.2  20.2
single     bounded_warm_get_and_return_with_spare_capacity  1 none   282.6 248.6 246.9
single     try_acquire_release                              1 none    58.3  56.7  56.7
single     uncontended_reuse                                1 none    94.1  93.9  93.8
""".strip().splitlines())}

# The pull request's headline ratios (main / PR, in PR_LINUX): the cells
# the second native target names.
HEADLINES = (
    (("single", "try_acquire_release_with_spare_permits", 1, "none"),
     "spare-permit try+release"),
    (("single", "read_reuse", 1, "none"), "read_reuse"),
    (("contention", "rwlock_read", 2, "none"), "RwLock read, 2 threads"),
    (("contention", "semaphore_64_take_2", 2, "none"),
     "Semaphore 64 take 2, 2 threads"),
)
