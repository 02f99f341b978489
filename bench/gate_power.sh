#!/bin/bash
# The gate's false alarms and power on this machine, with a preset (default configs/gate/ci.yaml), as the gate
# itself decides them (sequential repeats, docs/gate.md): A/A jobs (the same build both sides), a planted uniform
# 10 % slowdown and a planted 5 % one, each run as `gate --ab` (both sides in one job) and as `gate --baseline`
# against a baseline stored once at the start (--update-baseline), printed as a table beside the issue's targets.
#
#   bench/gate_power.sh                          # 40 A/A jobs, 20 at 10 %, 20 at 5 %, both modes (hours)
#   AA=4 P10=2 P5=2 BUDGET=60 REPEATS=60 bench/gate_power.sh   # a reduced look: fewer jobs, shorter ones
#   MODES=ab bench/gate_power.sh                 # --ab only (or MODES=stored, or MODES=history)
#   MODES=stored JOBS=6 bench/gate_power.sh      # after the stored baseline, JOBS gate --calibrate runs (each
#                                                # JOB_BUDGET s, 30 by default): jobs of its build, so that a stored
#                                                # gate judges a job as one more of them (docs/gate.md);
#                                                # JOB_GAP=S waits S seconds between them (jobs apart in time)
#   MODES=history HISTORY=8 REPEATS=40 bench/gate_power.sh   # gate --history against HISTORY runs of main filed
#                                                # first (each a `sweep` of the preset, REPEATS a point)
#   COMMBENCH=path/to/commbench WORK=/tmp/gp CONFIG=other.yaml bench/gate_power.sh   # WORK keeps every file
#   bench/gate_power.sh --table /tmp/gp          # the table of kept jobs again
#
# Jobs run interleaved (A/A, 10 %, A/A, 5 %, ...; each kind in both modes one after the other), so that drift
# over the run touches every kind alike. Counted per job: exit 1 (a regression), 0 (pass), 3 (inconclusive); a
# planted job is found when it exits 1, and "found >= 64K" when every point of 64 KiB and above is slower. Time:
# the wall time of one gate job (the budget bounds its rounds; the targets want every job within 5 minutes).
set -uo pipefail

AA="${AA:-40}" P10="${P10:-20}" P5="${P5:-20}" MODES="${MODES:-ab,stored}" BUDGET="${BUDGET:-}" HISTORY="${HISTORY:-8}"
JOBS="${JOBS:-0}" JOB_BUDGET="${JOB_BUDGET:-30}" JOB_GAP="${JOB_GAP:-0}"
REPEATS="${REPEATS:-}"
config="${CONFIG:-configs/gate/ci.yaml}"
bin="${COMMBENCH:-}"
if [[ -z "$bin" ]]; then
  for candidate in .bazel/bin/tools/commbench/commbench "$(command -v commbench || true)"; do
    if [[ -n "$candidate" && -x "$candidate" ]]; then bin="$candidate"; break; fi
  done
fi

# The table of the jobs in $1/jobs.txt (job kind mode exit found64 seconds rounds disturbed).
table() {
  local work=$1
  echo
  echo "$(basename "$config")${BUDGET:+ --budget $BUDGET}${REPEATS:+ --repeats $REPEATS}, $(nproc) cores, load average before:" \
    "$(cat "$work/load_before" 2>/dev/null), after: $(cat "$work/load_after" 2>/dev/null);" \
    "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo
  echo "| planted | mode | jobs | exit 1 / 0 / 3 | found >= 64K | rounds (mean) | disturbed repeats (mean) | job time mean / max | target |"
  echo "|---|---|---|---|---|---|---|---|---|"
  awk '
    $1 == "job" { next }
    { k = $2 "|" $3; n[k]++; e[k, $4]++; f[k] += $5; s[k] += $6; if ($6 > mx[k]) mx[k] = $6; r[k] += $7; d[k] += $8
      if (!(k in seen)) { seen[k] = 1; order[++m] = k } }
    END {
      for (i = 1; i <= m; ++i) {
        k = order[i]; split(k, p, "|")
        label = p[1] == "aa" ? "none (A/A)" : (p[1] == "p10" ? "10 %" : "5 %")
        target = p[1] == "aa" ? ">= 36/40 exit 0, <= 1/40 exit 1" : (p[1] == "p10" ? ">= 19/20 exit 1" : ">= 19/20 found >= 64K")
        printf "| %s | %s | %d | %d / %d / %d | %s | %.0f | %.1f | %.0f / %.0f s | %s |\n", label, p[2], n[k], e[k, 1] + 0,
          e[k, 0] + 0, e[k, 3] + 0, p[1] == "aa" ? "-" : f[k] "", r[k] / n[k], d[k] / n[k], s[k] / n[k], mx[k], target
      }
    }' "$work/jobs.txt"
}

