# Hostile or huge result files, for every command that reads one: a FIFO (would block), devices (endless or
# empty), a directory, a socket, links to them, a sparse file past the bound (refused before it is read), and
# results whose samples sidecar names a path outside their directory or is itself a FIFO or a device.
echo "# hostile result files"
# Bound by a relative name: a socket's path is limited to 107 bytes, and Bazel's sandbox paths are longer.
(cd "$IN" && python3 -c "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" sock) ||
  fail "hostile result files: a socket" "could not make one"
ln -sf /dev/zero "$IN/link_zero.json"
ln -sf "$IN/fifo" "$IN/link_fifo.json"
truncate -s 600M "$IN/sparse.json"
python3 - "$IN" <<'PY'
import json, sys
d = sys.argv[1]
base = json.load(open(f"{d}/base.json"))
for name, sidecar in {"side_up": "../../../../etc/passwd", "side_abs": "/dev/zero", "side_dotdot": "..",
                      "side_fifo": "fifo", "side_dir": "adir", "side_zero": "link_zero.json"}.items():
    doc = json.loads(json.dumps(base))
    for p in doc["points"]:
        p.setdefault("samples_us", {})["file"] = sidecar
    json.dump(doc, open(f"{d}/{name}.json", "w"))
PY
for kind in fifo /dev/zero /dev/urandom /dev/null adir sock link_zero.json link_fifo.json sparse.json; do
  path=$kind
  [[ $kind == /* ]] || path="$IN/$kind"
  refuse "report $kind" -t 10 -- report "$path" -o out.html
  refuse "compare BASE=$kind" -t 10 -- compare "$path" "$IN/new.json"
  refuse "compare NEW=$kind" -t 10 -- compare "$IN/base.json" "$path"
  refuse "export $kind" -t 10 -- export "$path" --csv out.csv
  refuse "gate --baseline $kind" -t 10 -- gate --baseline "$path" --groups 1 --sizes 400
  refuse "history add $kind" -t 10 -- history add hist "$path"
done
for name in side_up side_abs side_dotdot side_fifo side_dir side_zero; do
  refuse "export --trace, sidecar $name" -t 10 -- export "$IN/$name.json" --trace out.trace.json
  refuse "export --csv-samples, sidecar $name" -t 10 -- export "$IN/$name.json" --csv out.csv --csv-samples
done
rm -f "$IN/sparse.json" "$IN/sock" "$IN"/link_*.json "$IN"/side_*.json
