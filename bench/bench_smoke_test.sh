#!/bin/bash
# The benchmarks build and run (one short repetition of a few cases); figures come from README.md's commands.
set -euo pipefail
dir="$(dirname "$0")"
"$dir/reduce_bench" --benchmark_filter='BM_Reduce/f32/sum/32768|BM_Memcpy/32768' --benchmark_min_time=0.01 >/dev/null
# pattern_bench prints its ratio line for the case it ran (the line main adds after the library's output).
"$dir/pattern_bench" --benchmark_filter='allreduce/f32/sum/G2' --benchmark_min_time=0.01 |
  grep -q '^Check  allreduce/f32/sum/G2 .*reference/fast'
# shm_bench rendezvouses through a private directory in $TMPDIR: nothing of it may remain afterwards.
export TMPDIR="${TEST_TMPDIR:-$(mktemp -d)}/shm-bench"
mkdir -p "$TMPDIR"
"$dir/shm_bench" --benchmark_filter='auto/64/' --benchmark_min_time=0.01 >/dev/null
if [[ -n "$(ls -A "$TMPDIR")" ]]; then
  echo "shm_bench left behind: $(ls -A "$TMPDIR")" >&2
  exit 1
fi
# The bare Gloo loop of scenario A: two pairs, a short loop; one line with a positive time, nothing left behind.
line=$("$dir/gloo_bare_loop" --groups 2 --iters 20)
if ! [[ $line =~ ^groups\ 2\ iters\ 20\ count\ 100\ makespan_us_per_iter\ [0-9]+\.[0-9]+$ ]] ||
   [[ -n "$(ls -A "$TMPDIR")" ]]; then
  echo "gloo_bare_loop: unexpected output '$line' or left behind: $(ls -A "$TMPDIR")" >&2
  exit 1
fi
if ! [[ $("$dir/gloo_bare_loop" --groups 2 --iters 20 --pin compact) =~ makespan_us_per_iter\ [0-9]+\.[0-9]+$ ]]; then
  echo "gloo_bare_loop --pin compact gave no time" >&2
  exit 1
fi
for bad in "--groups 0" "--pin spread"; do
  # shellcheck disable=SC2086  # two words: the flag and its value
  if "$dir/gloo_bare_loop" $bad 2>/dev/null; then
    echo "gloo_bare_loop accepted $bad" >&2
    exit 1
  fi
done
# headline_vs_bare.sh: one short repeat of G=1,2 gives a table row per G and the growth lines, and reading its
# kept files again (FROM) gives the same table.
table=$(KEEP="$TMPDIR/hvb" BIN_DIR="$dir/.." GROUP_COUNTS="1 2" ITERS=64 "$dir/headline_vs_bare.sh" 1 | grep -v '^# ')
again=$(FROM="$TMPDIR/hvb" "$dir/headline_vs_bare.sh")
if [[ $(grep -cE '^\| [12] \| [0-9.]+ \|' <<<"$table") != 2 ]] || ! grep -q '^growth G=2/G=1 (means' <<<"$table" ||
   [[ $table != "$again" ]]; then
  printf 'headline_vs_bare.sh: unexpected table:\n%s\nread again:\n%s\n' "$table" "$again" >&2
  exit 1
fi
# native_roofline.sh's bound from a fixture: one core copies 64 MiB in 3 ms (22.37 GB/s), both cores at once in 2 ms
# of Google Benchmark's real_time (33.55 GB/s in all: real_time already spans both threads' iterations). A 2-rank
# allgather of 64 MiB moves B = 2 S a rank, so t >= 2 B / (2 x 33.55 GB/s) = 4.0 ms: its 4000 us p50 is 1.00 of the
# bound (0.75 if the all-cores peak were counted per thread).
fx="$TMPDIR/roofline"
mkdir -p "$fx"
cat >"$fx/peak_1.json" <<'JSON'
{"benchmarks": [
 {"name": "BM_Memcpy/67108864", "run_type": "iteration", "threads": 1, "real_time": 3000000},
 {"name": "BM_MemcpyAllCores/67108864/real_time/threads:2", "run_type": "iteration", "threads": 2, "real_time": 2000000}]}
JSON
echo '{"points": [{"op": "allgather", "group_size": 2, "bytes": 67108864, "algo": "direct", "time_us": {"p50": 4000}}]}' \
  >"$fx/sweep_1.json"
row=$(FROM="$fx" "$dir/native_roofline.sh" | grep '^ *allgather')
if ! [[ $row =~ \ 1\.00\ \ 1\ \(1\.00-1\.00\)$ ]]; then
  echo "native_roofline.sh: unexpected row '$row' (want ratio 1.00 in 1 round)" >&2
  exit 1
fi
# VS: the other build's p50 of the same round (5000 us) gives this / VS = 0.80.
echo '{"points": [{"op": "allgather", "group_size": 2, "bytes": 67108864, "algo": "direct", "time_us": {"p50": 5000}}]}' \
  >"$fx/vs_1.json"
row=$(FROM="$fx" "$dir/native_roofline.sh" | sed -n '/^against VS/,$p' | grep '^ *allgather')
if ! [[ $row =~ \ 4000\ +5000\ +0\.80\ \ 1\ \(0\.80-0\.80\)$ ]]; then
  echo "native_roofline.sh: unexpected VS row '$row' (want 4000 against 5000 us, 0.80 in 1 round)" >&2
  exit 1
fi
echo "bench smoke: ok"
