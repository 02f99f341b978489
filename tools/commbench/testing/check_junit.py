#!/usr/bin/python3
"""Checks commbench's JUnit XML: valid against reports/junit.xsd (xmllint), and each testsuite's counts agree
with its testcases (tests, failures, skipped), which XSD cannot express.

    check_junit.py SCHEMA FILE...      exit 0 when every file is good, else 1 with one line per problem
"""
import subprocess
import sys
import xml.etree.ElementTree as ET


def problems(schema, path):
    run = subprocess.run(["xmllint", "--noout", "--schema", schema, path], capture_output=True, text=True)
    if run.returncode != 0:
        return [f"{path}: not valid against {schema}: {run.stderr.strip().splitlines()[0]}"]
    out = []
    for suite in ET.parse(path).getroot().iter("testsuite"):
        cases = suite.findall("testcase")
        counted = {
            "tests": len(cases),
            "failures": sum(1 for c in cases if c.find("failure") is not None),
            "skipped": sum(1 for c in cases if c.find("skipped") is not None),
        }
        for key, n in counted.items():
            given = suite.get(key)
            if given is not None and int(given) != n:
                out.append(f"{path}: testsuite {suite.get('name')}: {key}=\"{given}\" but {n} testcases")
    return out


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    found = [p for path in sys.argv[2:] for p in problems(sys.argv[1], path)]
    for p in found:
        print(p)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
