#!/bin/bash
# The gate as a CI user on a shared runner sees it (issue 53): `commbench gate --ab` with the repository's preset
# (configs/gate/ci.yaml, its 240 s budget) beside a low-priority neighbour (bench/neighbour.sh, DUTY of every CPU at
# nice 19), A/A jobs (the same build both sides) interleaved with jobs whose B side sends 2 us slower (each socket
# writev delayed by bench/accept_send_delay.c, LD_PRELOAD into B's ranks: a regression made outside commbench).
#
#   bench/gate_shared_runner.sh                     # 10 A/A and 10 regression jobs (about 100 minutes)
#   AA=5 SEND=5 WORK=/tmp/gsr bench/gate_shared_runner.sh
#   COMMBENCH=/old/commbench MIN_EFFECT=0.05 bench/gate_shared_runner.sh   # an older build, a fixed floor
#   bench/gate_shared_runner.sh --table /tmp/gsr    # the table of kept jobs again
#   bench/gate_shared_runner.sh --noise /tmp/gsr    # where each point's spread comes from, over the A/A jobs
#
# Per job: its exit (0 pass, 1 regression, 3 inconclusive), wall time, each point's verdict and the floor it was
# judged at (with --min-effect auto, what the job resolved there), and the load: the share of all CPUs busy over the
# job (/proc/stat) and the neighbour's CPU share (its spinners' /proc/PID/stat), printed by neighbour.sh.
set -uo pipefail
AA="${AA:-10}" SEND="${SEND:-10}" DUTY="${DUTY:-0.2}" DELAY_US="${DELAY_US:-2}" MIN_EFFECT="${MIN_EFFECT:-}"
config="${CONFIG:-configs/gate/ci.yaml}"
bin="${COMMBENCH:-.bazel/bin/tools/commbench/commbench}"
shim="${SHIM:-.bazel/bin/bench/libaccept_send_delay.so}"

# Per job the gate's own record of the load: the median and 90th percentile, over every repeat it measured, of
# the share of the ranks' CPUs outside processes took, and the share of repeats it called disturbed.
outside() {  # DIR JOB
  python3 - "$1/job$2.cmp.json" <<'PY'
import json, statistics as st, sys
try:
    reps = [r for p in json.load(open(sys.argv[1]))["points"] for r in p.get("sequential", {}).get("repeats", [])]
except (OSError, ValueError):
    reps = []
if not reps:
    print("? | ?"); sys.exit()
o = sorted(r["outside_share"] for r in reps)
print("%.0f / %.0f %% | %.0f %%" % (100 * st.median(o), 100 * o[int(0.9 * (len(o) - 1))],
                                    100 * sum(r["disturbed"] for r in reps) / len(reps)))
PY
}

table() {
  echo
  echo "| job | kind | exit | seconds | CPUs busy | neighbour | outside share p50 / p90 | disturbed | 400 B | 64 KiB | 1 MiB |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  while read -r job kind rc secs busy nshare v400 v64 v1m; do
    [[ $job == job ]] && continue
    # rows of the first version of this script, whose CPUs-busy figure came out empty
    [[ -z $v1m ]] && { v1m=$v64 v64=$v400 v400=$nshare nshare=$busy busy="?"; }
    echo "| $job | $kind | $rc | $secs | $busy | $nshare | $(outside "$1" "$job") | $v400 | $v64 | $v1m |"
  done <"$1/jobs.txt"
  echo
  awk 'NR > 1 { n[$2]++; e[$2 " " $3]++ }
       END { for (k in n) printf "%s: %d jobs, exit 0: %d, exit 1: %d, exit 3: %d\n", k, n[k], e[k " 0"], e[k " 1"], e[k " 3"] }' \
    "$1/jobs.txt"
}
# Where each point's spread comes from, over the A/A jobs of DIR: a repeat's own spread (1.4826 MAD / median of
# one side), what neighbouring repeats share (lag-1 autocorrelation of A's log medians: a runner's states lasting
# more than a round), the pairs' spread (of log B - the mean log of its neighbouring A's, over sqrt(1.5), the spread
# it would have with independent repeats) and the share of disturbed repeats.
noise() {
  python3 - "$1" <<'PY'
import glob, json, math, statistics as st, sys
def mad(v):
    m = st.median(v); return 1.4826 * st.median([abs(x - m) for x in v])
rows = {}
for f in sorted(glob.glob(sys.argv[1] + "/job*.cmp.json")):
    d = json.load(open(f))
    if not d["base"].endswith("COMMBENCH_GATE_SHARED=1") or "LD_PRELOAD" in d["new"]:
        continue
    for p in d["points"]:
        a, b = p["base_us"], p["new_us"]
        if len(a) < 10 or len(a) != len(b):
            continue
        la = [math.log(x) for x in a]
        pairs = [math.log(b[i]) - (la[i] + la[i + 1]) / 2 for i in range(len(a) - 1)]
        m = st.mean(la)
        lag1 = sum((la[i] - m) * (la[i + 1] - m) for i in range(len(la) - 1)) / sum((x - m) ** 2 for x in la)
        reps = p.get("sequential", {}).get("repeats", [])
        dist = sum(r["disturbed"] for r in reps) / max(1, len(reps))
        rows.setdefault(p["axes"]["bytes"], []).append(
            (len(a), mad(a) / st.median(a), lag1, mad(pairs) / math.sqrt(1.5), dist))
print("| point | A/A jobs | repeats a side | one repeat's spread | lag-1 autocorrelation | pairs' spread | disturbed |")
print("|---|---|---|---|---|---|---|")
for size in sorted(rows):
    r = rows[size]
    f = lambda k, pct=True: "%.1f-%.1f %%" % (100 * min(x[k] for x in r), 100 * max(x[k] for x in r)) if pct else \
        "%.2f-%.2f" % (min(x[k] for x in r), max(x[k] for x in r))
    print("| %d B | %d | %d-%d | %s | %s | %s | %s |" % (size, len(r), min(x[0] for x in r), max(x[0] for x in r),
          f(1), f(2, False), f(3), f(4)))
PY
}
if [[ "${1:-}" == "--table" || "${1:-}" == "--noise" ]]; then
  [[ -f "${2:-}/jobs.txt" ]] || { echo "gate_shared_runner.sh: $1 DIR: no DIR/jobs.txt" >&2; exit 2; }
  [[ "$1" == "--table" ]] && table "$2" || noise "$2"
  exit 0
