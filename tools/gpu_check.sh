#!/bin/bash
# The GPU checks of issues 30 and 31, in one bounded run on a lent GPU machine (docs/design.md §3).
#
#   tools/gpu_check.sh prepare [BUNDLE]       here: build (our code linked in statically) and bundle commbench,
#                                             the bare NCCL loop and the device tests into BUNDLE (.gpu/bundle),
#                                             reduce_bench into BUNDLE-reduce
#   tools/gpu_check.sh run BUNDLE OUTDIR [S] [STEP...]
#                                             there (carry .gpu): every check below (or the STEPs named: facts env
#                                             runtime_test nccl_backend_test fidelity scenario_b correct gate_aa
#                                             scenario_a roofline), each bounded, within S seconds (450);
#                                             OUTDIR/summary.txt: a line per step, exit code, seconds
#
# Steps, most wanted first (a step is skipped once the deadline is near): the machine's facts and `env --json`;
# the device tests; harness fidelity (the bare loop and commbench alternated, three rounds); scenario B (the
# default-stream H2D copy, --explain); every collective, dtype, placement, sync and graph mode checked for
# correctness 8 B..256 MiB; the GPU gate preset A/A; scenario A on this machine's cores (gloo, native); issue 33's
# roofline there (bench/native_roofline.sh 3).
# With OUT set (the device tool), everything is also packed into $OUT/gpu-results.tar.gz after each step, so
# what a killed run measured still comes back. On an H200 (2026-11-27, before 7a306ff): the device tests 42 s,
# fidelity 112 s, scenario B 67 s, the four correctness sweeps about 4 min side by side, the gate's A/A round 36 s,
# scenario A 18 s; the machine's start took about 30 s of device time.
set -u

