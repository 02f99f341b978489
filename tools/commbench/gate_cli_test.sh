#!/bin/bash
# `sweep --repeats`, `sweep --config` and `commbench gate` end to end with real sweeps (real rank processes): the
# result file's repeats, compare on real repeated files, and the gate's exit code for every outcome, planted with
# --test-only-uniform-slowdown. Tiny sweeps (one pair, 1 MiB, a short budget) so that it fits a CI job.
set -uo pipefail
COMMBENCH="$(realpath "$1")"
SCHEMA="$(realpath "$2")"
VALIDATE="$(realpath "$3")"
JUNIT_XSD="$(realpath "$4")"
CHECK_JUNIT="$(realpath "$5")"
T="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$T" || exit 1
failed=0
passed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
check() {  # name expected-rc actual-rc
  if [[ "$2" == "$3" ]]; then ok; else bad "$1: exit $3, expected $2"; tail -3 "$T/err" 2>/dev/null; fi
}
one_error_line() {  # name: stderr holds exactly one line, an error with the prefix every subcommand shares
  if [[ $(wc -l <"$T/err") -eq 1 ]] && grep -q "^commbench: error: " "$T/err"; then ok; else bad "$1: $(cat "$T/err")"; fi
}
TINY=(--groups 1 --time-budget 0.03 --warmup 5 --pin compact -q)

# 1. sweep --repeats 5: every point records 5 per-repeat medians and means; the file is schema 3 and valid.
"$COMMBENCH" sweep --no-explain --no-html "${TINY[@]}" --sizes 400,1M --repeats 5 --out r1.json >/dev/null 2>"$T/err"
check sweep-repeats 0 $?
"$COMMBENCH" sweep --no-explain --no-html "${TINY[@]}" --sizes 400,1M --repeats 5 --out r2.json >/dev/null 2>"$T/err"
check sweep-repeats-2 0 $?
python3 - <<'PY' || bad "repeats in the file"
import json
d = json.load(open("r1.json"))
assert d["schema_version"] >= 3 and d["spec"]["repeats"] == 5, (d["schema_version"], d["spec"]["repeats"])
assert len(d["points"]) == 2, len(d["points"])
for p in d["points"]:
    r = p["repeats"]
    assert r["n"] == 5 and len(r["p50_us"]) == 5 and len(r["mean_us"]) == 5, r
    assert p["time_us"]["p50"] == r["p50_us"][-1], "the record is the last repeat's"
PY
/usr/bin/python3 "$VALIDATE" "$SCHEMA" r1.json || bad "schema"
# 2. compare on two real --repeats 5 files of the same build: never a regression; a file against itself is never
# "slower".
# (Two jobs drift apart with the load beside them, which no test on repeats can tell from a regression: a second
# measurement of both sides, back to back, before a regression counts; re-measuring one side alone kept a first
# job that ran in a fast spell (a quiet fresh-clone run: +25 % at 400 B, +73-81 % at 1 MiB twice). The
# false-alarm rate is bench/gate_power.sh's to measure.)
"$COMMBENCH" compare r1.json r2.json >out 2>"$T/err"
rc=$?
if [[ $rc == 1 ]]; then
  echo "same build: exit 1 (drift?), measuring both sides again: $(grep '^slower' out)"
  "$COMMBENCH" sweep --no-explain --no-html "${TINY[@]}" --sizes 400,1M --repeats 5 --out r1b.json >/dev/null 2>"$T/err"
  "$COMMBENCH" sweep --no-explain --no-html "${TINY[@]}" --sizes 400,1M --repeats 5 --out r2b.json >/dev/null 2>"$T/err"
  "$COMMBENCH" compare r1b.json r2b.json >out 2>"$T/err"
  rc=$?
fi
[[ $rc == 0 || $rc == 3 ]] && ok || bad "same build: exit $rc: $(cat out)"
"$COMMBENCH" compare r1.json r1.json >out 2>"$T/err"
rc=$?
[[ $rc == 0 || $rc == 3 ]] && ok || bad "self: exit $rc"
grep -q "^slower" out && bad "self: slower: $(cat out)" || ok

