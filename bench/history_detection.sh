#!/bin/bash
# The history's detection table (issue 53; docs/history.md, "What a history can see"): what `history check`
# answers on short real histories, by series length, runs after a planted step and its size, and on A/A ones.
#  1. Records PLAIN real sweeps of this build (sweep --groups 1 --sizes 400 --iters 400 --repeats 5, as
#     lib/history:real_series_test) and SLOW of each planted slowdown (--test-only-uniform-slowdown 0.1, 0.2, 0.5),
#     in a shuffled order (a spell of the host's load lands on scattered runs, not on a run of neighbours).
#  2. For each length N and runs-after A, DRAWS histories: N - A plain runs drawn at random then A slowed ones
#     (A/A: N plain ones), filed with `history add`, judged by `history check` (defaults; --recent-runs N, so that
#     exit 1 means a slowdown found whatever its age): the share of exit 1 / 3 / 0 per cell.
#  3. Runs lib/history:detection_table on the plain runs' noise (SERIES synthetic series a cell) and at a quiet
#     runner's (--cv 0.02).
# usage: bench/history_detection.sh   (env: COMMBENCH, TABLE (the detection_table binary), PLAIN=16, SLOW=6,
#        DRAWS=4, LENGTHS="8 12 16", SERIES=200, WORK=dir to keep the runs in)
set -uo pipefail
cd "$(dirname "$0")/.."
B="${COMMBENCH:-.bazel/bin/tools/commbench/commbench}"
TABLE="${TABLE:-.bazel/bin/lib/history/detection_table}"
PLAIN="${PLAIN:-16}" SLOW="${SLOW:-6}" DRAWS="${DRAWS:-4}" LENGTHS="${LENGTHS:-8 12 16}" SERIES="${SERIES:-200}"
W="${WORK:-$(mktemp -d)}"
[[ -n "${WORK:-}" ]] || trap 'rm -rf "$W"' EXIT
mkdir -p "$W/runs"
echo "history_detection: $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null), load $(cut -d' ' -f1-3 /proc/loadavg)"
order=$( { for i in $(seq 1 "$PLAIN"); do echo "plain-$i"; done
           for s in 10 20 50; do for i in $(seq 1 "$SLOW"); do echo "slow$s-$i"; done; done; } | shuf)
for run in $order; do
  f="$W/runs/$run.json"
  [[ -s "$f" ]] && continue
  case $run in
    slow10-*) extra=(--test-only-uniform-slowdown 0.1) ;;
    slow20-*) extra=(--test-only-uniform-slowdown 0.2) ;;
    slow50-*) extra=(--test-only-uniform-slowdown 0.5) ;;
    *) extra=() ;;
  esac
  "$B" sweep --groups 1 --sizes 400 --iters 400 --repeats 5 --no-explain --no-html -q --out "$f" "${extra[@]}" \
    >"$W/sweep.log" 2>&1 || { cat "$W/sweep.log"; echo "sweep $run failed"; exit 1; }
done
echo "recorded $PLAIN plain runs and $SLOW of each planted slowdown (10, 20, 50 %) in $W/runs"
median_of() { python3 -c "import json,sys,statistics as st; print('%.1f' % st.median(json.load(open(sys.argv[1]))['points'][0]['repeats']['p50_us']))" "$1"; }
echo "plain run medians (us): $(for i in $(seq 1 "$PLAIN"); do median_of "$W/runs/plain-$i.json"; done | tr '\n' ' ')"
for s in 10 20 50; do
  echo "slowed $s % run medians (us): $(for i in $(seq 1 "$SLOW"); do median_of "$W/runs/slow$s-$i.json"; done | tr '\n' ' ')"
done

judge() {  # N A STEP DRAW: one history (A slowed runs last; A/A: A = 0), its exit code
  local n=$1 a=$2 step=$3 d=$4 h="$W/h-$1-$2-$3-$4"
  rm -rf "$h"
  local plain; plain=$(seq 1 "$PLAIN" | shuf -n $((n - a)))
  local slow=""; [[ $step != 0 ]] && slow=$(seq 1 "$SLOW" | shuf -n "$a")
  local i=0
  for p in $plain; do "$B" history add "$h" "$W/runs/plain-$p.json" --commit "c$i" --time "2026-01-01T00:$(printf %02d $i):00Z" >/dev/null; i=$((i + 1)); done
  for p in $slow; do "$B" history add "$h" "$W/runs/slow$step-$p.json" --commit "c$i" --time "2026-01-01T00:$(printf %02d $i):00Z" >/dev/null; i=$((i + 1)); done
  "$B" history check "$h" --recent-runs "$n" >"$h.txt" 2>&1
  local rc=$?
  # Exit 3 has reasons: too few runs to tell (T), or a change beside runs measured under outside load (D).
  [[ $rc == 3 ]] && { grep -q "too few runs to tell" "$h.txt" && echo T || echo D; } || echo "$rc"
}
echo
echo "real histories ($DRAWS draws a cell): exit 1 / 3 too few runs to tell / 3 disturbed / 0"
echo
echo "| runs | runs after the step | A/A | 10 % | 20 % | 50 % |"
echo "|---|---|---|---|---|---|"
for n in $LENGTHS; do
  declare -A aa=([1]=0 [T]=0 [D]=0 [0]=0)
  for d in $(seq 1 "$DRAWS"); do rc=$(judge "$n" 0 0 "$d"); aa[$rc]=$((${aa[$rc]:-0} + 1)); done
  for a in $(printf '%s\n' 3 4 $((n / 2)) | sort -nu); do
    [[ $a -gt $SLOW ]] && continue
    row="| $n | $a | ${aa[1]} / ${aa[T]} / ${aa[D]} / ${aa[0]} |"
    for step in 10 20 50; do
      declare -A c=([1]=0 [T]=0 [D]=0 [0]=0)
      for d in $(seq 1 "$DRAWS"); do rc=$(judge "$n" "$a" "$step" "$d"); c[$rc]=$((${c[$rc]:-0} + 1)); done
      row+=" ${c[1]} / ${c[T]} / ${c[D]} / ${c[0]} |"
    done
    echo "$row"
    [[ $n == 8 && $a == 4 ]] && sed -n '1,3p' "$W/h-8-4-20-1.txt" | sed 's/^/    e.g. /' >&2
  done
done
echo
[[ "$SERIES" -gt 0 ]] || exit 0
echo "simulated (lib/history:detection_table), noise drawn from the $PLAIN plain runs:"
"$TABLE" --series "$SERIES" $(for i in $(seq 1 "$PLAIN"); do echo "$W/runs/plain-$i.json"; done)
echo
echo "simulated, a quiet runner (--cv 0.02):"
"$TABLE" --series "$SERIES" --cv 0.02
