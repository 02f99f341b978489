#!/bin/bash
# Measured traffic on real runs matches the models (issue 34): a small sweep of native over tcp (a non-power of two
# included) and shared memory, and Gloo's three allreduces; then per rank, from the result file:
#   native tcp   sent and received / model within 0.1 % (payload bare; a barrier byte now and then)
#   native shm   received (bytes copied from peers) = model exactly
#   gloo         sent = model + Gloo's framing (48 B preamble per message, 52 B per notification) within 0.2 %, plus
#                up to 4 KiB per rank and point of the harness's own in-window messages;
#                halving-doubling (allreduce and reduce-scatter) at 2, 3 and 4 ranks too: 3 is Gloo's binary blocks,
#                where ranks send different amounts (the model says which), and the model must say "exact"
set -uo pipefail
BIN="$(realpath "$1")"
W="$(mktemp -d "${TEST_TMPDIR:-/tmp}/traffic-test.XXXXXX")"
trap 'rm -rf "$W"' EXIT
cd "$W"
common=(--groups 1 --sizes 64K,1M --time-budget 0.05 -q)
"$BIN" sweep --no-explain --no-html --backends native-tcp --algos ring,hd,direct --group-size 3 "${common[@]}" -o tcp.json >/dev/null || exit 1
"$BIN" sweep --no-explain --no-html --backends native --algos ring,twoshot --group-size 3 "${common[@]}" -o shm.json >/dev/null || exit 1
"$BIN" sweep --no-explain --no-html --backends gloo --algos ring,ring_chunked,halving_doubling --group-size 4 "${common[@]}" -o gloo.json \
  >/dev/null || exit 1
for n in 2 3; do
  "$BIN" sweep --no-explain --no-html --backends gloo --algos halving_doubling --group-size $n "${common[@]}" -o hd$n.json >/dev/null || exit 1
done
# Reduce-scatter's halving-doubling has a known race in this Gloo (lib/backend/gloo: a rank overwrites data it is
# still sending), likelier past 256 KiB chunks but seen at 16 KiB on 3 ranks under load. commbench's check reports
# it as a wrong result; this test is about bytes, so such a run (and only such) is measured again, up to 3 times.
for try in 1 2 3; do
  "$BIN" sweep --no-explain --no-html --backends gloo --ops reduce_scatter --algos halving_doubling --group-size 2,3,4 --groups 1 \
    --sizes 16K,64K --time-budget 0.05 -q -o hdrs.json >/dev/null 2>hdrs.err && break
  race='^commbench: error: wrong result in gloo/reduce_scatter/halving_doubling/'
  if ! grep -q "$race" hdrs.err || grep -v '^commbench: wrote ' hdrs.err | grep -qv "$race"; then
    cat hdrs.err >&2; exit 1
  fi
  echo "try $try: Gloo's known reduce-scatter race (a wrong result), measured again" >&2
  ((try == 3)) && { cat hdrs.err >&2; exit 1; }
done
/usr/bin/python3 - <<'PY'
import json, sys
fails = []
def ranks(path):
    for p in json.load(open(path))["points"]:
        for r in p["per_rank"]:
            yield p["id"], r.get("traffic")
checked = 0
HARNESS_BYTES = 4096  # per rank and point, at most (see the Gloo check below)
for pid, t in ranks("tcp.json"):
    if not t or t["source"] != "tcp_info": fails.append(f"{pid}: no tcp_info traffic: {t}"); continue
    for side in ("sent", "recv"):
        if not 0.999 <= t[f"{side}_ratio"] <= 1.001: fails.append(f"{pid} {side}: {t}")
    checked += 1
for pid, t in ranks("shm.json"):
    if not t or t["source"] != "shm_copies": fails.append(f"{pid}: no shm_copies traffic: {t}"); continue
    if abs(t["recv_ratio"] - 1) > 1e-12 or t["sent_bytes"] is not None: fails.append(f"{pid}: {t}")
    checked += 1
gloo = [(path, pid, t) for path in ("gloo.json", "hd2.json", "hd3.json", "hdrs.json") for pid, t in ranks(path)]
per_rank_sent = {}
for path, pid, t in gloo:
    if not t or t["source"] != "tcp_info": fails.append(f"{pid}: no tcp_info traffic: {t}"); continue
    want = t["model_sent_bytes_per_op"] + t["model_framing_bytes_per_op"]
    # The process's sockets also carry the harness's own messages inside the timed window (the world control
    # plane's max-reductions, rank 0 sending 80 B to each peer per exchange, and a group barrier): 228-2796 B per
    # rank per point over three runs of the reduce-scatter sweep below, which at 101 ops of 16 KiB is 0.22 %.
    harness = HARNESS_BYTES / t["ops"]
    if not -0.002 * want <= t["sent_bytes_per_op"] - want <= 0.002 * want + harness:
        fails.append(f"{pid} sent vs model+framing {want} (+{harness:.1f} B/op of harness messages): {t}")
    if "halving_doubling" in pid and t["model"] != "exact": fails.append(f"{pid}: model {t['model']}")
    per_rank_sent.setdefault(pid, set()).add(t["model_sent_bytes_per_op"])
    checked += 1
# Binary blocks: on 3 ranks the lone rank sends S, the pair 1.5 S; a model that gave every rank one figure fails.
for pid, sent in per_rank_sent.items():
    if "allreduce/halving_doubling" in pid and "/k3/" in pid and len(sent) != 2: fails.append(f"{pid}: {sent}")
for f in fails: print("FAIL:", f)
print(f"traffic_measured_test: {checked} rank records checked, {len(fails)} failed")
sys.exit(1 if fails or checked < 60 else 0)
PY
