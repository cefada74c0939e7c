#!/bin/bash
# tests/bench/profile-fold.sh: collapsing 1 M perf samples of deep Java-like stacks into folded
# stacks (profile/profile-fold.c; goal: at most 1 s on the 2-core build machine). Prints figures;
# asserts nothing. Usage: tests/bench/profile-fold.sh [BUILD_DIR] [SAMPLES [JAVA_FRAMES_MIN JAVA_FRAMES_MAX]]
# (20 100 by default; slicelab-sut.jar's stacks are nearer 10 20: see bench-profile-fold.c)
set -eu
cd "$(dirname "$0")/../.."
BUILD=$(cd "${1:-build}" && pwd)
ninja -C "$BUILD" tests/profile/bench-profile-fold >/dev/null
"$BUILD/tests/profile/bench-profile-fold" "${2:-1000000}" "${@:3}"
