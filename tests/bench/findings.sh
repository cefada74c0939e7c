#!/bin/bash
# tests/bench/findings.sh: findings for an experiment of 30 runs with 1 M stored records each
# (goal: at most 2 s on the 2-core build machine), the tail analysis streaming every timeline
# from the store. Prints figures; asserts nothing. Usage: tests/bench/findings.sh [BUILD_DIR] [RECORDS]
set -eu
cd "$(dirname "$0")/../.."
BUILD=$(cd "${1:-build}" && pwd)
ninja -C "$BUILD" tests/findings/bench-findings >/dev/null
DIR=$(mktemp -d /tmp/slicelab-bench-findings.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
"$BUILD/tests/findings/bench-findings" "$DIR" "${2:-1000000}"
