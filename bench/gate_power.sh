#!/bin/bash
# The gate's false-alarm rate and power on this machine, with a preset (default configs/gate/ci.yaml), printed as
# a table: A/A comparisons (the same build both sides), a planted uniform 5 % slowdown, a planted 2 % slowdown,
# each with `gate --ab` (both sides in one job) and against a stored baseline (a side measured in an earlier job).
#
#   bench/gate_power.sh                     # 40 A/A jobs, 20 with 5 % planted, 20 with 2 % planted
#   AA=10 P5=4 P2=4 bench/gate_power.sh     # a shorter look
#   CONFIG=configs/gate/gpu.yaml bench/gate_power.sh
#   COMMBENCH=path/to/commbench WORK=/tmp/gp bench/gate_power.sh   # WORK keeps every file (default: removed)
#   CONFIG=other.yaml bench/gate_power.sh --judge /tmp/gp  # the kept jobs judged again with another gate section
#
# Every job is one `commbench gate --ab` of the preset, A B A B ..., with --out-a keeping side A. Each comparison
# is then judged by `commbench compare` with the config's `gate:` options (min-effect, min-effect-below): --ab
# compares the job's A and B sides (what the gate itself decided: its exit code is checked against it), stored
# compares the previous job's A side (the baseline, unplanted) with this job's B side (A/A jobs: B is the same
# build; planted jobs: B carries the slowdown), as `gate --baseline` would after its run. Jobs run in an
# interleaved order (A/A, 5 %, A/A, 2 %, ...), so that drift over the run touches every kind alike.
# Counted per comparison: false alarm = exit 1 on A/A; detected = exit 1 on a planted slowdown; the rest pass (0)
# or are inconclusive (3). The job's time is the wall time of one gate --ab (a stored-baseline gate runs one side:
# about half).
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

# The config's gate section as compare's flags.
mapfile -t judge_flags < <(python3 - "$config" <<'PY'
import sys, yaml
gate = (yaml.safe_load(open(sys.argv[1])) or {}).get("gate") or {}
for key in ("min-effect", "min_effect"):
    if key in gate: print("--min-effect"); print(gate[key])
for key in ("min-effect-below", "min_effect_below"):
    for v in ([gate[key]] if isinstance(gate.get(key), str) else gate.get(key) or []):
        print("--min-effect-below"); print(v)
PY
)

# Judges the jobs of $work (jobs.txt) and prints the table.
judge() {
  local work=$1
  declare -A fail pass inc n secs
  local mismatches=0 previous_a="" j kind ab_rc _stored sec mode rc
  while read -r j kind ab_rc _stored sec; do
    [[ "$j" == job ]] && continue
    n[$kind]=$((${n[$kind]:-0} + 1))
    secs[$kind]=$(awk -v s="${secs[$kind]:-0}" -v t="$sec" 'BEGIN { print s + t }')
    for mode in ab stored; do
      local base="$work/a$j.json"
      [[ $mode == stored ]] && base="$previous_a"
      [[ -n "$base" ]] || continue
      "$bin" compare "$base" "$work/b$j.json" "${judge_flags[@]}" --json "$work/$mode$j.cmp.json" \
        >"$work/$mode$j.txt" 2>"$work/$mode$j.err"
      rc=$?
      ((rc == 2)) && { echo "gate_power.sh: job $j: compare: $(tail -1 "$work/$mode$j.err")" >&2; exit 2; }
      [[ $mode == ab && "$rc" != "$ab_rc" ]] && mismatches=$((mismatches + 1))
      case $rc in
        0) pass[$mode.$kind]=$((${pass[$mode.$kind]:-0} + 1)) ;;
        1) fail[$mode.$kind]=$((${fail[$mode.$kind]:-0} + 1)) ;;
        *) inc[$mode.$kind]=$((${inc[$mode.$kind]:-0} + 1)) ;;
      esac
    done
    previous_a="$work/a$j.json"
  done <"$work/jobs.txt"
  echo
  echo "$(basename "$config") (gate options: ${judge_flags[*]:-defaults}), $(nproc) cores, load average before:" \
    "$(cat "$work/load_before" 2>/dev/null), after: $(cat "$work/load_after" 2>/dev/null);" \
    "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  if ((mismatches > 0)); then
    echo "NOTE: $mismatches --ab job(s) whose gate exit code differs from compare's with these options" \
      "${REJUDGED:+(expected where the gate section differs from the one the jobs ran with)}"
  fi
  echo
  echo "| planted | --ab jobs | --ab: regression / pass / inconclusive | stored comparisons | stored: regression / pass / inconclusive | --ab job time (mean) |"
  echo "|---|---|---|---|---|---|"
  local label k
  for k in aa p5 p2; do
    [[ -n "${n[$k]:-}" ]] || continue
    case $k in
      aa) label="none (A/A): regression = false alarm" ;;
      p5) label="5 % slowdown: regression = detected" ;;
      p2) label="2 % slowdown: regression = detected" ;;
    esac
    local st=$((${fail[stored.$k]:-0} + ${pass[stored.$k]:-0} + ${inc[stored.$k]:-0}))
    printf "| %s | %d | %d / %d / %d | %d | %d / %d / %d | %.0f s |\n" "$label" "${n[$k]}" "${fail[ab.$k]:-0}" \
      "${pass[ab.$k]:-0}" "${inc[ab.$k]:-0}" "$st" "${fail[stored.$k]:-0}" "${pass[stored.$k]:-0}" \
      "${inc[stored.$k]:-0}" "$(awk -v s="${secs[$k]}" -v n="${n[$k]}" 'BEGIN { print s / n }')"
  done
}

if [[ "${1:-}" == "--judge" ]]; then
  [[ -f "${2:-}/jobs.txt" ]] || { echo "gate_power.sh: --judge DIR: no DIR/jobs.txt in '${2:-}'" >&2; exit 2; }
  REJUDGED=1
  judge "$2"
  exit 0
fi

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

echo "gate_power.sh: ${#kinds[@]} jobs of $(basename "$config") ($AA A/A, $P5 at 5 %, $P2 at 2 %) in $work" >&2
cut -d' ' -f1-3 /proc/loadavg >"$work/load_before"
echo "job kind ab_exit stored_exit seconds" >"$work/jobs.txt"
for ((j = 0; j < ${#kinds[@]}; ++j)); do
  kind=${kinds[j]}
  case $kind in
    aa) b="COMMBENCH_GATE_POWER=1" ;;
    p5) b="COMMBENCH_GATE_POWER=1,COMMBENCH_TEST_ONLY_UNIFORM_SLOWDOWN=0.05" ;;
    p2) b="COMMBENCH_GATE_POWER=1,COMMBENCH_TEST_ONLY_UNIFORM_SLOWDOWN=0.02" ;;
  esac
  t0=$(date +%s.%N)
  "$bin" gate --ab --a COMMBENCH_GATE_POWER=1 --b "$b" --config "$config" -q --out "$work/b$j.json" \
    --out-a "$work/a$j.json" >"$work/gate$j.txt" 2>"$work/gate$j.err"
  ab=$?
  t1=$(date +%s.%N)
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  ((ab == 2)) && { echo "gate_power.sh: job $j: bad input: $(tail -1 "$work/gate$j.err")" >&2; exit 2; }
  echo "$j $kind $ab - $secs" >>"$work/jobs.txt"
  echo "gate_power.sh: job $((j + 1))/${#kinds[@]} $kind: --ab exit $ab, ${secs} s" >&2
done
cut -d' ' -f1-3 /proc/loadavg >"$work/load_after"
judge "$work"
