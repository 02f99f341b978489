#!/bin/bash
# A virtual cluster on one machine: K "hosts" as network namespaces joined by a bridge, each with its own address,
# optionally a capped host link or a capped link between two hosts, and optionally a real redis-server on host 0.
# Needs root (CAP_NET_ADMIN). Everything it makes is named after the cluster's id and recorded in its state
# directory, so that `down` removes exactly that, also after a failed `up` (docs/design.md §9 has the facts).
#
#   tools/vcluster.sh up DIR --hosts K [--cap-host I:RATE]... [--cap-link I-J:RATE]... [--redis] [--slurm]
#   tools/vcluster.sh exec DIR I CMD [ARGS...]     run CMD in host I's namespace
#   tools/vcluster.sh addr DIR I                   host I's address
#   tools/vcluster.sh down DIR                     stop what `up` started (by pid), delete what it made, and DIR
#
# RATE is tc's syntax (200mbit, 1gbit). `up` writes DIR/env (shell assignments: VC_ID, VC_HOSTS, VC_ADDR_<i>,
# VC_NS_<i>, VC_REDIS=redis://ADDR:PORT, SLURM_CONF) and prints the hosts. --slurm starts a real Slurm (munged,
# slurmctld on the bridge address, one slurmd per host inside its namespace): `SLURM_CONF=... srun -N K ...` then
# places tasks on the hosts' addresses. There is no netem on these kernels: a cap adds serialisation delay only.
set -euo pipefail

die() {
  echo "vcluster: $*" >&2
  exit 2
}

usage() { die "usage: vcluster.sh up DIR --hosts K [--cap-host I:RATE]... [--cap-link I-J:RATE]... [--redis] | exec DIR I CMD... | addr DIR I | down DIR"; }

load() {
  [[ -f "$1/env" ]] || die "$1 holds no cluster (no $1/env)"
  # shellcheck disable=SC1091
  source "$1/env"
}

record() { echo "$1" >>"$dir/env"; }

# A subnet 10.77.X.0/24 that no route of the root namespace uses yet, so that two clusters can coexist.
free_subnet() {
  local x
  for _ in $(seq 1 50); do
    x=$((RANDOM % 240 + 10))
    if [[ -z "$(ip route show "10.77.$x.0/24")" ]]; then
      echo "$x"
      return
    fi
  done
  die "no free 10.77.X.0/24 subnet"
}

host_index() {  # validates a host number against the cluster size
  [[ "$1" =~ ^[0-9]+$ && "$1" -lt "$2" ]] || die "host '$1' is not one of 0..$(($2 - 1))"
}

cap_host() {  # I RATE: host I's egress (in its namespace) and ingress (on the bridge side of its veth)
  local i="$1" rate="$2" ns veth
  ns="${id}h$i"
  veth="${id}v$i"
  ip netns exec "$ns" tc qdisc add dev eth0 root tbf rate "$rate" burst 256kb latency 50ms ||
    die "cannot cap host $i at '$rate' (tc's rates: e.g. 200mbit, 1gbit)"
  tc qdisc add dev "$veth" root tbf rate "$rate" burst 256kb latency 50ms
}

# Traffic from a host to address DST through an htb class at RATE; everything else untouched (htb sends traffic
# that matches no filter, with a default class that does not exist, straight through). No prio qdisc here.
cap_direction() {  # NS DST RATE
  local ns="$1" dst="$2" rate="$3"
  if ! grep -q 'qdisc htb 1:' <<<"$(ip netns exec "$ns" tc qdisc show dev eth0)"; then
    ip netns exec "$ns" tc qdisc add dev eth0 root handle 1: htb default 99
  fi
  local class
  class=$(ip netns exec "$ns" tc class show dev eth0 | grep -c '^class htb' || true)
  class=$((class + 1))
  ip netns exec "$ns" tc class add dev eth0 parent 1: classid "1:$class" htb rate "$rate" burst 256kb quantum 60000 ||
    die "cannot cap at '$rate' (tc's rates: e.g. 200mbit, 1gbit)"
  ip netns exec "$ns" tc filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dst "$dst/32" flowid "1:$class"
}

cap_link() {  # I J RATE: both directions between hosts I and J
  cap_direction "${id}h$1" "10.77.$subnet.$(($2 + 1))" "$3"
  cap_direction "${id}h$2" "10.77.$subnet.$(($1 + 1))" "$3"
}

start_redis() {
  local addr="10.77.$subnet.1" port=6379
  ip netns exec "${id}h0" redis-server --port "$port" --bind "$addr" --protected-mode no --save '' \
    --appendonly no --daemonize no --loglevel warning >"$dir/redis.log" 2>&1 &
  record "VC_REDIS_PID=$!"
  record "VC_REDIS=redis://$addr:$port"
  for _ in $(seq 1 100); do
    [[ "$(ip netns exec "${id}h0" redis-cli -h "$addr" -p "$port" ping 2>/dev/null)" == "PONG" ]] && return
    sleep 0.05
  done
  die "redis-server on $addr:$port did not answer (log: $dir/redis.log)"
}