# 3. sweep --config: values from the file (a list flag as a YAML list), the command line wins.
printf 'groups: 2\nsizes: [400, 64K]\nrepeats: 2\ntime-budget: 0.02\ngate:\n  min-effect: 0.1\n' >c.yaml
"$COMMBENCH" sweep --no-explain --no-html --config c.yaml --groups 1 -q --out c.json >/dev/null 2>"$T/err"
check config 0 $?
python3 -c "
import json; s = json.load(open('c.json'))['spec']
assert s['groups'] == [1] and s['sizes'] == [400, 65536] and s['repeats'] == 2, s" || bad "config values"
printf 'groups: 1\nbogus: 3\niters: many\n' >bad.yaml
"$COMMBENCH" sweep --config bad.yaml --out never.json 2>"$T/err"
check bad-config 2 $?
[[ $(grep -c "error: bad.yaml:" "$T/err") == 2 ]] && ok || bad "bad config: $(cat "$T/err")"
[[ -e never.json ]] && bad "bad config wrote a file" || ok
printf 'groups: [1\n' >broken.yaml
"$COMMBENCH" sweep --config broken.yaml 2>"$T/err"
check broken-config 2 $?
one_error_line broken-config

# 4. gate --update-baseline without a baseline measures the flags' sweep and makes it the baseline.
"$COMMBENCH" gate --baseline base.json --update-baseline "${TINY[@]}" --sizes 1M --repeats 8 2>"$T/err" >/dev/null
check first-baseline 0 $?
python3 -c "import json; assert json.load(open('base.json'))['spec']['repeats'] == 8" || bad "baseline spec"
# ... calibrated from its own repeats: the baseline file keeps the block (issue 26).
python3 - <<'PY' || bad "first baseline's calibration"
import json
c = json.load(open("base.json"))["gate_calibration"]
assert c["kind"] == "commbench calibration" and c["source"] == "baseline-repeats", c
assert len(c["points"]) == 1 and c["points"][0]["repeats"] == 8 and c["points"][0]["aa_ratio"] is None, c
PY
/usr/bin/python3 "$VALIDATE" "$SCHEMA" base.json || bad "baseline schema"
# 5. The same build against it: no regression. A planted slowdown that doubles each op: a regression, named in JUnit
# (these check exit codes, not power: at 30 % the --ab case was inconclusive once in a full-suite run beside other
# builds).
# A stored baseline carries the drift between its job and this one (here: the load of the tests beside this one),
# which a rank test cannot tell from a regression; the false-alarm rate is bench/gate_power.sh's to measure, so a
# regression here gets one more run before it counts.
"$COMMBENCH" gate --baseline base.json -q --json g.json >out 2>"$T/err"
rc=$?
if [[ $rc == 1 ]]; then
  echo "same build gate: exit 1 (drift?), once more: $(grep '^slower' out)"
  "$COMMBENCH" gate --baseline base.json -q --json g.json >out 2>"$T/err"
  rc=$?
