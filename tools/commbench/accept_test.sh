#!/bin/bash
# commbench accept end to end with real processes:
#   - configs/acceptance/local-smoke.yaml on this host: exit 0, a passing verdict in the result file, JUnit with a
#     testcase per check, the markdown summary appended;
#   - a bad profile: exit 2, one line per problem naming file, line and key, nothing written;
#   - on a 4-host virtual cluster (root only; a recorded skip otherwise): healthy -> exit 0, no suspect; one host's
#     link capped by tbf to 300 Mbit/s -> exit 1, that host first. (At 1 Gbit/s, about what a CPU-bound pair of
#     these 2-core hosts moves anyway, one of the capped host's two pairs passed in a CI run and a link came first.)
set -uo pipefail
CB="$(realpath "$1")"
VC="$(realpath "$2")"
SMOKE="$(realpath "$3")"
JUNIT_XSD="$(realpath "$4")"
CHECK_JUNIT="$(realpath "$5")"
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

# 1. The local smoke profile.
"$CB" accept --profile "$SMOKE" -o smoke.json --junit smoke.xml --summary summary.md --quiet >smoke.out 2>smoke.err
code=$?
if [[ $code -eq 0 ]] && read -r v kind host checks < <(verdict smoke.json) && [[ $v == pass && $kind == - ]] &&
  [[ $(grep -c "<testcase" smoke.xml) -ge $checks ]] && grep -q "pass" summary.md; then
  ok
else
  fail "local-smoke: exit $code, verdict $(verdict smoke.json 2>&1), $(tail -n 3 smoke.err)"
fi
"$CHECK_JUNIT" "$JUNIT_XSD" smoke.xml && ok || fail "local-smoke: JUnit"

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
sed -e 's/^  hosts: 8/  hosts: 4/' -e 's/^  rounds: 7/  rounds: 3/' -e 's/^time_budget_s: .*/time_budget_s: 60/' \
  "$(dirname "$SMOKE")/virtual-cluster.yaml" >vc4.yaml
accept_on_cluster() {
  local name="$1" pids=() r
  source "$T/c/env"
  for r in 0 1 2 3 4 5 6 7; do
    "$VC" exec "$T/c" $((r % 4)) "$CB" accept --profile vc4.yaml --rank "$r" --world 8 --rendezvous "$VC_REDIS" \
      --run-id "$name" --quiet --timeout 30 -o "$T/$name.json" >"$T/$name-$r.log" 2>&1 &
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
[[ $code -eq 0 && ${v:-} == pass && ${kind:-} == - ]] && ok || fail "healthy cluster: exit $code, verdict ${v:-?} ${kind:-?} ${host:-?}: $(failed_checks "$T/healthy.json")"
"$VC" down "$T/c" >/dev/null

"$VC" up "$T/c" --hosts 4 --redis --cap-host 2:300mbit >/dev/null || fail "vcluster up with a cap"
source "$T/c/env"
code=$(accept_on_cluster capped)
read -r v kind host checks < <(verdict "$T/capped.json" 2>/dev/null)
[[ $code -eq 1 && ${kind:-} == host && ${host:-} == "$VC_ADDR_2" ]] && ok ||
  fail "host 2 capped: exit $code, first suspect ${kind:-?} ${host:-?} (want host $VC_ADDR_2): $(tail -n 3 "$T/capped-0.log")"
"$VC" down "$T/c" >/dev/null
[[ -z "$(pgrep -f "$CB" || true)" ]] || fail "processes left"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
