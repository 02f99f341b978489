#!/bin/bash
# commbench accept end to end with real processes:
#   - configs/acceptance/local-smoke.yaml on this host: exit 0, a passing verdict in the result file, JUnit with a
#     testcase per check, the markdown summary appended;
#   - a bad profile: exit 2, one line per problem naming file, line and key, nothing written;
#   - on a 4-host virtual cluster (root only; a recorded skip otherwise): healthy -> exit 0, no suspect; one host's
#     link capped by tbf to 300 Mbit/s -> exit 1, that host first. (At 1 Gbit/s, about what a CPU-bound pair of
#     these 2-core hosts moves anyway, one of the capped host's two pairs passed in a CI run and a link came first.)
#     And the smoke profile with phases [cluster, bisection] and one rank sleeping every iteration (--test-only-slow-rank)
#     -> exit 1, its host first, named by the bisection levels (bisect-1, bisect-2).
set -uo pipefail
CB="$(realpath "$1")"
VC="$(realpath "$2")"
SMOKE="$(realpath "$3")"
JUNIT_XSD="$(realpath "$4")"
CHECK_JUNIT="$(realpath "$5")"
SCHEMA="$(realpath "$6")"
VALIDATE="$(realpath "$7")"
T=$(mktemp -d)
trap '"$VC" down "$T/c" >/dev/null 2>&1; rm -rf "$T"' EXIT
cd "$T"
failed=0 passed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
ok() { passed=$((passed + 1)); }

# The failed checks of a result, one per line (for failure messages).
failed_checks() {
  python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))["acceptance"]
for c in a["checks"]:
    if not c["passed"]: print(c["name"], c["host"], c["reason"])' "$1" 2>&1 | head -n 5
}

# Reads the acceptance block: prints "verdict first-suspect-kind first-suspect-host checks".
verdict() {
  python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))["acceptance"]
s = a["suspects"]
print(a["verdict"], s[0]["kind"] if s else "-", s[0]["host"] if s else "-", len(a["checks"]))' "$1"
}

# Exit 3 with every failed check timed while processes outside the run held a CPU (named): the honest answer of a
# busy runner, not a failure of the product.
busy() {
  python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))["acceptance"]
failed = [c for c in a["checks"] if not c["passed"]]
sys.exit(0 if a["exit_code"] == 3 and failed and all(c.get("disturbed_by") for c in failed) else 1)' "$1"
}

# 1. The local smoke profile (its result valid against the schema): a pass, or on a busy runner "could not judge".
"$CB" accept --profile "$SMOKE" -o smoke.json --junit smoke.xml --summary summary.md --hosts-out hosts.txt --quiet \
  >smoke.out 2>smoke.err
code=$?
if read -r v kind host checks < <(verdict smoke.json) && [[ $kind == - ]] &&
  { { [[ $code -eq 0 && $v == pass && $(cat hosts.txt) == "127.0.0.1 pass -" ]] && grep -q "pass" summary.md; } ||
    { [[ $code -eq 3 ]] && busy smoke.json && grep -q "could not judge (the host was busy)" summary.md &&
      echo "note: local-smoke could not judge: the runner was busy: $(failed_checks smoke.json | head -n 1)"; }; } &&
  [[ $(grep -c "<testcase" smoke.xml) -ge $checks ]] &&
  python3 "$VALIDATE" "$SCHEMA" smoke.json >schema.out 2>&1; then
  ok
else
  fail "local-smoke: exit $code, verdict $(verdict smoke.json 2>&1), $(failed_checks smoke.json) $(tail -n 3 smoke.err) $(head -n 3 schema.out 2>/dev/null)"
fi
"$CHECK_JUNIT" "$JUNIT_XSD" smoke.xml && ok || fail "local-smoke: JUnit"

# The first suspect's kind, rank and reason ("- - -" when none), and any straggler named.
first_suspect() {
  python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["acceptance"]["suspects"]
print(s[0]["kind"], s[0].get("rank", "-"), s[0].get("reason", "-")) if s else print("- - -")
print("straggler" if any(x.get("reason") == "straggler" for x in s) else "none")' "$1" 2>&1
}

