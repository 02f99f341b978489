#!/bin/bash
# Proved on real series (issue 27): 40 real short sweeps of this build (sweep --groups 1 --sizes 400 --iters 400
# --repeats 5, under a second each, measured in a random order), runs 0-29 without anything planted and 10 more with
# --test-only-uniform-slowdown 0.1. History A files runs 0-19 then the 10 slowed ones (a planted 10 % slowdown
# from run 20): `history check` may find no change point but one, slower, whose runs it may start at (starts_in)
# hold run 20 give or take one (or elsewhere, where the runs between were measured at the other side's level: the
# host's drift, not the product, moved it), and must find that one (and exit 1) whenever the step as measured is at least three times one run's spread (on this shared 2-core host it
# often is not: docs/history.md). History B files the 30 unplanted runs: no change point, exit 0. A change point
# the product names disturbed (outside load on the ranks' CPUs in the runs beside it) is accepted as its honest
# answer on a loaded host, never counted as found.
# Also: two concurrent jobs of 15 `history add`s each all land; the JSON, JUnit, summary and trend page are written.
# Keeps the result files in $TEST_UNDECLARED_OUTPUTS_DIR/runs for the simulated suite (lib/history/simulate).
# usage: real_series_test.sh COMMBENCH
set -uo pipefail
B="$1"
OUT="${TEST_UNDECLARED_OUTPUTS_DIR:-$(mktemp -d)}"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
mkdir -p "$OUT/runs"
sweep() {  # sweep FILE [extra flags]
  local f="$1"; shift
  "$B" sweep --groups 1 --sizes 400 --iters 400 --repeats 5 --out "$f" "$@" >"$T/sweep.log" 2>&1 ||
    { cat "$T/sweep.log"; fail "sweep $f"; }
}
# Measured in a shuffled order: a shift in this shared host's load that lasts a while then lands on runs scattered
# over the histories (noise) instead of on a run of neighbours (a step of its own, or one that moves the planted one).
order=$( { for i in $(seq -w 0 29); do echo "plain-$i"; done; for i in $(seq -w 20 29); do echo "slow-$i"; done; } | shuf)
echo "measured in this order:" $order
for run in $order; do
  if [[ $run == slow-* ]]; then sweep "$OUT/runs/$run.json" --test-only-uniform-slowdown 0.1; else sweep "$OUT/runs/$run.json"; fi
done
# A history orders its runs by when they ran: each is filed at its commit's time (--time, as a backfill by commit
# would), so that the history's order is the commits' and not the shuffled order they were measured in.
at() { echo "2026-01-01T00:$1:00Z"; }
for i in $(seq -w 0 19); do "$B" history add "$T/a" "$OUT/runs/plain-$i.json" --commit "c$i" --time "$(at "$i")" >/dev/null || fail "add a $i"; done
for i in $(seq -w 20 29); do "$B" history add "$T/a" "$OUT/runs/slow-$i.json" --commit "c$i" --time "$(at "$i")" >/dev/null || fail "add a $i"; done
# B: two concurrent jobs filing 15 runs each into one history: every add must land.
( for i in $(seq -w 0 14); do "$B" history add "$T/b" "$OUT/runs/plain-$i.json" --commit "c$i" >/dev/null || exit 1; done ) &
p1=$!
( for i in $(seq -w 15 29); do "$B" history add "$T/b" "$OUT/runs/plain-$i.json" --commit "c$i" >/dev/null || exit 1; done ) &
p2=$!
wait $p1 || fail "concurrent adder 1"
wait $p2 || fail "concurrent adder 2"
n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['runs']))" "$T/b/history.json")
[[ "$n" == 30 ]] || fail "concurrent adds: $n runs in the index, expected 30"

# The slowdown started 10 runs ago: a regression for K = 11 (a change found at run 19, within one run of the
# planted 20, starts 11 runs ago), an old change (reported, exit 0) for the default 5 (--last is --recent-runs' alias).
"$B" history check "$T/a" --recent-runs 11 --json "$OUT/a.json" --junit "$T/a.xml" --summary "$T/a.md" \
  --html "$OUT/trend-planted.html" | tee "$OUT/a.txt"