# Slurm 22.05 across the hosts (docs/design.md §9): a private munged (its own socket, the packaged key), slurmctld in
# the root namespace on the bridge address, and `slurmd -N hI` in each host's namespace (nsenter: `ip netns exec`
# remounts /sys, which slurmd cannot live with). Ports are random so that two clusters can coexist.
start_slurm() {
  local hosts="$1" s="$dir/slurm" i
  command -v slurmctld >/dev/null && command -v munged >/dev/null || die "--slurm needs slurm-wlm and munge"
  mkdir -p "$s/state" "$s/log"
  for ((i = 0; i < hosts; i++)); do mkdir -p "$s/spool/h$i"; done
  # munged runs as user munge, which cannot enter a private temporary directory: its own directory under /run.
  local m="/run/$id-munge"
  mkdir -m 755 "$m"  # munged wants its socket directory searchable by all
  record "VC_MUNGE_DIR=$m"
  chown munge:munge "$m"
  runuser -u munge -- munged --socket="$m/munge.socket" --pid-file="$m/munged.pid" --log-file="$m/munged.log" \
    --seed-file="$m/munged.seed"
  for _ in $(seq 1 100); do [[ -s "$m/munged.pid" ]] && break; sleep 0.05; done
  [[ -s "$m/munged.pid" ]] || die "munged did not start (log: $m/munged.log)"
  record "VC_MUNGE_PID=$(cat "$m/munged.pid")"
  local cpus last=$((hosts - 1)) ctl_port=$((7000 + RANDOM % 20000))
  cpus=$(nproc)
  cat >"$s/slurm.conf" <<CONF
ClusterName=$id
SlurmctldHost=$(hostname)(10.77.$subnet.254)
SlurmctldPort=$ctl_port
SlurmdPort=$((ctl_port + 1))
AuthType=auth/munge
AuthInfo=socket=$m/munge.socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MailProg=/bin/true
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$s/state
SlurmdSpoolDir=$s/spool/%n
SlurmctldPidFile=$s/slurmctld.pid
SlurmdPidFile=$s/slurmd-%n.pid
SlurmctldLogFile=$s/log/slurmctld.log
SlurmdLogFile=$s/log/slurmd-%n.log
NodeName=h[0-$last] NodeAddr=10.77.$subnet.[1-$hosts] CPUs=$cpus State=UNKNOWN
PartitionName=vc Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  record "SLURM_CONF=$s/slurm.conf"
  export SLURM_CONF="$s/slurm.conf"
  slurmctld -D -f "$SLURM_CONF" >"$s/log/slurmctld.out" 2>&1 &
  record "VC_SLURMCTLD_PID=$!"
  for ((i = 0; i < hosts; i++)); do
    nsenter --net="/run/netns/${id}h$i" slurmd -D -N "h$i" -f "$SLURM_CONF" >"$s/log/slurmd-h$i.out" 2>&1 &
    record "VC_SLURMD_PID_$i=$!"
  done
  # Ready when every node is idle.
  for _ in $(seq 1 300); do
    [[ $(sinfo -h -N -o '%t' 2>/dev/null | grep -c '^idle') -eq $hosts ]] && return
    sleep 0.2
  done
  die "Slurm did not bring $hosts nodes up within 60 s (logs: $s/log)"
}

