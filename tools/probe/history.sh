# The history directory (docs/history.md, "What the store refuses"): `history add`, `history check` and
# `gate --history` against a store an attacker could prepare (a CI cache restored before the job) and against
# commit strings from a branch name. Sourced by tools/reliability_probe.sh (part `stores`). Every case either is
# refused cleanly (refuse: exit 2, one error line, nothing written, a link's target untouched) or files the run
# correctly and leaves a history that later adds and checks still read.

H_RESULT="$ROOT/hist-result.json"  # one tiny real sweep, filed again and again
H_FP=""                            # its runner fingerprint (runs/FP/)
echo "# the history directory"

# h_make DIR N: a fresh history of N runs (commits c0..., one minute apart).
h_make() {
  local i
  rm -rf "$1"
  for ((i = 0; i < $2; i++)); do
    "$CB" history add "$1" "$H_RESULT" --commit "c$i" --time "2026-11-01T08:$(printf %02d "$i"):00Z" >/dev/null 2>&1 ||
      return 1
  done
}
# h_files DIR: every file and directory under DIR with its size and content hash (what "untouched" compares).
h_files() { (cd "$1" && find . -printf '%p %y %s\n' | sort && find . -type f -exec md5sum {} + | sort -k2); }

h_setup() {
  tiny repeats
  if ! "$CB" sweep --no-explain --no-html "${TINY[@]}" --repeats 2 --out "$H_RESULT" >/dev/null 2>"$ROOT/err"; then
    fail "history: setup sweep" "$(head -n 2 "$ROOT/err")"
    return 1
  fi
  h_make "$ROOT/h-setup" 1 || { fail "history: setup add" "cannot file the result"; return 1; }
  H_FP=$(ls "$ROOT/h-setup/runs")
  rm -rf "$ROOT/h-setup"
}

# 1. Links planted at each of the store's names: the add is refused and the link's target is untouched.
h_links() {
  local name target kind h="$IN/h"
  for name in history.json history.lock runs "runs/$H_FP" "runs/$H_FP/NEXT"; do
    for kind in file dir devzero dangling; do
      h_make "$h" 1 || { fail "history link $name ($kind)" "setup failed"; continue; }
      local at=${name/NEXT/000001-c1.json}
      mkdir -p "$IN/tdir" && printf 'precious\n' >"$IN/target"
      case $kind in
        file) target="$IN/target" ;;
        dir) target="$IN/tdir" ;;
        devzero) target=/dev/zero ;;
        dangling) target="$IN/created-by-commbench" ;;
      esac
      rm -rf "${h:?}/$at"
      ln -s "$target" "$h/$at"
      refuse "history add: a link ($kind) at $at" -- history add "$h" "$H_RESULT" --commit c1
      [[ $(cat "$IN/target") == precious && ! -e $IN/created-by-commbench && -z $(ls -A "$IN/tdir") ]] ||
        fail "history add: a link ($kind) at $at: target" "the link's target changed"
      # What a check reads through the same link is refused too (it reads neither the lock nor the next name).
      if [[ $at != history.lock && $at != *000001-c1.json ]]; then
        refuse "history check: a link ($kind) at $at" -- history check "$h"
      fi
      rm -rf "$h" "$IN/tdir" "$IN/target" "$IN/created-by-commbench"
    done
  done
  # The run a check reads, replaced by a link (to another run, to /dev/zero, out of the store).
  for target in /dev/zero /etc/passwd "$H_RESULT" "../000000-c0.json"; do
    h_make "$h" 2 || continue
    ln -sf "$target" "$h/runs/$H_FP/000001-c1.json"
    refuse "history check: run file a link to $target" -- history check "$h"
    rm -rf "$h"
  done
  # The history directory itself a link.
  h_make "$IN/real" 1 && ln -s real "$IN/hl"
  refuse "history add: the directory a link" -- history add "$IN/hl" "$H_RESULT"
  refuse "history check: the directory a link" -- history check "$IN/hl"
  rm -rf "$IN/real" "$IN/hl"
}

