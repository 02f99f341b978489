#!/usr/bin/env bash
# A neighbour that runs in bursts of short-lived processes (issue 52): every PERIOD_MS, JOBS jobs one after the
# other, each a fresh process busy for about JOB_MS of CPU, then idle for the rest of the period. No job lives
# across two of the host monitor's 100 ms samples, so a monitor that only names processes seen twice misses it.
# Runs until killed (or for SECONDS_TO_RUN when set). Prints its own pid first.
#   bench/burst_load.sh &            # 2 x 25 ms of every 200 ms: about a quarter of one CPU
#   JOBS=4 JOB_MS=12 bench/burst_load.sh &
set -euo pipefail
JOBS=${JOBS:-2}
JOB_MS=${JOB_MS:-25}
PERIOD_MS=${PERIOD_MS:-200}
SECONDS_TO_RUN=${SECONDS_TO_RUN:-0}
echo "burst_load pid $$: $JOBS jobs x ${JOB_MS} ms of CPU every ${PERIOD_MS} ms" >&2
# A job: a fresh awk that spins until it has used JOB_MS of CPU (awk has no CPU clock, so it counts iterations
# calibrated once below).
spins_per_ms() {
  local n=2000000 start end
  start=$(date +%s%N)
  awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) x += i; }'
  end=$(date +%s%N)
  echo $(( n * 1000000 / ( (end - start) > 0 ? (end - start) : 1 ) ))
}
PER_MS=$(spins_per_ms)
SPINS=$(( PER_MS * JOB_MS ))
idle_s=$(awk -v p="$PERIOD_MS" -v j="$JOBS" -v m="$JOB_MS" 'BEGIN { s = (p - j * m) / 1000; print (s > 0 ? s : 0) }')
end_at=$(( $(date +%s) + SECONDS_TO_RUN ))
while [ "$SECONDS_TO_RUN" -eq 0 ] || [ "$(date +%s)" -lt "$end_at" ]; do
  for _ in $(seq "$JOBS"); do awk -v n="$SPINS" 'BEGIN { for (i = 0; i < n; i++) x += i; }'; done
  sleep "$idle_s"
done
