#!/bin/bash
# Measured traffic against each host's interface counters on the namespace cluster (issue 34): HOSTS hosts
# (tools/vcluster.sh, a Redis on host 0), PER_HOST ranks on each (rank r on host r % HOSTS, so that ring neighbours
# sit on different hosts), one SPMD `commbench sweep` per case meeting in that Redis. Per host, the TX bytes of its
# eth0 (to the other hosts) and its lo (between its own ranks, and host 0's ranks to the Redis) over the whole sweep
# are compared with the sum of its ranks' measured bytes (per_rank[].traffic by transport address, timed loop,
# scaled to every data op: the warm-up, and the probes that plan a time budget's count) and with the model's
# (payload + framing), after taking off 66 B of headers per packet (14 Ethernet + 20 IP + 32 TCP with timestamps;
# acknowledgements are header-only packets). What is left ("rest") is control traffic: the store (Redis's own INFO
# counters, input + output, printed per case), the transports' connection setup, ARP; and TCP's retransmissions
# (segments counted per host, /proc/net/snmp).
# SRUN=1 also brings up Slurm on the hosts and adds the case "srun:traffic": `srun --distribution=cyclic ...
# commbench traffic --measure --rendezvous` (a DDP step of PARAMS bf16 gradients in 4 MiB buckets, every rank started
# by srun: SPMD), its printout, and its result file against the counters the same way (Slurm's own messages then
# add to the rest).
# Needs root (network namespaces). Usage: [HOSTS=4] [PER_HOST=2] [SIZE=4M] [ITERS=50] [CASES="native-tcp:ring ..."]
#   [SRUN=1] [PARAMS=30M] bench/traffic_vs_hosts.sh [path/to/commbench]
set -euo pipefail
cd "$(dirname "$0")/.."
CB="$(realpath "${1:-.bazel/bin/tools/commbench/commbench}")"
VC="$PWD/tools/vcluster.sh"
HOSTS="${HOSTS:-4}"
PER_HOST="${PER_HOST:-2}"
SIZE="${SIZE:-4M}"
ITERS="${ITERS:-50}"
CASES="${CASES:-native-tcp:ring native-tcp:hd gloo:ring gloo:halving_doubling}"
WORLD=$((HOSTS * PER_HOST))
SLURM=()
[[ "${SRUN:-0}" == 1 ]] && SLURM=(--slurm) && CASES="$CASES srun:traffic"
[[ -x "$CB" ]] || { echo "build first: bazel build //tools/commbench:commbench" >&2; exit 2; }
T=$(mktemp -d)
trap '"$VC" down "$T/c" >/dev/null 2>&1 || true; rm -rf "$T"' EXIT
"$VC" up "$T/c" --hosts "$HOSTS" --redis "${SLURM[@]}" >/dev/null
# shellcheck disable=SC1091
source "$T/c/env"
REDIS_HOST="${VC_REDIS#redis://}"

counters() {  # per host: "HOST eth0_tx_bytes eth0_tx_packets lo_tx_bytes lo_tx_packets tcp_retransmitted_segments"
  local i ns
  for ((i = 0; i < HOSTS; i++)); do
    ns="VC_NS_$i"
    # shellcheck disable=SC2016  # awk's own $13
    echo "$i $(ip netns exec "${!ns}" sh -c 'cd /sys/class/net && cat eth0/statistics/tx_bytes \
      eth0/statistics/tx_packets lo/statistics/tx_bytes lo/statistics/tx_packets
      awk '"'"'/^Tcp:/ && $13 ~ /^[0-9]+$/ {print $13}'"'"' /proc/net/snmp' | tr '\n' ' ')"
  done
}
redis_bytes() {  # the store's payload bytes so far, input + output
  ip netns exec "$VC_NS_0" redis-cli -h "${REDIS_HOST%:*}" -p "${REDIS_HOST#*:}" info stats |
    awk -F: '/^total_net_(input|output)_bytes/ {s += $2} END {print s}'
}

