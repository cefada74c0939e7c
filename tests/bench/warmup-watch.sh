#!/bin/bash
# tests/bench/warmup-watch.sh: what load.warmup_s "auto"'s check (daemon/warmup-watch) costs the
# daemon during a warmup: the watch on a real sd-event loop reading a timeline written at each
# rate for SECONDS, its loop thread's CPU time in all, as a share of one CPU and per tick (goal:
# at most 1% of one CPU), and the load average. Prints figures; asserts nothing. The defaults
# (20 s at 100, 1000, 10 000 and 50 000 req/s) take 80 s.
# Usage: tests/bench/warmup-watch.sh [BUILD_DIR] [SECONDS] [RATE...]
set -eu
cd "$(dirname "$0")/../.."
BUILD=$(cd "${1:-build}" && pwd)
ninja -C "$BUILD" tests/bench-warmup-watch >/dev/null
"$BUILD/tests/bench-warmup-watch" "${2:-20}" "${@:3}"
echo "load average: $(cat /proc/loadavg)"
