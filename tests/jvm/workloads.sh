#!/bin/bash
# workloads.sh: the contract of the shipped workloads (design.md, "Workloads"), as the daemon,
# the examples and the other tests use them: slicelab-spin's flags and last line, and
# slicelab-sut.jar's endpoints, bounds and readiness line.
. "$SLICELAB_SRC/tests/lib.sh"

SPIN=$BUILD/contrib/workloads/slicelab-spin
JAR=$BUILD/contrib/workloads/slicelab-sut.jar

# ---- slicelab-spin ----
out=$("$SPIN" --threads 2 --seconds 0.3)
check_eq "spin exits 0" 0 $?
last=$(printf '%s\n' "$out" | tail -n 1)
check_match "spin's last line is the result" '^\{"ops_per_s": [0-9]+\.[0-9], "threads": 2, "seconds": 0\.[0-9]{3}\}$' "$last"
ops=$(printf '%s' "$last" | sed 's/.*"ops_per_s": \([0-9]*\).*/\1/')
check "spin did work" test "$ops" -gt 0
for bad in "--threads 0" "--threads 1025" "--threads x" "--threads -1" "--seconds 0" "--seconds -1" \
           "--seconds nan" "--seconds 1e9" "--bogus" "extra"; do
        # shellcheck disable=SC2086
        "$SPIN" $bad >/dev/null 2>&1
        check_eq "spin $bad exits 2" 2 $?
done
"$SPIN" --help >/dev/null
check_eq "spin --help exits 0" 0 $?

# ---- slicelab-sut.jar ----
# (bounded by timeout(1): a SUT that wrongly starts serving must not hang the test)
timeout 60 java -jar "$JAR" --threads 2 >/dev/null 2>&1
check_eq "sut without --port exits 2" 2 $?
timeout 60 java -jar "$JAR" --port 70000 >/dev/null 2>&1
check_eq "sut with a bad port exits 2" 2 $?
timeout 60 java -jar "$JAR" --port 0 --threads 0 >/dev/null 2>&1
check_eq "sut with 0 threads exits 2" 2 $?

coproc SUT { exec java -Xmx128m -jar "$JAR" --port 0 --threads 3 2>"$TEST_TMP/sut.err"; }
SUT_JPID=$SUT_PID
exec {SUT_OUT}<&"${SUT[0]}"
line=
read -r -t 120 line <&$SUT_OUT
check_match "sut prints its readiness line" '^slicelab-sut listening on 127\.0\.0\.1:[0-9]+ threads=3$' "$line"
PORT=$(printf '%s' "$line" | sed -n 's/.*:\([0-9]*\) threads.*/\1/p')
URL=http://127.0.0.1:$PORT

# req METHOD PATH: sets STATUS and BODY
req() {
        STATUS=$(curl -sS -o "$TEST_TMP/body" -w '%{http_code}' -X "$1" "$URL$2")
        BODY=$(cat "$TEST_TMP/body")
}

req GET /health
check_eq "GET /health is 200" 200 "$STATUS"
req GET "/work?cpu_us=20000&alloc_kb=1024"
check_eq "GET /work is 200" 200 "$STATUS"
check_match "GET /work answers JSON" '^\{"cpu_us":20000,"alloc_kb":1024,"cpu_ns":[0-9]+,"check":-?[0-9]+\}$' "$BODY"
cpu_ns=$(printf '%s' "$BODY" | sed 's/.*"cpu_ns":\([0-9]*\).*/\1/')
check "the request burnt at least the CPU time asked for" test "$cpu_ns" -ge 20000000
req GET /work
check_match "bare /work uses the defaults" '^\{"cpu_us":200,"alloc_kb":64,' "$BODY"
req GET "/work?cpu_us=0&alloc_kb=0"
check_eq "a free request is fine" 200 "$STATUS"
for q in "cpu_us=1000001" "alloc_kb=65537" "cpu_us=-1" "cpu_us=1e3" "cpu_us=" "cpu_us=99999999999999999999" \
         "bogus=1" "cpu_us=1&cpu_us=abc"; do
        req GET "/work?$q"
        check_eq "/work?$q is 400" 400 "$STATUS"
done
req POST /work
check_eq "POST /work is 405" 405 "$STATUS"
req GET /gc
check_eq "GET /gc is 405" 405 "$STATUS"
req POST /gc
check_eq "POST /gc is 200" 200 "$STATUS"
check_match "POST /gc says how long it took" '^\{"gc_ns":[0-9]+\}$' "$BODY"
req GET /nothing
check_eq "unknown path is 404" 404 "$STATUS"
req GET /healthz
check_eq "a path that only starts like an endpoint is 404" 404 "$STATUS"

# concurrent requests all answered (the pool is not serialised on one thread)
pids=()
for i in 1 2 3 4 5 6; do
        curl -sf -o /dev/null "$URL/work?cpu_us=50000" & pids+=($!)
done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
check_eq "6 concurrent requests answered" 0 "$failed"

kill -TERM "$SUT_JPID"
wait "$SUT_JPID"
rc=$?
check "sut stops on SIGTERM" test "$rc" -eq 143 -o "$rc" -eq 0
exec {SUT_OUT}<&-
finish
