#!/bin/bash
# hlog-api: GET /v1/runs/{id}/histogram on a stored run (an external load writing 20000
# synthetic records at 2000/s, the first 4000 warmup): decoded by the reference implementation
# (Debian's libhdrhistogram-java, HlogCheck.java) against the exact values of the run's CSV
# export, per tag and interval, at the default 1 s and at 250 ms; text/plain matching
# openapi.yaml, a strong ETag and 304, and the errors: interval_ms out of range (400), an Accept
# without text/plain (406), an unknown run (404); the buckets, which share its run lookup.
. "$SLICELAB_SRC/tests/lib.sh"

JAR=/usr/share/java/hdrhistogram.jar
if [ ! -r "$JAR" ] || ! command -v javac >/dev/null; then
        echo "1..0 # SKIP libhdrhistogram-java or javac missing"
        exit 77
fi
javac -d "$TEST_TMP" -cp "$JAR" "$SRC/tests/hlog/HlogCheck.java" &
JAVAC=$!
bash "$SRC/tests/openapi/install-deps.sh" >/dev/null
daemon_start --cgroup-root "slicelab-h$$" || { not_ok "daemon starts"; finish; exit 1; }

post_experiment "$(definition --name hlog \
        --load "{\"command\":[\"$BUILD/tests/synth-timeline\",\"synthetic.bin\",\"20000\",\"2000\",\"4000\"],\"timeline\":\"synthetic.bin\"}" \
        -- /bin/sleep 600)"
RUN=$(first_run "$EXP_ID")
wait_for 120 run_finished "$RUN"
check_eq "the synthetic run succeeds" succeeded "$(run_outcome "$RUN")"
wait "$JAVAC"

curl -s -H 'Accept: text/csv' "$DAEMON_URL/v1/runs/$RUN/timeline" >"$TEST_TMP/t.csv"
api GET "/v1/runs/$RUN/timeline?limit=1"
MEASURE_START=$(grep -o '"measure_start_ns":[0-9]*' <<<"$BODY" | cut -d: -f2)

api GET "/v1/runs/$RUN/histogram" -H 'Accept: text/plain'
check_eq "the histogram is 200" 200 "$HTTP_STATUS"
check_schema "the histogram" getRunHistogram 200 text/plain
cp "$TEST_TMP/body" "$TEST_TMP/1s.hlog"
check_eq "8 intervals of 1 s, two tags each" "8 8" \
        "$(grep -c '^Tag=scheduled,' "$TEST_TMP/1s.hlog") $(grep -c '^Tag=submit,' "$TEST_TMP/1s.hlog")"
check_match "StartTime and BaseTime are there" "BaseTime" "$(grep '^#\[BaseTime: ' "$TEST_TMP/1s.hlog")"
out=$(java -cp "$TEST_TMP:$JAR" HlogCheck "$TEST_TMP/1s.hlog" "$TEST_TMP/t.csv" "$MEASURE_START" 1000 2>&1)
check "1 s intervals decoded by the reference: counts, p50, p99, max agree with the CSV" test $? -eq 0
echo "$out" | sed 's/^/# /'
api GET "/v1/runs/$RUN/histogram?interval_ms=250"
cp "$TEST_TMP/body" "$TEST_TMP/250ms.hlog"
out=$(java -cp "$TEST_TMP:$JAR" HlogCheck "$TEST_TMP/250ms.hlog" "$TEST_TMP/t.csv" "$MEASURE_START" 250 2>&1)
check "250 ms intervals decoded by the reference agree with the CSV" test $? -eq 0
echo "$out" | tail -1 | sed 's/^/# /'

etag=$(curl -s -D - -o /dev/null "$DAEMON_URL/v1/runs/$RUN/histogram" | tr -d '\r' | sed -n 's/^ETag: //Ip')
check_match "a finished run's histogram has a strong ETag" '^"[0-9a-f]{16}"$' "$etag"
code=$(curl -s -o /dev/null -w '%{http_code} %{size_download}' -H "If-None-Match: $etag" "$DAEMON_URL/v1/runs/$RUN/histogram")
check_eq "If-None-Match with it is 304 with no body" "304 0" "$code"

api GET "/v1/runs/$RUN/histogram?interval_ms=0"
check_eq "interval_ms=0 is 400" 400 "$HTTP_STATUS"
check_eq "the error names interval_ms" interval_ms "$(jq -r .error.field <<<"$BODY")"
api GET "/v1/runs/$RUN/histogram" -H 'Accept: application/json'
check_eq "Accept without text/plain is 406" 406 "$HTTP_STATUS"
check_eq "the 406 names Accept" Accept "$(jq -r .error.field <<<"$BODY")"
check_schema "the 406" getRunHistogram 406
api GET "/v1/runs/000000000000/histogram"
check_eq "an unknown run is 404" 404 "$HTTP_STATUS"
# The run lookup is shared with the buckets (timeline_cursor_open).
api GET "/v1/runs/$RUN/timeline/buckets?width_ms=1000"
check_eq "the buckets of the run: 8 of 1 s with 16000 records" "200 8 16000" "$HTTP_STATUS $(jq '.count | length' <<<"$BODY") $(jq '.count | add' <<<"$BODY")"
api GET "/v1/runs/000000000000/timeline/buckets"
check_eq "buckets of an unknown run are 404" 404 "$HTTP_STATUS"
finish
