#!/usr/bin/python3
"""Reads commbench's exports back the way their users do (export_cli_test.sh).

  check_exports.py pandas POINTS.csv REPEATS.csv SAMPLES.csv CONSOLE.txt RESULT.json
      loads each CSV with pandas, checks the dtypes and that a groupby over `groups` reproduces every growth line
      the console printed (first and last loop cost, slope, R^2)
  check_exports.py scrape PORT FILE.prom
      reads node_exporter's /metrics on 127.0.0.1:PORT and checks that every commbench series of FILE.prom is
      there with its value, and that the textfile collector reported no error
  check_exports.py trace TRACE.json RESULT.json
      checks the Trace Event Format structure and one lane per rank
  check_exports.py straggler TRACE.json SLOW_GROUP
      checks that the slow group's iteration lanes end at least 3x later than every other group's
Exits 1 with one line per problem.
"""
import json
import math
import re
import sys
import urllib.request

problems = []


def problem(text):
    problems.append(text)
    print("FAIL: " + text)


AXES = ["backend", "op", "algo", "dtype", "reduce", "size_bytes", "group_size", "in_place", "sync", "concurrency",
        "ranks_per_process", "pin", "cpus", "device", "stream", "h2d", "h2d_bytes", "graph", "phase"]


def size_of(text):
    m = re.fullmatch(r"(\d+)([KMGT]?)", text)
    return int(m.group(1)) * 1024 ** " KMGT".index(m.group(2) or " ")


def check_pandas(points_csv, repeats_csv, samples_csv, console, result_json):
    import numpy as np
    import pandas as pd
    points = pd.read_csv(points_csv)
    expected = {"groups": "int64", "size_bytes": "int64", "group_size": "int64", "world": "int64",
                "iters": "int64", "correct": "bool", "loop_us": "float64", "p50_us": "float64",
                "busbw_gbps": "float64", "backend": "object", "op": "object", "sync": "object"}
    for column, dtype in expected.items():
        if str(points[column].dtype) != dtype:
            problem(f"{points_csv}: {column} is {points[column].dtype}, expected {dtype}")
    result = json.load(open(result_json))
    if len(points) != len(result["points"]):
        problem(f"{points_csv}: {len(points)} rows for {len(result['points'])} points")
    lines = [l for l in open(console) if re.search(r": G=\d+ .* us -> G=\d+ ", l)]
    if not lines:
        problem(f"{console}: no growth line")
    growth = {}
    for key, series in points.groupby(AXES, dropna=False):
        series = series.sort_values("groups")
        g, y = series["groups"].to_numpy(float), series["loop_us"].to_numpy(float)
        if len(g) < 2:
            continue
        slope, intercept = np.polyfit(g, y, 1)
        fitted = intercept + slope * g
        r2 = 1 - ((y - fitted) ** 2).sum() / ((y - y.mean()) ** 2).sum()
        k = dict(zip(AXES, key))
        growth[(k["backend"], k["op"], k["algo"], int(k["size_bytes"]), k["sync"])] = (
            int(g[0]), y[0], int(g[-1]), y[-1], slope, r2)
    pattern = re.compile(r"\s+(\S+) (\S+) (\S+) (\S+), sync ([^,:]+)[^:]*: G=(\d+) ([\d.]+) us -> G=(\d+) ([\d.]+) us, "
                         r"slope ([-+][\d.]+) us/group, R\^2 ([-\d.]+)")
    for line in lines:
        m = pattern.match(line)
        if not m:
            problem(f"growth line not understood: {line.strip()}")
            continue
        key = (m.group(1), m.group(2), m.group(3), size_of(m.group(4)), m.group(5))
        if key not in growth:
            problem(f"no CSV series for the growth line {line.strip()}")
            continue
        g0, y0, g1, y1, slope, r2 = growth[key]
        mine = f"G={g0} {y0:.1f} us -> G={g1} {y1:.1f} us, slope {slope:+.2f} us/group, R^2 {r2:.2f}"
        if mine not in line:
            problem(f"pandas says '{mine}', the console '{line.strip()}'")
        else:
            print(f"ok: {key}: {mine}")
    repeats = pd.read_csv(repeats_csv)
    per_point = repeats.groupby("point_id").size()
    want = {p["id"]: p.get("repeats", {}).get("n", 1) for p in result["points"]}
    for pid, n in want.items():
        if per_point.get(pid, 0) != n:
            problem(f"{repeats_csv}: {per_point.get(pid, 0)} rows for {pid}, which has {n} repeats")
    if str(repeats["repeat"].dtype) != "int64" or str(repeats["p50_us"].dtype) != "float64":
        problem(f"{repeats_csv}: dtypes {dict(repeats.dtypes)}")
    samples = pd.read_csv(samples_csv)
    if str(samples["time_us"].dtype) != "float64" or str(samples["iteration"].dtype) != "int64":
        problem(f"{samples_csv}: dtypes {dict(samples.dtypes)}")
    median = samples.groupby(["point_id", "rank"])["time_us"].median()
    print(f"ok: {len(points)} point rows, {len(repeats)} repeat rows, {len(samples)} sample rows "
          f"({median.size} point x rank series)")