rc_a=${PIPESTATUS[0]}
"$B" history check "$T/a" >"$T/a5.txt"; rc_a5=$?
python3 - "$OUT/a.json" <<'PY' >"$T/planted.out" || fail "planted: change points"
import json, statistics as st, sys
s = json.load(open(sys.argv[1]))["series"]
assert len(s) == 1, len(s)
runs, ch = s[0]["runs"], s[0]["changes"]
before = [r["median_us"] for r in runs[:20]]
after = [r["median_us"] for r in runs[20:]]
m = st.median(before)
# One run's relative spread: the larger of the MAD's and the standard deviation's, so that a few slow runs among
# the plain ones (this host's bimodal noise: 4 of 20 runs 20 % above the rest) count as the noise they are.
spread = max(1.4826 * st.median([abs(v - m) for v in before]), st.stdev(before)) / m
step = st.median(after) / m - 1  # the slowdown as measured
print("planted: realized step %.1f %%, run-to-run spread %.1f %%; change points %s" % (
    100 * step, 100 * spread,
    [(c["index"], c["starts_in"], c["direction"], round(c["ratio"], 3), c["ratio_ci95"], c["p_value"]) for c in ch]))
# Never a change point elsewhere, never a faster one, unless the product names it disturbed (runs beside it were
# measured while outside processes held the ranks' CPUs: the load, not the code, may have made or moved it).
disturbed = [c for c in ch if c.get("disturbed_runs")]
clean = [c for c in ch if not c.get("disturbed_runs")]
# Where a step small beside the noise starts is not known to one run: the product names the runs it may start at
# (starts_in), and the planted run must be among them, give or take one (as the point estimate always was).
# A step placed away from run 20 is the data's, not the product's error, when the runs it moved past were measured
# at the other side's level (within one run's spread): plain runs as slow as the planted ones, or planted runs as
# fast as the plain ones. The host drifts; the shuffle spreads a drift over the histories but cannot undo it (a
# fresh-clone CI: plain runs 16-18 at 97.9-98.7 us beside planted ones at 83.5-106.3, the change put at 16).
def moved_by_the_data(c):
    if c["index"] < 20:
        return all(v >= st.median(after) * (1 - spread) for v in [r["median_us"] for r in runs[c["index"]:20]])
    return all(v <= m * (1 + spread) for v in [r["median_us"] for r in runs[20:c["index"]]])
moved = False
for c in clean:
    lo, hi = c["starts_in"]
    assert lo <= c["index"] <= hi, "the index outside its own runs: %s" % c
    assert c["direction"] == "slower", "a faster change point where a slowdown was planted: %s" % c
    if not lo - 1 <= 20 <= hi + 1:
        assert moved_by_the_data(c), "a change point where none was planted: %s" % c
        moved = True
        print("accepted: the change placed at run %d, the runs between it and run 20 measured at the other "
              "side's level: %s" % (c["index"], [round(r["median_us"], 1) for r in runs[min(c["index"], 20):max(c["index"], 20)]]))
assert len(clean) <= 1, "more than one change point"
# Found whenever the step as measured stands well out of the noise (three times one run's spread); below that, this
# runner's noise decides: its runs fall in two modes about 20 % apart, and a 17-34 % step over such runs was missed
# in 2 of 5 fresh runs, with no false change point (docs/history.md, "Where the power goes": simulated at this
# noise, 94-98 % of series pass above three times the spread, the rest mostly the step placed two runs early).
if step >= 3 * spread and not disturbed:
    assert len(ch) == 1, "a step of %.1f %% (%.1f x the spread) was not found" % (100 * step, step / spread)
print("disturbed" if disturbed else "found elsewhere" if moved else "found" if ch else "not found")
PY
cat "$T/planted.out"
found=$(tail -1 "$T/planted.out")
# Where the product put the change (it names the runs it may start at, the planted 20 among them): recent for
# --recent-runs 11 from run 19 on; placed at 17 (starts in 15-21: a fresh-clone CI) it is an old change, reported.
change_at=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['series'][0]['changes'][0]['index'])" \
  "$OUT/a.json" 2>/dev/null || echo 19)