# 1b. Healthy local-smoke names no straggler, whatever else a loaded host makes it say.
[[ $(first_suspect smoke.json | tail -n 1) == none ]] && ok || fail "local-smoke: a straggler named: $(first_suspect smoke.json)"

# 1c. Launcher rank 1 sleeps 3 ms every iteration: exit 1, rank 1 the first suspect, a straggler; its host fails.
"$CB" accept --profile "$SMOKE" -o slow.json --hosts-out slow-hosts.txt --quiet --test-only-slow-rank 1:3000 \
  >slow.out 2>slow.err
code=$?
[[ $code -eq 1 && $(first_suspect slow.json | head -n 1) == "rank 1 straggler" &&
  $(cat slow-hosts.txt) == "127.0.0.1 fail straggler" ]] && ok ||
  fail "local-smoke, rank 1 slow: exit $code, first suspect $(first_suspect slow.json | head -n 1), hosts $(cat slow-hosts.txt 2>&1)"

# 2. A bad profile: one line per problem, exit 2, nothing written.
printf 'name: bad\nbackend: gloo\nops: allreduce\nsizes: [4K]\nphases: [cluster, moon]\nrepeat: 2\n' >bad.yaml
"$CB" accept --profile bad.yaml -o bad.json >bad.out 2>bad.err
code=$?
if [[ $code -eq 2 && ! -e bad.json ]] && grep -q "bad.yaml:5" bad.err && grep -q "bad.yaml:6" bad.err &&
  [[ $(grep -vc "^commbench: error: " bad.err) -eq 0 ]]; then
  ok
else
  fail "bad profile: exit $code: $(cat bad.err)"
fi

if [[ $(id -u) -ne 0 ]] || ! ip netns list >/dev/null 2>&1; then
  source "$(dirname "$VC")/record_skip.sh"
  record_skip AcceptTest VirtualCluster "the virtual-cluster cases need root with CAP_NET_ADMIN"
  echo "$passed passed, $failed failed"
  [[ $failed -eq 0 ]]
  exit
fi

# 3. A 4-host cluster, 2 ranks per host, cyclic placement; the profile from the virtual-cluster one, for 4 hosts.
# Its budget leaves room for a busy runner: a healthy run takes 32 s on a quiet host, and beside a busy loop one
# ran past 60 s, skipped its last pairs round and failed closed ("too few to localise"), as the product should.
sed -e 's/^  hosts: 8/  hosts: 4/' -e 's/^  rounds: 7/  rounds: 3/' -e 's/^time_budget_s: .*/time_budget_s: 150/' \
  "$(dirname "$SMOKE")/virtual-cluster.yaml" >vc4.yaml