def parse_exposition(text):
    series = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        name_labels, value = line.rsplit(" ", 1)
        m = re.fullmatch(r"([^{]+)(\{(.*)\})?", name_labels)
        labels = tuple(sorted(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"', m.group(3) or "")))
        series[(m.group(1), labels)] = float(value)
    return series


def check_scrape(port, prom):
    body = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    scraped = parse_exposition(body)
    written = parse_exposition(open(prom).read())
    errors = [v for (n, l), v in scraped.items() if n == "node_textfile_scrape_error"]
    if errors != [0.0]:
        problem(f"node_textfile_scrape_error {errors}")
    missing = 0
    for key, value in written.items():
        got = scraped.get(key)
        if got is None or not (got == value or (math.isnan(got) and math.isnan(value))):
            missing += 1
            if missing <= 3:
                problem(f"{key[0]}{dict(key[1])}: written {value}, scraped {got}")
    print(f"ok: {len(written) - missing} of {len(written)} series read back from node_exporter on 127.0.0.1:{port}")
    for (name, labels), value in scraped.items():
        if name == "commbench_busbw_bytes_per_second":
            print(f"  e.g. {name}{{{','.join(f'{k}={v!r}' for k, v in labels)}}} {value}")
            break


def check_trace(trace_json, result_json):
    trace = json.load(open(trace_json))
    result = json.load(open(result_json))
    events = trace["traceEvents"]
    names = {}
    for e in events:
        if e["ph"] == "M" and e["name"] == "process_name":
            names[e["pid"]] = e["args"]["name"]
        elif e["ph"] == "X":
            if not (isinstance(e["ts"], (int, float)) and e["dur"] >= 0 and isinstance(e["pid"], int)):
                problem(f"bad complete event {e}")
        elif e["ph"] != "M":
            problem(f"unexpected phase {e['ph']}")
    world = max(p["world"] for p in result["points"])
    for rank in range(world):
        if not names.get(rank + 1, "").startswith(f"rank {rank} (host "):
            problem(f"no process named for rank {rank}: {names.get(rank + 1)}")
    iterations = sum(1 for e in events if e.get("cat") == "iteration")
    print(f"ok: {len(events)} events, {iterations} iterations, processes: {sorted(names.values())[:3]} ...")


def check_straggler(trace_json, slow_group):
    # Judged by the iterations' own lengths: a peer of the sleeping rank waits for it in every iteration, however
    # loaded the host is, while where the lanes end follows each loop's wall time, which a busy host stretches for
    # every group alike (under the suite's other tests the fast group's lanes once ended at 1.3 s).
    durations, group_of = {}, {}
    for e in json.load(open(trace_json))["traceEvents"]:
        if e.get("cat") == "iteration":
            durations.setdefault(e["pid"], []).append(e["dur"])
        if e.get("cat") == "loop":
            group_of[e["pid"]] = e["args"]["group"]
    medians = {pid: sorted(d)[len(d) // 2] for pid, d in durations.items()}
    slow = [m for pid, m in medians.items() if group_of[pid] == int(slow_group)]
    other = [m for pid, m in medians.items() if group_of[pid] != int(slow_group)]
    if not slow or not other or max(slow) < 3 * max(other):
        problem(f"the slow group's lanes' median iterations are {slow} us, the others' {other} us")
    else:
        print(f"ok: group {slow_group}'s lanes' median iterations {[round(x) for x in slow]} us, the others' "
              f"{[round(x) for x in other]} us")


def main():
    mode = sys.argv[1]
    {"pandas": check_pandas, "scrape": check_scrape, "trace": check_trace, "straggler": check_straggler}[mode](*sys.argv[2:])
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