if [[ "$found" == found && $change_at -lt 19 ]]; then
  [[ $rc_a == 0 ]] || fail "planted, placed at run $change_at, --recent-runs 11: exit $rc_a, expected 0 (older)"
  [[ $rc_a5 == 0 ]] || fail "planted, placed at run $change_at, --last 5: exit $rc_a5, expected 0"
  grep -q "change: slower from run" "$OUT/a.txt" || fail "planted, placed at run $change_at: not reported"
elif [[ "$found" == found ]]; then
  [[ $rc_a == 1 ]] || fail "planted, --recent-runs 11: exit $rc_a, expected 1"
  [[ $rc_a5 == 0 ]] || fail "planted, --last 5: exit $rc_a5, expected 0 (the change is older than the last 5 runs)"
  grep -q "change: slower from run" "$T/a5.txt" || fail "planted, --last 5: the old change is not reported"
  grep -q "<failure" "$T/a.xml" || fail "planted: no JUnit failure"
  grep -q "regression" "$T/a.md" || fail "planted: summary"
elif [[ "$found" == "found elsewhere" ]]; then  # where the data put it: recent for --recent-runs 11, or not
  [[ $rc_a == 0 || $rc_a == 1 ]] || fail "planted, found elsewhere: exit $rc_a, expected 0 or 1"
  [[ $rc_a5 == 0 ]] || fail "planted, found elsewhere, --last 5: exit $rc_a5, expected 0"
  grep -q "change: slower from run" "$T/a5.txt" || fail "planted, found elsewhere: the change is not reported"
elif [[ "$found" == disturbed ]]; then  # the honest answer on a loaded host: named, never a silent pass
  [[ $rc_a == 1 || $rc_a == 3 ]] || fail "planted, disturbed: exit $rc_a, expected 1 or 3"
  grep -q "disturbed: run" "$OUT/a.txt" || fail "planted, disturbed: not named in the text"
else
  # Not found (the step as measured was under three of its spreads): a slowdown the runs cannot resolve yet is
  # "too few runs to tell" (exit 3, issue 53), never a silent pass; exit 0 only where no step stands out.
  [[ $rc_a == 0 || $rc_a == 3 ]] || fail "planted, nothing found: exit $rc_a, expected 0 or 3"
  [[ $rc_a != 3 ]] || grep -q "too few runs to tell" "$OUT/a.txt" || fail "planted, exit 3 without 'too few runs to tell'"
fi
[[ -s "$OUT/trend-planted.html" ]] || fail "planted: no trend page"

# The unplanted series in run order (B's order is the race's).
for i in $(seq -w 0 29); do "$B" history add "$T/c" "$OUT/runs/plain-$i.json" --commit "c$i" --time "$(at "$i")" >/dev/null || fail "add c $i"; done
"$B" history check "$T/c" --json "$OUT/c.json" --html "$OUT/trend-plain.html" | tee "$OUT/c.txt"
rc=${PIPESTATUS[0]}
python3 - "$OUT/c.json" "$rc" <<'PY' || fail "unplanted: change points or exit $rc"
import json, sys
s = json.load(open(sys.argv[1]))["series"]
ch = s[0]["changes"]
print("unplanted:", [(c["index"], c["direction"], round(c["ratio"], 3), c["p_value"], c["disturbed_runs"]) for c in ch])
# Only a change the product names disturbed (outside load beside it) may appear; it may then exit 3, never 1.
assert all(c["disturbed_runs"] for c in ch), "a change point where none was planted, with no load to explain it"
assert sys.argv[2] in (("0", "3") if ch else ("0",)), "exit " + sys.argv[2]
PY
# Too short to say, and bad input.
"$B" history add "$T/d" "$OUT/runs/plain-00.json" >/dev/null
"$B" history check "$T/d" >/dev/null; rc=$?
[[ $rc == 3 ]] || fail "short: exit $rc, expected 3"
"$B" history check "$T/nothing" 2>"$T/err"; rc=$?
[[ $rc == 2 ]] && grep -q "^commbench: error:" "$T/err" || fail "missing history: exit $rc"
"$B" history check "$T/a" --html "$T" 2>"$T/err"; rc=$?
[[ $rc == 2 ]] || fail "directory as --html: exit $rc"
echo "$(( fails == 0 ? 1 : 0 )) passed, $(( fails > 0 ? 1 : 0 )) failed"
exit $(( fails > 0 ))