fi
[[ $rc == 0 || $rc == 3 ]] && ok || bad "same build gate: exit $rc: $(cat out)"
# A host that itself changed since the baseline (docs/gate.md, "A host that changed") leaves a slowdown not the
# build's alone: exit 3, the product's honest answer on a drifting runner. Then once more; a second such answer
# is accepted, said so, and the checks of a regression's outputs are skipped.
# Exit 3 where the gate found the runner busy (other work held the ranks' CPUs: docs/gate.md, "Disturbed repeats")
# is its honest answer on a shared runner: accepted, said so, and the checks of a verdict skipped.
busy_runner() {  # comparison-json exit-code name
  [[ $2 == 3 ]] && python3 -c "
import json, sys
points = json.load(open(sys.argv[1]))['points']
sys.exit(0 if points and all(p['reason'].startswith('not judged, the runner was busy') for p in points) else 1)" "$1" ||
    return 1
  echo "$3: exit 3, the runner was busy (other work on the ranks' CPUs): accepted, the verdict's checks skipped"
  ok
}
host_changed() {  # the comparison JSON $1 says the host moved, is significantly slower or faster, or could be
  python3 -c "
import json, sys
h = json.load(open(sys.argv[1]))['options'].get('host_shift', {})
sys.exit(0 if h.get('judged') and not h['summary'].startswith(\"the host's speed is as\") else 1)" "$1"
}
slowdown_double() {
  "$COMMBENCH" gate --baseline base.json -q --test-only-uniform-slowdown 1.0 --junit slow.xml --json slow.json \
    --summary slow.md --html slow.html >out 2>"$T/err"
}
slowdown_double
rc=$?
if [[ $rc == 3 ]] && host_changed slow.json; then
  echo "slowdown-double: exit 3, the host changed since the baseline ($(grep '^host:' out)): once more"
  slowdown_double
  rc=$?
fi
if [[ $rc == 3 ]] && host_changed slow.json; then
  echo "slowdown-double: exit 3 again, the host changed: accepted, the regression's outputs not checked"
  ok
elif busy_runner slow.json $rc slowdown-double; then
  :
else
  check slowdown-double 1 $rc
  grep -q '<failure message="slower' slow.xml || bad "JUnit: $(cat slow.xml)"
  "$CHECK_JUNIT" "$JUNIT_XSD" slow.xml && ok || bad "JUnit schema: slow.xml"
  grep -q "regression" slow.md || bad "summary"
  grep -q '<script id="commbench-comparison" type="application/json">{.*"outcome":"regression"' slow.html || bad "html"
  # The baseline's calibration rides with the comparison, first on the page; every repeat is recorded, disturbed or not.
  python3 - <<'PY' || bad "calibration and repeats in slow.json"
import json
d = json.load(open("slow.json"))
assert d["options"]["calibration"]["source"] == "baseline-repeats", d["options"]
s = d["points"][0]["sequential"]
assert len(s["repeats"]) >= len(d["points"][0]["new_us"]), s
assert sum(r["disturbed"] for r in s["repeats"]) == s["disturbed"], s
assert sum(r["replaced"] for r in s["repeats"]) == s["replaced"], s
assert all(r["side"] == "new" and (r["why"] != "") == r["disturbed"] for r in s["repeats"]), s
PY
  grep -q '<main><section id="calibration"' slow.html || bad "html: the calibration is not first"
fi
# 5b. Jobs of the baseline's build: each gate --calibrate keeps its job's median in the calibration; from two of them
# (three jobs with the baseline's) a stored gate judges the new job as one more of them (docs/gate.md, "Jobs apart
# in time"). Whether these few jobs can tell a doubling depends on how far this host's jobs drift: exit 1 or 3,
# judged as a job either way (or the busy runner's answer).
cp base.json jobs.json
for n in 1 2; do
  "$COMMBENCH" gate --calibrate --baseline jobs.json --budget 20 >/dev/null 2>"$T/err"
  rc=$?
  [[ $rc == 0 || $rc == 3 ]] && ok || bad "calibrate $n: exit $rc: $(cat "$T/err")"
  python3 -c "
import json; c = json.load(open('jobs.json'))['gate_calibration']; p = c['points'][0]
assert len(p['job_medians_us']) == $n and len(c['job_host_s']) == $n, c" || bad "calibrate $n: the jobs kept"
done
/usr/bin/python3 "$VALIDATE" "$SCHEMA" jobs.json || bad "baseline with jobs: schema"
"$COMMBENCH" gate --baseline jobs.json -q --test-only-uniform-slowdown 1.0 --json jobs-slow.json >out 2>"$T/err"
rc=$?
# A calibration job whose host ran more than 3 % off the others' (a loaded runner) is left out; with fewer than two
# left, the point is judged repeat by repeat, as the calibration said ("... so far").
python3 - jobs-slow.json $rc <<'PY' && ok || bad "stored gate with jobs: exit $rc: $(cat out)"
import json, sys
d = json.load(open(sys.argv[1]))
p, cal = d["points"][0], d["options"]["calibration"]["points"][0]
why = p["reason"]
assert sys.argv[2] in ("1", "3"), sys.argv[2]
kept = len(cal["job_medians_us"]) - cal.get("jobs_left_out", 0)
if kept >= 2:
    assert f"over {kept + 1} runs" in why or why.startswith("not judged"), why
print(f"stored gate with jobs: {kept} steady jobs kept of 2: {why[:60]}")
PY

# 6. Too few repeats: inconclusive, never a pass.
"$COMMBENCH" gate --baseline one.json --update-baseline "${TINY[@]}" --sizes 1M --repeats 1 2>"$T/err" >/dev/null
check one-repeat-baseline 0 $?
"$COMMBENCH" gate --baseline one.json -q --junit one.xml >out 2>"$T/err"
check one-repeat 3 $?
"$CHECK_JUNIT" "$JUNIT_XSD" one.xml && ok || bad "JUnit schema: one.xml"
grep -q '<skipped message="inconclusive' one.xml && ok || bad "inconclusive is not a skip: $(cat one.xml)"
# The JUnit check itself fails a testcase without a classname and counts that disagree with the testcases.
sed 's/classname="[^"]*" //' one.xml >no-classname.xml
sed 's/tests="\([0-9]*\)"/tests="\10"/' one.xml >miscounted.xml
for broken in no-classname.xml miscounted.xml; do
  "$CHECK_JUNIT" "$JUNIT_XSD" "$broken" >/dev/null && bad "JUnit check passed $broken" || ok
done
# 6b. Files of different schema versions: an older file (2: no per-repeat medians) is read, and its points count as
# one repeat each, so the comparison is inconclusive and says why; a version this build does not know is bad input.
python3 -c "
import json; d = json.load(open('base.json')); d['schema_version'] = 2
for p in d['points']: p.pop('repeats', None)
json.dump(d, open('v2.json', 'w')); d['schema_version'] = 99; json.dump(d, open('v99.json', 'w'))"
"$COMMBENCH" compare v2.json base.json >out 2>"$T/err"
check schema-v2 3 $?
grep -q "1 base and 8 new repeats" out && ok || bad "v2 against v3: $(cat out)"
"$COMMBENCH" compare v99.json base.json >out 2>"$T/err"
check schema-v99 2 $?
one_error_line schema-v99
grep -q "unsupported schema_version 99" "$T/err" && ok || bad "v99: $(cat "$T/err")"
# 7. Environment drift (a timing-relevant variable differs from the baseline's): incomparable.
python3 -c "
import json; d = json.load(open('base.json')); d['environment']['variables']['OMP_NUM_THREADS'] = '64'
json.dump(d, open('drift.json', 'w'))"
"$COMMBENCH" gate --baseline drift.json -q >out 2>"$T/err"
check drift 3 $?
grep -q "OMP_NUM_THREADS" out || bad "drift not named: $(cat out)"
# The step summary: appended to $GITHUB_STEP_SUMMARY (twice: two summaries), rendered as GitHub renders it
# (cmark-gfm with tables): one table row per point, the environment row intact although the value carries a '|'
# and markup.
python3 -c "
import json; d = json.load(open('base.json')); d['environment']['variables']['OMP_NUM_THREADS'] = '64|<b>bold</b>'
json.dump(d, open('hostile.json', 'w'))"
echo "# earlier step" >step.md
GITHUB_STEP_SUMMARY=step.md "$COMMBENCH" compare hostile.json base.json >/dev/null 2>"$T/err"
check summary-drift 3 $?
GITHUB_STEP_SUMMARY=step.md "$COMMBENCH" compare base.json base.json >/dev/null 2>"$T/err"
[[ $(grep -c "^### commbench compare: " step.md) == 2 && $(head -1 step.md) == "# earlier step" ]] && ok ||
  bad "GITHUB_STEP_SUMMARY not appended: $(cat step.md)"
cmark-gfm -e table step.md >step.html || bad "cmark-gfm"
python3 - <<'PY' || bad "rendered summary: $(cat step.html)"
import re
html = open("step.html").read()
tables = re.findall(r"<table>.*?</table>", html, re.S)
assert len(tables) == 3, f"{len(tables)} tables (environment, points, points)"
env_rows = re.findall(r"<tr>(.*?)</tr>", tables[0], re.S)
assert len(env_rows) == 2 and env_rows[1].count("<td>") == 3, env_rows
assert "&lt;b&gt;" in env_rows[1] and "<b>" not in html, env_rows[1]
for points in tables[1:]:
    rows = re.findall(r"<tr>(.*?)</tr>", points, re.S)
    assert len(rows) == 2 and rows[1].count("<td>") == 8, rows  # header + the one point (its "tested to" floor too)
PY

# 8. --ab: A/A is not a regression; B with a planted slowdown that doubles each op is.
"$COMMBENCH" gate --ab --a GLOO_GATE_TEST=1 --b GLOO_GATE_TEST=1 "${TINY[@]}" --sizes 1M --repeats 5 --out ab.json \
  --out-a a.json --json aa.json >out 2>"$T/err"
rc=$?
[[ $rc == 0 || $rc == 3 ]] && ok || bad "A/A: exit $rc: $(cat out)"
# --out-a keeps variant A's side: a result `compare` reads like any other. B against A again judges the same
# repeat medians unpaired: the gate's unpaired evidence exactly, and the gate's verdict where it judged unpaired.
# Where the gate judged the pairs (rounds), their tighter interval may decide what the unpaired one cannot (a CI
# run: gate 3, compare 0); and a busy runner comes from the host's record of each repeat, which the sides' result
# files do not carry (a spinner on a core: gate 3, compare 0).
"$COMMBENCH" compare a.json ab.json --json sides.json >compare_out 2>"$T/err"
compared=$?
busy_runner aa.json $rc ab-sides-compare || {
  python3 - "$rc" "$compared" <<'PY' && ok || bad "ab-sides-compare: gate $rc, compare $compared: $(cat compare_out)"
import json, sys
gate, compared = json.load(open("aa.json"))["points"], json.load(open("sides.json"))["points"]
assert len(gate) == len(compared) == 1, (len(gate), len(compared))
g, c = gate[0], compared[0]
unpaired = g["evidence"]["unpaired"] if "evidence" in g else g
close = lambda a, b: abs(a - b) <= 1e-9 * max(1.0, abs(a))
assert close(unpaired["ratio"], c["ratio"]) and close(unpaired["p_value"], c["p_value"]), (unpaired, c)
assert all(close(a, b) for a, b in zip(unpaired["ratio_ci95"], c["ratio_ci95"])), (unpaired, c)
assert (g["base_median_us"], g["new_median_us"]) == (c["base_median_us"], c["new_median_us"]), (g, c)
if g.get("evidence", {}).get("used", "unpaired") == "unpaired":
    assert sys.argv[1] == sys.argv[2], f"gate {sys.argv[1]}, compare {sys.argv[2]}, both unpaired"
PY
}
"$COMMBENCH" gate --ab --a GLOO_GATE_TEST=a --b GLOO_GATE_TEST=b,COMMBENCH_TEST_ONLY_UNIFORM_SLOWDOWN=1.0 "${TINY[@]}" \
  --sizes 1M --repeats 7 --out ab.json --json abs.json >out 2>"$T/err"
rc=$?
busy_runner abs.json $rc ab-slowdown || check ab-slowdown 1 $rc
# Sequential repeats: looks at 6, 9, 12 a side; a doubled op stops the point early; the comparison says so.
"$COMMBENCH" gate --ab --a GLOO_GATE_TEST=a --b GLOO_GATE_TEST=b,COMMBENCH_TEST_ONLY_UNIFORM_SLOWDOWN=1.0 "${TINY[@]}" \
  --sizes 1M --repeats 12 --first-look 6 --look-every 3 --budget 120 --out ab.json --json seq.json >out 2>"$T/err"
rc=$?
busy_runner seq.json $rc ab-sequential || { check ab-sequential 1 $rc; python3 - <<'PY' || bad "sequential comparison: $(cat out)"
import json
d = json.load(open("seq.json"))
assert d["schema_version"] == 3, d["schema_version"]
s = d["options"]["sequential"]
assert s["planned_repeats"] == 12 and s["first_look"] == 6 and s["budget_s"] == 120, s
p = d["points"][0]
assert p["verdict"] == "slower" and p["sequential"]["looks"] >= 1, p
assert 0 < p["sequential"]["boundary_p"] <= 0.01, p["sequential"]
assert len(p["new_us"]) <= 12 and len(p["base_us"]) == len(p["new_us"]), (p["base_us"], p["new_us"])
r = p["sequential"]["repeats"]  # every repeat of both sides, re-runs included
assert {x["side"] for x in r} == {"A", "B"} and len(r) >= 2 * len(p["new_us"]), r
assert sum(x["replaced"] for x in r) == p["sequential"]["replaced"], p["sequential"]
PY
}
"$COMMBENCH" gate --ab --budget -1 2>"$T/err"; check bad-budget 2 $?; one_error_line bad-budget
"$COMMBENCH" gate --ab --look-every 0 2>"$T/err"; check bad-look-every 2 $?; one_error_line bad-look-every

# 9. Bad input: one error line, exit 2, nothing written.
"$COMMBENCH" gate 2>"$T/err"; check no-baseline 2 $?; one_error_line no-baseline
"$COMMBENCH" gate --baseline nosuch.json 2>"$T/err"; check missing-baseline 2 $?; one_error_line missing-baseline
"$COMMBENCH" gate --ab --baseline base.json 2>"$T/err"; check ab-and-baseline 2 $?; one_error_line ab-and-baseline
"$COMMBENCH" gate --baseline base.json --out-a a2.json 2>"$T/err"; check out-a-without-ab 2 $?
one_error_line out-a-without-ab
[[ ! -e a2.json ]] && ok || bad "--out-a without --ab wrote a2.json"
"$COMMBENCH" gate --ab --a 'NOT A NAME=1' 2>"$T/err"; check bad-variant 2 $?; one_error_line bad-variant
"$COMMBENCH" gate --ab --b COMMBENCH_TEST_ONLY_UNIFORM_SLOWDOWN=lots 2>"$T/err"; check bad-slowdown 2 $?
one_error_line bad-slowdown
"$COMMBENCH" gate --baseline base.json --groups 2 2>"$T/err"; check other-spec 2 $?; one_error_line other-spec
grep -q "groups \[2\] (the baseline's: \[1\])" "$T/err" || bad "other spec not named: $(cat "$T/err")"
"$COMMBENCH" gate --baseline base.json --min-effect 3 2>"$T/err"; check min-effect 2 $?; one_error_line min-effect
"$COMMBENCH" gate --calibrate --baseline nosuch.json 2>"$T/err"; check calibrate-no-baseline 2 $?
one_error_line calibrate-no-baseline
"$COMMBENCH" sweep --repeats 0 2>"$T/err"; check repeats-0 2 $?; one_error_line repeats-0
"$COMMBENCH" sweep --test-only-uniform-slowdown -1 2>"$T/err"; check slowdown-negative 2 $?
one_error_line slowdown-negative
mkdir -p adir
cp base.json adir/base.json
"$COMMBENCH" gate --baseline adir --update-baseline 2>"$T/err"; check baseline-dir 2 $?; one_error_line baseline-dir
[[ -d adir && -f adir/base.json ]] && ok || bad "a directory baseline was touched"
"$COMMBENCH" gate --baseline base.json --junit /dev/full 2>"$T/err"; check device-output 2 $?
one_error_line device-output
"$COMMBENCH" gate --baseline base.json --html adir 2>"$T/err"; check html-dir 2 $?; one_error_line html-dir

# 10. --update-baseline over a baseline: the new result replaces it (a regular file, atomically).
before=$(stat -c %Y.%i base.json)
"$COMMBENCH" gate --baseline base.json --update-baseline -q >out 2>"$T/err"
check update-baseline 0 $?
[[ $(stat -c %Y.%i base.json) != "$before" ]] && ok || bad "baseline not replaced"
python3 -c "import json; d = json.load(open('base.json')); assert d['status'] == 'complete'" || bad "new baseline"
python3 -c "import json; assert 'gate_calibration' in json.load(open('base.json'))" || bad "calibration not kept"
ls "$T" | grep -q '\.tmp' && bad "temporary files left: $(ls "$T")" || ok

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
