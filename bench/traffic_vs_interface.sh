#!/bin/bash
# Measured traffic against an independent counter (issue 34): each sweep runs in a private network namespace
# (unshare -n, gone when it exits), whose loopback interface carries only the run's own traffic; `ip -s link`'s TX
# bytes over the whole sweep are compared with the sum of the ranks' measured bytes (per_rank[].traffic, timed
# loop) scaled to every data op (warm-up included), before and after taking off the headers the interface also
# counts (66 B per packet on lo: 14 Ethernet + 20 IP + 32 TCP with timestamps), and with the model's bytes (payload
# plus the backend's framing, per rank, summed). 4 ranks, and 3 for Gloo's halving-doubling binary blocks.
# Usage: bench/traffic_vs_interface.sh [path/to/commbench]   (root: unshare -n)
set -euo pipefail
BIN="$(realpath "${1:-.bazel/bin/tools/commbench/commbench}")"
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
cd "$W"
one() {  # BACKEND ALGO RANKS: prints "BACKEND ALGO RANKS lo_bytes lo_packets"
  unshare -n bash -c '
    ip link set lo up
    tx() { ip -s -j link show lo | python3 -c "import json,sys; s=json.load(sys.stdin)[0][\"stats64\"][\"tx\"]; print(s[\"bytes\"], s[\"packets\"])"; }
    read b0 p0 < <(tx)
    "$0" sweep --no-explain --no-html --backends "$1" --algos "$2" --groups 1 --group-size "$3" --sizes 4M --iters 50 --warmup 1 -q \
      -o "r_$1_$2_$3.json" >/dev/null 2>&1
    read b1 p1 < <(tx)
    echo "$1 $2 $3 $((b1 - b0)) $((p1 - p0))"' "$BIN" "$1" "$2" "$3"
}
for run in "native-tcp ring 4" "native-tcp hd 4" "gloo ring 4" "gloo halving_doubling 4" "gloo halving_doubling 3"; do
  one $run
done > lo.txt
python3 - <<'PY'
import json
print(f"{'backend algo ranks':32} {'lo TX B':>12} {'packets':>8} {'measured B':>12} {'lo/meas':>8} "
      f"{'(lo-hdr)/meas':>13} {'(lo-hdr)/model':>14}")
for line in open("lo.txt"):
    backend, algo, n, lo, packets = line.split(); lo, packets = int(lo), int(packets)
    for p in json.load(open(f"r_{backend}_{algo}_{n}.json"))["points"]:
        t = [r["traffic"] for r in p["per_rank"]]
        ops = t[0]["ops"] + p["warmup"]
        measured = sum(x["sent_bytes"] for x in t) / t[0]["ops"] * ops
        model = sum(x["model_sent_bytes_per_op"] + x["model_framing_bytes_per_op"] for x in t) * ops
        print(f"{backend + ' ' + algo + ' ' + n:32} {lo:12d} {packets:8d} {measured:12.0f} {lo / measured:8.4f} "
              f"{(lo - 66 * packets) / measured:13.4f} {(lo - 66 * packets) / model:14.4f}")
PY
