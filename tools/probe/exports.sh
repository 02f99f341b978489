# Exports of results whose strings are hostile (a host name, a CPU model, a rank's host): the CSV has no live
# spreadsheet formula (OWASP: a cell of text beginning = + - @ tab or CR is quoted after a '), the Prometheus file
# is UTF-8 that promtool accepts, the trace is valid JSON; a result with many samples streams.
echo "# exports"
python3 - "$IN" <<'PY'
import json, sys
d = sys.argv[1]
base = json.load(open(f"{d}/base.json"))
values = ["=HYPERLINK(\"http://x\",\"y\")", "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1", "=cmd|' /C calc'!A0",
          "node\udcff", "a\nb", "\u202eevil", "q\"uo\\te", "\x1b[31mred"]
for i, v in enumerate(values):
    doc = json.loads(json.dumps(base))
    doc["environment"]["host"] = v
    doc["environment"]["cpu_model"] = v
    for k, p in enumerate(doc["points"]):
        p["id"] = f"{v}{k}"  # ids reach the CSV's first column
        p["samples_us"] = {"cap": 3, "per_rank": [[1.5, 2.5, 3.5] for _ in p["per_rank"]]}  # inline: no sidecar
        for r in p["per_rank"]:
            r["host"] = v
    text = json.dumps(doc, ensure_ascii=False).encode("utf-8", "surrogateescape")
    open(f"{d}/exp{i}.json", "wb").write(text)
PY
for f in "$IN"/exp*.json; do
  n=${f##*/}
  w="$ROOT/w/exp" && rm -rf "$w" && mkdir -p "$w"
  # --csv-samples: the rows that carry each rank's host.
  (cd "$w" && timeout 20 "$CB" export "$f" --csv r.csv --csv-samples --prom r.prom --trace r.trace.json \
    >"$ROOT/out" 2>"$ROOT/err" && timeout 20 "$CB" export "$f" --csv points.csv >>"$ROOT/out" 2>>"$ROOT/err")
  rc=$? why=""
  if [[ $rc == 2 ]]; then  # a result commbench could never have written (the byte 0xff) may be refused, cleanly
    [[ $(grep -c 'error' "$ROOT/err") == 1 && -z $(ls "$w") ]] || why="exit 2 but $(ls "$w") written: $(head -n 2 "$ROOT/err")"
  elif [[ $rc != 0 ]]; then why="exit $rc: $(head -n 2 "$ROOT/err")"
  else
    python3 - "$w" >"$ROOT/py" 2>&1 <<'PY' || why="$(tail -n 1 "$ROOT/py")"
import csv, json, sys
w = sys.argv[1]
json.load(open(f"{w}/r.trace.json", "rb"))
for row in [r for name in ("r.csv", "points.csv")
            for r in csv.reader(open(f"{w}/{name}", newline="", encoding="utf-8", errors="strict"))]:
    for cell in row:
        if cell[:1] in ("=", "+", "@", "\t", "\r") or (cell[:1] == "-" and not cell.lstrip("-").replace(".", "", 1).replace("e", "", 1).replace("-", "").replace("+", "").isdigit()):
            sys.exit(f"a live formula cell: {cell[:40]!r}")
open(f"{w}/r.prom", encoding="utf-8", errors="strict").read()
PY
    if [[ -z $why ]] && command -v promtool >/dev/null; then
      promtool check metrics <"$w/r.prom" >"$ROOT/py" 2>&1 || why="promtool: $(head -n 2 "$ROOT/py")"
    fi
  fi
  rm -rf "$w"
  if [[ -z $why ]]; then ok "export of a result with hostile strings ($n)"; else fail "export ($n)" "$why"; fi
done
rm -f "$IN"/exp*.json
