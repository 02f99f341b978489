#!/bin/bash
# Acceptance on the virtual cluster (tools/vcluster.sh): 8 hosts x 2 ranks, SPMD over Redis, profile
# configs/acceptance/virtual-cluster.yaml, each case N times (default 10):
#   healthy     no fault                                  -> pass
#   host        host 5's link capped by tbf (CAP)         -> host 5 the first suspect
#   link        the link between hosts 2 and 6 capped     -> that link the first suspect
#   rank        launcher rank 9 (host 9 % 8 = 1) sleeps 100 ms per iteration (about a 4 MiB op here)
#                                                         -> host 1 the first suspect (or its rank)
#   drift       host 3's eth0 MTU set to 1400             -> host 3 alone fails with reason drift (pre-flight)
#   latency     host 4's ranks delay each socket send by DELAY us (default 2000; bench/accept_send_delay.c,
#               LD_PRELOAD: this kernel has no netem)     -> host 4 the first suspect
#   cpu         host 6's ranks share a CFS quota of QUOTA % of one CPU (default 5; cgroup v1 cpu controller):
#               a CPU-starved node                        -> host 6 the first suspect
#   loss        host 3 drops LOSS % (default 2) of the packets it sends at random (nftables `numgen random`;
#               needs the nftables package)               -> host 3 a suspect
#   flap        host 5's sends capped to CAP, on and off in spells of 0.5-1.5 x FLAP seconds (default 2)
#                                                         -> host 5 a suspect (intermittent or confirmed)
#   multi       host 5 capped (CAP) and host 2's sends DELAY us slower: two faults of two kinds
#                                                         -> both hosts among the suspects
#   multi3      as multi, and launcher rank 9 (host 1) sleeping 100 ms per iteration
#                                                         -> all three hosts among the suspects
#   multiloss   host 5 capped (CAP) and host 3 dropping LOSS % of its sends: a bandwidth fault beside a lossy one
#                                                         -> both hosts among the suspects
# Prints one line per case: runs, how often the expected verdict came first (multi cases: every expected host named
# among the suspects), passes, median and max seconds.
# Needs root (network namespaces). Usage: [CASES="healthy rank"] [KEEP=DIR] [DELAY=US] [QUOTA=PCT] bench/accept_vcluster.sh [N] [CAP]
# (CAP default 200mbit; KEEP keeps each run's result file as DIR/CASE-I.json)
set -uo pipefail
cd "$(dirname "$0")/.."
N="${1:-10}"
CAP="${2:-200mbit}"
CB="$PWD/.bazel/bin/tools/commbench/commbench"
VC="$PWD/tools/vcluster.sh"
PROFILE="$PWD/configs/acceptance/virtual-cluster.yaml"
SLOW_SEND="$PWD/.bazel/bin/bench/libaccept_send_delay.so"
[[ -x "$CB" ]] || { echo "build first: bazel build //tools/commbench:commbench" >&2; exit 2; }
[[ " ${CASES:-} " != *" latency "* || -f "$SLOW_SEND" ]] ||
  { echo "build first: bazel build //bench:libaccept_send_delay.so" >&2; exit 2; }
T=$(mktemp -d)
CGROUP=
trap '"$VC" down "$T/c" >/dev/null 2>&1; [[ -n "$CGROUP" ]] && rmdir "$CGROUP" 2>/dev/null; rm -rf "$T"' EXIT

