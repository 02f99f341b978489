#!/bin/bash
# Runs native, mpi and gloo side by side in one `commbench sweep` (ranks started by mpirun so that every backend,
# mpi included, can run) and prints, per collective and size, each backend's p50 and the ratios native/mpi and
# native/gloo, with the targets of issue 3 where they apply.
#
#   bench/compare.sh                                   # 2 ranks, f32 sum, 8 B .. 64 MiB, all three collectives
#   bench/compare.sh --group-size 8                    # oversubscribed: 8 ranks on this host's cores
#   bench/compare.sh --sizes 64,1M --ops allreduce     # any sweep flag passes through and replaces the default
#   COMMBENCH=path/to/commbench OUT=/tmp/x.json bench/compare.sh
#   bench/compare.sh --report FILE                     # only print the table of an earlier result file
set -euo pipefail

out="${OUT:-compare-results.json}"
if [[ "${1:-}" == "--report" ]]; then
  out="$2"
else
  bin="${COMMBENCH:-}"
  if [[ -z "$bin" ]]; then
    for candidate in .bazel/bin/tools/commbench/commbench "$(command -v commbench || true)"; do
      if [[ -n "$candidate" && -x "$candidate" ]]; then bin="$candidate"; break; fi
    done
  fi
  [[ -n "$bin" ]] || { echo "compare.sh: build //tools/commbench or set COMMBENCH" >&2; exit 2; }
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # Defaults; a flag given on the command line replaces its default (the CLI takes each flag once).
  declare -A flags=([--backends]=native,mpi,gloo [--ops]=allreduce,allgather,reduce_scatter [--sizes]=8..64M:x2
                    [--groups]=1 [--group-size]=2 [--dtypes]=f32 [--reduce]=sum [--launcher]=mpirun [--out]="$out")
  extra=()
  while [[ $# -gt 0 ]]; do
    if [[ "$1" == --*=* ]]; then flags[${1%%=*}]="${1#*=}"; shift
    elif [[ $# -ge 2 && "$2" != --* ]]; then flags[$1]="$2"; shift 2
    else extra+=("$1"); shift; fi
  done
  out="${flags[--out]}"
  args=()
  for f in "${!flags[@]}"; do args+=("$f" "${flags[$f]}"); done
  # A partial run (e.g. a point past --timeout) still writes its points: print what there is.
  "$bin" sweep "${args[@]}" --quiet "${extra[@]}" || echo "compare.sh: sweep exited with $?; printing what it wrote" >&2
fi

python3 - "$out" <<'PY'
import json, sys

doc = json.load(open(sys.argv[1]))
p50 = {}
for p in doc["points"]:
    if not p.get("correct", True):
        continue
    key = (p["op"], p["group_size"], p["groups"], p["bytes"])
    p50.setdefault(key, {})[p["backend"]] = p["time_us"]["p50"]

def target(op, size):
    if op == "allreduce" and size >= 1 << 20: return 0.77
    if op == "allreduce" and size <= 64: return 1.5
    if op in ("allgather", "reduce_scatter") and size >= 1 << 20: return 1.0
    return None

def human(b):
    for unit, scale in (("M", 1 << 20), ("K", 1 << 10)):
        if b >= scale and b % scale == 0: return f"{b // scale}{unit}"
    return str(b)

met = missed = 0
last = None
for key in sorted(p50):
    op, k, g, size = key
    if (op, k, g) != last:
        print(f"\n# {op}, {g} group(s) x {k} ranks, p50 per op in us (ratio < 1: native faster)")
        print(f"{'size':>8} {'native':>10} {'mpi':>10} {'gloo':>10} {'nat/mpi':>8} {'nat/gloo':>8}  target")
        last = (op, k, g)
    t = p50[key]
    n, m, gl = t.get("native"), t.get("mpi"), t.get("gloo")
    fmt = lambda v: f"{v:10.1f}" if v is not None else f"{'-':>10}"
    r_m = n / m if n and m else None
    r_g = n / gl if n and gl else None
    goal = target(op, size) if k == 2 else (1.0 if op == "allreduce" else None)
    verdict = ""
    if goal is not None and r_m is not None:
        ok = r_m <= goal
        met += ok
        missed += not ok
        verdict = f"<= {goal:.2f} x mpi: {'met' if ok else 'MISSED'}"
    print(f"{human(size):>8} {fmt(n)} {fmt(m)} {fmt(gl)} "
          f"{(f'{r_m:8.2f}' if r_m else f'{chr(45):>8}')} {(f'{r_g:8.2f}' if r_g else f'{chr(45):>8}')}  {verdict}")
print(f"\ntargets met: {met}, missed: {missed} ({sys.argv[1]})")
PY
