#!/bin/bash
# tests/bench/change-points.sh: detection rates of the change point search (basic/change-points)
# on synthetic series with 2% CoV noise and the time for series of 1000 experiments with change
# points (goal: at most 200 ms). Prints figures; asserts nothing.
# Usage: tests/bench/change-points.sh [BUILD_DIR] [SEEDS]
set -eu
cd "$(dirname "$0")/../.."
BUILD=$(cd "${1:-build}" && pwd)
ninja -C "$BUILD" tests/bench-change-points >/dev/null
"$BUILD/tests/bench-change-points" "${2:-100}"
