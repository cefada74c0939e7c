#!/bin/bash
# results.sh: what users came for, checked against the raw data. A run whose external load
# writes 1.44 M synthetic records (the seed's 6000/s for 240 s): its reported percentiles equal
# the ones recomputed from the streamed CSV; pages return every record once across cursors and
# time windows; CSV and NDJSON agree; streaming keeps the daemon's RSS growth under 32 MB;
# ETag/304 on finished things; /metrics parses as Prometheus text; the report's arithmetic.
. "$SLICELAB_SRC/tests/lib.sh"

SYNTH="$BUILD/tests/synth-timeline"
N=1440000
WARMUP=60000
daemon_start --cgroup-root "slicelab-r$$" || { not_ok "daemon starts"; finish; exit 1; }

post_experiment "$(definition --name synthetic \
        --load "{\"command\":[\"$SYNTH\",\"synthetic.bin\",\"$N\",\"6000\",\"$WARMUP\"],\"timeline\":\"synthetic.bin\"}" \
        -- /bin/sleep 600)"
RUN=$(first_run "$EXP_ID")
wait_for 300 run_finished "$RUN"
check_eq "the run with 1.44 M records succeeds" succeeded "$(run_outcome "$RUN")"
curl -s "$DAEMON_URL/v1/runs/$RUN" >"$TEST_TMP/run.json"
bash "$SRC/tests/openapi/install-deps.sh" >/dev/null
api GET "/v1/runs/$RUN"
check_schema "a run with metrics" getRun 200
measured=$((N - WARMUP))
check_eq "requests counts the measured records only" "$measured" "$(jq .metrics.requests "$TEST_TMP/run.json")"

# --- percentiles against the streamed CSV ------------------------------------------------
curl -s -H 'Accept: text/csv' "$DAEMON_URL/v1/runs/$RUN/timeline" >"$TEST_TMP/t.csv"
check_eq "CSV header names the fields" "scheduled_ns,submit_ns,done_ns,status,error,bytes,conn,flags" "$(head -1 "$TEST_TMP/t.csv")"
check_eq "CSV streams every measured record" "$measured" "$(($(wc -l <"$TEST_TMP/t.csv") - 1))"
# Nearest rank, as the API defines it, over requests that got an answer.
tail -n +2 "$TEST_TMP/t.csv" | awk -F, '$4 != 0 { print $3 - $1 }' | sort -n >"$TEST_TMP/lat"
n=$(wc -l <"$TEST_TMP/lat")
pick() { sed -n "$(awk -v n="$n" -v p="$1" 'BEGIN { r = n * p / 100; k = int(r); if (k < r) k++; if (k < 1) k = 1; print k }')p" "$TEST_TMP/lat"; }
for p in 50:p50 99:p99 99.9:p999 100:max; do
        want=$(awk -v ns="$(pick "${p%%:*}")" 'BEGIN { printf "%.3f", ns / 1000 }')
        got=$(jq -r ".metrics.latency_us.scheduled.${p#*:}" "$TEST_TMP/run.json" | awk '{ printf "%.3f", $1 }')
        check_eq "reported ${p#*:} from scheduled equals the CSV's" "$want" "$got"
done
sorted=$(tail -n +2 "$TEST_TMP/t.csv" | cut -d, -f1 | sort -n -c 2>&1 && echo yes)
check_eq "the stream is in scheduled order" yes "$sorted"

curl -s -H 'Accept: application/x-ndjson' "$DAEMON_URL/v1/runs/$RUN/timeline" >"$TEST_TMP/t.ndjson"
check_eq "NDJSON has the same count as CSV" "$measured" "$(wc -l <"$TEST_TMP/t.ndjson")"
check_eq "NDJSON records carry the same fields" "$(sed -n 2p "$TEST_TMP/t.csv")" \
        "$(head -1 "$TEST_TMP/t.ndjson" | jq -r '[.scheduled_ns,.submit_ns,.done_ns,.status,.error,.bytes,.conn,.flags] | map(tostring) | join(",")')"

# --- paging: every record exactly once ---------------------------------------------------
page_all() { # page_all QUERY LIMIT: concatenated scheduled_ns of all pages
        local cursor= q=$1
        while :; do
                curl -s "$DAEMON_URL/v1/runs/$RUN/timeline?limit=$2$q${cursor:+&cursor=$cursor}" >"$TEST_TMP/page"
                jq -r '.scheduled_ns[]' "$TEST_TMP/page"
                cursor=$(jq -r '.next_cursor // empty' "$TEST_TMP/page")
                [ -n "$cursor" ] || break
        done
}
page_all "" 100000 >"$TEST_TMP/paged"
check_eq "pages of 100000 return every record once" "$(tail -n +2 "$TEST_TMP/t.csv" | cut -d, -f1 | md5sum)" "$(md5sum <"$TEST_TMP/paged")"
start=$(jq -r .metrics.measure_start_ns "$TEST_TMP/run.json")
page_all "&from_ms=1000&to_ms=2500" 777 >"$TEST_TMP/window"
want=$(tail -n +2 "$TEST_TMP/t.csv" | awk -F, -v s="$start" '$1 >= s + 1000000000 && $1 < s + 2500000000 { print $1 }' | md5sum)
check_eq "a time window paged by 777 returns exactly its records" "$want" "$(md5sum <"$TEST_TMP/window")"
check_eq "the window holds 1.5 s of 6000/s" 9000 "$(wc -l <"$TEST_TMP/window")"
curl -s "$DAEMON_URL/v1/runs/$RUN/timeline?phase=warmup&limit=100000" >"$TEST_TMP/page"
check_eq "phase=warmup pages the warmup records" "$WARMUP" "$(jq .count "$TEST_TMP/page")"
api GET "/v1/runs/$RUN/timeline?limit=5"
check_schema "a timeline page" getRunTimeline 200
api GET "/v1/runs/$RUN/timeline?limit=100001"
check_eq "limit above 100000 is 400" "400 limit" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
api GET "/v1/runs/$RUN/timeline?phase=later"
check_eq "bad phase is 400" "400 phase" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"

