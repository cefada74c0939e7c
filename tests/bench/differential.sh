#!/bin/bash
# tests/bench/differential.sh: the differential profile of 2 cells x 10 iterations of realistic
# folded profiles (thousands of distinct stacks each) through findings/profile-shares.h, the one
# computation of GET /v1/experiments/{id}/profile and the findings rule `profile` (goal: at most
# 200 ms). Prints figures; asserts nothing.
# Usage: tests/bench/differential.sh [BUILD_DIR] [STACKS_PER_RUN] [ITERATIONS]
set -eu
cd "$(dirname "$0")/../.."
BUILD=$(cd "${1:-build}" && pwd)
ninja -C "$BUILD" tests/findings/bench-differential >/dev/null
"$BUILD/tests/findings/bench-differential" "${2:-5000}" "${3:-10}"