# One acceptance run on the cluster in $T/c; prints "exit seconds first-suspect".
run_once() {
  local extra=("$@") pids=() start end id="bench-$RANDOM$RANDOM" pre
  source "$T/c/env"
  start=$(date +%s.%N)
  if [[ -n "${FLAP_HOST:-}" ]]; then  # its sends capped, on and off
    local fns="VC_NS_$FLAP_HOST"
    # Each spell lasts 0.5 to 1.5 x FLAP at random: a fixed period aliases with the launches' own cadence (a pairs
    # round took about two periods of 2 s, so every round after the first met the link uncapped).
    (spell() { awk -v s="$RANDOM" -v f="${FLAP:-2}" 'BEGIN { srand(s); printf "%.2f", f * (0.5 + rand()) }'; }
    while :; do
      ip netns exec "${!fns}" tc qdisc replace dev eth0 root tbf rate "$CAP" burst 256kb latency 50ms
      sleep "$(spell)"
      ip netns exec "${!fns}" tc qdisc del dev eth0 root 2>/dev/null
      sleep "$(spell)"
    done) &
    FLAP_PID=$!
  fi
  for r in $(seq 0 15); do
    pre=()
    [[ -n "${SLOW_HOST:-}" && $((r % 8)) -eq $SLOW_HOST ]] &&
      pre=(env LD_PRELOAD="$SLOW_SEND" COMMBENCH_SEND_DELAY_US="${DELAY:-2000}")
    "$VC" exec "$T/c" $((r % 8)) "${pre[@]}" "$CB" accept --profile "$PROFILE" --rank "$r" --world 16 \
      --rendezvous "$VC_REDIS" --run-id "$id" --quiet --timeout 60 -o "$T/out.json" "${extra[@]}" \
      >"$T/rank-$r.log" 2>&1 &
    pids+=($!)
  done
  if [[ -n "${CPU_HOST:-}" ]]; then  # from here: ip netns exec mounts its own /sys, without the cgroups
    local ns_var="VC_NS_$CPU_HOST"
    sleep 0.5
    for p in $(ip netns pids "${!ns_var}"); do echo "$p" >"$CGROUP/cgroup.procs"; done
  fi
  wait "${pids[0]}"
  local code=$?
  for p in "${pids[@]:1}"; do wait "$p"; done
  end=$(date +%s.%N)
  [[ -n "${FLAP_PID:-}" ]] && { kill "$FLAP_PID" 2>/dev/null; wait "$FLAP_PID" 2>/dev/null; FLAP_PID=; }
  local first
  first=$(python3 -c '
import json, sys
a = json.load(open(sys.argv[1])).get("acceptance", {})
s = a.get("suspects", [])
drift = [h["host"] for h in a.get("hosts", []) if "drift" in h.get("reason_kinds", [])]
if drift: print("drift:" + ",".join(drift))
elif not s: print("none")
elif len(sys.argv) > 2:  # every suspect, each by its host: "all:H1,H2,..."
    print("all:" + ",".join(sorted({x.get("host", "") for x in s} | {x.get("peer", "") for x in s if x.get("peer")})))
else:
    x = s[0]; w = x.get("kind")
    print(w + ":" + x.get("host", "") + ("-" + x.get("peer", "") if w == "link" else "") + (":%d" % x["rank"] if w == "rank" else ""))
' "$T/out.json" ${ALL:+all} 2>/dev/null || echo "unreadable")
  echo "$code $(echo "$end - $start" | bc) $first"
}

printf "%-8s %5s %14s %6s %9s %7s\n" case runs expected-first passes median-s max-s
for case in ${CASES:-healthy host link rank}; do
  caps=() extra=() SLOW_HOST= FLAP_HOST= ALL=
  case $case in
    host) caps=(--cap-host "5:$CAP") ;;
    link) caps=(--cap-link "2-6:$CAP") ;;
    rank) extra=(--test-only-slow-rank 9:100000) ;;
    latency) SLOW_HOST=4 ;;
    cpu) CPU_HOST=6 ;;
    flap) FLAP_HOST=5 ;;
    multi) caps=(--cap-host "5:$CAP") SLOW_HOST=2 ALL=1 ;;
    multi3) caps=(--cap-host "5:$CAP") SLOW_HOST=2 ALL=1 extra=(--test-only-slow-rank 9:100000) ;;
    multiloss) caps=(--cap-host "5:$CAP") ALL=1 ;;
  esac
  if [[ $case == cpu ]]; then
    CGROUP=/sys/fs/cgroup/cpu/commbench-accept-$$
    mkdir -p "$CGROUP" && echo 100000 >"$CGROUP/cpu.cfs_period_us" &&
      echo $((${QUOTA:-5} * 1000)) >"$CGROUP/cpu.cfs_quota_us" || { echo "no cgroup v1 cpu controller" >&2; exit 1; }
  fi
  "$VC" up "$T/c" --hosts 8 --redis "${caps[@]}" >/dev/null || { echo "vcluster up failed" >&2; exit 1; }
  source "$T/c/env"
  [[ $case == drift ]] && ip netns exec "$VC_NS_3" ip link set eth0 mtu 1400
  if [[ $case == loss || $case == multiloss ]]; then
    command -v nft >/dev/null || { echo "the loss case needs nft: apt-get install nftables" >&2; exit 1; }
    ip netns exec "$VC_NS_3" nft add table inet cbloss &&
      ip netns exec "$VC_NS_3" nft add chain inet cbloss out '{ type filter hook output priority 0 ; }' &&
      ip netns exec "$VC_NS_3" nft add rule inet cbloss out numgen random mod 100 \< "${LOSS:-2}" drop ||
      { echo "nft loss rule failed" >&2; exit 1; }
  fi
  case $case in
    healthy) want="none" ;;
    host) want="host:$VC_ADDR_5" ;;
    link) want="link:$VC_ADDR_2-$VC_ADDR_6|link:$VC_ADDR_6-$VC_ADDR_2" ;;
    rank) want="host:$VC_ADDR_1|rank:$VC_ADDR_1:" ;;
    drift) want="drift:$VC_ADDR_3\$" ;;
    latency) want="host:$VC_ADDR_4" ;;
    cpu) want="host:$VC_ADDR_6|rank:$VC_ADDR_6:" ;;
    loss) want="host:$VC_ADDR_3" ;;
    flap) want="host:$VC_ADDR_5" ;;
    multi) want="$VC_ADDR_2 $VC_ADDR_5" ;;          # every one of them among the suspects
    multi3) want="$VC_ADDR_1 $VC_ADDR_2 $VC_ADDR_5" ;;
    multiloss) want="$VC_ADDR_3 $VC_ADDR_5" ;;
  esac
  hits=0 passes=0 times=()
  for i in $(seq 1 "$N"); do
    read -r code secs first < <(run_once "${extra[@]}")
    times+=("$secs")
    [[ $code -eq 0 ]] && passes=$((passes + 1))
    if [[ -n $ALL ]]; then
      all=1
      for h in $want; do [[ ",${first#all:}," == *",$h,"* ]] || all=0; done
      hits=$((hits + all))
    elif [[ "$first" =~ ^(${want//./\\.}) ]]; then hits=$((hits + 1)); fi
    echo "  $case run $i: exit $code, $secs s, first suspect $first" >&2
    [[ -n "${KEEP:-}" ]] && mkdir -p "$KEEP" && cp "$T/out.json" "$KEEP/$case-$i.json" 2>/dev/null
  done
  sorted=$(printf "%s\n" "${times[@]}" | sort -n)
  median=$(echo "$sorted" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  max=$(echo "$sorted" | tail -n 1)
  printf "%-8s %5d %14s %6d %9.1f %7.1f\n" "$case" "$N" "$hits/$N" "$passes" "$median" "$max"
  "$VC" down "$T/c" >/dev/null
  [[ -n "${CGROUP:-}" ]] && rmdir "$CGROUP" && CGROUP= CPU_HOST=
done
