#!/bin/bash
# hlog-inject: slicelab-inject --hlog read by the reference implementation (Debian's
# libhdrhistogram-java): per tag and interval the same count as the timeline, and p50/p99/max
# within 3 significant digits of the exact values (HlogCheck.java). A 1 s warmup and 2.3 s
# measured at 2000 req/s against the test server, with 500 ms intervals (a partial last one).
set -euo pipefail
B=${SLICELAB_BUILD:?} S=${SLICELAB_SRC:?}
JAR=/usr/share/java/hdrhistogram.jar
[ -r "$JAR" ] || { echo "SKIP: $JAR missing (apt-get install libhdrhistogram-java)"; exit 77; }
command -v javac >/dev/null || { echo "SKIP: no javac"; exit 77; }

T=$(mktemp -d)
SERVER=
cleanup() {
        if [ -n "$SERVER" ]; then
                kill "$SERVER" 2>/dev/null || true
                wait "$SERVER" 2>/dev/null || true
        fi
        rm -rf "$T"
}
trap cleanup EXIT

mkfifo "$T/port"
"$B/tests/injector/http-test-server" --delay-ms 1 >"$T/port" &
SERVER=$!
read -r PORT <"$T/port"

javac -d "$T" -cp "$JAR" "$S/tests/hlog/HlogCheck.java" &
JAVAC=$!

"$B/injector/slicelab-inject" --url "http://127.0.0.1:$PORT/" --rate 2000 --connections 8 \
        --warmup 1s --duration 2.3s --hlog-interval 500ms \
        --timeline "$T/timeline.bin" --hlog "$T/run.hlog" --summary "$T/summary.json"
head -n 6 "$T/run.hlog"
MEASURE_START=$("$B/tests/hlog/timeline-csv" "$T/timeline.bin" "$T/timeline.csv")
wait "$JAVAC"
# Two tags per interval, five intervals (0-2.3 s, the last partial), none for the warmup.
[ "$(grep -c '^Tag=scheduled,' "$T/run.hlog")" -eq 5 ] || { echo "FAIL: not 5 scheduled intervals"; exit 1; }
[ "$(grep -c '^Tag=submit,' "$T/run.hlog")" -eq 5 ] || { echo "FAIL: not 5 submit intervals"; exit 1; }
java -cp "$T:$JAR" HlogCheck "$T/run.hlog" "$T/timeline.csv" "$MEASURE_START" 500
