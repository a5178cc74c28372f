#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Make a mutant of a copy of psem's sources, in place.

    mutate.py NAME DIR      DIR holds a copy of kmod/

Each mutant rewrites one pattern inside the body of one named function and
fails loudly (exit 1) unless the function is defined exactly once and the
pattern occurs in it exactly as often as expected, so that a change to the
core cannot turn a mutant into a silent no-op.

  acquire-relaxed           psem_take(): the ACQUIRE cmpxchg made relaxed
  release-relaxed           psem_release_clean(): the read-first release's
                            RELEASE cmpxchg made relaxed
  add-relaxed               psem_release_add(): the add's RELEASE made
                            relaxed
  fast-release-with-waiter  the read-first release allowed while a waiter
                            is linked: psem's rule ignores PSEM_WAITERS
                            (before the waiters bit: the "cur <= 0" test
                            dropped)
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

The explorer's mutants (scripts/check-explore.sh), one behaviour each:

  handoff-skips-debt        psem_add_locked(): a release pays nothing
                            towards the debt, reading none in the word
  leave-uncounted           psem_dequeue(): a task served on its way to
                            cancel is not counted in psem_leaving[]
  leave-skips-wake          psem_leave(): a task served on its way out does
                            not wake psem_wait_let_go() after it lets go
  cancel-keeps-partial      psem_unlink(): a withdrawn wait does not give
                            back what it was partly assigned
  queue-lifo                psem_link(): a waiter links at the head of the
                            queue, not the tail
  handoff-overgrants        psem_hand_off(): the head is served in full
                            whatever the release brought
  failed-wait-succeeds      psem_wait(): a wait that close or resize failed
                            returns 0
  callback-not-calling      psem_call_back(): &psem_calls.calling is not set
                            while a callback runs
  callbacks-nest            psem_dequeue(): every path that completes an
                            asynchronous waiter calls back itself, even
                            inside another path's callback
  settle-ignores-calls      psem_has_let_go(): a path calling back does not
                            hold off psem_sync()
  park-no-irq-work          psem_park(): parked permits are never handed
                            over (no irq_work_queue())
  quiesce-no-sync           psem_quiesce(): returns without psem_sync()
  resize-keeps-big-waiters  psem_retarget(): waiters for more than the new
                            capacity stay queued
  close-stays-open          psem_close(): PSEM_BIAS is not added
  reopen-stays-closed       psem_reopen(): PSEM_BIAS is not taken away
  reopen-unblocks-debt      psem_reopen(): takes PSEM_BIAS away twice, so
                            a word that owes a debt turns positive, and a
                            take reads the debt as a balance
  owe-in-field              psem_owe(): the debt recorded in the field,
                            where the adds in flight are, not above it
  mark-drops-closed         psem_take_or_mark(): the mark forgets the
                            closed state
  add-lands-in-field        psem_release_added(): an add onto a waiting
                            word is taken for a release as it stands
  add-keeps-field           psem_release_added(): an add onto a waiting
                            word is not taken back out of the field
  over-kept                 psem_release_added(): an add that crossed
                            PSEM_MAX_PERMITS is refused but not taken back
  settle-ignores-field      psem_credit_settled(): a credit becomes the
                            balance with an add still in the field
  try-ignores-credit        psem_try_acquire(): a try never takes a credit
  over-onto-over-stands     psem_release_added(): an add onto another's
                            overflow stands (only the add that crossed
                            PSEM_MAX_PERMITS is taken back)
  refusal-unsettled         psem_add_credit_locked(): a refusal leaves the
                            word waiting for nobody
  grow-limit-first          psem_resize(): a growth writes the new limit
                            before it adds to the word
  clear-with-waiter         psem_add_locked(): clears PSEM_WAITERS with a
                            waiter still linked (the spin model's
                            BROKEN_CLEAR_WITH_WAITER)
  balance-overflow-unchecked psem_add_balance(): no overflow check
  retry-relaxed             psem_release_retry(): the retried exchange's
                            RELEASE made relaxed
  retry-to-lock             psem_release_retry(): a lost exchange goes to
                            the lock, as under the seed's rule
  capped-release-unchecked  psem_release_credit(): a release onto a
                            credit is not checked against the capacity
  capped-retry-to-lock      psem_release_credit(): a lost exchange goes to
                            the lock
  retry-ignores-flag        psem_release_retry(): a retry onto a word with
                            PSEM_CONTENDED, which should send it to the lock
  capped-retry-stale-limit  psem_release_credit(): the retry checks the
                            words its failures return against the limit
                            it read first
  downgrade-releases-all    psem_downgrade_write(): gives back every
                            permit, the read hold's too
  mutex-unlock-lost         psem_mutex_unlock(): a contended unlock
                            releases nothing
  pool-put-lost             psem_pool_put(): the object goes back, its
                            permit does not
  let-go-ignores-kick       psem_has_let_go(): a hand-off due (the
                            psem's PSEM_PARKED_KICK) does not hold off
                            psem_sync()
  handoff-skips-let-go-wake psem_release_now(): a hand-off of parked
                            permits does not wake psem_sync()
  pool-destroy-no-sync      psem_pool_destroy(): no psem_sync()
  mutex-destroy-no-sync     psem_mutex_destroy(): no psem_sync()
  rwlock-destroy-no-sync    psem_rwlock_destroy(): no psem_sync()
  available-counts-parked   psem_available(): counts parked permits again
                            (so psem_is_held() reads a parked one free)
  take-parked-keeps-kick    psem_take_parked(): the hand-off leaves
                            PSEM_PARKED_KICK set, so a later parking
                            release never names the psem again
  parked-sum-unfitted       psem_release_now(): the hand-off judges the
                            parked sum whole, refusing the good releases
                            with the bad
  cancel-sync-ignores-requeue psem_async_stand_locked(): a waiter its
                            callback queued again reads as idle
  cancel-sync-ignores-calling psem_async_stand_locked(): a callback that
                            runs does not make the waiter busy
  work-cancel-single-round  psem_cancel_async_work_sync(): one round, not
                            until the work neither runs nor is queued
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


# The mutants, but fast-release-with-waiter (its pattern depends on the
# sources: see main()): function, pattern, replacement[, count]; or
# function and a list of (pattern, replacement), each found once.
MUTANTS = {
    "acquire-relaxed": ("psem_take", "atomic_long_try_cmpxchg_acquire(",
                        "atomic_long_try_cmpxchg_relaxed("),
    "release-relaxed": ("psem_release_clean",
                        "atomic_long_try_cmpxchg_release(",
                        "atomic_long_try_cmpxchg_relaxed("),
    "retry-relaxed": ("psem_release_retry",
                      "landed = atomic_long_try_cmpxchg_release(",
                      "landed = atomic_long_try_cmpxchg_relaxed("),
    "add-relaxed": ("psem_release_add", "atomic_long_fetch_add_release(",
                    "atomic_long_fetch_add_relaxed("),
    "retry-to-lock": ("psem_release_retry",
                      "landed = atomic_long_try_cmpxchg_release(",
                      "break; landed = atomic_long_try_cmpxchg_release("),
    "handoff-acquire-relaxed": ("psem_wait", "smp_load_acquire(&w->done)",
                                "READ_ONCE(w->done)"),
    "handoff-release-relaxed": ("psem_wake_served",
                                "smp_store_release(&w->done, true)",
                                "WRITE_ONCE(w->done, true)"),
    "close-drops-grants": ("psem_close", "psem_add_locked(sem, back, ",
                           "psem_add_locked(sem, 0, "),
    "resize-forgets-debt": ("psem_resize",
                            "psem_owe(sem, owed);",
                            "psem_owe(sem, 0);"),
    # The explorer's.
    "handoff-skips-debt": ("psem_add_locked_cap",
                           "debt = psem_word_debt(cur);", "debt = 0;"),
    "leave-uncounted": ("psem_dequeue", "atomic_inc(psem_let_go_var(sem));",
                        "(void)psem_let_go_var(sem);"),
    "leave-skips-wake": ("psem_leave", "psem_let_go_wake(sem);",
                         "(void)sem;"),
    "cancel-keeps-partial": ("psem_unlink",
                             "psem_add_locked(sem, w->n - w->needed, ",
                             "psem_add_locked(sem, 0, "),
    "queue-lifo": ("psem_link", "psem_queue_add(sem, w);",
                   "psem_queue_add(sem, w); sem->first = w;"),
    "handoff-overgrants": ("psem_hand_off", "if (w->needed > n) {",
                           "if (0) {"),
    "failed-wait-succeeds": ("psem_wait", "return w->result;", "return 0;",
                             2),
    "callback-not-calling": ("psem_call_back",
                             "WRITE_ONCE(calls->calling, aw);",
                             "WRITE_ONCE(calls->calling, NULL);"),
    "callbacks-nest": ("psem_dequeue", "if (!ext->calls)", "if (1)"),
    "settle-ignores-calls": ("psem_has_let_go",
                             "!(psem_is_ext(sem) && psem_ext_of(sem)->calls) &&",
                             ""),
    "park-no-irq-work": ("psem_park", "irq_work_queue(this_cpu_ptr(&psem_kick_work));",
                         "(void)this_cpu_ptr(&psem_kick_work);"),
    "quiesce-no-sync": ("psem_quiesce_common", "psem_sync(sem);",
                        "(void)sem;"),
    "resize-keeps-big-waiters": ("psem_retarget",
                                 "} else if (w->n > capacity) {",
                                 "} else if (0) {"),
    "close-stays-open": ("psem_close",
                         "atomic_long_add((long)PSEM_BIAS, &sem->count);",
                         "(void)cur;"),
    "reopen-stays-closed": ("psem_reopen",
                            "atomic_long_sub((long)PSEM_BIAS, &sem->count);",
                            "(void)cur;"),
    "reopen-unblocks-debt": ("psem_reopen",
                             "atomic_long_sub((long)PSEM_BIAS, ",
                             "atomic_long_sub((long)(PSEM_BIAS << 1), "),
    "owe-in-field": ("psem_owe", "n * PSEM_HIGH_ONE", "n * PSEM_ONE"),
    "mark-drops-closed": ("psem_take_or_mark",
                          "(long)((cur & PSEM_BIAS) + PSEM_BIAS + PSEM_WAITERS)",
                          "(long)(PSEM_BIAS + PSEM_WAITERS)"),
    "add-lands-in-field": ("psem_release_added",
                           "if (!(old & PSEM_WAITERS)) {", "if (1) {"),
    "add-keeps-field": ("psem_release_added",
                        "atomic_long_sub(n * PSEM_ONE, &sem->count);",
                        "(void)0;"),
    "over-kept": ("psem_release_added",
                  "return psem_release_over(sem, n, ip);",
                  "return -EOVERFLOW;"),
    "settle-ignores-field": ("psem_credit_settled",
                             "if (cur & (PSEM_FIELD | PSEM_EXT))",
                             "if (cur & PSEM_EXT)"),
    "over-onto-over-stands": ("psem_release_added",
                              "if (n > PSEM_MAX_PERMITS - psem_word_balance(old))",
                              "if (psem_word_balance(old) <= PSEM_MAX_PERMITS &&\n\t\t    n > PSEM_MAX_PERMITS - psem_word_balance(old))"),
    "refusal-unsettled": ("psem_add_credit_locked", "psem_settle(sem);",
                          "(void)0;"),
    "grow-limit-first": ("psem_resize", [
        ("\t\tpsem_add_locked_cap(sem, back + capacity - old, capacity, &wake,",
         "\t\tpsem_set_limit(sem, capacity);\n\t\tpsem_add_locked_cap(sem, back + capacity - old, capacity, &wake,")]),
    "try-ignores-credit": ("psem_try_acquire",
                           "psem_take(sem, n) || psem_take_range(sem, n, n)",
                           "psem_take(sem, n)"),
    "clear-with-waiter": ("psem_add_locked_cap", "if (!psem_queue_empty(sem))",
                          "if (0)"),
    "balance-overflow-unchecked": ("psem_add_balance",
                                   "if (n > cap - psem_word_balance(cur)) {",
                                   "if (0) {"),
    "capped-release-unchecked": ("psem_release_credit",
                                 "n > psem_word_capacity(sem, cur) - psem_word_high(cur)",
                                 "0"),
    "capped-retry-to-lock": ("psem_release_credit", "\t\tsmp_rmb();\n\t}",
                             "\t\treturn false;\n\t}"),
    "retry-ignores-flag": ("psem_release_retry",
                           "(cur & (PSEM_FLAGS | PSEM_BLOCKED)) ||",
                           "(cur & (PSEM_WAITERS | PSEM_BLOCKED)) ||"),
    "capped-retry-stale-limit": ("psem_release_credit", [
        ("\tfor (;;) {", "\tlong stale = psem_word_capacity(sem, cur);\n\n\tfor (;;) {"),
        ("n > psem_word_capacity(sem, cur) - psem_word_high(cur)",
         "n > stale - psem_word_high(cur)")]),
    "downgrade-releases-all": ("psem_downgrade_write",
                               "PSEM_RW_WRITE_PERMITS - 1",
                               "PSEM_RW_WRITE_PERMITS"),
    "mutex-unlock-lost": ("psem_mutex_unlock",
                          "psem_release_locked(&lock->sem, 1);",
                          "(void)lock;"),
    "pool-put-lost": ("psem_pool_put", "return psem_release(&pool->sem, 1);",
                      "return 0;"),
    "let-go-ignores-kick": ("psem_has_let_go",
                            "!(atomic_read(&sem->pending) & PSEM_PARKED_KICK)",
                            "1"),
    "handoff-skips-let-go-wake": ("psem_release_now", "if (parked)\n\t\tpsem_let_go_wake(sem);",
                                  "if (0)\n\t\tpsem_let_go_wake(sem);"),
    "pool-destroy-no-sync": ("psem_pool_destroy", "psem_sync(&pool->sem);",
                             "(void)pool;"),
    "mutex-destroy-no-sync": ("psem_mutex_destroy", "psem_sync(&lock->sem);",
                              "(void)lock;"),
    "rwlock-destroy-no-sync": ("psem_rwlock_destroy", "psem_sync(&lock->sem);",
                               "(void)lock;"),
    "available-counts-parked": ("psem_available",
                                "return psem_word_balance(atomic_long_read(&sem->count));",
                                "return psem_word_balance(atomic_long_read(&sem->count)) + psem_parked(sem);"),
    "take-parked-keeps-kick": ("psem_take_parked",
                               "atomic_xchg(&sem->pending, 0)",
                               "atomic_xchg(&sem->pending, PSEM_PARKED_KICK)"),
    "parked-sum-unfitted": ("psem_release_now",
                            "n = psem_parked_fit(sem, n, ip);", "(void)0;"),
    "cancel-sync-ignores-requeue": ("psem_async_stand_locked",
                                    "return state == PSEM_W_IDLE ? PSEM_ASYNC_IDLE : PSEM_ASYNC_QUEUED;",
                                    "return PSEM_ASYNC_IDLE;"),
    "cancel-sync-ignores-calling": ("psem_async_stand_locked",
                                    "if (calls && smp_load_acquire(&calls->calling) == aw)",
                                    "if (0)"),
    "work-cancel-single-round": ("psem_cancel_async_work_sync",
                                 "} while (!psem_async_work_idle(sem, aww, &queued));",
                                 "} while (0);"),
}


def main():
    if len(sys.argv) != 3:
        die("usage: mutate.py NAME DIR")
    name, d = sys.argv[1], sys.argv[2]
    if name == "fast-release-with-waiter":
        if waiters_bit(d):
            mutate(d, "psem_release_fast",
                   "likely(!(cur & (PSEM_FLAGS | PSEM_BLOCKED)))",
                   "likely(!(cur & PSEM_CONTENDED))")
        else:
            mutate(d, "psem_release_fast", "cur <= 0 || ", "")
    elif name in MUTANTS:
        fn, edits = MUTANTS[name][0], MUTANTS[name][1:]
        if isinstance(edits[0], list):
            for old, new in edits[0]:
                mutate(d, fn, old, new)
        else:
            mutate(d, fn, *edits)
    else:
        die("unknown mutant %s" % name)


if __name__ == "__main__":
    main()
