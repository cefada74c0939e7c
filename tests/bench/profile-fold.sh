#!/bin/bash
# tests/bench/profile-fold.sh: collapsing 1 M perf samples of deep Java-like stacks into folded
# stacks (daemon/profile-fold.c; goal: at most 1 s on the 2-core build machine). Prints figures;
# asserts nothing. Usage: tests/bench/profile-fold.sh [BUILD_DIR] [SAMPLES]
set -eu
cd "$(dirname "$0")/../.."
BUILD=$(cd "${1:-build}" && pwd)
ninja -C "$BUILD" tests/daemon/bench-profile-fold >/dev/null
"$BUILD/tests/daemon/bench-profile-fold" "${2:-1000000}"