fi
[[ -x "$bin" ]] || { echo "gate_shared_runner.sh: no commbench at $bin (bazel build //tools/commbench)" >&2; exit 2; }
[[ -f "$shim" ]] || { echo "gate_shared_runner.sh: no $shim (bazel build //bench:libaccept_send_delay.so)" >&2; exit 2; }
for n in "$AA" "$SEND"; do
  [[ "$n" =~ ^[0-9]+$ ]] || { echo "gate_shared_runner.sh: AA and SEND must be counts, got '$n'" >&2; exit 2; }
done
bin="$(realpath "$bin")" shim="$(realpath "$shim")" config="$(realpath "$config")"
work="${WORK:-$(mktemp -d /tmp/gate-shared.XXXXXX)}"
mkdir -p "$work"
here="$(dirname "$(realpath "$0")")"

# CPU busy share of the whole host between two /proc/stat snapshots.
busy() {  # before after
  awk -v a="$1" -v b="$2" 'BEGIN {
    n = split(a, x, " "); split(b, y, " "); tot = 0; idle = 0
    for (i = 2; i <= n; ++i) { d = y[i] - x[i]; tot += d; if (i == 5 || i == 6) idle += d }
    printf "%.0f%%", (tot > 0 ? 100 * (tot - idle) / tot : 0) }'
}

DUTY="$DUTY" "$here/neighbour.sh" 2>"$work/neighbour.log" &
neighbour=$!
trap 'kill $neighbour 2>/dev/null; wait $neighbour 2>/dev/null' EXIT
kinds=()
for ((i = 0; i < AA || i < SEND; ++i)); do
  ((i < AA)) && kinds+=(aa)
  ((i < SEND)) && kinds+=(send)
done
echo "job kind exit seconds busy neighbour v400 v64K v1M" >"$work/jobs.txt"
for ((j = 0; j < ${#kinds[@]}; ++j)); do
  kind=${kinds[j]}
  b="COMMBENCH_GATE_SHARED=1"
  [[ $kind == send ]] && b+=",LD_PRELOAD=$shim,COMMBENCH_SEND_DELAY_US=$DELAY_US"
  s0=$(head -1 /proc/stat) t0=$(date +%s.%N)
  "$bin" gate --ab --a COMMBENCH_GATE_SHARED=1 --b "$b" --config "$config" ${MIN_EFFECT:+--min-effect "$MIN_EFFECT"} \
    -q --json "$work/job$j.cmp.json" --summary "$work/job$j.md" --out "$work/b$j.json" >"$work/job$j.txt" 2>"$work/job$j.err"
  rc=$?
  s1=$(head -1 /proc/stat) t1=$(date +%s.%N)
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }')
  # The neighbour's share: its spinners' CPU time over the job (utime + stime), per CPU.
  share=$(for p in $(pgrep -P $neighbour python3); do cat /proc/$p/stat 2>/dev/null; done |
    awk -v t="$(getconf CLK_TCK)" '{ s += $14 + $15; n++ } END { print s + 0, n + 0, t }')
  echo "$share" >"$work/neighbour$j.after"
  verdicts=$(python3 - "$work/job$j.cmp.json" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    print("- - -"); sys.exit()
out = []
for p in sorted(d["points"], key=lambda p: p["axes"]["bytes"]):
    r = p["ratio"]
    out.append("%s(%s,±%.1f%%)" % (p["verdict"], "%.3f" % r if r is not None else "n/a", 100 * p["min_effect"]))
print(" ".join(out))
PY
)
  prev=$(cat "$work/neighbour$((j - 1)).after" 2>/dev/null || echo "")
  nshare=$(awk -v a="$prev" -v b="$share" -v w="$secs" 'BEGIN {
    split(a, x, " "); split(b, y, " "); if (y[2] == 0 || w == 0) { print "?"; exit }
    printf "%.0f%%", 100 * (y[1] - x[1]) / y[3] / w / y[2] }')
  [[ $j == 0 ]] && nshare="${nshare}*"  # the first job's share counts the spinners' start too
  echo "$j $kind $rc $secs $(busy "$s0" "$s1") $nshare $verdicts" >>"$work/jobs.txt"
  echo "gate_shared_runner.sh: job $((j + 1))/${#kinds[@]} $kind: exit $rc, $secs s, $verdicts" >&2
done
kill $neighbour 2>/dev/null
wait $neighbour 2>/dev/null
trap - EXIT
cat "$work/neighbour.log" >&2
table "$work"
noise "$work"