# 2. Hostile commit strings: filed under an encoded name inside runs/FP/, and the history still adds and checks.
h_commits() {
  local c i=0 h="$ROOT/hc/h" long
  long=$(printf 'x%.0s' $(seq 300))
  local commits=(.. . ... 'main..feature' '1f2e..dirty' 'a/../../b' '../../../../tmp/escape' /abs /etc/passwd
    $'line\nbreak' $'tab\there' $'\x01\x02\x7f' $'\e[31mred\e[0m' $'cr\rhere' "$long" 'ünïcødé' '日本語-коммит'
    '%2e%2e' '%2e%2e%2fx' '%' ' ' '-rf' '--help' '.hidden' 'a\b' '~' '*' '$(id)' '`id`' "q'\"q" 'history.json'
    'runs' "$(printf 'é%.0s' $(seq 100))" $'\u202eevil' 'con:nul' 'a//b' './.' '/' $'\xff\xfe')
  for c in "${commits[@]}"; do
    i=$((i + 1))
    rm -rf "$ROOT/hc" && mkdir -p "$ROOT/hc"
    local name
    name="history commit #$i $(printf %q "$c" | cut -c1-40)"
    if ! "$CB" history add "$h" "$H_RESULT" --commit "$c" --time 2026-11-01T08:00:00Z >"$ROOT/out" 2>"$ROOT/err"; then
      fail "$name" "add failed: $(head -n 1 "$ROOT/err")"
      continue
    fi
    local outside files
    outside=$(cd "$ROOT/hc" && find . -mindepth 1 -not -path './h' -not -path './h/*')
    files=$(cd "$h" && find . -type f | sort | tr '\n' ' ')
    if [[ -n $outside ]]; then fail "$name" "wrote outside the history: $outside"; continue; fi
    if [[ $(cd "$h" && find runs -mindepth 2 -type f | wc -l) != 1 || $(find "$h/runs" -mindepth 1 -maxdepth 1 | wc -l) != 1 ]]; then
      fail "$name" "not one file under runs/FP/: $files"
      continue
    fi
    # Still a history: another add (a plain commit) and a check (too short: exit 3) read it.
    "$CB" history add "$h" "$H_RESULT" --commit plain --time 2026-11-01T08:01:00Z >/dev/null 2>"$ROOT/err" ||
      { fail "$name" "the next add failed: $(head -n 1 "$ROOT/err")"; continue; }
    "$CB" history check "$h" --json "$ROOT/hc.json" >/dev/null 2>"$ROOT/err"
    local rc=$?
    if [[ $rc != 3 ]]; then fail "$name" "check exit $rc, expected 3: $(head -n 1 "$ROOT/err")"; continue; fi
    python3 - "$ROOT/hc.json" "$c" <<'PY' 2>"$ROOT/err" || { fail "$name" "check JSON: $(tail -n 1 "$ROOT/err")"; continue; }
import json, sys
j = json.load(open(sys.argv[1]))
commits = [r["commit"] for s in j["series"] for r in s["runs"]]
assert "plain" in commits and len(commits) >= 2, commits
PY
    ok "$name"
  done
  # The result's own commit (tool.commit) hostile, filed with no --commit.
  for c in '1f2e..dirty' '../../x' $'a\nb' '..'; do
    i=$((i + 1))
    rm -rf "$ROOT/hc" && mkdir -p "$ROOT/hc"
    python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); j["tool"]["commit"]=sys.argv[2]; json.dump(j, open(sys.argv[3],"w"))' \
      "$H_RESULT" "$c" "$ROOT/hc-r.json"
    if "$CB" history add "$h" "$ROOT/hc-r.json" >/dev/null 2>"$ROOT/err" &&
      "$CB" history add "$h" "$ROOT/hc-r.json" >/dev/null 2>>"$ROOT/err" &&
      [[ -z $(cd "$ROOT/hc" && find . -mindepth 1 -not -path './h' -not -path './h/*') ]]; then
      "$CB" history check "$h" >/dev/null 2>>"$ROOT/err"
      local rc=$?
      if [[ $rc == 3 ]]; then ok "history result commit #$i $(printf %q "$c")"; else fail "history result commit #$i" "check exit $rc: $(head -n 1 "$ROOT/err")"; fi
    else
      fail "history result commit #$i $(printf %q "$c")" "$(head -n 1 "$ROOT/err")"
    fi
  done
  rm -rf "$ROOT/hc" "$ROOT/hc-r.json" "$ROOT/hc.json"
}

