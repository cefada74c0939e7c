#!/bin/bash
# tests/bench/steady-state.sh: the time to classify one run's series of 100 000 intervals
# (basic/steady-state; goal: at most 50 ms). Prints figures; asserts nothing.
# Usage: tests/bench/steady-state.sh [BUILD_DIR] [N] [REPEATS]
set -eu
cd "$(dirname "$0")/../.."
BUILD=$(cd "${1:-build}" && pwd)
ninja -C "$BUILD" tests/bench-steady-state >/dev/null
"$BUILD/tests/bench-steady-state" "${2:-100000}" "${3:-5}"
