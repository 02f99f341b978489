#!/bin/bash
# The gate's false-alarm rate and power on this machine, with a preset (default configs/gate/ci.yaml), printed as
# a table: A/A comparisons (the same build both sides), a planted uniform 5 % slowdown, a planted 2 % slowdown,
# each with `gate --ab` (both sides in one job) and against a stored baseline (a side measured in an earlier job).
#
#   bench/gate_power.sh                     # 40 A/A jobs, 20 with 5 % planted, 20 with 2 % planted
#   AA=10 P5=4 P2=4 bench/gate_power.sh     # a shorter look
#   CONFIG=configs/gate/gpu.yaml bench/gate_power.sh
#   COMMBENCH=path/to/commbench WORK=/tmp/gp bench/gate_power.sh   # WORK keeps every file (default: removed)
#
# Every job is one `commbench gate --ab` of the preset, A B A B ..., with --out-a keeping side A: the --ab
# verdict is that job's exit code. The stored-baseline verdicts compare, with `commbench compare` (the decision
# `gate --baseline` makes after its run), the previous job's A side (the baseline, unplanted) with this job's B
# side (A/A jobs: B is the same build; planted jobs: B carries the slowdown). Jobs run in an interleaved order
# (A/A, 5 %, A/A, 2 %, ...), so that drift over the run touches every kind alike.
# Counted per comparison: false alarm = exit 1 on A/A; detected = exit 1 with a slower point; the rest are
# passes (0) or inconclusive (3). The job's time is the wall time of one gate --ab (a stored-baseline gate runs
# one side: about half).
set -uo pipefail

AA="${AA:-40}" P5="${P5:-20}" P2="${P2:-20}"
config="${CONFIG:-configs/gate/ci.yaml}"
bin="${COMMBENCH:-}"
if [[ -z "$bin" ]]; then
  for candidate in .bazel/bin/tools/commbench/commbench "$(command -v commbench || true)"; do
    if [[ -n "$candidate" && -x "$candidate" ]]; then bin="$candidate"; break; fi
  done
fi
[[ -n "$bin" ]] || { echo "gate_power.sh: build //tools/commbench or set COMMBENCH" >&2; exit 2; }
[[ -f "$config" ]] || { echo "gate_power.sh: no config $config" >&2; exit 2; }
for n in "$AA" "$P5" "$P2"; do
  [[ "$n" =~ ^[0-9]+$ ]] || { echo "gate_power.sh: AA, P5, P2 must be counts, got '$n'" >&2; exit 2; }
done
bin="$(realpath "$bin")" config="$(realpath "$config")"
if [[ -n "${WORK:-}" ]]; then
  work="$WORK"; mkdir -p "$work"
else
  work="$(mktemp -d /tmp/gate-power.XXXXXX)"; trap 'rm -rf "$work"' EXIT
fi

# The job order: A/A jobs with the planted ones spread among them.
kinds=()
for ((i = 0; i < AA; ++i)); do kinds+=(aa); done
spread() {  # kind count: insert count jobs of kind evenly
  local kind=$1 count=$2 out=() step k=0
  ((count > 0)) || return
  step=$(((${#kinds[@]} + count) / count))
  for ((i = 0; i < ${#kinds[@]} || k < count; ++i)); do
    if ((k < count && i % step == step / 2)); then out+=("$kind"); k=$((k + 1)); fi
    ((i < ${#kinds[@]})) && out+=("${kinds[i]}")
  done
  kinds=("${out[@]}")
}
spread p5 "$P5"
spread p2 "$P2"

declare -A ab_fail ab_pass ab_inc st_fail st_pass st_inc runs seconds
for k in aa p5 p2; do
  ab_fail[$k]=0 ab_pass[$k]=0 ab_inc[$k]=0 st_fail[$k]=0 st_pass[$k]=0 st_inc[$k]=0 runs[$k]=0 seconds[$k]=0
done
tally() {  # mode kind exit-code
  case $3 in
    0) eval "$1_pass[$2]=\$((\${$1_pass[$2]} + 1))" ;;
    1) eval "$1_fail[$2]=\$((\${$1_fail[$2]} + 1))" ;;
    *) eval "$1_inc[$2]=\$((\${$1_inc[$2]} + 1))" ;;
  esac
}

echo "gate_power.sh: ${#kinds[@]} jobs of $(basename "$config") ($AA A/A, $P5 at 5 %, $P2 at 2 %) in $work" >&2
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "job kind ab_exit stored_exit seconds" >"$work/jobs.txt"
previous_a=""
for ((j = 0; j < ${#kinds[@]}; ++j)); do
  kind=${kinds[j]}
  case $kind in
    aa) b="COMMBENCH_GATE_POWER=1" ;;
    p5) b="COMMBENCH_GATE_POWER=1,COMMBENCH_TEST_ONLY_UNIFORM_SLOWDOWN=0.05" ;;
    p2) b="COMMBENCH_GATE_POWER=1,COMMBENCH_TEST_ONLY_UNIFORM_SLOWDOWN=0.02" ;;
  esac
  t0=$(date +%s.%N)
  "$bin" gate --ab --a COMMBENCH_GATE_POWER=1 --b "$b" --config "$config" -q --out "$work/b$j.json" \
    --out-a "$work/a$j.json" --json "$work/ab$j.cmp.json" >"$work/ab$j.txt" 2>"$work/ab$j.err"
  ab=$?
  t1=$(date +%s.%N)
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  ((ab == 2)) && { echo "gate_power.sh: job $j: bad input: $(tail -1 "$work/ab$j.err")" >&2; exit 2; }
  tally ab "$kind" "$ab"
  runs[$kind]=$((${runs[$kind]} + 1))
  seconds[$kind]=$(awk -v s="${seconds[$kind]}" -v t="$secs" 'BEGIN { print s + t }')
  stored="-"
  if [[ -n "$previous_a" ]]; then
    "$bin" compare "$previous_a" "$work/b$j.json" --json "$work/st$j.cmp.json" >"$work/st$j.txt" 2>"$work/st$j.err"
    stored=$?
    tally st "$kind" "$stored"
  fi
  previous_a="$work/a$j.json"
  echo "$j $kind $ab $stored $secs" >>"$work/jobs.txt"
  echo "gate_power.sh: job $((j + 1))/${#kinds[@]} $kind: --ab exit $ab, stored exit $stored, ${secs} s" >&2
done

# The table: per kind and mode, how many comparisons failed (exit 1), passed (0), were inconclusive (3).
row() {  # label kind
  local k=$2 n=${runs[$2]}
  local st_n=$((${st_fail[$k]} + ${st_pass[$k]} + ${st_inc[$k]}))
  ((n > 0)) || return
  printf "| %s | %d | %d / %d / %d | %d | %d / %d / %d | %.0f s |\n" "$1" "$n" "${ab_fail[$k]}" "${ab_pass[$k]}" \
    "${ab_inc[$k]}" "$st_n" "${st_fail[$k]}" "${st_pass[$k]}" "${st_inc[$k]}" \
    "$(awk -v s="${seconds[$k]}" -v n="$n" 'BEGIN { print s / n }')"
}
echo
echo "$(basename "$config"), $(nproc) cores, load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg);" \
  "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo
echo "| planted | --ab jobs | --ab: regression / pass / inconclusive | stored comparisons | stored: regression / pass / inconclusive | --ab job time (mean) |"
echo "|---|---|---|---|---|---|"
row "none (A/A): regression = false alarm" aa
row "5 % slowdown: regression = detected" p5
row "2 % slowdown: regression = detected" p2
