#!/bin/bash
# stored-figures.sh: reads of figures a store holds that no slicelabd writes answer, in bounded
# time and memory, and never wrap a sequence. Two short real experiments (an external load of
# 20000 synthetic records against a sleeping SUT) are run; with the daemon stopped, sqlite3
# changes one row of each of nine runs (a timeline block at first_seq 2^63-1, a negative
# first_seq, counts of 0, -1 and 2^40, a records blob a byte short, a block whose bounds are not
# its records', records zeroed, a measure start of INT64_MIN) and gives the second experiment's
# run pauses past the clock's end, 20000 overlapping pauses, samples no sampler writes and an
# iteration of 2^40. A --results-only daemon on that store then answers every read of every run:
# 200, or 500 stored_data_inconsistent naming the run, never a hang or a stream without end; the
# untouched run answers the same bytes as before; the second experiment's report and findings
# are 200.
. "$SLICELAB_SRC/tests/lib.sh"

SYNTH="$BUILD/tests/synth-timeline"
CASES=(seq_max seq_negative count_zero count_minus count_huge blob_short bounds zeroed start_min)
daemon_start --cgroup-root "slicelab-sf$$" || { not_ok "daemon starts"; finish; exit 1; }

# experiment NAME ITERATIONS: an external load writing 20000 records (4000 warmup); EXP_ID.
experiment() {
        post_experiment "$(definition --name "$1" --iterations "$2" \
                --load "{\"command\":[\"$SYNTH\",\"synthetic.bin\",\"20000\",\"2000\",\"4000\"],\"timeline\":\"synthetic.bin\"}" \
                -- /bin/sleep 600)"
        wait_for 300 experiment_finished "$EXP_ID" || not_finished "$EXP_ID"
        check_eq "experiment $1 succeeded" succeeded "$(curl -s "$DAEMON_URL/v1/experiments/$EXP_ID" | jq -r .status)"
}
experiment figures $((${#CASES[@]} + 1))
EXP=$EXP_ID
mapfile -t RUNS < <(curl -s "$DAEMON_URL/v1/experiments/$EXP/runs" | jq -r '.runs[].id')
experiment pauses 1
EXP2=$EXP_ID
RUN2=$(first_run "$EXP2")
CLEAN=${RUNS[${#CASES[@]}]}

# Every read of a run (path, curl arguments).
READS=("timeline?limit=100000&phase=all" "timeline?from_ms=0&to_ms=5000" "timeline|text/csv" "timeline|application/x-ndjson"
       "timeline/buckets" "timeline/buckets?phase=all" "timeline/buckets?width_ms=100&from_ms=-2000&to_ms=8000"
       "histogram" "histogram?interval_ms=100" "gc" "samples" "steps" ".")
# get PATH [ACCEPT]: status, curl's exit and the body's size, in $TEST_TMP/out; a cap on the time
# and on the bytes kept, so that a read that never ends fails here rather than hangs the suite.
get() {
        GOT=$(curl -s --max-time 60 --max-filesize 50000000 -H "Accept: ${2:-*/*}" -o "$TEST_TMP/out" \
                -w '%{http_code} %{size_download}' "$DAEMON_URL$1")
        CURL_EXIT=$?
}
# get_read RUN READ: one of READS ("path|accept"; "." the run itself).
get_read() {
        local path=${2%%|*} accept=
        [[ $2 == *'|'* ]] && accept=${2#*|}
        [ "$path" = . ] && path= || path=/$path
        get "/v1/runs/$1$path" "$accept"
}
clean_before=()
for read in "${READS[@]}"; do
        get_read "$CLEAN" "$read"
        clean_before+=("$GOT $(sha256sum <"$TEST_TMP/out")")
done
daemon_stop

# --- the store changed behind the daemon's back ---------------------------------------------
DB=$DAEMON_STATE/slicelab.db
block0() { echo "WHERE run_id = '${RUNS[$1]}' AND first_seq = 0"; }
sqlite3 "$DB" <<EOF || not_ok "sqlite3 changes the store"
UPDATE requests SET first_seq = 9223372036854775807 $(block0 0);
UPDATE requests SET first_seq = -4096 $(block0 1);
UPDATE requests SET count = 0 $(block0 2);
UPDATE requests SET count = -1 $(block0 3);
UPDATE requests SET count = 1099511627776 $(block0 4);
UPDATE requests SET records = substr(records, 1, length(records) - 1) $(block0 5);
UPDATE requests SET last_scheduled_ns = first_scheduled_ns $(block0 6);
UPDATE requests SET records = zeroblob(length(records)) $(block0 7);
UPDATE runs SET measure_start_ns = -9223372036854775808 WHERE id = '${RUNS[8]}';
-- the second experiment: every request in the tail, pauses past the end of the clock and
-- 20000 long pauses that overlap each other, samples no sampler writes, an iteration of 2^40
UPDATE runs SET metrics = json_set(metrics, '\$.latency_us.scheduled.p99', 0), iteration = 1099511627776 WHERE id = '$RUN2';
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 19999)
  INSERT INTO gc_events(run_id, seq, start_ns, duration_ns, kind)
  SELECT '$RUN2', i, (SELECT measure_start_ns FROM runs WHERE id = '$RUN2') + i * 100000, 3600000000000, 'pause' FROM n;
INSERT INTO gc_events(run_id, seq, start_ns, duration_ns, kind) VALUES
  ('$RUN2', 20000, 9223372036854775000, 9223372036854775807, 'pause'),
  ('$RUN2', 20001, -9223372036854775808, -5, 'safepoint');
INSERT OR REPLACE INTO samples(run_id, t_ms, data) VALUES
  ('$RUN2', 900000, '{"t_ms":1e300,"nr_throttled":5}'),
  ('$RUN2', 900001, '{"t_ms":-9.3e15,"nr_throttled":5}'),
  ('$RUN2', 900002, '{"t_ms":9000000000000,"nr_throttled":5}');
EOF

daemon_start --results-only --cgroup-root "slicelab-sf$$-unused" ||
        { not_ok "a results-only daemon starts on the changed store"; finish; exit 1; }

# answered NAME WHO: 200, or 500 stored_data_inconsistent naming WHO ("run <id>"); no time-out,
# no stream cut at the size cap (curl 63); a cut chunked stream (18) is allowed: the error came
# mid-stream, after the 200.
answered() {
        local status=${GOT%% *} size=${GOT##* }
        case "$CURL_EXIT $status" in
        "0 200" | "18 200") ok "$1: $status, $size bytes" ;;
        "0 500")
                check_match "$1: 500 stored_data_inconsistent naming the $2" "^stored_data_inconsistent .*$2" \
                        "$(jq -r '"\(.error.code) \(.error.message)"' "$TEST_TMP/out")" ;;
        *) not_ok "$1 answered" "curl exit $CURL_EXIT, status and size: $GOT" ;;
        esac
}
inconsistent=0
for i in "${!CASES[@]}"; do
        for read in "${READS[@]}"; do
                get_read "${RUNS[$i]}" "$read"
                answered "${CASES[$i]}: GET $read" "run ${RUNS[$i]}"
                [ "${GOT%% *}" = 500 ] && inconsistent=$((inconsistent + 1))
        done
done
echo "# $inconsistent reads answered stored_data_inconsistent"
check "some of them found the store inconsistent" test "$inconsistent" -gt 0

# The cases the issue found, one by one: the sequence at 2^63-1 answered, not wrapped.
run=${RUNS[0]}
get "/v1/runs/$run/histogram" text/plain
check_eq "first_seq 2^63-1: the histogram is a 500" 500 "${GOT%% *}"
get "/v1/runs/$run/timeline/buckets"
check_eq "first_seq 2^63-1: the buckets are a 500" 500 "${GOT%% *}"
get "/v1/runs/$run/timeline" text/csv
check_eq "first_seq 2^63-1: the CSV stream is a 500 before it starts" "0 500" "$CURL_EXIT ${GOT%% *}"
get "/v1/runs/${RUNS[8]}/timeline?from_ms=-1000"
check_eq "a measure start of INT64_MIN: a window before it is a 500" 500 "${GOT%% *}"
get "/v1/runs/${RUNS[8]}/timeline/buckets"
check_eq "a measure start of INT64_MIN: the buckets are a 500" 500 "${GOT%% *}"
for i in 1 2 3 4 5; do
        get "/v1/runs/${RUNS[$i]}/timeline?from_ms=0&to_ms=1"
        check_eq "${CASES[$i]}: a page of the timeline is a 500, not the blocks that can be read" 500 "${GOT%% *}"
done
check_match "the daemon's log names the row and the rule" \
        "run ${RUNS[2]}: the requests block at first_seq 0 \(count 0\) is inconsistent: first_seq is negative, count is not 1" \
        "$(cat "$TEST_TMP/daemon.log")"

for what in report findings bundle; do
        get "/v1/experiments/$EXP/$what"
        answered "the experiment's $what" "experiment $EXP"
done
get "/v1/experiments/$EXP/report"
check_eq "its report is a 500 stored_data_inconsistent" "500 stored_data_inconsistent" "${GOT%% *} $(jq -r .error.code "$TEST_TMP/out")"

# --- what the checks leave alone -------------------------------------------------------------
clean_after=()
for read in "${READS[@]}"; do
        get_read "$CLEAN" "$read"
        clean_after+=("$GOT $(sha256sum <"$TEST_TMP/out")")
done
check_eq "the untouched run answers the same bytes" "${clean_before[*]}" "${clean_after[*]}"
for what in report findings; do
        get "/v1/experiments/$EXP2/$what"
        check_eq "pauses past the clock, overlapping by thousands: the $what is 200" "0 200" "$CURL_EXIT ${GOT%% *}"
done
for read in gc samples "timeline/buckets" histogram; do
        get "/v1/runs/$RUN2/$read"
        check_eq "GET runs/{id}/$read of that run is 200" "0 200" "$CURL_EXIT ${GOT%% *}"
done
api GET /v1/health
check_eq "the daemon still serves" 200 "$HTTP_STATUS"
finish
