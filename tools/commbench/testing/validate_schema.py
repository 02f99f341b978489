"""Validates JSON files against a draft 2020-12 schema (Debian's python3-jsonschema): result files against
reports/result.schema.json, comparisons against reports/comparison.schema.json.

Usage: validate_schema.py SCHEMA FILE...  Prints each violation; exits 1 if any.
"""
import json
import sys

import jsonschema


def main():
    schema = json.load(open(sys.argv[1]))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    bad = 0
    for path in sys.argv[2:]:
        for error in validator.iter_errors(json.load(open(path))):
            print(f"{path}: {'/'.join(map(str, error.path))}: {error.message}")
            bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