prepare() {
  local bundle=${1:-.gpu/bundle}
  local bin=.bazel/bin
  bazel build --dynamic_mode=off ${BAZEL_FLAGS:-} //tools/commbench //bench:nccl_bare_loop \
    //lib/backend/nccl:nccl_backend_test //lib/cuda:runtime_test //bench:reduce_bench || return 1
  tools/bundle.sh "$bin/tools/commbench/commbench" "$bundle" || return 1
  # The copy peaks of issue 33's roofline (Google Benchmark's library besides): a bundle of its own beside.
  tools/bundle.sh "$bin/bench/reduce_bench" "$bundle-reduce" || return 1
  # The other binaries need a subset of commbench's libraries: each gets a copy of the wrapper under its name.
  for b in bench/nccl_bare_loop lib/backend/nccl/nccl_backend_test lib/cuda/runtime_test; do
    local name
    name=$(basename "$b")
    cp "$bin/$b" "$bundle/libexec/$name" && chmod 755 "$bundle/libexec/$name" || return 1
    cp "$bundle/commbench" "$bundle/$name" || return 1
    local lib
    for lib in $(ldd "$bin/$b" | awk '$2 == "=>" {print $1}'); do
      grep -qF "$lib" "$bundle/MANIFEST" && continue
      echo "gpu_check: $b needs $lib, which commbench's bundle lacks" >&2
      return 1
    done
  done
  strip --strip-debug "$bundle"/libexec/* 2>/dev/null
  du -sh "$bundle"
}

# ---- run ----
work=""
deadline=0
only=""  # the steps to run; "" for all
pack() {
  [ -n "${OUT:-}" ] || return 0
  tar -C "$work" --warning=no-file-changed -czf "$OUT/gpu-results.tar.gz.tmp" .
  local rc=$?
  # 1: a file changed while tar read it (a timed-out step's child still writing); the archive holds the rest, and
  # on a lent device results packed late are results lost.
  if [ "$rc" -le 1 ]; then
    mv "$OUT/gpu-results.tar.gz.tmp" "$OUT/gpu-results.tar.gz"
  else
    echo "pack: tar exited $rc; $OUT/gpu-results.tar.gz keeps the previous step's results" >&2
  fi
  cp "$work/summary.txt" "$OUT/summary.txt"
}

# step NAME SECONDS COMMAND...: runs COMMAND under a timeout no later than the deadline, logs to NAME.log.
step() {
  local name=$1 limit=$2
  shift 2
  if [ -n "$only" ] && [[ " $only " != *" $name "* ]]; then return 0; fi
  local left=$((deadline - $(date +%s)))
  if [ "$left" -lt 20 ]; then
    echo "$name skipped: $left s left before the deadline" >>"$work/summary.txt"
    return 0
  fi
  [ "$limit" -le "$left" ] || limit=$left
  local t0
  t0=$(date +%s)
  echo "== $name ($(date -u +%H:%M:%S), at most $limit s): $*" | tee -a "$work/commands.txt"
  timeout -k 5 "$limit" "$@" >"$work/$name.log" 2>&1
  local rc=$?
  echo "$name rc=$rc seconds=$(($(date +%s) - t0))" | tee -a "$work/summary.txt"
  tail -3 "$work/$name.log"
  pack
  return 0
}

facts() {
  local cb=$1
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi || true
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem --format=csv || true
  nproc
  find /usr /opt /lib \( -name 'libnccl.so*' -o -name 'libcudart.so*' \) 2>/dev/null | head -20
  COMMBENCH_BUNDLE_SHOW=1 "$cb"
}

fidelity() {
  local b=$1 work=$2 cb=$1/commbench r s
  for r in 1 2 3; do
    for s in 8 1048576 67108864; do
      "$b/nccl_bare_loop" --bytes "$s" --iters 2000 --warmup 20 --sync stream --comm blocking
      "$b/nccl_bare_loop" --bytes "$s" --iters 2000 --warmup 20 --sync stream --comm nonblocking
    done
    "$cb" sweep --backends nccl --groups 1 --group-size 1 --sizes 8,1M,64M --sync stream,none,event \
      --stream dedicated --in-place no --iters 2000 --warmup 20 --timeout 60 --out "$work/fidelity-$r.json" || return
  done
}

# Every collective, dtype, sync and graph mode, in and out of place, 8 B..256 MiB: four sweeps (graph off/on x
# placement) side by side, since a point of 256 MiB spends seconds on the host (its input and checks) while the GPU
# waits; correctness only, no timing is read from them.
correct() {
  local b=$1 work=$2 graph place
  for graph in off on; do
    for place in yes no; do
      "$b/commbench" sweep --backends nccl --group-size 1 --groups 1 --timeout 60 \
        --ops allreduce,allgather,reduce_scatter --sizes 8,4K,1M,256M --dtypes f32,f16,bf16 --sync none,stream,event \
        --iters 8 --warmup 1 --check-rate 0.25 --graph "$graph" --in-place "$place" \
        --out "$work/correct-graph-$graph-inplace-$place.json" >"$work/correct-graph-$graph-inplace-$place.log" 2>&1 &
    done
  done
  local failed=0
  for job in $(jobs -p); do wait "$job" || failed=1; done
  return $failed
}

run() {
  b=$(cd "$1" && pwd -P)
  cb="$b/commbench"
  work=$2
  local budget=${3:-450}
  shift $(($# < 3 ? $# : 3))
  only="$*"
  deadline=$(($(date +%s) + budget))
  mkdir -p "$work"
  : >"$work/summary.txt"
  export HOME=${HOME:-/root}
  local gpu=(--backends nccl --group-size 1 --timeout 60)

  step facts 30 "$0" _facts "$cb"
  step env 60 sh -c "'$cb' env --json >'$work/env.json' && '$cb' env >'$work/env.txt'"
  step runtime_test 60 "$b/runtime_test" --gtest_output="xml:$work/runtime_test.xml"
  step nccl_backend_test 120 "$b/nccl_backend_test" --gtest_output="xml:$work/nccl_backend_test.xml"
  step fidelity 120 "$0" _fidelity "$b" "$work"
  step scenario_b 150 "$cb" sweep "${gpu[@]}" --groups 1..8 --ranks-per-process 8 --sizes 1M,16M \
    --stream legacy-default,dedicated --h2d pageable,pinned --sync stream,event --time-budget 0.1 --explain \
    --out "$work/scenario_b.json" --html "$work/scenario_b.html"
  step correct 240 "$0" _correct "$b" "$work"
  step gate_aa 180 "$cb" gate --ab --a GPU_CHECK_SIDE=a --b GPU_CHECK_SIDE=b --config configs/gate/gpu.yaml \
    --budget 150 --out "$work/gate-b.json" --out-a "$work/gate-a.json" --json "$work/gate.json" --html "$work/gate.html"
  step scenario_a 150 "$cb" sweep --backends gloo,native --groups 1..8 --explain \
    --out "$work/scenario_a.json" --html "$work/scenario_a.html"
  # Issue 33: the native collectives against the memory roofline with a core per rank (2, 4 and 8 ranks).
  step roofline 240 env COMMBENCH="$cb" REDUCE_BENCH="$b-reduce/reduce_bench" KEEP="$work/roofline" \
    bench/native_roofline.sh 3
  pack
}

case "${1:-}" in
  prepare) shift; prepare "$@" ;;
  _facts) shift; facts "$@" ;;
  _fidelity) shift; fidelity "$@" ;;
  _correct) shift; correct "$@" ;;
  run) shift; [ $# -ge 2 ] || { echo "usage: $0 run BUNDLE OUTDIR [SECONDS] [STEP...]" >&2; exit 2; }; run "$@" ;;
  *) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