# --- streaming keeps memory flat: reset the peak, stream everything, read the peak ---------
rss=$(awk '/VmRSS/ {print $2}' "/proc/$DAEMON_PID/status")
echo 5 >"/proc/$DAEMON_PID/clear_refs"
curl -s -H 'Accept: text/csv' "$DAEMON_URL/v1/runs/$RUN/timeline" >/dev/null
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$DAEMON_PID/status")
echo "# RSS before the stream $rss kB, peak during it $hwm kB"
check "streaming 1.44 M records grows RSS by less than 32 MB" test $((hwm - rss)) -lt $((32 * 1024))

# --- ETag / 304 -------------------------------------------------------------------------
etag=$(curl -s -D - -o /dev/null "$DAEMON_URL/v1/runs/$RUN" | tr -d '\r' | sed -n 's/^ETag: //Ip')
check_match "a finished run has a strong ETag" '^"[0-9a-f]{16}"$' "$etag"
code=$(curl -s -o /dev/null -w '%{http_code} %{size_download}' -H "If-None-Match: $etag" "$DAEMON_URL/v1/runs/$RUN")
check_eq "If-None-Match with it is 304 with no body" "304 0" "$code"
cc=$(curl -s -D - -o /dev/null "$DAEMON_URL/v1/experiments/$EXP_ID" | tr -d '\r' | sed -n 's/^Cache-Control: //Ip')
check_match "a finished experiment says it does not change" immutable "$cc"
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'If-None-Match: "0000000000000000"' "$DAEMON_URL/v1/runs/$RUN")
check_eq "a stale ETag gets the body" 200 "$code"

# --- GC events and logs ------------------------------------------------------------------
api GET "/v1/runs/$RUN/gc"
check_eq "gc of a run without a JVM is an empty list" "200 0" "$HTTP_STATUS $(jq '.events | length' <<<"$BODY")"
check_schema "gc events" getRunGc 200
api GET /v1/host
check_schema "host" getHost 200
api GET "/v1/runs/$RUN/logs/nope"
check_eq "unknown log is 404" 404 "$HTTP_STATUS"

# --- /metrics through a real Prometheus text parser --------------------------------------
bash "$SRC/tests/prom/install-deps.sh"
curl -s "$DAEMON_URL/metrics" >"$TEST_TMP/metrics.txt"
if node "$SRC/tests/prom/check.js" "$TEST_TMP/metrics.txt" >"$TEST_TMP/families.json"; then
        ok "/metrics parses as Prometheus text"
else
        not_ok "/metrics parses as Prometheus text" "$(head -5 "$TEST_TMP/metrics.txt")"
fi
check_eq "runs by state are exported" 1 "$(jq -r '.[] | select(.name == "slicelab_runs") | .metrics[] | select(.labels.state == "succeeded") | .value' "$TEST_TMP/families.json")"
check_eq "the last run's throughput per experiment and cell is exported" synthetic \
        "$(jq -r '.[] | select(.name == "slicelab_last_run_throughput_rps") | .metrics[0].labels.experiment' "$TEST_TMP/families.json")"

# --- the report: statistics over iterations, known answers -------------------------------
# Three cells whose ops_per_s are fixed by the command: b is a's value 1.5 times (CI excludes 1),
# c is a's value give or take (CI includes 1).
post_experiment "$(definition --name stats --iterations 3 --merge '{"order":"sequential"}' \
        --cell '{"name":"a","env":{"OPS":"100"}}' --cell '{"name":"b","env":{"OPS":"150"}}' --cell '{"name":"c","env":{"OPS":"100"}}' \
        -- /bin/sh -c 'echo "{\"ops_per_s\": $OPS}"')"
last=$(curl -s "$DAEMON_URL/v1/experiments/$EXP_ID/runs" | jq -r '.runs[-1].id')
wait_for 60 run_finished "$last"
api GET "/v1/experiments/$EXP_ID/report?baseline=a"
check_eq "report: mean and n per cell" "100 3 150 3" "$(jq -r '[.cells[0].metrics.ops_per_s.mean, .cells[0].metrics.ops_per_s.n, .cells[1].metrics.ops_per_s.mean, .cells[1].metrics.ops_per_s.n] | join(" ")' <<<"$BODY")"
check_eq "report: ratio of b to a" 1.5 "$(jq -r '.cells[1].ratios.ops_per_s.ratio' <<<"$BODY")"
check_schema "report" getExperimentReport 200
check_eq "report: the baseline has no ratios" null "$(jq -r '.cells[0].ratios' <<<"$BODY")"
api GET "/v1/experiments/$EXP_ID/report?baseline=zz"
check_eq "report: unknown baseline is 400" "400 baseline" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
finish
