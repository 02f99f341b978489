#!/bin/bash
# The planted-cause truth table (issue 11): each plant of tools/commbench/planted_causes_test.cc run N times
# (default 10) through the real CLI, one after another; per plant: how often the planted cause came first, how
# often it had the status the plant expects, and how often anything else was confirmed (a plant may name other
# causes that are real in it too). Prints the load before and after.
# usage: bench/planted_truth_table.sh [N] (after `bazel build //tools/commbench`)
#        KEEP=DIR keeps the result file of every run that missed (planted cause not first with its status, or
#        something unplanted confirmed) as DIR/<plant>-<run>.json, to read why.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
N="${1:-10}"
BIN=.bazel/bin/tools/commbench/commbench
[[ -x "$BIN" ]] || { echo "build first: bazel build //tools/commbench" >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# name | planted rule | expected status | sweep arguments | other real causes (may be confirmed by their own A/B)
plants=(
  "1 one core (oversubscription)|cpu_oversubscription|confirmed|--backends native --groups 1,2 --group-size 1 --sizes 1M --cpus 0;0-1 --time-budget 0.5"
  "2 world barrier|world_barrier|confirmed|--groups 1..3 --group-size 1 --sizes 400 --sync none,world-barrier --time-budget 0.05"
  "3 shared bandwidth|shared_bandwidth|confirmed|--groups 1..3 --sizes 1M,4M,16M --concurrency concurrent,sequential --time-budget 0.05"
  "4 slow rank|straggler|suspected|--groups 1..3 --sizes 400 --test-only-slow-rank 3:2000 --time-budget 0.05"
  "5 control|-|-|--groups 1,2 --group-size 1 --sizes 64K,1M --time-budget 0.05"
  "(a) pin-only A/B, oversubscribed|cpu_oversubscription|suspected|--groups 1..6 --sizes 64K --pin none,compact --time-budget 0.05"
  "(b) barrier, --explain|world_barrier|confirmed|--groups 1..3 --group-size 1 --sizes 400 --sync world-barrier --explain --time-budget 0.3|cpu_oversubscription"
  "(d) control with A/B axes|-|-|--groups 1,2 --group-size 1 --sizes 16K,64K --pin none,compact --concurrency concurrent,sequential --explain --time-budget 0.05"
)
echo "# start $(date -u +%FT%TZ), $(uptime | sed 's/.*load/load/'), $N runs per plant, commit $(git rev-parse --short HEAD)"
echo "| plant | planted cause first | with its expected status | anything else confirmed | sweep s (min-max) |"
echo "|---|---|---|---|---|"
for plant in "${plants[@]}"; do
  IFS='|' read -r name rule status args also <<<"$plant"
  for ((i = 0; i < N; i++)); do
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    IFS=' ' read -r -a argv <<<"$args"
    [[ " $args " == *" --explain "* ]] || argv+=(--no-explain)  # the A/Bs only where a plant asks for them
    "$BIN" sweep --no-html --quiet -o "$T/r.json" "${argv[@]}" >/dev/null 2>"$T/err" || { echo "run failed: $(tail -1 "$T/err")" >&2; continue; }
    end=$(date +%s.%N)
    python3 - "$T/r.json" "$rule" "$status" "$start" "$end" "${also:-}" >>"$T/$i-$rule.row" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); rule, status = sys.argv[2], sys.argv[3]
real = {rule} | set(filter(None, sys.argv[6].split(",")))
f = r.get("findings", [])
first = f[0]["rule"] if f else "-"
first_status = f[0]["status"] if f else "-"
others = sorted({x["rule"] for x in f if x["status"] == "confirmed" and x["rule"] not in real})
missed = (rule != "-" and not (first == rule and first_status == status)) or bool(others)
print(int(first == rule), int(first == rule and first_status == status), ",".join(others) or "-",
      "%.1f" % (float(sys.argv[5]) - float(sys.argv[4])), int(missed))
PY
    if [[ -n "${KEEP:-}" ]] && [[ "$(tail -1 "$T/$i-$rule.row" | awk '{print $5}')" == 1 ]]; then
      tag=$(tr -d '()' <<<"${name%% *}")
      mkdir -p "$KEEP" && cp "$T/r.json" "$KEEP/$tag-$i.json"
    fi
  done
  cat "$T"/*-"$rule".row | python3 -c "
import sys
rows = [l.split() for l in sys.stdin if l.strip()]
n = len(rows); name, rule = sys.argv[1], sys.argv[2]
others = [r[2] for r in rows if r[2] != '-']
secs = [float(r[3]) for r in rows]
first = '-' if rule == '-' else '%d/%d' % (sum(int(r[0]) for r in rows), n)
status = '-' if rule == '-' else '%d/%d' % (sum(int(r[1]) for r in rows), n)
print('| %s | %s | %s | %d/%d%s | %.1f-%.1f |' % (name, first, status, len(others), n,
      (' (' + '; '.join(sorted(set(others))) + ')') if others else '', min(secs), max(secs)))
" "$name" "$rule"
  rm -f "$T"/*-"$rule".row
done
echo "# end $(date -u +%FT%TZ), $(uptime | sed 's/.*load/load/')"