for c in $CASES; do
  backend="${c%%:*}" algo="${c#*:}" name="${c/:/_}"
  counters >"$T/$name.before"
  r0=$(redis_bytes)
  pids=() id="traffic-$name-$RANDOM$RANDOM"
  if [[ $backend == srun ]]; then  # rank r on host r % HOSTS, as below
    SLURM_CONF="$SLURM_CONF" timeout 600 srun -N "$HOSTS" -n "$WORLD" --overcommit --distribution=cyclic \
      "$CB" traffic --params "${PARAMS:-30M}" --bucket 4M --world "$WORLD" --measure --rendezvous "$VC_REDIS" \
      -o "$T/$name.json" >"$T/$name-0.log" 2>&1 &
    pids+=($!)
  else
    for ((r = 0; r < WORLD; r++)); do
      ns="VC_NS_$((r % HOSTS))"
      ip netns exec "${!ns}" "$CB" sweep --rank "$r" --world "$WORLD" --rendezvous "$VC_REDIS" \
        --run-id "$id" --backends "$backend" --algos "$algo" --groups 1 --group-size "$WORLD" \
        --sizes "$SIZE" --iters "$ITERS" --warmup 1 --timeout 60 -q -o "$T/$name.json" >"$T/$name-$r.log" 2>&1 &
      pids+=($!)
    done
  fi
  code=0
  for p in "${pids[@]}"; do wait "$p" || code=$?; done
  r1=$(redis_bytes)
  counters >"$T/$name.after"
  [[ $code -eq 0 ]] || { echo "$c: a rank failed (exit $code):" >&2; cat "$T/$name"-*.log >&2; exit 1; }
  echo "$((r1 - r0))" >"$T/$name.redis"
  if [[ $backend == srun ]]; then cat "$T/$name-0.log"; fi
done

grep "^VC_ADDR_" "$T/c/env" >"$T/addr"
python3 - "$T" "$HOSTS" "$CASES" <<'PY'
import json, sys
t, hosts, cases = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
host_of = {}
for line in open(f"{t}/addr"):
    k, v = line.strip().split("=")
    host_of[v] = int(k.rsplit("_", 1)[1])
print(f"{'case':26} {'host':>4} {'ranks':>5} {'eth0+lo TX B':>13} {'packets':>8} {'measured B':>12} {'model B':>12} "
      f"{'(if-hdr)/meas':>13} {'(if-hdr)/model':>14} {'rest B':>8} {'retrans':>7}")
for c in cases:
    name = c.replace(":", "_")
    def read(path):
        return {int(f[0]): [int(x) for x in f[1:]] for f in (l.split() for l in open(path))}
    before, after = read(f"{t}/{name}.before"), read(f"{t}/{name}.after")
    meas, model, ranks = [0.0] * hosts, [0.0] * hosts, [set() for _ in range(hosts)]
    result = json.load(open(f"{t}/{name}.json"))
    # Without --iters the loop plans the count from max(warm-up, 3) untimed probes: they cross the wire too.
    adaptive = result["spec"]["iters"] == 0
    for p in result["points"]:
        for r in p["per_rank"]:
            x, h = r["traffic"], host_of[r["address"]]
            ops = x["ops"] + p["warmup"] + (max(p["warmup"], 3) if adaptive else 0)
            meas[h] += x["sent_bytes"] / x["ops"] * ops
            model[h] += (x["model_sent_bytes_per_op"] + x["model_framing_bytes_per_op"]) * ops
            ranks[h].add(r["rank"])
    for h in range(hosts):
        b = [a - z for a, z in zip(after[h], before[h])]
        tx, packets = b[0] + b[2], b[1] + b[3]
        net = tx - 66 * packets
        print(f"{c:26} {h:4d} {len(ranks[h]):5d} {tx:13d} {packets:8d} {meas[h]:12.0f} {model[h]:12.0f} "
              f"{net / meas[h]:13.4f} {net / model[h]:14.4f} {net - model[h]:8.0f} {b[4]:7d}")
    print(f"{c:26} store (Redis INFO, in + out): {int(open(f'{t}/{name}.redis').read())} B")
PY
