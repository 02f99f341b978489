#!/bin/bash
# Installs what only the tests need, when missing (tools/test.sh runs it first; tools/setup.sh installed what the
# build needs): the test and benchmark libraries, the JSON Schema validator, xmllint and cmark-gfm (JUnit against
# reports/junit.xsd, the step summary rendered as GitHub does), clang-format (tools/check_format.sh), Redis,
# OpenMPI's launcher, Slurm and munge for the virtual cluster, clang with libFuzzer (fuzz/README.md), strace (the
# reliability probe stops a driver at its rename), promtool, node_exporter and pandas (the exports' tests), and the
# browser the HTML report's test drives.
set -euo pipefail
# shellcheck source=tools/install_missing.sh
source "$(dirname "$0")/install_missing.sh"
install_missing tools/test_setup.sh libgtest-dev libgmock-dev libbenchmark-dev python3 python3-jsonschema \
  libxml2-utils cmark-gfm clang-format openmpi-bin redis-server slurm-wlm munge clang-14 libclang-rt-14-dev strace \
  prometheus prometheus-node-exporter python3-pandas
# The HTML report's browser test: Chromium, chromedriver, Node.js.
"$(dirname "$0")/../reports/tools/setup.sh"
