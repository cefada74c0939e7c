#!/bin/bash
# convert-csv.sh: slicelab-inject --convert-csv reads slicelab's own export. A run's timeline as
# `slicelab timeline` and the daemon's text/csv (?phase=all) write it, converted back into a
# timeline that a second run's external load hands the daemon, comes out of the daemon again
# byte for byte, warmup flags, errors, bytes and connections included, with the same metrics.
. "$SLICELAB_SRC/tests/lib.sh"

CLIENT="$BUILD/client/slicelab"
INJECT="$BUILD/injector/slicelab-inject"
SYNTH="$BUILD/tests/synth-timeline"
daemon_start --cgroup-root "slicelab-csv$$" || { not_ok "daemon starts"; finish; exit 1; }
export SLICELAB_URL=$DAEMON_URL SLICELAB_STATE_DIR=$DAEMON_STATE

# run_load LOAD_COMMAND_JSON: an experiment of one run whose external load writes tl.bin (the SUT
# only sleeps); RUN holds the run's id once it finished.
run_load() {
        local id
        id=$("$CLIENT" submit - <<<"$(definition --name csv --load "{\"command\":$1,\"timeline\":\"tl.bin\"}" -- /bin/sleep 600)") || return 1
        "$CLIENT" wait "$id" >/dev/null 2>&1
        RUN=$(first_run "$id")
        check_eq "the run with the load $1 succeeded" succeeded "$(run_field "$RUN" .state)"
}

# all_csv RUN FILE: the daemon's export of every phase.
all_csv() {
        curl -sf -H 'Accept: text/csv' "$DAEMON_URL/v1/runs/$1/timeline?phase=all" >"$2"
}

# metrics RUN: the figures computed from the timeline.
metrics() {
        run_field "$1" '.metrics | [.requests, .errors, .latency_us.scheduled, .latency_us.submit] | tostring'
}

# 10000 requests at 5000/s, the first 1000 warmup, 3 of them transport errors (tests/tools/synth-timeline).
run_load "[\"$SYNTH\",\"tl.bin\",\"10000\",\"5000\",\"1000\"]"
FIRST=$RUN
all_csv "$FIRST" "$TEST_TMP/first-all.csv"
"$CLIENT" timeline "$FIRST" -o "$TEST_TMP/first.csv"
check_eq "the export has every request" 10001 "$(wc -l <"$TEST_TMP/first-all.csv")"
check_eq "slicelab timeline writes the 8-column header" "scheduled_ns,submit_ns,done_ns,status,error,bytes,conn,flags" \
        "$(head -1 "$TEST_TMP/first.csv")"
check "the export has warmup records (flags 1) and errors" \
        awk -F, 'NR > 1 && $8 == 1 { w++ } NR > 1 && $5 > 0 { e++ } END { exit !(w == 1000 && e == 3) }' "$TEST_TMP/first-all.csv"

"$INJECT" --convert-csv "$TEST_TMP/first-all.csv" --timeline "$TEST_TMP/back.bin" 2>"$TEST_TMP/err"
check_eq "--convert-csv reads slicelab's export (exit 0)" "0 " "$? $(cat "$TEST_TMP/err")"
check_eq "one 40-byte record per line after a 32-byte header" $((32 + 10000 * 40)) "$(stat -c %s "$TEST_TMP/back.bin")"
chmod 0644 "$TEST_TMP/back.bin"

# The converted timeline through the daemon once more: a load that only copies it into place.
run_load "[\"/bin/cp\",\"$TEST_TMP/back.bin\",\"tl.bin\"]"
SECOND=$RUN
all_csv "$SECOND" "$TEST_TMP/second-all.csv"
"$CLIENT" timeline "$SECOND" -o "$TEST_TMP/second.csv"
check "every phase comes back byte for byte (daemon -> CSV -> timeline -> daemon -> CSV)" \
        cmp "$TEST_TMP/first-all.csv" "$TEST_TMP/second-all.csv"
check "so does the measure phase that slicelab timeline writes" cmp "$TEST_TMP/first.csv" "$TEST_TMP/second.csv"
check_eq "the run's metrics are the same" "$(metrics "$FIRST")" "$(metrics "$SECOND")"

# slicelab timeline's own output (the measure phase only) converts too: no warmup left.
"$INJECT" --convert-csv "$TEST_TMP/first.csv" --timeline "$TEST_TMP/measure.bin"
check_eq "slicelab timeline's CSV converts (exit 0)" 0 "$?"
check_eq "with the measure phase's 9000 records" $((32 + 9000 * 40)) "$(stat -c %s "$TEST_TMP/measure.bin")"

# What the export carries itself is not given twice; a damaged line is named.
"$INJECT" --convert-csv "$TEST_TMP/first.csv" --timeline "$TEST_TMP/x.bin" --warmup 1s 2>"$TEST_TMP/err"
check_eq "--warmup with slicelab's export fails (exit 1)" 1 "$?"
check_match "saying the export carries its warmup flags" "warmup applies to the 4-column format" "$(cat "$TEST_TMP/err")"
sed '3s/,[0-9]*$/,4/' "$TEST_TMP/first.csv" >"$TEST_TMP/bad.csv"
"$INJECT" --convert-csv "$TEST_TMP/bad.csv" --timeline "$TEST_TMP/x.bin" 2>"$TEST_TMP/err"
check_match "an unknown flag is refused naming the line" "bad.csv:3: flags 4 has bits other than warmup" "$(cat "$TEST_TMP/err")"
check "and no timeline is written" not test -e "$TEST_TMP/x.bin"
tail -n +2 "$TEST_TMP/first.csv" >"$TEST_TMP/headless.csv"
"$INJECT" --convert-csv "$TEST_TMP/headless.csv" --timeline "$TEST_TMP/x.bin" 2>"$TEST_TMP/err"
check_match "8 columns without the header: the message says how the export is known" \
        "headless.csv:1: expected 4 columns, found more \(slicelab's own export is known by its header line" "$(cat "$TEST_TMP/err")"

finish
