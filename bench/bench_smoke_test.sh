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
echo "bench smoke: ok"
