#!/bin/bash
# `history check --config` (K and the floor from a file) and `gate --history DIR` end to end.
#  1. A history of 24 runs built from the real sweep file with a planted 15 % step from run 20 (values made here,
#     so the verdict is certain): configs/history/ci.yaml (recent-runs 5) fails it, recent_runs 2 or floor 0.3 in
#     a file pass it, the command line wins over the file, a bad file is one error line (exit 2).
#  2. A small real history (6 short real sweeps of this build): `gate --history` judges against all 6 (6 runs can
#     hold no change point at alpha 0.01) and the result file and comparison JSON record exactly those runs, with
#     their commits and times, as both schemas describe; the result can be filed in turn. A planted
#     2x slowdown is never a pass (1, or 3 when this shared host is too noisy to say).
#  3. Bad input: no such directory, not a history, an empty history, only another runner's runs, flags for
#     another sweep, --history with --baseline, --ab or --update-baseline: one error line, exit 2, nothing
#     written; a history of 3 runs is too short to say: exit 3, nothing written.
# usage: history_cli_test.sh COMMBENCH REAL_SWEEP.json RESULT_SCHEMA COMPARISON_SCHEMA CONFIG
set -uo pipefail
B="$(realpath "$1")"
REAL="$(realpath "$2")"
RESULT_SCHEMA="$(realpath "$3")"
COMPARISON_SCHEMA="$(realpath "$4")"
CONFIG="$(realpath "$5")"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
check() {  # name expected-rc actual-rc
  if [[ "$2" == "$3" ]]; then ok; else bad "$1: exit $3, expected $2"; cat "$T/err" 2>/dev/null; fi
}
one_error_line() {  # name
  if [[ $(wc -l <"$T/err") -eq 1 ]] && grep -q "^commbench: error: " "$T/err"; then ok; else bad "$1: $(cat "$T/err")"; fi
}

# 1. K and the floor from a config file.
python3 - "$REAL" <<'PY'
import json, random, sys
real = json.load(open(sys.argv[1]))
rng = random.Random(5)
for i in range(24):
    j = json.loads(json.dumps(real))
    j["schema_version"] = 3
    for p in j["points"]:
        t = p["time_us"]["p50"] * (1.15 if i >= 20 else 1)
        r = [t * (1 + rng.gauss(0, 0.02)) for _ in range(3)]
        p["repeats"] = {"n": 3, "p50_us": r, "mean_us": r}
    json.dump(j, open("step-%02d.json" % i, "w"))
PY
for i in $(seq -w 0 23); do
  "$B" history add step "step-$i.json" --commit "c$i" --time "2026-11-01T08:${i}:00Z" >/dev/null || bad "add step $i"
done
"$B" history check step --config "$CONFIG" >out.txt 2>"$T/err"
check "config recent-runs 5: the step at run 20 is recent" 1 $?
printf 'recent_runs: 2\nfloor: 0.05\n' >k2.yaml
"$B" history check step --config k2.yaml --json k2.json >out.txt 2>"$T/err"
check "config recent_runs 2: the step is older" 0 $?
python3 -c "import json; o = json.load(open('k2.json'))['options']; assert o['last'] == 2 and o['min_effect'] == 0.05, o" ||
  bad "k2.json options"
"$B" history check step --config k2.yaml --recent-runs 5 >out.txt 2>"$T/err"
check "the command line wins over the file" 1 $?
printf 'floor: 0.3\n' >floor.yaml
"$B" history check step --config floor.yaml >out.txt 2>"$T/err"
check "config floor 0.3: a 15 % step is below it" 0 $?
for c in 'recent_runs: x' 'recent-runs: 0' 'floor: 2' 'nonsense: 1'; do
  printf '%s\n' "$c" >bad.yaml
  "$B" history check step --config bad.yaml --json bad.json >out.txt 2>"$T/err"
  check "bad config '$c'" 2 $?
  one_error_line "bad config '$c'"
  [[ ! -e bad.json ]] || bad "bad config '$c' wrote --json"
done
"$B" history check step --config missing.yaml 2>"$T/err" >/dev/null
check "missing config" 2 $?
one_error_line "missing config"

