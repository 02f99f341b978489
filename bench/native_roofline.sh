#!/bin/bash
# The native shm collectives against their roofline (bench/archive.md, "Native collectives against the memory
# roofline"): in one run, the host's copy peak (glibc memcpy and native::Copy of 64 MiB, one core and every core at once,
# //bench:reduce_bench) and `commbench sweep --backends native` of allreduce, allgather and reduce-scatter at
# 16-64 MiB on 2, 4 and 8 ranks; prints per point the bus bandwidth, the bound the roofline allows from the
# measured peak, and their ratio.
#
#   bench/native_roofline.sh [ROUNDS]       # default 2 rounds; each round measures the peak, then sweeps
#   SIZES=16M,64M RANKS=2,4 OPS=allreduce ITERS=10 bench/native_roofline.sh
#   COMMBENCH=/tmp/other/commbench bench/native_roofline.sh   # another build (e.g. before a change)
#   INPROCESS=1 bench/native_roofline.sh    # //bench:shm_bench instead: ranks as threads of one process, 2 and 4
#                                           # ranks, 16 and 64 MiB, without the sweep's harness in between
#   KEEP=DIR keeps the rounds' files; FROM=DIR prints the table of such a folder again without running.
#   VS=/tmp/before/commbench bench/native_roofline.sh 8   # an A/B: each round also sweeps that build, the two
#                                           # alternated (order flipped every round); prints this / VS per point
#
# Per point and round, the sweep's p50 against the peaks taken just before and after that round's sweep; the table
# prints the medians over the rounds and the ratios' range. It also prints the load average.
# Needs: bazel build //tools/commbench //bench:reduce_bench (and //bench:shm_bench for INPROCESS)
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
# sum over the threads. Each round's sweep is judged against the peaks taken just before and just after it (the
# better of the two): on a shared host the memory bandwidth itself moves from minute to minute.
def peaks(files):
    one = every = 0.0
    cores = 1
    for f in files:
        for b in json.load(open(f))["benchmarks"]:
            if b.get("run_type") != "iteration": continue
            gbps = int(b["name"].split("/")[1]) / (b["real_time"] * 1e-9) / 1e9  # bytes copied per second
            if "AllCores" in b["name"]:
                every, cores = max(every, gbps), b.get("threads", 1)
            else:
                one = max(one, gbps)
    return one, every, cores

