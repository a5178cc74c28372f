#!/bin/bash
# Alternates the unchanged tree (U) with the bound prototypes A (xadd
# release) and B (xsub take + xadd release), the 2-permit 2-thread cell,
# none and short gap, psem/sem_t/floor, 15 rounds of 200,000; then psem-shapes.
set -e
out=/tmp/proto-runs
for i in $(seq 1 ${RUNS:-5}); do
  for p in U A B; do
    /tmp/proto$p/build/psem-bench-native --table contention --cells semaphore_2_take_1 \
      --threads 2 --gaps none,short --variants psem,sem_t,floor,positive-balance \
      --rounds 15 --iters 200000 > $out/$p.$i.txt 2>&1
  done
  /tmp/shapes-build/psem-shapes --rounds 15 > $out/shapes.$i.txt 2>&1
done