# 2. gate --history on a small real history.
SWEEP=(--groups 1 --sizes 400 --iters 200 --warmup 5 --repeats 5 --pin compact -q)
for i in 0 1 2 3 4 5; do
  "$B" sweep --no-explain --no-html "${SWEEP[@]}" --out "r$i.json" >/dev/null 2>"$T/err" || bad "sweep $i: $(cat "$T/err")"
  "$B" history add real "r$i.json" --commit "c$i" >/dev/null || bad "add real $i"
  [[ $i -lt 3 ]] && { "$B" history add short "r$i.json" --commit "c$i" >/dev/null || bad "add short $i"; }
done
"$B" gate --history real --out g.json --json gj.json -q >gate.txt 2>"$T/err"
rc=$?
[[ $rc == 0 || $rc == 1 || $rc == 3 ]] && ok || bad "gate --history: exit $rc: $(cat "$T/err")"
python3 - <<'PY' || bad "gate --history: the record of the runs used"
import json
index = json.load(open("real/history.json"))["runs"]
for path in ("g.json", "gj.json"):
    rec = json.load(open(path))["gate_history"]
    assert rec["history"] == "real" and rec["fingerprint"] == index[0]["fingerprint"], rec
    assert [(r["id"], r["commit"], r["time"]) for r in rec["runs"]] == \
        [(r["id"], r["commit"], r["time"]) for r in index], (rec["runs"], index)
    assert rec["latest"]["id"] == index[-1]["id"], rec["latest"]
    for p in rec["points"]:
        assert p["runs"] == [r["id"] for r in index] and p["since_change_point"] is None, p
        assert len(p["run_medians_us"]) == 6 and p["series_runs"] == 6, p
assert json.load(open("gj.json"))["base"] == "history real"
print("gate --history: judged against", len(rec["runs"]), "runs:", [r["id"] for r in rec["runs"]])
PY
# The record against both schemas' gate_history (the rest of each file is their tests' to check).
record_valid() {  # SCHEMA FILE
  /usr/bin/python3 - "$1" "$2" <<'PY' || bad "$2: gate_history against $1"
import json, sys, jsonschema
full = json.load(open(sys.argv[1]))
schema = dict(full["properties"]["gate_history"], **{"$defs": full["$defs"]})
jsonschema.Draft202012Validator(schema).validate(json.load(open(sys.argv[2]))["gate_history"])
PY
}
record_valid "$RESULT_SCHEMA" g.json
record_valid "$COMPARISON_SCHEMA" gj.json
"$B" history add real g.json --commit gate >/dev/null 2>"$T/err" || bad "the gate's result cannot be filed: $(cat "$T/err")"
"$B" gate --history real --test-only-uniform-slowdown 1.0 --out p.json -q >planted.txt 2>"$T/err"
rc=$?
[[ $rc == 1 || $rc == 3 ]] && ok || bad "planted 2x slowdown: exit $rc, expected 1 (or 3 when too noisy)"
echo "planted 2x slowdown: exit $rc"

# 3. Bad input and too short to say.
python3 -c "
import json; j = json.load(open('r0.json')); j['environment']['cpu_model'] = 'Another CPU'; json.dump(j, open('other.json', 'w'))"
"$B" history add other other.json >/dev/null || bad "add other"
mkdir -p empty notahistory
echo '{"kind": "commbench history", "schema_version": 1, "runs": []}' >empty/history.json
bad_input() {  # name, then the gate's flags
  local name="$1"
  shift
  rm -f x.json x.samples.jsonl
  "$B" gate "$@" --out x.json >/dev/null 2>"$T/err"
  check "$name" 2 $?
  one_error_line "$name"
  [[ ! -e x.json ]] || bad "$name: wrote --out"
}
bad_input "no such directory" --history nothere
bad_input "not a history" --history notahistory
bad_input "empty history" --history empty
bad_input "another runner's runs only" --history other
grep -q "no run of this runner" "$T/err" || bad "another runner: $(cat "$T/err")"
bad_input "another sweep" --history real --sizes 1M
bad_input "--history and --baseline" --history real --baseline r0.json
bad_input "--history and --ab" --history real --ab
bad_input "--history and --update-baseline" --history real --update-baseline
rm -f x.json
"$B" gate --history short --out x.json >/dev/null 2>"$T/err"
check "3 runs: too short to say" 3 $?
grep -q "^commbench gate: inconclusive: --history short: .*holds 3 runs .* the gate needs 5" "$T/err" ||
  bad "too short: $(cat "$T/err")"
[[ ! -e x.json ]] || bad "too short: wrote --out"

echo "$passed passed, $failed failed"
exit $((failed > 0))
