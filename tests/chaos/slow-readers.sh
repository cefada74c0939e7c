#!/bin/bash
# slow-readers.sh: slow downloads cannot starve the API. 64 clients read a finished run's CSV
# timeline at 1 KiB/s (more connections than the database pool has leases); meanwhile
# GET /v1/health, a report and a POST are answered, the watchdog keeps pinging, and a stream
# beyond --max-streams gets 503 with Retry-After. Then SIGTERM stops the daemon, exit 0, while
# the readers are still connected. Timeouts here are generous: this is about being answered at
# all, not how fast (figures belong in tests/bench/).
. "$SLICELAB_SRC/tests/lib.sh"

SYNTH="$BUILD/tests/synth-timeline"
READERS=64
# ~75 bytes a CSV line: 45 MB, far more than loopback socket buffers hold for 64 connections,
# so every stream is still being produced when the checks below run.
N=600000
export WATCHDOG_USEC=2000000
bash "$SRC/tests/openapi/install-deps.sh" >/dev/null
daemon_start --cgroup-root "slicelab-s$$" --max-streams "$READERS" || { not_ok "daemon starts"; finish; exit 1; }

post_experiment "$(definition --name slow \
        --load "{\"command\":[\"$SYNTH\",\"synthetic.bin\",\"$N\",\"6000\",\"1000\"],\"timeline\":\"synthetic.bin\"}" \
        -- /bin/sleep 600)"
RUN=$(first_run "$EXP_ID")
wait_for 300 run_finished "$RUN"
check_eq "the run with a large timeline succeeds" succeeded "$(run_outcome "$RUN")"

# The readers come from 127.0.0.2: one client's connection limit (64) is theirs alone, and the
# checks below come from 127.0.0.1.
READER_PIDS=()
for i in $(seq 1 $READERS); do
        curl -s --interface 127.0.0.2 --limit-rate 1k -H 'Accept: text/csv' -o "$TEST_TMP/r$i.csv" \
                "$DAEMON_URL/v1/runs/$RUN/timeline" &
        READER_PIDS+=($!)
done
stop_readers() { kill "${READER_PIDS[@]}" 2>/dev/null; wait "${READER_PIDS[@]}" 2>/dev/null; }
trap 'stop_readers; daemon_stop; rm -rf "$TEST_TMP"' INT TERM
all_reading() {
        local i
        for i in $(seq 1 $READERS); do [ -s "$TEST_TMP/r$i.csv" ] || return 1; done
}
check "all $READERS readers receive their CSV" wait_for 120 all_reading

code() { curl -s -m 60 -o "$TEST_TMP/out" -w '%{http_code}' "$@"; }
check_eq "GET /v1/health is answered meanwhile" 200 "$(code "$DAEMON_URL/v1/health")"
check_eq "a report is answered meanwhile" 200 "$(code "$DAEMON_URL/v1/experiments/$EXP_ID/report")"
check_eq "a POST is answered meanwhile" 201 "$(code -H "Authorization: Bearer $DAEMON_TOKEN" -H 'Content-Type: application/json' \
        --data "$(definition --name during -- /bin/true)" "$DAEMON_URL/v1/experiments")"
check_eq "a JSON page of the same timeline is answered meanwhile" 200 "$(code "$DAEMON_URL/v1/runs/$RUN/timeline?limit=10")"
pings=0
for _ in 1 2 3; do daemon_wait_event 'WATCHDOG=1' 10 && pings=$((pings + 1)); done
check_eq "the watchdog keeps pinging" 3 "$pings"

# One stream more than --max-streams: refused at once, with when to come back.
status=$(curl -s -m 60 --interface 127.0.0.3 -D "$TEST_TMP/h" -o "$TEST_TMP/out" -w '%{http_code}' \
        -H 'Accept: text/csv' "$DAEMON_URL/v1/runs/$RUN/timeline")
check_eq "a stream beyond --max-streams is 503 too_many_streams" "503 too_many_streams" "$status $(jq -r .error.code "$TEST_TMP/out")"
check_match "the 503 says when to retry" '^Retry-After: [0-9]+' "$(tr -d '\r' <"$TEST_TMP/h" | grep -i '^Retry-After')"
check_match "the 503 names the limit" "$READERS timeline streams are open" "$(jq -r .error.message "$TEST_TMP/out")"

alive_readers() {
        local p n=0
        for p in "${READER_PIDS[@]}"; do kill -0 "$p" 2>/dev/null && n=$((n + 1)); done
        echo $n
}
check_eq "every reader is still connected before SIGTERM" $READERS "$(alive_readers)"
start=$SECONDS
kill -TERM "$DAEMON_PID"
daemon_wait_event 'EXIT' 60 || daemon_wait_event 'SIGNAL' 1
check_eq "SIGTERM stops the daemon with the readers connected: exit 0" "EXIT 0" "$DAEMON_LAST_EVENT"
check "and within 60 s" [ $((SECONDS - start)) -le 60 ]
wait "$NL_PID" 2>/dev/null
DAEMON_PID=
check_match "the log says it stopped" 'stopped' "$(tail -5 "$TEST_TMP/daemon.log")"
stop_readers
finish
