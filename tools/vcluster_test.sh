#!/bin/bash
# tools/vcluster.sh: a 4-host cluster with host 3's link and the 0-1 link capped moves data at full speed where
# nothing is capped and at the cap where something is; Redis on host 0 answers from another host; a real Slurm
# places `srun -N 4 -n 8` tasks on the four hosts' addresses; `down` leaves no namespace, interface, process or
# file. Without root the test records a skip (tools/test.sh lists it).
set -uo pipefail
VC="$1"
if [[ $(id -u) -ne 0 ]] || ! ip netns list >/dev/null 2>&1; then
  source "$(dirname "$VC")/record_skip.sh"
  record_skip VclusterTest CapsAndCleanup "needs root with CAP_NET_ADMIN (network namespaces)"
  exit 0
fi
T=$(mktemp -d)
C="$T/cluster"
S="$T/slurm-cluster"
namespaces_before=$(ip netns list | wc -l)
trap '"$VC" down "$C" >/dev/null 2>&1; "$VC" down "$S" >/dev/null 2>&1; rm -rf "$T"' EXIT
failed=0
fail() {
  echo "FAIL: $*"
  failed=$((failed + 1))
}

"$VC" up "$C" --hosts 4 --cap-host 3:40mbit --cap-link 0-1:40mbit --redis || { echo "FAIL: up"; exit 1; }
source "$C/env"

# Seconds to send 2 MB from host A to host B over TCP (a receiver in B, a sender in A).
transfer_s() {
  local a="$1" b="$2" port=$((20000 + RANDOM % 20000)) addr
  addr=$("$VC" addr "$C" "$b")
  "$VC" exec "$C" "$b" /usr/bin/python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(1); s.settimeout(20)
c, _ = s.accept(); n = 0
while True:
    d = c.recv(1 << 16)
    if not d: break
    n += len(d)
c.sendall(b"k"); print(n, file=sys.stderr)' "$addr" "$port" 2>/dev/null &
  local rx=$!
  "$VC" exec "$C" "$a" /usr/bin/python3 -c '
import socket, sys, time
for _ in range(100):
    try: s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=20); break
    except OSError: time.sleep(0.02)
t = time.monotonic(); s.sendall(b"x" * (2 << 20)); s.shutdown(socket.SHUT_WR); s.recv(1)
print("%.4f" % (time.monotonic() - t))' "$addr" "$port"
  wait "$rx"
}

declare -A secs
for pair in "0 2" "2 0" "1 2" "0 1" "1 0" "2 3" "3 2"; do
  secs[$pair]=$(transfer_s $pair)
  echo "host ${pair% *} -> host ${pair#* }: ${secs[$pair]} s for 2 MB"
done
# 2 MB at 40 Mbit/s takes >= 0.4 s; uncapped veths move it in a few ms.
slow() { awk -v s="$1" 'BEGIN { exit !(s >= 0.3) }'; }
for pair in "0 2" "2 0" "1 2"; do slow "${secs[$pair]}" && fail "uncapped $pair took ${secs[$pair]} s"; done
for pair in "0 1" "1 0" "2 3" "3 2"; do slow "${secs[$pair]}" || fail "capped $pair took only ${secs[$pair]} s"; done

pong=$("$VC" exec "$C" 2 redis-cli -u "$VC_REDIS" ping 2>&1)
[[ "$pong" == "PONG" ]] || fail "redis from host 2: $pong"

"$VC" up "$C" --hosts 2 2>/dev/null && fail "a second up over the same directory was accepted"
"$VC" up "$T/bad" --hosts 2 --cap-link 0-5:1mbit 2>"$T/err"
[[ $? -eq 2 ]] && grep -q "host '5'" "$T/err" || fail "a cap on host 5 of 2: $(cat "$T/err")"
[[ -e "$T/bad" ]] && fail "the refused up left $T/bad"

redis_pid=$VC_REDIS_PID
"$VC" down "$C"
grep -q "$VC_ID" <<<"$(ip netns list)" && fail "namespaces left: $(ip netns list | grep "$VC_ID")"
grep -q "$VC_ID" <<<"$(ip -o link)" && fail "interfaces left: $(ip -o link | grep "$VC_ID" | cut -d: -f2)"
kill -0 "$redis_pid" 2>/dev/null && fail "redis-server $redis_pid still runs"
[[ -e "$C" ]] && fail "$C still exists"
[[ $(ip netns list | wc -l) -eq $namespaces_before ]] || fail "namespaces left: $(ip netns list)"

# Slurm: one slurmd per host, each in its namespace; tasks land on four distinct addresses, two per host.
S="$T/slurm-cluster"
if "$VC" up "$S" --hosts 4 --slurm; then
  tasks=$(SLURM_CONF="$S/slurm/slurm.conf" timeout 60 srun -N 4 -n 8 --overcommit \
    bash -c 'echo "$SLURM_PROCID $(ip -4 -o addr show eth0 | awk "{print \$4}")"' 2>&1)
  echo "$tasks"
  [[ $(echo "$tasks" | awk '{print $1}' | sort -un | wc -l) -eq 8 ]] || fail "srun did not run 8 tasks"
  [[ $(echo "$tasks" | awk '{print $2}' | sort -u | wc -l) -eq 4 ]] || fail "srun's tasks did not span 4 addresses"
  daemons=$(grep -E '^VC_(SLURMD_PID_[0-9]+|SLURMCTLD_PID|MUNGE_PID)=' "$S/env" | cut -d= -f2 | tr '\n' ' ')
  [[ $(echo $daemons | wc -w) -eq 6 ]] || fail "expected 6 daemons (munged, slurmctld, 4 slurmd), recorded: $daemons"
  "$VC" down "$S"
  for pid in $daemons; do kill -0 "$pid" 2>/dev/null && fail "daemon $pid still runs after down"; done
  [[ -e "$S" ]] && fail "$S still exists"
else
  fail "up --slurm"
fi
[[ $(ip netns list | wc -l) -eq $namespaces_before ]] || fail "namespaces left: $(ip netns list)"

echo "$((failed == 0 ? 1 : 0)) passed, $failed failed"
[[ $failed -eq 0 ]]
