#!/usr/bin/env bash
# Is commbench's headline what the user's loop feels? Reference scenario A side by side: the bare Gloo loop
# (bench/gloo_bare_loop: G pairs, 1024 allreduces of 100 floats, nothing else) and
# `commbench sweep --groups G --sizes 400 --iters 1024 --backends gloo`, for each G, R repeats, interleaved (the
# order alternates per repeat) so that both sides see the same load. Prints per G the medians over repeats:
# the bare loop's makespan per iteration, commbench's headline mean (the loop cost per op) and p50, its
# loop_us_per_op (wall / iterations), the old headline (per-iteration max across the whole world, from the raw
# samples), the ratio headline mean / bare, and the growth G=last / G=first of both.
#
# Usage: bench/headline_vs_bare.sh [REPEATS]   (default 3; GROUP_COUNTS="1 2 4 8", ITERS=1024 override;
#        COMMBENCH_FLAGS="--check-rate 0" adds flags to commbench's side, for ablations)
# Needs: bazel build //bench:gloo_bare_loop //tools/commbench (binaries from `bazel info bazel-bin`, or BIN_DIR).
set -euo pipefail

repeats=${1:-3}
if ! [[ $repeats =~ ^[1-9][0-9]*$ ]]; then
  echo "commbench: error: repeats '$repeats': expected a positive integer" >&2
  exit 2
fi
group_counts=${GROUP_COUNTS:-1 2 4 8}
iters=${ITERS:-1024}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${BIN_DIR:-$(cd "$root" && bazel info bazel-bin 2>/dev/null)}
bare=$bin/bench/gloo_bare_loop
commbench=$bin/tools/commbench/commbench
for b in "$bare" "$commbench"; do
  [[ -x $b ]] || { echo "commbench: error: $b not built: bazel build //bench:gloo_bare_loop //tools/commbench" >&2; exit 2; }
done

work=$(mktemp -d /tmp/headline_vs_bare.XXXXXX)
trap 'rm -rf "$work"' EXIT

run_bare() {  # G REPEAT; one retry: about 1 run in 40 at G=8 on a loaded host still loses a peer at connect or exit
  local out
  out=$("$bare" --groups "$1" --iters "$iters" --count 100 2>"$work/bare.err") ||
    out=$("$bare" --groups "$1" --iters "$iters" --count 100) || { cat "$work/bare.err" >&2; exit 1; }
  echo "$1 $2 ${out##* }" >>"$work/bare.txt"
}
run_commbench() {  # G REPEAT
  # shellcheck disable=SC2086  # COMMBENCH_FLAGS is a list of flags
  "$commbench" sweep --groups "$1" --sizes 400 --iters "$iters" --backends gloo ${COMMBENCH_FLAGS:-} \
    --out "$work/cb_g$1_r$2.json" \
    >/dev/null 2>"$work/cb_g$1_r$2.err" || { cat "$work/cb_g$1_r$2.err" >&2; exit 1; }
}

echo "# start $(date -u +%FT%TZ), $(uptime | sed 's/.*load/load/'), repeats $repeats, G in: $group_counts"
for ((r = 1; r <= repeats; r++)); do
  for g in $group_counts; do
    if ((r % 2)); then run_bare "$g" "$r"; run_commbench "$g" "$r"; else run_commbench "$g" "$r"; run_bare "$g" "$r"; fi
  done
done
echo "# end   $(date -u +%FT%TZ), $(uptime | sed 's/.*load/load/')"

python3 - "$work" <<'EOF'
import json, random, statistics, sys
work = sys.argv[1]

def median_interval(values, resamples=2000):
    # 95% percentile bootstrap interval of the median (fixed seed: the same runs give the same interval).
    rng = random.Random(11)
    meds = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(resamples))
    return meds[int(0.025 * resamples)], meds[int(0.975 * resamples) - 1]

def within_10(lo, hi):
    # The target: within 10 % of the bare loop. Said only where the interval settles it.
    if 0.9 <= lo and hi <= 1.1:
        return "yes"
    if hi < 0.9 or lo > 1.1:
        return "no"
    return "cannot tell"

bare = {}
for line in open(f"{work}/bare.txt"):
    g, r, us = line.split()
    bare[(int(g), int(r))] = float(us)
rows = {}
for (g, r), bare_us in sorted(bare.items()):
    doc = json.load(open(f"{work}/cb_g{g}_r{r}.json"))
    (point,) = doc["points"]
    (samples,) = [json.loads(l) for l in open(f"{work}/cb_g{g}_r{r}.samples.jsonl")]
    per_rank = samples["per_rank"]
    world_max = [max(rank[i] for rank in per_rank) for i in range(min(map(len, per_rank)))]
    rows.setdefault(g, []).append({
        "bare": bare_us, "mean": point["time_us"]["mean"], "p50": point["time_us"]["p50"],
        "loop": point.get("loop_us_per_op", float("nan")),
        "old_p50": statistics.median(world_max), "old_mean": statistics.fmean(world_max)})
med = {g: {k: statistics.median(x[k] for x in rs) for k in rs[0]} for g, rs in rows.items()}
ratio = {g: statistics.median(x["mean"] / x["bare"] for x in rs) for g, rs in rows.items()}
print("| G | bare us/iter | commbench mean (loop cost) | commbench p50 | loop_us_per_op | mean / bare "
      "| 95% interval of that median | within 10 %? | min..max of mean / bare | old headline p50 / mean (world max) |")
print("|---|---|---|---|---|---|---|---|---|---|")
for g in sorted(med):
    m = med[g]
    each = [x["mean"] / x["bare"] for x in rows[g]]
    lo, hi = median_interval(each)
    print(f"| {g} | {m['bare']:.1f} | {m['mean']:.1f} | {m['p50']:.1f} | {m['loop']:.1f} | {ratio[g]:.3f} "
          f"| {lo:.3f}..{hi:.3f} | {within_10(lo, hi)} "
          f"| {min(each):.3f}..{max(each):.3f} | {m['old_p50']:.1f} / {m['old_mean']:.1f} |")
lo, hi = min(med), max(med)
if lo != hi:
    grow_bare = med[hi]["bare"] / med[lo]["bare"]
    grow_cb = med[hi]["mean"] / med[lo]["mean"]
    grow_old = med[hi]["old_p50"] / med[lo]["old_p50"]
    print(f"\ngrowth G={hi}/G={lo}: bare {grow_bare:.2f}x, commbench mean {grow_cb:.2f}x, "
          f"ratio {grow_cb / grow_bare:.3f} (old headline p50: {grow_old:.2f}x)")
print(f"(medians over {len(next(iter(rows.values())))} repeats; per-repeat ratios min..max)")
EOF
