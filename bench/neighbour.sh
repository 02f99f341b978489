#!/bin/bash
# A low-priority neighbour on a shared runner (issue 53: "a neighbour job took 14-24 % of the ranks' CPUs"): one
# spinner per CPU, each pinned to its CPU at `nice -n 19`, busy DUTY of every 100 ms and asleep the rest, so that
# it takes about DUTY of each CPU when nothing else wants it and less when the ranks do (the scheduler's weight of
# nice 19 against nice 0 is 15 to 1024). It runs until killed (SIGTERM stops every spinner) or for SECONDS.
#
#   bench/neighbour.sh &                  # 20 % of every CPU this process may use, until killed
#   DUTY=0.2 SECONDS_=300 bench/neighbour.sh
#
# What it took is printed on exit: each spinner's CPU seconds over the wall time (from /proc/PID/stat).
set -uo pipefail
DUTY="${DUTY:-0.2}"
SECONDS_="${SECONDS_:-0}"
[[ "$DUTY" =~ ^0?\.[0-9]+$ ]] || { echo "neighbour.sh: DUTY must be a fraction in (0, 1), got '$DUTY'" >&2; exit 2; }
[[ "$SECONDS_" =~ ^[0-9]+$ ]] || { echo "neighbour.sh: SECONDS_ must be seconds, got '$SECONDS_'" >&2; exit 2; }

cpus=$(python3 -c 'import os; print(" ".join(map(str, sorted(os.sched_getaffinity(0)))))')
pids=()
for cpu in $cpus; do
  nice -n 19 taskset -c "$cpu" python3 -c '
import sys, time
duty, period = float(sys.argv[1]), 0.1
while True:
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < duty * period:
        pass
    time.sleep(max(0.0, period - (time.perf_counter() - t0)))
' "$DUTY" &
  pids+=($!)
done
start=$(date +%s.%N) sleeper=

report() {
  local now tck=$(getconf CLK_TCK)
  now=$(date +%s.%N)
  for pid in "${pids[@]}"; do
    # utime + stime (fields 14 and 15) in clock ticks, over the spinner's wall time
    awk -v t="$tck" -v a="$start" -v b="$now" -v p="$pid" \
      '{ printf "neighbour.sh: spinner %s took %.1f %% of its CPU over %.0f s\n", p, 100 * ($14 + $15) / t / (b - a), b - a }' \
      "/proc/$pid/stat" >&2 2>/dev/null
  done
  kill "${pids[@]}" ${sleeper:-} 2>/dev/null
  wait "${pids[@]}" 2>/dev/null
}
trap 'report; exit 0' TERM INT
echo "neighbour.sh: ${#pids[@]} spinners (pids ${pids[*]}) at nice 19, ${DUTY} of each CPU ($cpus)" >&2
if ((SECONDS_ > 0)); then
  sleep "$SECONDS_" &
else
  sleep infinity &
fi
sleeper=$!
wait $sleeper
report
exit 0
