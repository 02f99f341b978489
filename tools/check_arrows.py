#!/usr/bin/env python3
"""Checks that lib packages include only what tools/arrows.txt allows. Usage: check_arrows.py REPO_ROOT [--fix].

Prints every include that breaks the list (file:line, the arrow) and exits 1, or prints the arrows found and
exits 0. Tests (*_test.cc), testing/ folders, test_util files and the test-only sources the list names are skipped.
Each lib package's Bazel default_visibility must be layer_visibility(PACKAGE) from lib/visibility.bzl, which is
generated from the list (the packages that may include it, and tools/, bench/, fuzz/, reports/); --fix writes both.
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


# lib/visibility.bzl, generated from the list: who may depend on each package (its users, itself, and the
# tools, benchmarks, fuzzers and report assets above every package).
ALWAYS_VISIBLE = ["//bench:__subpackages__", "//fuzz:__subpackages__", "//reports:__subpackages__",
                  "//tools:__subpackages__"]


def visibility_bzl(allowed):
    lines = ['"""Who may depend on each lib package: generated from tools/arrows.txt by tools/check_arrows.py --fix."""',
             "", "_USERS = {"]
    for package in sorted(allowed):
        users = sorted({package} | {q for q, targets in allowed.items() if package in targets})
        lines.append(f'    "{package}": [{", ".join(repr(u).replace(chr(39), chr(34)) for u in users)}],')
    lines += ["}", "", "_ALWAYS = [" + ", ".join(f'"{l}"' for l in ALWAYS_VISIBLE) + "]", "",
              "def layer_visibility(package):",
              '    """The default_visibility of lib/PACKAGE and its subpackages."""',
              '    return ["//lib/%s:__subpackages__" % user for user in _USERS[package]] + _ALWAYS', ""]
    return "\n".join(lines)


PACKAGE_LINE = re.compile(r"package\(default_visibility = [^\n]*?\)\n|package\(default_visibility = \[[^\]]*\]\)\n", re.S)
LOAD_LINE = 'load("//lib:visibility.bzl", "layer_visibility")\n'


def check_visibility(root, allowed, fix):
    bad = []
    bzl = os.path.join(root, "lib", "visibility.bzl")
    want_bzl = visibility_bzl(allowed)
    have_bzl = open(bzl).read() if os.path.exists(bzl) else ""
    if have_bzl != want_bzl:
        if fix:
            with open(bzl, "w") as f:
                f.write(want_bzl)
        else:
            bad.append("lib/visibility.bzl is not what tools/arrows.txt implies (run tools/check_arrows.py . --fix)")
    for dirpath, _, files in os.walk(os.path.join(root, "lib")):
        if "BUILD.bazel" not in files or dirpath == os.path.join(root, "lib"):
            continue
        path = os.path.join(dirpath, "BUILD.bazel")
        package = os.path.relpath(path, root).split("/")[1]
        if package not in allowed:
            continue
        with open(path) as f:
            text = f.read()
        want = f'package(default_visibility = layer_visibility("{package}"))\n'
        m = PACKAGE_LINE.search(text)
        if m and m.group(0) == want and LOAD_LINE in text:
            continue
        if fix and m:
            text = text[:m.start()] + want + text[m.end():]
            if LOAD_LINE not in text:
                text = LOAD_LINE + "\n" + text
            with open(path, "w") as f:
                f.write(text)
        else:
            bad.append(f"{os.path.relpath(path, root)}: default_visibility is not layer_visibility(\"{package}\") "
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