if [[ "${1:-}" == "--table" ]]; then
  [[ -f "${2:-}/jobs.txt" ]] || { echo "gate_power.sh: --table DIR: no DIR/jobs.txt in '${2:-}'" >&2; exit 2; }
  table "$2"
  exit 0
fi

[[ -n "$bin" ]] || { echo "gate_power.sh: build //tools/commbench or set COMMBENCH" >&2; exit 2; }
[[ -f "$config" ]] || { echo "gate_power.sh: no config $config" >&2; exit 2; }
for n in "$AA" "$P10" "$P5" "$HISTORY" "$JOBS" "$JOB_BUDGET" "$JOB_GAP"; do
  [[ "$n" =~ ^[0-9]+$ ]] ||
    { echo "gate_power.sh: AA, P10, P5, HISTORY, JOBS, JOB_BUDGET, JOB_GAP must be counts, got '$n'" >&2; exit 2; }
done
[[ -z "$BUDGET" || "$BUDGET" =~ ^[0-9]+$ ]] || { echo "gate_power.sh: BUDGET must be seconds, got '$BUDGET'" >&2; exit 2; }
bin="$(realpath "$bin")" config="$(realpath "$config")"
[[ -z "$REPEATS" || "$REPEATS" =~ ^[0-9]+$ ]] || { echo "gate_power.sh: REPEATS must be a count, got '$REPEATS'" >&2; exit 2; }
budget_flag=()
[[ -n "$BUDGET" ]] && budget_flag=(--budget "$BUDGET")
[[ -n "$REPEATS" ]] && budget_flag+=(--repeats "$REPEATS")

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
spread p10 "$P10"
spread p5 "$P5"

# found64 rounds disturbed of a gate's --json: every point of 64 KiB and above slower (1/0), its rounds, and its
# disturbed repeats.
summarise() {
  python3 - "$1" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    print(0, 0, 0); sys.exit()
big = [p for p in d["points"] if p["axes"]["bytes"] >= 65536]
found = int(bool(big) and all(p["verdict"] == "slower" for p in big))
seq = d["options"].get("sequential", {})
print(found, seq.get("rounds", 0), sum(p.get("sequential", {}).get("disturbed", 0) for p in d["points"]))
PY
}

echo "gate_power.sh: ${#kinds[@]} jobs of $(basename "$config") ($AA A/A, $P10 at 10 %, $P5 at 5 %), modes $MODES," \
  "in $work" >&2
