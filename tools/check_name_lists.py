#!/usr/bin/env python3
"""Registries are the only lists: fails on a hand-written list of names outside the registry that owns them.

The registries (read from the tree itself, so a new entry is covered the day it registers):
  backends     RegisterBackend("NAME", ...) and kBackendName[] = "NAME" under lib/backend/
  rules        name() const override { return "NAME"; } under lib/diagnose/rules/
  collectives  {Collective::kX, "NAME"} in lib/core/
Outside the owner's own directory, production sources (lib/ and tools/, tests and test helpers aside) may name one
of them (a default, a message), never list them by hand:
  - a comparison with a name (`backend == "gloo"`): ask the registry what the thing can do instead;
  - two or more names of one registry on one line, or in one string ("gloo, nccl, native"): ask it for the list;
  - rules only: two or more rule names in one file (a table keyed by rule name).
A line that must name one anyway (a result-schema field named after a backend) says why with a trailing
`// names-ok: REASON`.
Usage: check_name_lists.py ROOT   (prints each finding as FILE:LINE: what; exit 1 when there is any)
"""
import os
import re
import sys

STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def sources(root, under):
    for base, _, files in os.walk(os.path.join(root, under)):
        for name in files:
            if name.endswith((".cc", ".h")):
                yield os.path.join(base, name)


def registry(root, under, pattern):
    names = set()
    for path in sources(root, under):
        names.update(re.findall(pattern, read(path)))
    return names


def is_test(rel):
    name = os.path.basename(rel)
    return (name.endswith("_test.cc") or name.startswith("test_") or name in ("test_util.cc", "test_util.h",
            "testing.h") or "/testing/" in rel or rel.startswith("tools/probe/"))


def code_only(line):
    """The line without its // comment (a // inside a string is kept)."""
    out, quoted, i = [], False, 0
    while i < len(line):
        c = line[i]
        if c == "\\" and quoted:
            out.append(line[i:i + 2])
            i += 2
            continue
        if c == '"':
            quoted = not quoted
        elif not quoted and line.startswith("//", i):
            break
        out.append(c)
        i += 1
    return "".join(out)


def names_in(text, names):
    """The registry names a string holds, as words ("Backends: a, b or c" holds a, b and c)."""
    return {w for w in re.findall(r"[a-z0-9_-]+", text) if w in names}


def check(root):
    kinds = {
        "backend": (registry(root, "lib/backend", r'(?:RegisterBackend\(|kBackendName\[\] = )"([a-z0-9_-]+)"'),
                    "lib/backend/"),
        "rule": (registry(root, "lib/diagnose/rules", r'name\(\) const override \{ return "([a-z_]+)"; \}'),
                 "lib/diagnose/rules/"),
        "collective": (registry(root, "lib/core", r'\{Collective::k\w+, "([a-z_]+)"\}'), "lib/core/"),
    }
    findings = []
    for top in ("lib", "tools"):
        for path in sorted(sources(root, top)):
            rel = os.path.relpath(path, root)
            if is_test(rel):
                continue
            rules_in_file = {}
            for number, raw in enumerate(read(path).splitlines(), 1):
                if re.search(r"// names-ok: \S", raw):
                    continue
                line = code_only(raw)
                if line.lstrip().startswith(("#include", "*")):
                    continue
                literals = STRING.findall(line)
                for kind, (names, owner) in kinds.items():
                    if rel.startswith(owner) or not names:
                        continue
                    for name in sorted(names):
                        quoted = re.escape('"' + name + '"')
                        if re.search(r'[=!]=\s*' + quoted + r'|' + quoted + r'\s*[=!]=', line):
                            findings.append(f"{rel}:{number}: compares with the {kind} name '{name}'")
                    on_line = set()
                    for text in literals:
                        in_one = names_in(text, names)
                        if len(in_one) >= 2:
                            findings.append(f"{rel}:{number}: lists {kind}s by hand: \"{text}\"")
                        if text in names:
                            on_line.add(text)
                    if len(on_line) >= 2:
                        findings.append(f"{rel}:{number}: lists {kind}s by hand: {', '.join(sorted(on_line))}")
                    if kind == "rule":
                        for name in on_line or {t for t in literals if t in names}:
                            rules_in_file.setdefault(name, number)
            if len(rules_in_file) >= 2:
                first = min(rules_in_file.values())
                findings.append(f"{rel}:{first}: a table of rule names ({', '.join(sorted(rules_in_file))}): "
                                "ask the rule (lib/diagnose/rule.h) instead")
    return kinds, findings


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    kinds, findings = check(root)
    for kind, (names, _) in kinds.items():
        if not names:
            findings.append(f"no {kind} names found: the registry's pattern no longer matches its source")
    for f in findings:
        print(f)
    if findings:
        return 1
    print("no hand-written name lists: " + "; ".join(f"{len(n)} {k}s" for k, (n, _) in kinds.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
