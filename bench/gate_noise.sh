#!/bin/bash
# Where the gate's launch-to-launch noise comes from (issue 26, "less noise at the source"): launches of the CI
# preset's points (configs/gate/ci.yaml, one repeat each) under candidate changes to how the host or the loop
# runs, interleaved round by round (every candidate once per round, in a shuffled order), so that drift in the
# shared host's load touches every candidate alike. Per candidate and point: the spread of the launches' medians
# (coefficient of variation, and 1.4826 MAD / median, which one slow mode hides less) beside the unchanged preset's
# in the same run. Host settings a candidate changes are restored after each launch and on exit.
#
#   bench/gate_noise.sh                      # 20 rounds of every candidate
#   ROUNDS=8 CANDIDATES="preset warmup-200" bench/gate_noise.sh
#   COMMBENCH=path/to/commbench WORK=/tmp/gn bench/gate_noise.sh   # WORK keeps every result file
#
# Candidates: preset (as configured), warmup-200 (10x the warm-up), loop-4x (4x the timed loop's time budget),
# thp-never / thp-always (transparent huge pages; the host's default is kept by preset), tcp-4m (TCP's default
# socket buffers 4 MiB each way), tcp-nocork (no TCP autocorking), rps-cpu0 (the loopback's receive work steered
# to CPU 0), halt-poll (a guest's cpuidle haltpoll driver polls up to 200 us before it halts the vCPU: a halted vCPU
# waits for the hypervisor to run it again when its rank's data arrives), idle-poll (the halting idle state off:
# an idle CPU polls, as `cpupower idle-set -D 0` on bare metal). CPU frequency and memory placement across nodes
# are printed when the host can change them (a VM without cpufreq and one NUMA node cannot).
set -uo pipefail
ROUNDS="${ROUNDS:-20}"
ALL="preset warmup-200 loop-4x thp-never thp-always tcp-4m tcp-nocork rps-cpu0 halt-poll idle-poll"
CANDIDATES="${CANDIDATES:-$ALL}"
config="${CONFIG:-configs/gate/ci.yaml}"
bin="${COMMBENCH:-.bazel/bin/tools/commbench/commbench}"
[[ -x "$bin" ]] || { echo "gate_noise: no commbench at $bin (bazel build //tools/commbench, or COMMBENCH=...)" >&2; exit 2; }
work="${WORK:-$(mktemp -d)}"
keep="${WORK:+1}"
mkdir -p "$work"

thp=/sys/kernel/mm/transparent_hugepage/enabled
rps=/sys/class/net/lo/queues/rx-0/rps_cpus
thp_was=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$thp" 2>/dev/null)
rps_was=$(cat "$rps" 2>/dev/null)
wmem_was=$(sysctl -n net.ipv4.tcp_wmem 2>/dev/null)
rmem_was=$(sysctl -n net.ipv4.tcp_rmem 2>/dev/null)
cork_was=$(sysctl -n net.ipv4.tcp_autocorking 2>/dev/null)
poll=/sys/module/haltpoll/parameters/guest_halt_poll_ns
poll_was=$(cat "$poll" 2>/dev/null)
halt_states=$(ls /sys/devices/system/cpu/cpu*/cpuidle/state1/disable 2>/dev/null)
restore() {
  [[ -n "$thp_was" ]] && echo "$thp_was" >"$thp" 2>/dev/null
  [[ -n "$rps_was" ]] && echo "$rps_was" >"$rps" 2>/dev/null
  [[ -n "$wmem_was" ]] && sysctl -q -w net.ipv4.tcp_wmem="$wmem_was" 2>/dev/null
  [[ -n "$rmem_was" ]] && sysctl -q -w net.ipv4.tcp_rmem="$rmem_was" 2>/dev/null
  [[ -n "$cork_was" ]] && sysctl -q -w net.ipv4.tcp_autocorking="$cork_was" 2>/dev/null
  [[ -n "$poll_was" ]] && echo "$poll_was" >"$poll" 2>/dev/null
  for f in $halt_states; do echo 0 >"$f"; done
  true
}
trap 'restore; [[ -n "$keep" ]] || rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

