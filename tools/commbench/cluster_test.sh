#!/bin/bash
# commbench across "hosts" of a virtual cluster (tools/vcluster.sh: 4 network namespaces, a real redis-server,
# a real Slurm with one slurmd per host):
#   1. SPMD, 4 hosts x 2 ranks given --rank/--world, Redis rendezvous, Gloo and native, ranks placed cyclically
#      (rank r on host r % 4) so that every group of 2 spans two hosts: correct results, each group's two hosts
#      recorded, no key left in Redis.
#      With block placement, --group-by spread puts each pair on two hosts and --group-by host on one; the
#      native backend's points say tcp across hosts and shm within one.
#   2. `srun -N 4 -n 8 commbench sweep` (SPMD under a real Slurm, file: rendezvous): the run id comes from
#      Slurm, the result spans four addresses.
#   3. The driver's `--launcher srun` inside `salloc -N 4 -n 8`: the same shape of result.
# Every process started here is stopped; `vcluster.sh down` removes the cluster. Without root: a recorded skip.
set -uo pipefail
VC="$1"
CB="$(realpath "$2")"
if [[ $(id -u) -ne 0 ]] || ! ip netns list >/dev/null 2>&1 || ! command -v srun >/dev/null; then
  source "$(dirname "$VC")/record_skip.sh"
  record_skip ClusterTest AcrossHosts "needs root with CAP_NET_ADMIN and Slurm (tools/setup.sh)"
  exit 0
fi
T=$(mktemp -d)
C="$T/cluster"
trap '"$VC" down "$C" >/dev/null 2>&1; rm -rf "$T"' EXIT
failed=0
fail() {
  echo "FAIL: $*"
  failed=$((failed + 1))
}

"$VC" up "$C" --hosts 4 --redis --slurm || { echo "FAIL: up"; exit 1; }
source "$C/env"
export SLURM_CONF

# Checks a result file: every point correct, the ranks on `want` distinct addresses, each group on `span` hosts
# (0: where Slurm put them), and the native backend's points over the transport `native` (when given).
check_result() {
  local file="$1" want="$2" span="$3" what="$4" native="${5:-}" out
  out=$(python3 - "$file" "$want" "$span" "$native" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); want = int(sys.argv[2]); span = int(sys.argv[3]); native = sys.argv[4]
why = []
if r.get("status") != "complete": why.append("status %s" % r.get("status"))
if not r["points"]: why.append("no points")
addresses = set()
for p in r["points"]:
    if not p["correct"]: why.append("%s wrong: %s" % (p["id"], p["errors"]))
    if native and p["backend"] == "native" and p.get("transport") != native:
        why.append("%s ran over %s, not %s" % (p["id"], p.get("transport"), native))
    addresses |= {x.get("address", "") for x in p["per_rank"]}
    if span and (p["groups"] > 1 or p["group_size"] > 1):
        for g in p["per_group"]:
            if len(g.get("hosts", [])) != span: why.append("%s group %d hosts %s" % (p["id"], g["group"], g.get("hosts")))
if len(addresses - {""}) != want: why.append("addresses %s, want %d" % (sorted(addresses), want))
print("%d points, addresses %s%s" % (len(r["points"]), sorted(addresses), "; " + "; ".join(why[:5]) if why else ""))
sys.exit(1 if why else 0)
PY
  ) || fail "$what: $out"
  echo "$what: $out"
}

# 1. SPMD over Redis, 4 hosts x 2, rank r on host r % 4.
pids=()
for r in 0 1 2 3 4 5 6 7; do
  "$VC" exec "$C" $((r % 4)) "$CB" sweep --rank "$r" --world 8 --rendezvous "$VC_REDIS" --run-id vc-spmd \
    --backends gloo,native --groups 1,2,4 --sizes 400,64K --time-budget 0.05 --timeout 30 --quiet \
    -o "$T/spmd.json" >"$T/spmd-$r.log" 2>&1 &
  pids+=($!)
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || fail "SPMD rank $i exited $?: $(tail -n 2 "$T/spmd-$i.log")"
done
check_result "$T/spmd.json" 4 2 "SPMD over Redis" tcp
keys=$("$VC" exec "$C" 1 redis-cli -u "$VC_REDIS" --scan | wc -l)
[[ "$keys" -eq 0 ]] || fail "$keys keys left in Redis"

# 1b. Block placement (ranks 2h, 2h+1 on host h): --group-by spread pairs ranks of different hosts, --group-by
# host keeps each host's pair together.
for by_span in "spread 2" "host 1"; do
  by=${by_span% *}
  pids=()
  for r in 0 1 2 3 4 5 6 7; do
    "$VC" exec "$C" $((r / 2)) "$CB" sweep --rank "$r" --world 8 --rendezvous "$VC_REDIS" --run-id "vc-$by" \
      --group-by "$by" --backends gloo,native --groups 1,4 --sizes 400 --time-budget 0.05 --timeout 30 --quiet \
      -o "$T/by-$by.json" >"$T/by-$by-$r.log" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || fail "--group-by $by rank $i exited $?: $(tail -n 2 "$T/by-$by-$i.log")"
  done
  # Native: TCP between hosts, shared memory within one.
  check_result "$T/by-$by.json" 4 "${by_span#* }" "--group-by $by" "$([[ $by == host ]] && echo shm || echo tcp)"
done

# 2. srun starts the ranks: SPMD under Slurm, the run id from SLURM_JOB_ID.SLURM_STEP_ID.
mkdir -p "$T/rendezvous"
timeout 120 srun -N 4 -n 8 --overcommit "$CB" sweep --rendezvous "file:$T/rendezvous" --groups 1,2,4 \
  --sizes 400 --time-budget 0.05 --timeout 30 --quiet -o "$T/srun.json" >"$T/srun.log" 2>&1 ||
  fail "srun -n 8 commbench sweep: $(tail -n 3 "$T/srun.log")"
check_result "$T/srun.json" 4 1 "srun -n 8 commbench sweep"
[[ -z "$(ls -A "$T/rendezvous")" ]] || fail "rendezvous files left: $(ls -A "$T/rendezvous")"

# 3. The driver inside an allocation runs srun for each launch.
timeout 180 salloc -N 4 -n 8 --overcommit "$CB" sweep --no-explain --no-html --launcher srun --groups 1,2,4 --sizes 400 \
  --time-budget 0.05 --timeout 30 --quiet -o "$T/driver.json" >"$T/driver.log" 2>&1 ||
  fail "salloc ... commbench sweep --launcher srun: $(tail -n 3 "$T/driver.log")"
# srun spreads each launch's tasks over the allocation's nodes: a pair at G=1 lands on two hosts.
check_result "$T/driver.json" 4 0 "--launcher srun"

leftover=$(pgrep -f "$CB" || true)
[[ -z "$leftover" ]] || fail "processes left: $(ps -o pid,args -p $(echo $leftover | tr ' ' ,))"
"$VC" down "$C" || fail "down"
echo "$((failed == 0 ? 1 : 0)) passed, $failed failed"
[[ $failed -eq 0 ]]
