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
#        COMMBENCH_FLAGS="--check-rate 0" adds flags to commbench's side, for ablations, BARE_FLAGS to the bare
#        loop's (both "--pin compact": each pair on one CPU, as commbench places them); KEEP=DIR keeps the
#        runs' files there; FROM=DIR reads such a folder again without running anything)
# Needs: bazel build //bench:gloo_bare_loop //tools/commbench (binaries from `bazel info bazel-bin`, or BIN_DIR).
set -euo pipefail

repeats=${1:-3}
if ! [[ $repeats =~ ^[1-9][0-9]*$ ]]; then
  echo "commbench: error: repeats '$repeats': expected a positive integer" >&2
  exit 2
fi
group_counts=${GROUP_COUNTS:-1 2 4 8}
iters=${ITERS:-1024}
analyse() {  # DIR: the runs' files -> the table
python3 - "$1" <<'EOF'
import json, random, statistics, sys
work = sys.argv[1]

def percentile_interval(estimates):
    estimates = sorted(estimates)
    return estimates[int(0.025 * len(estimates))], estimates[int(0.975 * len(estimates)) - 1]

def median_interval(values, resamples=2000):
    # 95% percentile bootstrap interval of the median (fixed seed: the same runs give the same interval).
    rng = random.Random(11)
    return percentile_interval(statistics.median(rng.choices(values, k=len(values))) for _ in range(resamples))

def mean_ratio_interval(num, den, resamples=2000):
    # Each side resampled on its own: a repeat's two runs are apart in time, and on an oversubscribed host their
    # costs are not correlated (G=4, 40 repeats: r = -0.08 of the logs), so the pairing carries nothing.
    rng = random.Random(13)
    return percentile_interval(statistics.fmean(rng.choices(num, k=len(num))) /
                               statistics.fmean(rng.choices(den, k=len(den))) for _ in range(resamples))

def growth_ratio_interval(cb_lo, cb_hi, bare_lo, bare_hi, resamples=2000):
    # (commbench's mean at the last G / at the first) over the bare loop's, every series resampled on its own.
    rng = random.Random(17)
    mean = lambda xs: statistics.fmean(rng.choices(xs, k=len(xs)))
    return percentile_interval((mean(cb_hi) / mean(cb_lo)) / (mean(bare_hi) / mean(bare_lo))
                               for _ in range(resamples))

def within(lo, hi, tolerance):
    # The target: within `tolerance` of the bare loop. Said only where the interval settles it.
    if 1 - tolerance <= lo and hi <= 1 + tolerance:
        return "yes"
    if hi < 1 - tolerance or lo > 1 + tolerance:
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
series = {g: {k: [x[k] for x in rs] for k in ("bare", "mean")} for g, rs in rows.items()}
print("| G | bare us/iter | commbench mean (loop cost) | commbench p50 | loop_us_per_op "
      "| mean / bare: median of the repeats' ratios (95% interval) | within 10 %? "
      "| ratio of the means over repeats (95% interval) | within 10 %? "
      "| min..max of mean / bare | old headline p50 / mean (world max) |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for g in sorted(med):
    m = med[g]
    each = [x["mean"] / x["bare"] for x in rows[g]]
    lo, hi = median_interval(each)
    of_means = statistics.fmean(series[g]["mean"]) / statistics.fmean(series[g]["bare"])
    mlo, mhi = mean_ratio_interval(series[g]["mean"], series[g]["bare"])
    print(f"| {g} | {m['bare']:.1f} | {m['mean']:.1f} | {m['p50']:.1f} | {m['loop']:.1f} "
          f"| {statistics.median(each):.3f} ({lo:.3f}..{hi:.3f}) | {within(lo, hi, 0.10)} "
          f"| {of_means:.3f} ({mlo:.3f}..{mhi:.3f}) | {within(mlo, mhi, 0.10)} "
          f"| {min(each):.3f}..{max(each):.3f} | {m['old_p50']:.1f} / {m['old_mean']:.1f} |")
lo, hi = min(med), max(med)
if lo != hi:
    grow_bare = med[hi]["bare"] / med[lo]["bare"]
    grow_cb = med[hi]["mean"] / med[lo]["mean"]
    grow_old = med[hi]["old_p50"] / med[lo]["old_p50"]
    print(f"\ngrowth G={hi}/G={lo} (medians): bare {grow_bare:.2f}x, commbench mean {grow_cb:.2f}x, "
          f"ratio {grow_cb / grow_bare:.3f} (old headline p50: {grow_old:.2f}x)")
    mean = statistics.fmean
    of_means = ((mean(series[hi]["mean"]) / mean(series[lo]["mean"])) /
                (mean(series[hi]["bare"]) / mean(series[lo]["bare"])))
    glo, ghi = growth_ratio_interval(series[lo]["mean"], series[hi]["mean"], series[lo]["bare"], series[hi]["bare"])
    print(f"growth G={hi}/G={lo} (means over repeats): commbench's over the bare loop's {of_means:.3f} "
          f"(95% interval {glo:.3f}..{ghi:.3f}), within 15 %? {within(glo, ghi, 0.15)}")
print(f"(medians over {len(next(iter(rows.values())))} repeats; per-repeat ratios min..max)")
EOF
}

if [[ -n ${FROM:-} ]]; then
  analyse "$FROM"
  exit
fi
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${BIN_DIR:-$(cd "$root" && bazel info bazel-bin 2>/dev/null)}
bare=$bin/bench/gloo_bare_loop
commbench=$bin/tools/commbench/commbench
for b in "$bare" "$commbench"; do
  [[ -x $b ]] ||
    { echo "commbench: error: $b not built: bazel build //bench:gloo_bare_loop //tools/commbench" >&2; exit 2; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/headline_vs_bare.XXXXXX")
if [[ -n ${KEEP:-} ]]; then
  mkdir -p "$KEEP"
  trap 'cp -r "$work"/. "$KEEP"/ && rm -rf "$work"' EXIT
else
  trap 'rm -rf "$work"' EXIT
fi

run_bare() {  # G REPEAT; one retry: about 1 run in 40 at G=8 on a loaded host still loses a peer at connect or exit
  local out
  # shellcheck disable=SC2086  # BARE_FLAGS is a list of flags
  out=$("$bare" --groups "$1" --iters "$iters" --count 100 ${BARE_FLAGS:-} 2>"$work/bare.err") ||
    out=$("$bare" --groups "$1" --iters "$iters" --count 100 ${BARE_FLAGS:-}) || { cat "$work/bare.err" >&2; exit 1; }
  echo "$1 $2 ${out##* }" >>"$work/bare.txt"
}
run_commbench() {  # G REPEAT
  # shellcheck disable=SC2086  # COMMBENCH_FLAGS is a list of flags
  "$commbench" sweep --no-explain --no-html --groups "$1" --sizes 400 --iters "$iters" --backends gloo ${COMMBENCH_FLAGS:-} \
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

analyse "$work"
