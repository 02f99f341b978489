# A run that cannot produce a verdict leaves no stale verdict: the previous run's outputs are removed (a drain
# script must not read last run's "pass"), each flag alone and all together, and a link among them is removed
# itself, never its target.
echo "# acceptance outputs"
printf 'name: probe-two-hosts\n%s\n' "${PROFILE_BODY/hosts: 1/hosts: 2}" >"$IN/two_hosts.yaml"
echo precious >"$ROOT/victim"
accept_stale() {  # NAME KIND FLAG=FILE...: the previous run's files (plain or links), then a run without a verdict
  local name=$1 kind=$2 w="$ROOT/w/accept" args=() pair
  shift 2
  rm -rf "$w" && mkdir -p "$w"
  for pair in "$@"; do
    args+=("${pair%%=*}" "${pair#*=}")
    if [[ $kind == link ]]; then ln -sf "$ROOT/victim" "$w/${pair#*=}"; else echo "h0 pass -" >"$w/${pair#*=}"; fi
  done
  (cd "$w" && timeout 60 "$CB" accept --profile "$IN/two_hosts.yaml" "${args[@]}" >"$ROOT/out" 2>"$ROOT/err")
  local rc=$? left
  left=$(ls "$w")
  if [[ $rc != 3 ]]; then fail "$name" "exit $rc: $(head -n 2 "$ROOT/err")"
  elif [[ -n $left ]]; then fail "$name" "left: $left"
  elif [[ $(cat "$ROOT/victim") != precious ]]; then fail "$name" "link target written"
  else ok "$name"; fi
  rm -rf "$w"
}
for kind in plain link; do
  for pair in -o=a.json --junit=a.xml --hosts-out=hosts.txt --html=a.html --csv=a.csv --prom=a.prom --trace=a.trace; do
    accept_stale "accept without a verdict: a $kind ${pair%%=*} of an earlier run" "$kind" "$pair"
  done
  accept_stale "accept without a verdict: every $kind output of an earlier run" "$kind" -o=a.json --junit=a.xml \
    --hosts-out=hosts.txt --html=a.html --csv=a.csv --prom=a.prom --trace=a.trace
done
rm -f "$IN/two_hosts.yaml"
