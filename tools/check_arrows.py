#!/usr/bin/env python3
"""Checks that lib packages include only what tools/arrows.txt allows. Usage: check_arrows.py REPO_ROOT [--fix].

Prints every include that breaks the list (file:line, the arrow) and exits 1, or prints the arrows found and
exits 0. Tests (*_test.cc), testing/ folders, test_util files and the test-only sources the list names are skipped.
Each lib package's Bazel default_visibility must be what the list implies (the packages that may include it, and
tools/, bench/, fuzz/, reports/); --fix writes it.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"lib/([a-z_0-9]+)/')


def read_allowed(path):
    allowed, test_only = {}, set()
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, _, rest = line.partition(":")
            if name == "test-only":
                test_only.update(rest.split())
            else:
                allowed[name] = set(rest.split())
    return allowed, test_only


def is_test(rel, test_only):
    base = os.path.basename(rel)
    return (base.endswith("_test.cc") or "/testing/" in rel or base.startswith("test_util")
            or rel in test_only)


ALWAYS_VISIBLE = ["//bench:__subpackages__", "//fuzz:__subpackages__", "//reports:__subpackages__",
                  "//tools:__subpackages__"]


def visibility_line(package, allowed):
    users = sorted({package} | {q for q, targets in allowed.items() if package in targets})
    labels = [f"//lib/{q}:__subpackages__" for q in users] + ALWAYS_VISIBLE
    return "package(default_visibility = [\n" + "".join(f'    "{l}",\n' for l in labels) + "])"


PACKAGE_LINE = re.compile(r"package\(default_visibility = \[[^\]]*\]\)", re.S)


def check_visibility(root, allowed, fix):
    bad = []
    for dirpath, _, files in os.walk(os.path.join(root, "lib")):
        if "BUILD.bazel" not in files:
            continue
        path = os.path.join(dirpath, "BUILD.bazel")
        package = os.path.relpath(path, root).split("/")[1]
        if package not in allowed:
            continue
        with open(path) as f:
            text = f.read()
        want = visibility_line(package, allowed)
        m = PACKAGE_LINE.search(text)
        if m and m.group(0) == want:
            continue
        if fix and m:
            with open(path, "w") as f:
                f.write(text[:m.start()] + want + text[m.end():])
        else:
            bad.append(f"{os.path.relpath(path, root)}: default_visibility is not what tools/arrows.txt implies "
                       f"(run tools/check_arrows.py . --fix)")
    return bad


def main():
    root = sys.argv[1]
    allowed, test_only = read_allowed(os.path.join(root, "tools", "arrows.txt"))
    bad = check_visibility(root, allowed, "--fix" in sys.argv)
    found = set()
    for dirpath, _, files in os.walk(os.path.join(root, "lib")):
        for name in sorted(files):
            if not name.endswith((".h", ".cc")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            if is_test(rel, test_only):
                continue
            package = rel.split("/")[1]
            with open(path, errors="replace") as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m or m.group(1) == package:
                        continue
                    target = m.group(1)
                    found.add((package, target))
                    if package not in allowed:
                        bad.append(f"{rel}:{number}: package lib/{package} is not in tools/arrows.txt")
                    elif target not in allowed[package]:
                        bad.append(f"{rel}:{number}: {package} -> {target} is not an allowed arrow")
    if bad:
        print("\n".join(bad))
        print(f"{len(bad)} include(s) break tools/arrows.txt (docs/architecture.md, Layers)")
        return 1
    for package, target in sorted(found):
        print(f"{package} -> {target}")
    print(f"{len(found)} arrows, all allowed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
