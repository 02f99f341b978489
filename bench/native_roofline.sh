#!/bin/bash
# The native shm collectives against their roofline (bench/README.md, "Native collectives against the memory
# roofline"): in one run, the host's copy peak (glibc memcpy and native::Copy of 64 MiB, one core and every core at once,
# //bench:reduce_bench) and `commbench sweep --backends native` of allreduce, allgather and reduce-scatter at
# 16-64 MiB on 2, 4 and 8 ranks; prints per point the bus bandwidth, the bound the roofline allows from the
# measured peak, and their ratio.
#
#   bench/native_roofline.sh [ROUNDS]       # default 2 rounds; each round measures the peak, then sweeps
#   SIZES=16M,64M RANKS=2,4 OPS=allreduce ITERS=10 bench/native_roofline.sh
#   COMMBENCH=/tmp/other/commbench bench/native_roofline.sh   # another build (e.g. before a change)
#   KEEP=DIR keeps the rounds' files; FROM=DIR prints the table of such a folder again without running.
#
# Per point the best p50 over the rounds and the best peak over the rounds are compared (a peak is the best seen;
# on a shared host the best round is the least disturbed one). The table also prints the load average.
# Needs: bazel build //tools/commbench //bench:reduce_bench
set -euo pipefail

rounds=${1:-2}
if ! [[ $rounds =~ ^[1-9][0-9]*$ ]]; then
  echo "commbench: error: rounds '$rounds': expected a positive integer" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)

report() {  # DIR
python3 - "$1" <<'EOF'
import glob, json, os, sys
work = sys.argv[1]

# Bytes each rank reads plus writes per op, in units of S (the nccl-tests size: per-rank buffer for allreduce,
# the whole gathered / scattered vector for allgather and reduce-scatter), out of place, by algorithm.
def rank_bytes(op, algo, n):
    if op == "allreduce" and algo == "twoshot": return (3 * n - 1) / n   # reduce S/n from n inputs, copy (n-1)/n S
    if op == "allreduce" and algo == "direct": return n + 1              # read n inputs, write S
    if op == "allreduce" and algo == "ring": return 5 * (n - 1) / n
    if op == "allgather" and algo in ("direct", "ring"): return 2.0      # read S, write S (own block included)
    if op == "reduce_scatter" and algo == "direct": return (n + 1) / n   # read S (n blocks), write S/n
    if op == "reduce_scatter" and algo == "ring": return 3 * (n - 1) / n   # n-1 steps: read 2 blocks, write 1
    return None

def bus_factor(op, n):
    return 2 * (n - 1) / n if op == "allreduce" else (n - 1) / n

# The peaks: bytes copied per second at 64 MiB, the best of glibc's memcpy and native::Copy (streaming stores,
# as the collectives write their large outputs; where memcpy pays a read-for-ownership of dst it moves 3 bytes per
# 2 counted, and understates what memory allows). One core alone, and every core at once: Google Benchmark's
# real_time of a threaded run is the wall time over all threads' iterations, so size / real_time is already the
# sum over the threads.
peak1 = peak_all = 0.0
cores = 1
for f in glob.glob(f"{work}/peak_*.json"):
    for b in json.load(open(f))["benchmarks"]:
        if b.get("run_type") != "iteration": continue
        gbps = int(b["name"].split("/")[1]) / (b["real_time"] * 1e-9) / 1e9  # bytes copied per second
        if "AllCores" in b["name"]:
            peak_all, cores = max(peak_all, gbps), b.get("threads", 1)
        else:
            peak1 = max(peak1, gbps)
best = {}
for f in sorted(glob.glob(f"{work}/sweep_*.json")):
    for p in json.load(open(f))["points"]:
        if not p.get("correct", True): continue
        key = (p["op"], p["group_size"], p["bytes"])
        t = p["time_us"]["p50"]
        if key not in best or t < best[key][0]: best[key] = (t, p.get("algo", "?"))
print(f"copy peak (64 MiB, best of memcpy and native Copy and of the rounds): one core {peak1:.2f} GB/s, {cores} cores at once {peak_all:.2f} GB/s in all")
print("bound: t >= max(B / (2 one-core), n B / (2 all-cores)), B = bytes a rank reads + writes (a copy moves 2 per byte)")
print(f"{'op':>15} {'n':>2} {'size':>5} {'algo':>8} {'B/S':>5} {'p50 us':>9} {'busbw':>7} {'bound':>7} {'ratio':>6}")
for (op, n, size), (t, algo) in sorted(best.items()):
    b = rank_bytes(op, algo, n)
    if b is None or peak1 <= 0: continue
    bound_s = max(b * size / (2 * peak1 * 1e9), n * b * size / (2 * peak_all * 1e9))
    busbw = size / (t * 1e-6) / 1e9 * bus_factor(op, n)
    bound = size / bound_s / 1e9 * bus_factor(op, n)
    print(f"{op:>15} {n:>2} {size >> 20:>4}M {algo:>8} {b:5.2f} {t:9.0f} {busbw:7.2f} {bound:7.2f} {busbw / bound:6.2f}")
EOF
}

if [[ -n ${FROM:-} ]]; then
  report "$FROM"
  exit
fi
commbench=${COMMBENCH:-$root/.bazel/bin/tools/commbench/commbench}
reduce_bench=${REDUCE_BENCH:-$root/.bazel/bin/bench/reduce_bench}
for b in "$commbench" "$reduce_bench"; do
  [[ -x $b ]] || { echo "commbench: error: $b not built: bazel build //tools/commbench //bench:reduce_bench" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/native_roofline.XXXXXX")
if [[ -n ${KEEP:-} ]]; then
  mkdir -p "$KEEP"
  trap 'cp -r "$work"/. "$KEEP"/ && rm -rf "$work"' EXIT
else
  trap 'rm -rf "$work"' EXIT
fi

echo "# start $(date -u +%FT%TZ), $(uptime | sed 's/.*load/load/'), rounds $rounds, $commbench"
for ((r = 1; r <= rounds; r++)); do
  "$reduce_bench" --benchmark_filter='BM_(Memcpy|Copy)(AllCores)?/67108864' --benchmark_min_time=0.2 \
    --benchmark_format=json >"$work/peak_$r.json" 2>/dev/null
  "$commbench" sweep --backends native --ops "${OPS:-allreduce,allgather,reduce_scatter}" \
    --sizes "${SIZES:-16M,32M,64M}" --group-size "${RANKS:-2,4,8}" --groups 1 --iters "${ITERS:-10}" --warmup 3 \
    --quiet --out "$work/sweep_$r.json" >/dev/null 2>"$work/sweep_$r.err" || { cat "$work/sweep_$r.err" >&2; exit 1; }
done
echo "# end   $(date -u +%FT%TZ), $(uptime | sed 's/.*load/load/')"
report "$work"
