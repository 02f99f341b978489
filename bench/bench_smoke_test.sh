#!/bin/bash
# The benchmarks build and run (one short repetition of a few cases); figures come from README.md's commands.
set -euo pipefail
dir="$(dirname "$0")"
"$dir/reduce_bench" --benchmark_filter='BM_Reduce/f32/sum/32768|BM_Memcpy/32768' --benchmark_min_time=0.01 >/dev/null
"$dir/shm_bench" --benchmark_filter='auto/64/' --benchmark_min_time=0.01 >/dev/null
echo "bench smoke: ok"
