#!/bin/bash
# Installs what building and running commbench need on Debian 12, only what is missing, quietly when everything is
# there: Bazel 4.2.3 (bazel-bootstrap), the compiler and the system libraries the binary links
# (third_party/system.BUILD). What only the tests use is installed by the test command (tools/test_setup.sh, run
# by tools/test.sh). CUDA/NCCL are not Debian packages: the build uses /usr/local/cuda (or $CUDA_HOME) when present.
set -euo pipefail
# shellcheck source=tools/install_missing.sh
source "$(dirname "$0")/install_missing.sh"
install_missing tools/setup.sh bazel-bootstrap g++ git libgloo-dev libcli11-dev nlohmann-json3-dev libyaml-cpp-dev \
  libfmt-dev libhiredis-dev libopenmpi-dev