# Applies candidate $1 to the host and prints the sweep flags it adds.
apply() {
  case "$1" in
    preset) ;;
    warmup-200) echo "--warmup 200" ;;
    loop-4x) echo "--time-budget 0.2" ;;
    thp-never) echo never >"$thp" ;;
    thp-always) echo always >"$thp" ;;
    tcp-4m) sysctl -q -w net.ipv4.tcp_wmem="4096 4194304 4194304" net.ipv4.tcp_rmem="4096 4194304 33554432" ;;
    tcp-nocork) sysctl -q -w net.ipv4.tcp_autocorking=0 ;;
    rps-cpu0) echo 1 >"$rps" ;;
    halt-poll) echo 200000 >"$poll" ;;
    idle-poll) [[ -n "$halt_states" ]] || { echo "gate_noise: no halting idle state here" >&2; exit 2; }
               for f in $halt_states; do echo 1 >"$f"; done ;;
    *) echo "gate_noise: unknown candidate '$1' ($ALL)" >&2
       exit 2 ;;
  esac
}
for c in $CANDIDATES; do (apply "$c" >/dev/null) || exit 2; restore; done

echo "gate_noise: $ROUNDS rounds of: $CANDIDATES ($config, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
echo "cpufreq: $(ls /sys/devices/system/cpu/cpu0/cpufreq 2>/dev/null | head -1 || true)$( [[ -d /sys/devices/system/cpu/cpu0/cpufreq ]] || echo 'none (cannot be set here)'); NUMA nodes: $(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)"
for round in $(seq 1 "$ROUNDS"); do
  for c in $(printf '%s\n' $CANDIDATES | shuf); do
    flags=$(apply "$c")
    # shellcheck disable=SC2086
    "$bin" sweep --no-explain --no-html --config "$config" --repeats 1 $flags --quiet --out "$work/$c-$round.json" >"$work/$c-$round.log" 2>&1 ||
      echo "gate_noise: $c round $round failed: $(tail -1 "$work/$c-$round.log")" >&2
    restore
  done
  printf '\rround %d of %d' "$round" "$ROUNDS" >&2
done
echo >&2
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$work" $CANDIDATES <<'PY'
import glob, json, os, statistics as st, sys
work, cands = sys.argv[1], sys.argv[2:]
def med(p):
    r = p.get("repeats", {}).get("p50_us")
    return r[0] if r else p["time_us"]["p50"]
spread = {}  # (candidate, point) -> (n, median, cv, robust cv)
points = []
for c in cands:
    vals = {}
    for f in glob.glob(os.path.join(work, c + "-*.json")):
        for p in json.load(open(f))["points"]:
            vals.setdefault(p["id"], []).append(med(p))
            if p["id"] not in points: points.append(p["id"])
    for pid, v in vals.items():
        m = st.median(v)
        cv = st.stdev(v) / st.mean(v) if len(v) > 1 else float("nan")
        rcv = 1.4826 * st.median([abs(x - m) for x in v]) / m
        spread[(c, pid)] = (len(v), m, cv, rcv)
print("\n| candidate | " + " | ".join(p.split("/")[7] for p in points) + " |")
print("|---|" + "---|" * len(points))
for c in cands:
    cells = []
    for p in points:
        if (c, p) not in spread: cells.append("-"); continue
        n, m, cv, rcv = spread[(c, p)]
        base = spread.get((cands[0], p))
        rel = " (x%.2f)" % (cv / base[2]) if base and c != cands[0] and base[2] > 0 else ""
        cells.append("%.4g us, CV %.3f%s, robust %.3f, n %d" % (m, cv, rel, rcv, n))
    print("| %s | %s |" % (c, " | ".join(cells)))
print("\n(x..: the candidate's CV over the first candidate's, per point)")
PY