def median(xs):
    xs = sorted(xs)
    return (xs[(len(xs) - 1) // 2] + xs[len(xs) // 2]) / 2

def points(r):  # (op, ranks, size, algo, p50 or mean us per op) of round r
    if os.path.exists(f"{work}/sweep_{r}.json"):
        for p in json.load(open(f"{work}/sweep_{r}.json"))["points"]:
            if p.get("correct", True):
                yield p["op"], p["group_size"], p["bytes"], p.get("algo", "?"), p["time_us"]["p50"]
    else:  # shm_bench: BM_Shm/<op>_large/<size>/real_time/threads:<n>; real_time spans all threads' iterations
        for b in json.load(open(f"{work}/shm_{r}.json"))["benchmarks"]:
            if b.get("run_type") != "iteration" or b.get("error_occurred"): continue
            parts = b["name"].split("/")
            yield (parts[1].replace("_large", ""), b["threads"], int(parts[2]), b.get("label", "?"),
                   b["real_time"] * b["threads"] / 1e3)

rows = {}  # (op, n, size) -> [(p50 us, busbw, bound, algo)] one per round
rounds = sorted(int(os.path.basename(f).split("_")[1].split(".")[0])
                for f in glob.glob(f"{work}/sweep_*.json") + glob.glob(f"{work}/shm_*.json"))
seen = []
for r in rounds:
    one, every, cores = peaks([f for f in (f"{work}/peak_{r}.json", f"{work}/peak_{r + 1}.json") if os.path.exists(f)])
    if one <= 0 or every <= 0: continue
    seen.append((one, every))
    for op, n, size, algo, t in points(r):
        b = rank_bytes(op, algo, n)
        if b is None: continue
        bound_s = max(b * size / (2 * one * 1e9), n * b * size / (2 * every * 1e9))
        busbw = size / (t * 1e-6) / 1e9 * bus_factor(op, n)
        bound = size / bound_s / 1e9 * bus_factor(op, n)
        rows.setdefault((op, n, size), []).append((t, busbw, bound, algo))
if seen:
    print(f"copy peak (64 MiB, best of memcpy and native Copy), per round: one core "
          f"{min(o for o, _ in seen):.2f}-{max(o for o, _ in seen):.2f} GB/s, {cores} cores at once "
          f"{min(e for _, e in seen):.2f}-{max(e for _, e in seen):.2f} GB/s in all")
print("bound: t >= max(B / (2 one-core), n B / (2 all-cores)), B = bytes a rank reads + writes (a copy moves 2 per byte)")
print("per round: busbw / bound against that round's peaks; the columns are medians over the rounds")
print(f"{'op':>15} {'n':>2} {'size':>5} {'algo':>8} {'B/S':>5} {'p50 us':>9} {'busbw':>7} {'bound':>7} {'ratio':>6}  rounds (min-max)")
for (op, n, size), rs in sorted(rows.items()):
    ratios = [bw / bound for _, bw, bound, _ in rs]
    print(f"{op:>15} {n:>2} {size >> 20:>4}M {rs[0][3]:>8} {rank_bytes(op, rs[0][3], n):5.2f} "
          f"{median([t for t, *_ in rs]):9.0f} {median([bw for _, bw, _, _ in rs]):7.2f} "
          f"{median([bd for _, _, bd, _ in rs]):7.2f} {median(ratios):6.2f}  {len(rs)} ({min(ratios):.2f}-{max(ratios):.2f})")

# VS: the other build's p50 of the same round, this / VS per round (the two swept back to back).
vs = {}
for r in rounds:
    if not os.path.exists(f"{work}/vs_{r}.json"): continue
    theirs = {(p["op"], p["group_size"], p["bytes"]): p["time_us"]["p50"]
              for p in json.load(open(f"{work}/vs_{r}.json"))["points"] if p.get("correct", True)}
    for op, n, size, _, t in points(r):
        if (op, n, size) in theirs: vs.setdefault((op, n, size), []).append((t, theirs[(op, n, size)]))
if vs:
    print("against VS, the same rounds: p50 of this build / p50 of VS (< 1: this build faster), median and range")
    print(f"{'op':>15} {'n':>2} {'size':>5} {'this us':>9} {'VS us':>9} {'this/VS':>8}  rounds (min-max)")
    for (op, n, size), ts in sorted(vs.items()):
        ratios = [a / b for a, b in ts]
        print(f"{op:>15} {n:>2} {size >> 20:>4}M {median([a for a, _ in ts]):9.0f} {median([b for _, b in ts]):9.0f} "
              f"{median(ratios):8.2f}  {len(ts)} ({min(ratios):.2f}-{max(ratios):.2f})")
EOF
}

if [[ -n ${FROM:-} ]]; then
  report "$FROM"
  exit
fi
commbench=${COMMBENCH:-$root/.bazel/bin/tools/commbench/commbench}
reduce_bench=${REDUCE_BENCH:-$root/.bazel/bin/bench/reduce_bench}
shm_bench=${SHM_BENCH:-$root/.bazel/bin/bench/shm_bench}
needed=("$commbench" "$reduce_bench" ${VS:+"$VS"})
[[ -n ${INPROCESS:-} ]] && needed=("$shm_bench" "$reduce_bench")
for b in "${needed[@]}"; do
  [[ -x $b ]] || { echo "commbench: error: $b not built: bazel build //tools/commbench //bench:reduce_bench //bench:shm_bench" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/native_roofline.XXXXXX")
if [[ -n ${KEEP:-} ]]; then
  mkdir -p "$KEEP"
  trap 'cp -r "$work"/. "$KEEP"/ && rm -rf "$work"' EXIT
else
  trap 'rm -rf "$work"' EXIT
fi

echo "# start $(date -u +%FT%TZ), $(uptime | sed 's/.*load/load/'), rounds $rounds, ${needed[0]}"
for ((r = 1; r <= rounds; r++)); do
  "$reduce_bench" --benchmark_filter='BM_(Memcpy|Copy)(AllCores)?/67108864' --benchmark_min_time=0.2 \
    --benchmark_format=json >"$work/peak_$r.json" 2>/dev/null
  if [[ -n ${INPROCESS:-} ]]; then
    "$shm_bench" --benchmark_filter=large --benchmark_min_time=0.3 --benchmark_format=json >"$work/shm_$r.json" \
      2>"$work/shm_$r.err" || { cat "$work/shm_$r.err" >&2; exit 1; }
    continue
  fi
  sides=(sweep)
  if [[ -n ${VS:-} ]]; then
    sides=(sweep vs)
    ((r % 2)) || sides=(vs sweep)
  fi
  for side in "${sides[@]}"; do
    bin=$commbench
    [[ $side == vs ]] && bin=$VS
    "$bin" sweep --no-explain --no-html --backends native --ops "${OPS:-allreduce,allgather,reduce_scatter}" \
      --sizes "${SIZES:-16M,32M,64M}" --group-size "${RANKS:-2,4,8}" --groups 1 --iters "${ITERS:-10}" --warmup 3 \
      --quiet --out "$work/${side}_$r.json" >/dev/null 2>"$work/${side}_$r.err" || { cat "$work/${side}_$r.err" >&2; exit 1; }
  done
done
"$reduce_bench" --benchmark_filter='BM_(Memcpy|Copy)(AllCores)?/67108864' --benchmark_min_time=0.2 \
  --benchmark_format=json >"$work/peak_$((rounds + 1)).json" 2>/dev/null
echo "# end   $(date -u +%FT%TZ), $(uptime | sed 's/.*load/load/')"
report "$work"
