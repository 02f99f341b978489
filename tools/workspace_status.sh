#!/bin/bash
# Bazel stamping: the commit the binary was built from, recorded in every result file.
echo "STABLE_COMMBENCH_COMMIT $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo -dirty)"
