#!/bin/bash
# Installs what commbench needs on Debian 12, only what is missing, quietly when everything is there:
# Bazel 4.2.3 (bazel-bootstrap) and the system libraries the build links (see third_party/system.BUILD), the
# test tools (JSON Schema validator, Redis, OpenMPI, Slurm and munge for the virtual cluster), and the browser
# the HTML report's test drives.
# CUDA/NCCL are not Debian packages: the build uses /usr/local/cuda (or $CUDA_HOME) when present.
set -euo pipefail

packages=(
  bazel-bootstrap g++ libgloo-dev libcli11-dev nlohmann-json3-dev libyaml-cpp-dev libfmt-dev libhiredis-dev libgtest-dev
  libgmock-dev libbenchmark-dev python3 python3-jsonschema
  libxml2-utils cmark-gfm  # the tests check JUnit against reports/junit.xsd, render the step summary as GitHub does
  openmpi-bin libopenmpi-dev redis-server slurm-wlm munge
  clang-14 libclang-rt-14-dev  # the fuzz targets under libFuzzer (fuzz/README.md)
  strace  # the reliability probe stops a driver at its rename
  prometheus prometheus-node-exporter python3-pandas  # the exports' tests: promtool, the textfile collector, pandas
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  echo "tools/setup.sh: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 ||
    { $SUDO apt-get update -q >/dev/null && $SUDO apt-get install -y -q "${missing[@]}" >/dev/null; }
fi
# The HTML report's browser test: Chromium, chromedriver, Node.js.
"$(dirname "$0")/../reports/tools/setup.sh"