stop_pid() {  # PID: TERM, then KILL after 5 s
  [[ -n "$1" ]] && kill -0 "$1" 2>/dev/null || return 0
  kill "$1" 2>/dev/null
  for _ in $(seq 1 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.05; done
  kill -9 "$1" 2>/dev/null || true
}

up() {
  dir="$1"
  shift
  local hosts=0 redis=0 slurm=0 caps=() links=()
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --hosts) hosts="${2:-}"; shift 2 ;;
      --cap-host) caps+=("${2:-}"); shift 2 ;;
      --cap-link) links+=("${2:-}"); shift 2 ;;
      --redis) redis=1; shift ;;
      --slurm) slurm=1; shift ;;
      *) die "unknown argument '$1' (accepted: --hosts, --cap-host, --cap-link, --redis, --slurm)" ;;
    esac
  done
  [[ "$hosts" =~ ^[0-9]+$ && "$hosts" -ge 1 && "$hosts" -le 64 ]] || die "--hosts '$hosts': accepted 1..64"
  [[ $(id -u) -eq 0 ]] || die "needs root (network namespaces)"
  [[ -e "$dir/env" ]] && die "$dir already holds a cluster: vcluster.sh down $dir first"
  mkdir -p "$dir"
  # Short: interface names have at most 15 characters.
  id="vc$(printf '%04x' $((RANDOM % 65536)))"
  subnet=$(free_subnet)
  : >"$dir/env"
  record "VC_ID=$id"
  record "VC_SUBNET=10.77.$subnet"
  # Any failure from here on (a die, or a command failing under set -e) removes what was made so far.
  trap '[[ ${up_ok:-0} -eq 1 ]] || { echo "vcluster: up failed; removed what it made" >&2; down "$dir" >/dev/null 2>&1; }' EXIT
  ip link add "${id}br" type bridge
  record "VC_BRIDGE=${id}br"
  ip addr add "10.77.$subnet.254/24" dev "${id}br"
  ip link set "${id}br" up
  local i ns veth
  for ((i = 0; i < hosts; i++)); do
    ns="${id}h$i"
    veth="${id}v$i"
    ip netns add "$ns"
    record "VC_NS_$i=$ns"
    record "VC_ADDR_$i=10.77.$subnet.$((i + 1))"
    record "VC_HOSTS=$((i + 1))"
    ip link add "$veth" type veth peer name eth0 netns "$ns"
    ip link set "$veth" master "${id}br" up
    ip netns exec "$ns" ip addr add "10.77.$subnet.$((i + 1))/24" dev eth0
    ip netns exec "$ns" ip link set eth0 up
    ip netns exec "$ns" ip link set lo up
  done
  local c h r
  for c in ${caps[@]+"${caps[@]}"}; do
    [[ "$c" == *:* ]] || die "--cap-host '$c': accepted I:RATE, e.g. 2:200mbit"
    h="${c%%:*}"
    r="${c#*:}"
    host_index "$h" "$hosts"
    cap_host "$h" "$r"
  done
  local pair a b
  for c in ${links[@]+"${links[@]}"}; do
    [[ "$c" =~ ^([0-9]+)-([0-9]+):(.+)$ ]] || die "--cap-link '$c': accepted I-J:RATE, e.g. 0-1:200mbit"
    a="${BASH_REMATCH[1]}"
    b="${BASH_REMATCH[2]}"
    pair="${BASH_REMATCH[3]}"
    host_index "$a" "$hosts"
    host_index "$b" "$hosts"
    [[ "$a" != "$b" ]] || die "--cap-link '$c': a link joins two different hosts"
    cap_link "$a" "$b" "$pair"
  done
  [[ $redis -eq 1 ]] && start_redis
  [[ $slurm -eq 1 ]] && start_slurm "$hosts"
  up_ok=1
  for ((i = 0; i < hosts; i++)); do echo "host $i: ${id}h$i 10.77.$subnet.$((i + 1))"; done
  [[ $redis -eq 1 ]] && grep '^VC_REDIS=' "$dir/env" | sed 's/^VC_REDIS=/redis: /'
  [[ $slurm -eq 1 ]] && echo "slurm: SLURM_CONF=$dir/slurm/slurm.conf"
  return 0
}

down() {
  local dir="$1"
  [[ -f "$dir/env" ]] || { rm -rf "$dir"; return 0; }
  # shellcheck disable=SC1091
  source "$dir/env"
  local i pid
  for ((i = 0; i < ${VC_HOSTS:-0}; i++)); do
    pid="VC_SLURMD_PID_$i"
    stop_pid "${!pid:-}"
  done
  stop_pid "${VC_SLURMCTLD_PID:-}"
  stop_pid "${VC_MUNGE_PID:-}"
  stop_pid "${VC_REDIS_PID:-}"
  [[ -n "${VC_MUNGE_DIR:-}" ]] && rm -rf "$VC_MUNGE_DIR"
  local ns pids
  for ((i = 0; i < ${VC_HOSTS:-0}; i++)); do
    ns="${VC_ID}h$i"
    grep -qw "$ns" <<<"$(ip netns list)" || continue  # not a pipe: under pipefail an early grep -q fails it
    # Whatever still runs in the host (a rank the caller did not reap) goes with it.
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    [[ -n "$pids" ]] && kill -9 $pids 2>/dev/null || true
    ip netns del "$ns"
  done
  # The bridge-side ends of the veths usually go with their namespaces; not always at once.
  for ((i = 0; i < ${VC_HOSTS:-0}; i++)); do ip link del "${VC_ID}v$i" 2>/dev/null || true; done
  [[ -n "${VC_BRIDGE:-}" ]] && ip link del "$VC_BRIDGE" 2>/dev/null || true
  rm -rf "$dir"
}

cmd="${1:-}"
[[ $# -ge 2 ]] || usage
case "$cmd" in
  up) shift; up "$@" ;;
  down) down "$2" ;;
  exec)
    [[ $# -ge 4 ]] || usage
    load "$2"
    host_index "$3" "$VC_HOSTS"
    ns="${VC_ID}h$3"
    shift 3
    exec ip netns exec "$ns" "$@"
    ;;
  addr)
    [[ $# -eq 3 ]] || usage
    load "$2"
    host_index "$3" "$VC_HOSTS"
    var="VC_ADDR_$3"
    echo "${!var}"
    ;;
  *) usage ;;
esac