cut -d' ' -f1-3 /proc/loadavg >"$work/load_before"
echo "job kind mode exit found64 seconds rounds disturbed" >"$work/jobs.txt"
if [[ ",$MODES," == *,stored,* && ! -f "$work/baseline.json" ]]; then
  echo "gate_power.sh: measuring the stored baseline ($work/baseline.json)" >&2
  "$bin" gate --baseline "$work/baseline.json" --update-baseline --config "$config" "${budget_flag[@]}" -q \
    --out "$work/baseline-run.json" >"$work/baseline.txt" 2>"$work/baseline.err" ||
    { echo "gate_power.sh: the baseline failed: $(tail -1 "$work/baseline.err")" >&2; exit 2; }
  for ((i = 1; i <= JOBS; ++i)); do
    ((i > 1 && JOB_GAP > 0)) && sleep "$JOB_GAP"
    echo "gate_power.sh: job $i of $JOBS of the baseline's build (gate --calibrate, $JOB_BUDGET s)" >&2
    rc=0
    "$bin" gate --calibrate --baseline "$work/baseline.json" --config "$config" --budget "$JOB_BUDGET" \
      >"$work/calibrate$i.txt" 2>"$work/calibrate$i.err" || rc=$?
    [[ $rc == 0 || $rc == 3 ]] ||  # 3: a point not gateable here, which the table will show
      { echo "gate_power.sh: calibration $i failed: $(tail -1 "$work/calibrate$i.err")" >&2; exit 2; }
  done
  [[ $JOBS -gt 0 ]] && cat "$work/calibrate$JOBS.txt" >&2
fi
if [[ ",$MODES," == *,history,* && ! -d "$work/hist" ]]; then
  echo "gate_power.sh: filing $HISTORY runs of main in the history $work/hist" >&2
  for ((i = 0; i < HISTORY; ++i)); do
    "$bin" sweep --no-explain --no-html --config "$config" ${REPEATS:+--repeats "$REPEATS"} -q --out "$work/main$i.json" \
      >"$work/main$i.txt" 2>"$work/main$i.err" &&
      "$bin" history add "$work/hist" "$work/main$i.json" --commit "main$i" >/dev/null 2>>"$work/main$i.err" ||
      { echo "gate_power.sh: run $i of main failed: $(tail -1 "$work/main$i.err")" >&2; exit 2; }
  done
fi
for ((j = 0; j < ${#kinds[@]}; ++j)); do
  kind=${kinds[j]}
  case $kind in
    aa) slowdown=0 ;;
    p10) slowdown=0.10 ;;
    p5) slowdown=0.05 ;;
  esac
  for mode in ${MODES//,/ }; do
    t0=$(date +%s.%N)
    if [[ $mode == ab ]]; then
      b="COMMBENCH_GATE_POWER=1"
      [[ $kind != aa ]] && b+=",COMMBENCH_TEST_ONLY_UNIFORM_SLOWDOWN=$slowdown"
      "$bin" gate --ab --a COMMBENCH_GATE_POWER=1 --b "$b" --config "$config" "${budget_flag[@]}" -q \
        --out "$work/b$j.json" --out-a "$work/a$j.json" --json "$work/ab$j.cmp.json" >"$work/ab$j.txt" 2>"$work/ab$j.err"
    elif [[ $mode == history ]]; then
      "$bin" gate --history "$work/hist" --config "$config" "${budget_flag[@]}" -q \
        --test-only-uniform-slowdown "$slowdown" --out "$work/h$j.json" --json "$work/history$j.cmp.json" \
        >"$work/history$j.txt" 2>"$work/history$j.err"
    else
      "$bin" gate --baseline "$work/baseline.json" --config "$config" "${budget_flag[@]}" -q \
        --test-only-uniform-slowdown "$slowdown" --out "$work/n$j.json" --json "$work/stored$j.cmp.json" \
        >"$work/stored$j.txt" 2>"$work/stored$j.err"
    fi
    rc=$?
    t1=$(date +%s.%N)
    ((rc == 2)) && { echo "gate_power.sh: job $j $mode: bad input: $(tail -1 "$work/$mode$j.err")" >&2; exit 2; }
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    read -r found rounds disturbed < <(summarise "$work/$mode$j.cmp.json")
    echo "$j $kind $mode $rc $found $secs $rounds $disturbed" >>"$work/jobs.txt"
    echo "gate_power.sh: job $((j + 1))/${#kinds[@]} $kind $mode: exit $rc, ${secs} s, $rounds rounds," \
      "$disturbed disturbed" >&2
  done
done
cut -d' ' -f1-3 /proc/loadavg >"$work/load_after"
table "$work"