# 3. A lost or stale index never makes an add reuse a run's name; seqs are 64-bit and never wrap.
h_seqs() {
  local h="$ROOT/hs" before after
  h_make "$h" 3 && before=$(h_files "$h/runs") && rm "$h/history.json"
  if "$CB" history add "$h" "$H_RESULT" --commit c3 >"$ROOT/out" 2>"$ROOT/err" && grep -q '000003-c3' "$ROOT/out"; then
    after=$(h_files "$h/runs" | grep -v 000003-c3)
    [[ $before == "$after" ]] && ok "history lost index: new seq 3, no run replaced" ||
      fail "history lost index" "a run file changed"
  else
    fail "history lost index" "$(head -n 1 "$ROOT/err") $(cat "$ROOT/out")"
  fi
  h_make "$h" 2 && cp "$h/history.json" "$ROOT/stale.json" && "$CB" history add "$h" "$H_RESULT" --commit c2 >/dev/null 2>&1
  cp "$ROOT/stale.json" "$h/history.json"
  if "$CB" history add "$h" "$H_RESULT" --commit c3 >"$ROOT/out" 2>"$ROOT/err" && grep -q '000003-c3' "$ROOT/out"; then
    ok "history stale index: new seq past the files on disk"
  else
    fail "history stale index" "$(head -n 1 "$ROOT/err") $(cat "$ROOT/out")"
  fi
  # Large seqs in the index: filed past them, or refused when there is no next one.
  local seq
  for seq in 2147483647 4294967295 4294967296 1099511627776 9223372036854775806; do
    h_make "$h" 1 && sed -i "s/\"seq\": 0/\"seq\": $seq/" "$h/history.json"
    if "$CB" history add "$h" "$H_RESULT" --commit next >"$ROOT/out" 2>"$ROOT/err" &&
      grep -q "$((seq + 1))-next" "$ROOT/out" && "$CB" history check "$h" >/dev/null 2>"$ROOT/err"; [[ $? == 3 ]]; then
      ok "history seq $seq: the next is $((seq + 1))"
    else
      fail "history seq $seq" "$(head -n 1 "$ROOT/err") $(cat "$ROOT/out")"
    fi
  done
  for seq in 9223372036854775807 9223372036854775808 18446744073709551615 99999999999999999999 -1 1.5 '"3"' null; do
    h_make "$IN/h" 1 && sed -i "s/\"seq\": 0/\"seq\": $seq/" "$IN/h/history.json"
    refuse "history add: index seq $seq" -- history add "$IN/h" "$H_RESULT"
    [[ $seq == 9223372036854775807 ]] || refuse "history check: index seq $seq" -- history check "$IN/h"
    rm -rf "$IN/h"
  done
  # A run file on disk named with the largest seq: no next one.
  h_make "$IN/h" 1 && cp "$H_RESULT" "$IN/h/runs/$H_FP/9223372036854775807-x.json"
  refuse "history add: a run file with seq 2^63-1 on disk" -- history add "$IN/h" "$H_RESULT"
  rm -rf "$IN/h" "$h" "$ROOT/stale.json"
}

