#!/bin/bash
# The benchmarks build and run (one short repetition of a few cases); figures come from README.md's commands.
set -euo pipefail
dir="$(dirname "$0")"
"$dir/reduce_bench" --benchmark_filter='BM_Reduce/f32/sum/32768|BM_Memcpy/32768' --benchmark_min_time=0.01 >/dev/null
# shm_bench rendezvouses through a private directory in $TMPDIR: nothing of it may remain afterwards.
export TMPDIR="${TEST_TMPDIR:-$(mktemp -d)}/shm-bench"
mkdir -p "$TMPDIR"
"$dir/shm_bench" --benchmark_filter='auto/64/' --benchmark_min_time=0.01 >/dev/null
if [[ -n "$(ls -A "$TMPDIR")" ]]; then
  echo "shm_bench left behind: $(ls -A "$TMPDIR")" >&2
  exit 1
fi
echo "bench smoke: ok"
