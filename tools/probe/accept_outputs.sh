# A run that cannot produce a verdict leaves no stale verdict: the previous run's --out, --junit, --hosts-out and
# --html are removed (a drain script must not read last run's "pass"), and a link among them is removed itself,
# never its target.
echo "# acceptance outputs"
printf 'name: probe-two-hosts\n%s\n' "${PROFILE_BODY/hosts: 1/hosts: 2}" >"$IN/two_hosts.yaml"
echo precious >"$ROOT/victim"
for stale in plain link; do
  w="$ROOT/w/accept-$stale"
  mkdir -p "$w"
  for f in a.json a.xml hosts.txt a.html; do
    if [[ $stale == link ]]; then ln -sf "$ROOT/victim" "$w/$f"; else echo "h0 pass -" >"$w/$f"; fi
  done
  (cd "$w" && timeout 60 "$CB" accept --profile "$IN/two_hosts.yaml" -o a.json --junit a.xml --hosts-out hosts.txt \
    --html a.html >"$ROOT/out" 2>"$ROOT/err")
  rc=$?
  left=$(ls "$w")
  if [[ $rc != 3 ]]; then fail "accept without a verdict ($stale outputs)" "exit $rc: $(head -n 2 "$ROOT/err")"
  elif [[ -n $left ]]; then fail "accept without a verdict ($stale outputs)" "left: $left"
  elif [[ $(cat "$ROOT/victim") != precious ]]; then fail "accept without a verdict ($stale outputs)" "link target written"
  else ok "accept without a verdict ($stale outputs)"; fi
  rm -rf "$w"
done
rm -f "$IN/two_hosts.yaml"
