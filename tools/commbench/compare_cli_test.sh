#!/bin/bash
# `commbench compare` end to end on result files built from a real sweep's file: its points repeated 6 times with
# 1 % noise (a stand-in for `sweep --repeats 6`), one side slowed. Checks exit codes 0/1/2/3 and the outputs: the
# JSON of every outcome against reports/comparison.schema.json, and the HTML page's embedded copy of it.
set -uo pipefail
COMMBENCH="$1"
REAL="$2"
SCHEMA="$3"
VALIDATE="$4"
T="${TEST_TMPDIR:-$(mktemp -d)}"
failed=0
passed=0
check() {  # name expected-rc actual-rc
  if [[ "$2" == "$3" ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $1: exit $3, expected $2"; fi
}
python3 - "$REAL" "$T" <<'PY'
import copy, json, random, sys
real, t = sys.argv[1], sys.argv[2]
doc = json.load(open(real))
def repeated(seed, slow_id=None, factor=1.0, env=None):
    rng = random.Random(seed)
    d = copy.deepcopy(doc)
    pts = []
    for r in range(6):
        for p in doc["points"]:
            q = copy.deepcopy(p)
            f = factor if q["id"] == slow_id else 1.0
            q["time_us"]["p50"] = p["time_us"]["p50"] * f * (1 + rng.gauss(0, 0.01))
            pts.append(q)
    d["points"] = pts
    if env: d["environment"]["variables"].update(env)
    return d
slow = doc["points"][0]["id"]
for name, d in {"base": repeated(1), "same": repeated(2), "slow": repeated(3, slow, 1.2),
                "drift": repeated(4, env={"NCCL_ALGO": "Tree"})}.items():
    json.dump(d, open(f"{t}/{name}.json", "w"))
d = repeated(5); d["points"] = [p for p in d["points"] if p["id"] != slow]
json.dump(d, open(f"{t}/missing.json", "w"))
PY
"$COMMBENCH" compare "$T/base.json" "$T/same.json" --junit "$T/same.xml" >"$T/out" 2>&1
check same 0 $?
grep -q "outcome: pass" "$T/out" || { failed=$((failed + 1)); echo "FAIL same: $(tail -1 "$T/out")"; }
"$COMMBENCH" compare "$T/base.json" "$T/slow.json" --json "$T/slow-cmp.json" --junit "$T/slow.xml" \
  --summary "$T/summary.md" >"$T/out" 2>&1
check slow 1 $?
# A floor by size: under --min-effect-below 1G=0.5 the same 20 % slowdown is within every point's floor.
"$COMMBENCH" compare "$T/base.json" "$T/slow.json" --min-effect-below 1G=0.5 --json "$T/floors-cmp.json" >"$T/out" 2>&1
check floors 0 $?
python3 -c "
import json, sys
c = json.load(open('$T/slow-cmp.json'))
assert c['outcome'] == 'regression', c['outcome']
assert [p['verdict'] for p in c['points']].count('slower') == 1, [p['verdict'] for p in c['points']]
" || { failed=$((failed + 1)); echo "FAIL slow: JSON"; }
grep -q '<failure message="slower: base' "$T/slow.xml" || { failed=$((failed + 1)); echo "FAIL slow: JUnit"; }
grep -q '### commbench compare: regression' "$T/summary.md" || { failed=$((failed + 1)); echo "FAIL slow: summary"; }
"$COMMBENCH" compare "$T/base.json" "$T/drift.json" --json "$T/drift-cmp.json" >"$T/out" 2>&1
check drift 3 $?
grep -q "environment differs: variables.NCCL_ALGO" "$T/out" || { failed=$((failed + 1)); echo "FAIL drift: not named"; }
"$COMMBENCH" compare "$T/base.json" "$T/drift.json" --allow-env-drift >/dev/null 2>&1
check drift-allowed 0 $?
"$COMMBENCH" compare "$T/base.json" "$T/missing.json" --json "$T/missing-cmp.json" --html "$T/missing.html" \
  >"$T/out" 2>&1
check missing 3 $?
grep -q "only in the baseline" "$T/out" || { failed=$((failed + 1)); echo "FAIL missing: not named"; }
"$COMMBENCH" compare "$REAL" "$REAL" --json "$T/one-cmp.json" >"$T/out" 2>&1
check one-repeat 3 $?
grep -q "5 a side are needed" "$T/out" || { failed=$((failed + 1)); echo "FAIL one-repeat: $(head -1 "$T/out")"; }
"$COMMBENCH" compare "$T/base.json" "$T/nosuch.json" 2>"$T/err" >/dev/null
check unreadable 2 $?
[[ $(wc -l <"$T/err") -eq 1 ]] && grep -q "^commbench: error: " "$T/err" ||
  { failed=$((failed + 1)); echo "FAIL unreadable: $(cat "$T/err")"; }
"$COMMBENCH" compare "$T/base.json" "$T/same.json" --junit /dev/full 2>"$T/err" >/dev/null
check device-output 2 $?
"$COMMBENCH" compare "$T/base.json" "$T/same.json" --min-effect 2 2>"$T/err" >/dev/null
check min-effect 2 $?
# --summary is checked before anything is read: a directory is bad input, not a line and exit 0.
"$COMMBENCH" compare "$T/base.json" "$T/same.json" --summary "$T" --json "$T/never-summary.json" 2>"$T/err" >/dev/null
check summary-dir 2 $?
grep -q "^commbench: error: --summary: cannot write $T: it is a directory" "$T/err" && [[ ! -e "$T/never-summary.json" ]] ||
  { failed=$((failed + 1)); echo "FAIL summary-dir: $(cat "$T/err")"; }

# The JSON of every outcome (regression, incomparable, inconclusive with a point on one side only, one repeat) is
# valid against the schema, and the schema is strict: an unknown verdict, a missing key or an extra one fail it.
if /usr/bin/python3 "$VALIDATE" "$SCHEMA" "$T/slow-cmp.json" "$T/drift-cmp.json" "$T/missing-cmp.json" \
  "$T/one-cmp.json" "$T/floors-cmp.json"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL schema"; fi
python3 - "$T" <<'PY' || { failed=$((failed + 1)); echo "FAIL outcomes in the JSON"; }
import json, sys
t = sys.argv[1]
load = lambda name: json.load(open(f"{t}/{name}"))
assert load("drift-cmp.json")["outcome"] == "incomparable"
assert load("drift-cmp.json")["environment_differences"][0]["key"] == "variables.NCCL_ALGO"
m = load("missing-cmp.json")
assert m["outcome"] == "inconclusive" and m["exit_code"] == 3, m["outcome"]
gone = [p for p in m["points"] if p["reason"] == "only in the baseline"]
assert len(gone) == 1 and gone[0]["new_us"] == [] and gone[0]["ratio"] is None, gone
slow = load("slow-cmp.json")
assert slow["options"] == {"min_effect": 0.05, "alpha": 0.01, "allow_env_drift": False, "min_effect_below": []}, \
    slow["options"]
assert all(p["min_effect"] == 0.05 for p in slow["points"])
floors = load("floors-cmp.json")
assert floors["options"]["min_effect_below"] == [{"bytes": 1 << 30, "min_effect": 0.5}], floors["options"]
assert all(p["min_effect"] == 0.5 and p["verdict"] == "unchanged" for p in floors["points"]), floors["points"]
assert all(p["axes"]["backend"] == "gloo" and p["axes"]["bytes"] > 0 for p in slow["points"])
for mutate in ("verdict", "missing", "extra"):
    d = json.loads(json.dumps(slow))
    if mutate == "verdict": d["points"][0]["verdict"] = "maybe"
    if mutate == "missing": del d["points"][0]["ratio_ci95"]
    if mutate == "extra": d["points"][0]["note"] = "x"
    json.dump(d, open(f"{t}/broken-{mutate}.json", "w"))
PY
for mutate in verdict missing extra; do
  if /usr/bin/python3 "$VALIDATE" "$SCHEMA" "$T/broken-$mutate.json" >/dev/null; then
    failed=$((failed + 1)); echo "FAIL schema accepts a broken comparison ($mutate)"
  else passed=$((passed + 1)); fi
done
# --html: one self-contained page whose embedded data is the --json output.
python3 - "$T" <<'PY' || { failed=$((failed + 1)); echo "FAIL html"; }
import json, re, sys
t = sys.argv[1]
html = open(f"{t}/missing.html", encoding="utf-8").read()
assert html.startswith("<!doctype html>"), html[:40]
m = re.search(r'<script id="commbench-comparison" type="application/json">(.*?)</script>', html, re.S)
assert m and json.loads(m.group(1)) == json.load(open(f"{t}/missing-cmp.json")), "embedded JSON differs"
PY
# An --html that is not a regular file fails before anything is written.
mkdir -p "$T/adir"
"$COMMBENCH" compare "$T/base.json" "$T/same.json" --json "$T/never.json" --html "$T/adir" 2>"$T/err" >/dev/null
check html-dir 2 $?
[[ $(wc -l <"$T/err") -eq 1 && ! -e "$T/never.json" ]] || { failed=$((failed + 1)); echo "FAIL html-dir: $(cat "$T/err")"; }
ls "$T" | grep -q '\.tmp' && { failed=$((failed + 1)); echo "FAIL temporary files left: $(ls "$T")"; }
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