# 4. Something other than a regular file at the index's or a run's name; an index too large to parse.
h_kinds() {
  local kind at h="$IN/h"
  for at in history.json "runs/$H_FP/000000-c0.json" "runs/$H_FP/000001-c1.json"; do
    for kind in fifo dir device socket empty; do
      h_make "$h" 1 || continue
      rm -rf "${h:?}/$at"
      case $kind in
        fifo) mkfifo "$h/$at" ;;
        dir) mkdir "$h/$at" ;;
        device) mknod "$h/$at" c 1 5 2>/dev/null || { skip "history $kind at $at" "no mknod"; rm -rf "$h"; continue; } ;;
        socket) # bound by a relative name: a socket's path is limited to 107 bytes, Bazel's sandbox paths are longer
          (cd "$(dirname "$h/$at")" && python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' \
            "$(basename "$at")") || { fail "history $kind at $at" "could not make the socket"; rm -rf "$h"; continue; } ;;
        empty) : >"$h/$at" ;;
      esac
      # The index: add and check refused; a filed run: the check (an add does not read it); the next run's name:
      # the add (never over it, never through it).
      if [[ $kind == empty && $at == *000001-c1.json ]]; then  # a regular file there is a run: filed past it
        if "$CB" history add "$h" "$H_RESULT" --commit c1 2>"$ROOT/err" | grep -q 000002-c1 && [[ ! -s $h/$at ]]; then
          ok "history add: a run file at $at: filed as seq 2"
        else
          fail "history add: a run file at $at" "$(head -n 1 "$ROOT/err")"
        fi
        rm -rf "$h"
        continue
      fi
      [[ $at == *000000-c0.json ]] || refuse "history add: $kind at $at" -t 10 -- history add "$h" "$H_RESULT" --commit c1
      [[ $at == *000001-c1.json ]] || refuse "history check: $kind at $at" -t 10 -- history check "$h"
      rm -rf "$h"
    done
  done
  h_make "$h" 1 && truncate -s 100M "$h/history.json"
  refuse "history add: an index of 100 MB" -t 10 -- history add "$h" "$H_RESULT"
  refuse "history check: an index of 100 MB" -t 10 -- history check "$h"
  rm -rf "$h"
  # Index entries whose file leaves the store or is no path: refused; an older version's names are read.
  local file
  for file in ../x.json /etc/passwd "runs/../../x" "runs//x" "./history.json" "runs/$H_FP/." "" "runs/$H_FP/"; do
    h_make "$h" 1 && python3 -c 'import json,sys; p=sys.argv[1]; j=json.load(open(p)); j["runs"][0]["file"]=sys.argv[2]; json.dump(j,open(p,"w"))' \
      "$h/history.json" "$file"
    refuse "history check: index file '$file'" -- history check "$h"
    rm -rf "$h"
  done
  h_make "$ROOT/hv" 1 && mv "$ROOT/hv/runs/$H_FP/000000-c0.json" "$ROOT/hv/runs/$H_FP/000000-main..feature.json" &&
    sed -i 's/000000-c0.json/000000-main..feature.json/' "$ROOT/hv/history.json"
  if "$CB" history add "$ROOT/hv" "$H_RESULT" >/dev/null 2>"$ROOT/err" && "$CB" history check "$ROOT/hv" >/dev/null 2>>"$ROOT/err"; [[ $? == 3 ]]; then
    ok "history: an older version's name 000000-main..feature.json is read"
  else
    fail "history: an older version's name" "$(head -n 1 "$ROOT/err")"
  fi
  rm -rf "$ROOT/hv"
}

# 5. Outputs over the store's files (or inside it), and a result filed from inside the store.
h_outputs() {
  local h="$IN/h" flag at
  h_make "$h" 2 || return
  for flag in --json --junit --html --summary; do
    for at in history.json history.lock "runs/$H_FP/000000-c0.json" new-file.txt runs/new.txt; do
      refuse "history check $flag inside the store: $at" -- history check "$h" "$flag" "$h/$at"
    done
    refuse "history check $flag the store itself" -- history check "$h" "$flag" "$h"
  done
  ln -s "h/history.json" "$IN/alias.json"
  refuse "history check --json a link to the index" -- history check "$h" --json "$IN/alias.json"
  rm -f "$IN/alias.json"
  for at in history.json "runs/$H_FP/000000-c0.json"; do
    refuse "history add: RESULT inside the store: $at" -- history add "$h" "$h/$at"
  done
  refuse "gate --history: --out the index" -- gate --history "$h" --out "$h/history.json"
  refuse "gate --history: --json inside the store" -- gate --history "$h" --out "$IN/g.json" --json "$h/g.json"
  rm -rf "$h"
}

if h_setup; then
  h_links
  h_commits
  h_seqs
  h_kinds
  h_outputs
fi
rm -f "$H_RESULT"