# accept_on_cluster NAME [PROFILE [FLAGS...]]: every rank's exit waited for, rank 0's printed.
accept_on_cluster() {
  local name="$1" profile="${2:-vc4.yaml}" pids=() r
  shift $(($# < 2 ? $# : 2))
  source "$T/c/env"
  for r in 0 1 2 3 4 5 6 7; do
    "$VC" exec "$T/c" $((r % 4)) "$CB" accept --profile "$profile" --rank "$r" --world 8 --rendezvous "$VC_REDIS" \
      --run-id "$name" --quiet --timeout 30 -o "$T/$name.json" "$@" >"$T/$name-$r.log" 2>&1 &
    pids+=($!)
  done
  wait "${pids[0]}"
  local code=$?
  for r in "${pids[@]:1}"; do wait "$r"; done
  echo "$code"
}
"$VC" up "$T/c" --hosts 4 --redis >/dev/null || fail "vcluster up"
code=$(accept_on_cluster healthy)
read -r v kind host checks < <(verdict "$T/healthy.json" 2>/dev/null)
{ [[ $code -eq 0 && ${v:-} == pass && ${kind:-} == - ]] || { [[ $code -eq 3 ]] && busy "$T/healthy.json"; }; } && ok ||
  fail "healthy cluster: exit $code, verdict ${v:-?} ${kind:-?} ${host:-?}: $(failed_checks "$T/healthy.json")"
"$VC" down "$T/c" >/dev/null

"$VC" up "$T/c" --hosts 4 --redis --cap-host 2:300mbit >/dev/null || fail "vcluster up with a cap"
source "$T/c/env"
code=$(accept_on_cluster capped)
read -r v kind host checks < <(verdict "$T/capped.json" 2>/dev/null)
[[ $code -eq 1 && ${kind:-} == host && ${host:-} == "$VC_ADDR_2" ]] && ok ||
  fail "host 2 capped: exit $code, first suspect ${kind:-?} ${host:-?} (want host $VC_ADDR_2): $(tail -n 3 "$T/capped-0.log")"
"$VC" down "$T/c" >/dev/null

# 4. Bisection: the smoke profile on the 4 hosts with phases [cluster, bisection], its floor on the cluster phase only
# (the test is the localising, not a floor on 8 ranks sharing 2 cores); launcher rank 2 (host 2) sleeps 100 ms per
# iteration. The cluster phase fails its 4K ceiling; bisection level 1 ([h0, h1] [h2, h3]) and level 2, shifted
# ([h1, h2] [h3, h0]) leave host 2 alone uncleared.
sed -e 's/^phases: .*/phases: [cluster, bisection]/' -e 's/^  hosts: 1$/  hosts: 4/' \
  -e 's/^  - {size: 1M, busbw_gbps/  - {phase: cluster, size: 1M, busbw_gbps/' "$SMOKE" >bisect4.yaml
# The straggler check names that rank from the cluster phase alone, and the clean answer skips the bisection this
# case is about: off here (case 1c covers it).
echo 'straggler: {excess_us: 1000000000}' >>bisect4.yaml
"$VC" up "$T/c" --hosts 4 --redis >/dev/null || fail "vcluster up for bisection"
source "$T/c/env"
code=$(accept_on_cluster bisect bisect4.yaml --test-only-slow-rank 2:100000)
read -r v kind host checks < <(verdict "$T/bisect.json" 2>/dev/null)
phases=$(python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))
print(" ".join(sorted({p.get("phase", "") for p in f["points"]})))' "$T/bisect.json" 2>&1)
# The profile's repeats (2) apply to every phase, not only the first.
repeats=$(python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))
print(" ".join(sorted({str(p.get("repeats", {}).get("n", 1)) for p in f["points"]})))' "$T/bisect.json" 2>&1)
evidence=$(python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["acceptance"]["suspects"]
print(" ".join(e for e in s[0]["evidence"] if e.startswith("bisection phase")) if s else "")' "$T/bisect.json" 2>&1)
schema=$(python3 "$VALIDATE" "$SCHEMA" "$T/bisect.json" 2>&1 | head -n 3)
# Level 2's blocks put the processes in another order than their launcher ranks: each rank records its process
# rank, and a rank suspect is named by it (the slowed process is launcher rank 2 in every phase).
procs=$(python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))
s = f["acceptance"]["suspects"]
ranks = [(r["rank"], r.get("process_rank")) for p in f["points"] if p["phase"] == "bisect-2" for r in p["per_rank"]]
print(s[0].get("rank", "-") if s else "-", "reordered" if any(a != b for a, b in ranks) else "same",
      "missing" if not ranks or any(b is None for a, b in ranks) else "recorded")' "$T/bisect.json" 2>&1)
# The suspect is re-tested beside a control pair before it fails the cluster (4 rounds: docs/accept.md).
retest=$(python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["acceptance"]["suspects"]
print(s[0].get("retest", "-") if s else "-")' "$T/bisect.json" 2>&1)
[[ $code -eq 1 && ${kind:-} =~ ^(host|rank)$ && ${host:-} == "$VC_ADDR_2" && $retest == confirmed &&
  $phases == "bisect-1 bisect-2 cluster confirm-1 confirm-2 confirm-3 confirm-4" &&
  $evidence == *"failed at 2 of the 2 levels"* && -z $schema && $repeats == 2 &&
  $procs =~ ^(-|2)\ reordered\ recorded$ ]] && ok ||
  fail "bisection, rank 2 slow: exit $code, first suspect ${kind:-?} ${host:-?} (want $VC_ADDR_2), re-test '$retest', phases '$phases', repeats per point '$repeats', evidence '$evidence', schema '$schema', suspect rank / level-2 order / process ranks '$procs': $(failed_checks "$T/bisect.json")"
"$VC" down "$T/c" >/dev/null
[[ -z "$(pgrep -f "$CB" || true)" ]] || fail "processes left"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
