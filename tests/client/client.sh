#!/bin/bash
# client.sh: slicelab, the client, against a real slicelabd: every subcommand; --json output
# that jq parses; each exit status for real (a succeeded, a failed and a cancelled experiment,
# a stopped daemon, a bad definition whose 400 message and field are printed; checks failing
# once the daemon has checks); one run shown whole; a failed run's reason and message printed by
# wait, status, report and run; the phase of a run under way; logs as JSON; columns sized to
# long names; a capacity search's result and labels without --json; compare naming each side's
# cell; submit retried through a proxy that drops the first answer creating one experiment; TCP
# and a unix socket. (HTTPS: client-tls.sh.)
. "$SLICELAB_SRC/tests/lib.sh"
. "$SLICELAB_SRC/tests/client/client-lib.sh"

SYNTH="$BUILD/tests/synth-timeline"
CGROOT=slicelab-c$$
daemon_start --cgroup-root "$CGROOT" || { not_ok "daemon starts"; finish; exit 1; }
export SLICELAB_URL=$DAEMON_URL SLICELAB_STATE_DIR=$DAEMON_STATE
unset SLICELAB_TOKEN
# A unique spin duration marks this test's long-running process for pgrep.
LONG_S=$((5000 + $$ % 1000))

definition --name ok --iterations 1 --cell a:0 --cell b:1:0.5 -- "$SPIN" --threads 1 --seconds 1 >"$TEST_TMP/ok.json"
definition --name fails --iterations 1 --cell a:0 -- /bin/false >"$TEST_TMP/fail.json"
definition --name long --iterations 1 --cell a:1 -- "$SPIN" --threads 1 --seconds "$LONG_S" >"$TEST_TMP/long.json"
definition --name bad --iterations 1 --cell a:4095 -- /bin/true >"$TEST_TMP/bad.json"
definition --name nojar --iterations 1 --cell a:0 -- /bin/true -jar missing.jar >"$TEST_TMP/nojar.json"
definition --name timeline --iterations 1 \
        --load "{\"command\":[\"$SYNTH\",\"tl.bin\",\"3000\",\"1000\",\"500\"],\"timeline\":\"tl.bin\"}" -- /bin/sleep 600 >"$TEST_TMP/timeline.json"

# --- usage ------------------------------------------------------------------------------------
sl; check_rc "no command is a usage error" 2
sl frobnicate; check_rc "an unknown command is a usage error" 2
sl status; check_rc "a missing argument is a usage error" 2
sl health --baseline x; check_rc "an option of another command is a usage error" 2
sl logs RUN stdout; check_rc "logs of neither sut nor load is a usage error" 2
sl logs RUN sut --tail 0; check_rc "--tail 0 is a usage error" 2
sl run; check_rc "run without a run is a usage error" 2
sl submit "$TEST_TMP/ok.json" --key "a b"; check_rc "a key with a space is a usage error" 2
sl submit "$TEST_TMP/nonexistent.json"; check_rc "a definition that cannot be read is a usage error" 2
check_match "the file and the reason are printed" "nonexistent.json: No such file" "$ERR"
sl --url ftp://example health; check_rc "a URL of another scheme is a usage error" 2
sl --url 127.0.0.1: health; check_rc "a URL with an empty port is a usage error" 2
sl --url 127.0.0.1:65536 health; check_rc "a URL with a port out of range is a usage error" 2
sl --help; check_rc "--help" 0
check_match "--help lists every command" "submit.*list.*status.*runs.*run RUN.*wait.*report.*findings.*timeline.*logs.*cancel.*compare.*host.*health.*peers" "$(tr '\n' ' ' <<<"$OUT")"

# --- health, host, over TCP -------------------------------------------------------------------
sl health; check_rc "health over TCP" 0
check_match "health says ok and the version" '^ok, slicelabd [0-9]' "$OUT"
sl health --json; check_rc "health --json" 0; json_ok health
sl host; check_rc "host" 0
check_match "host names the CPU count" "cpus: +$(nproc) online" "$OUT"
sl host --json; check_rc "host --json" 0; json_ok host
# A daemon that never used a load host (the lists with hosts: tests/peers/multi-host.sh).
sl peers; check_rc "peers" 0
check_eq "peers without load hosts says so" "no load host used (of those --peer-allow names)" "$OUT"
sl peers --json; check_rc "peers --json" 0; json_ok peers

# --- a succeeded experiment -------------------------------------------------------------------
sl submit "$TEST_TMP/ok.json" --wait
check_rc "submit --wait of a succeeding experiment" 0
OK_ID=$(head -1 <<<"$OUT")
check_match "submit prints the id, then the outcome" "^[0-9a-z]+ succeeded \(2/2 runs\)$" "$(sed -n 2p <<<"$OUT")"
check_match "waiting off a terminal prints plain lines" "experiment $OK_ID: succeeded, 2/2 runs done" "$ERR"
sl status "$OK_ID"; check_rc "status of a succeeded experiment" 0
check_match "status says succeeded" "succeeded, 2/2 runs done" "$OUT"
sl status "$OK_ID" --json; json_ok status
sl wait "$OK_ID"; check_rc "wait of a succeeded experiment" 0
sl wait "$OK_ID" --json; json_ok wait
# On a terminal (script(1) gives it one) waiting draws a bar instead.
BAR=$(script -qec "$CLIENT wait $OK_ID" /dev/null)
check_match "waiting on a terminal draws a progress bar" "$OK_ID \[#{30}\] 2/2 runs +succeeded" "$BAR"
sl runs "$OK_ID"; check_rc "runs" 0
check_eq "runs lists both runs, succeeded" "2" "$(grep -c ' succeeded ' <<<"$OUT")"
sl runs "$OK_ID" --json; json_ok runs
OK_RUN=$(jq -r '.runs[0].id' <<<"$OUT")
sl report "$OK_ID"; check_rc "report of a succeeded experiment" 0
check_match "report prints the seed-style table's header, with the runs' warmup and steady-state classes" "^cell +throughput +p99 sched +GC pause +compile +CICC/PGC +throttled +governor +warmup +steady state +ratio" "$(sed -n 3p <<<"$OUT")"
check_match "the first cell is the baseline" "^a .* 1 \(baseline\)$" "$(sed -n 4p <<<"$OUT")"
check_match "the second cell has its ops/s (the geometric mean, g, that an interval would be of) and its ratio to the first" \
        "^b +[0-9]+g( \[[0-9]+-[0-9]+\])? .* [0-9.]+( \(|$)" "$(sed -n 5p <<<"$OUT")"
check_match "the table says which mean the intervals belong to" "g = the geometric mean, which its 95% interval" "$OUT"
sl report "$OK_ID" --baseline b; check_rc "report --baseline" 0
check_match "--baseline picks the baseline" "^b .* 1 \(baseline\)$" "$(grep '^b ' <<<"$OUT")"
sl report "$OK_ID" --json; json_ok report
check_eq "a benchmark without load had no warmup: the report's is null" "[null,null]" "$(jq -c '[.cells[].warmup]' <<<"$OUT")"
sl report "$OK_ID" --baseline nosuchcell
check_rc "report with an unknown baseline is the daemon's 400" 4
check_match "the 400's field is printed" "HTTP 400 .*field baseline" "$ERR"
sl list; check_rc "list" 0
check_match "list shows the experiment" "^$OK_ID +succeeded +2/2 " "$OUT"
sl list --status succeeded --json; check_rc "list --status --json" 0; json_ok list
check_eq "list --status filters" "$OK_ID" "$(jq -r '[.experiments[] | select(.status == "succeeded") | .id] | join(" ")' <<<"$OUT")"
sl list --status running --json
check_eq "list --status running is empty" 0 "$(jq '.experiments | length' <<<"$OUT")"
sl logs "$OK_RUN" sut --tail 2; check_rc "logs --tail" 0
check_eq "--tail 2 gives two lines" 2 "$(wc -l <<<"$OUT")"
check_match "the SUT's last lines have spin's result (stdout and stderr interleave)" '"ops_per_s": [0-9.]+' "$OUT"
TAIL=$OUT
sl logs "$OK_RUN" sut --tail 2 --json; check_rc "logs --json" 0; json_ok logs
check_eq "logs --json holds the same text, the run, the stream and the tail" "$TAIL|$OK_RUN sut 2" \
        "$(jq -r '.text | rtrimstr("\n")' <<<"$OUT")|$(jq -r '"\(.run) \(.stream) \(.tail)"' <<<"$OUT")"
# A log is bytes: what is not UTF-8 becomes U+FFFD, so that the JSON stays JSON.
definition --name bytes --iterations 1 -- /usr/bin/printf 'ok \377\n' >"$TEST_TMP/bytes.json"
sl submit "$TEST_TMP/bytes.json" --wait
sl logs "$(first_run "$(head -1 <<<"$OUT")")" sut --json; check_rc "logs --json of a log that is not UTF-8" 0; json_ok "logs of bytes"
check_eq "the byte that is not UTF-8 is U+FFFD" "$(printf 'ok \xef\xbf\xbd')" "$(jq -r .text <<<"$OUT")"

# --- one run ---------------------------------------------------------------------------------------
sl run "$OK_RUN"; check_rc "run" 0
check_match "run names its cell, iteration and experiment" "^run $OK_RUN: cell a, iteration 1 of experiment $OK_ID$" "$(head -1 <<<"$OUT")"
check_match "run shows the state" "^state: +succeeded$" "$OUT"
check_match "and how the SUT ended" "^exit: +sut exited 0, load -$" "$OUT"
check_eq "and every state with its time, oldest first" "queued preparing starting measuring collecting succeeded" \
        "$(sed -n '/^states:/,/^[a-z]/p' <<<"$OUT" | awk '/^  [0-9]/ {print $3}' | tr '\n' ' ' | sed 's/ $//')"
check_match "and the benchmark's own figure" "^  ops/s +[0-9]+$" "$OUT"
sl run "$OK_RUN" --json; check_rc "run --json" 0; json_ok run
check_eq "run --json is the daemon's run" "$(curl -s "$DAEMON_URL/v1/runs/$OK_RUN" | jq -c .)" "$(jq -c . <<<"$OUT")"
sl run nosuchrun; check_rc "an unknown run is the daemon's 404" 4

# --- compare with A:CELL: each side named by its own cell ------------------------------------------
sl compare "$OK_ID:a" "$OK_ID:b"; check_rc "compare of two cells" 0
check_match "the differing cpus are named by both cells" '^differs \(definition\) cells\[a\|b\]\.cpus: "0" vs "1"$' "$OUT"
check_match "and so is the table's heading" "^cell a vs b:$" "$OUT"

# --- timelines ------------------------------------------------------------------------------
sl submit "$TEST_TMP/timeline.json" --wait
check_rc "an experiment with a timeline" 0
TL_RUN=$(curl -s "$DAEMON_URL/v1/experiments/$(head -1 <<<"$OUT")/runs" | jq -r '.runs[0].id')
sl timeline "$TL_RUN" -o "$TEST_TMP/tl.csv"; check_rc "timeline -o FILE (CSV by default)" 0
check_eq "the CSV file has every measured record (warmup excluded) and the header" 2501 "$(wc -l <"$TEST_TMP/tl.csv")"
check_eq "the CSV is the daemon's" "$(curl -s -H 'Accept: text/csv' "$DAEMON_URL/v1/runs/$TL_RUN/timeline" | md5sum)" "$(md5sum <"$TEST_TMP/tl.csv")"
sl timeline "$TL_RUN" --ndjson; check_rc "timeline --ndjson to stdout" 0
check_eq "every NDJSON line is a JSON record" 2500 "$(jq -c 'select(.scheduled_ns != null)' <<<"$OUT" | wc -l)"
sl timeline "$TL_RUN" --csv; check_rc "timeline --csv" 0
check_match "the CSV starts with its header" "^scheduled_ns," "$(head -1 <<<"$OUT")"
sl timeline nosuchrun -o "$TEST_TMP/none.csv"
check_rc "timeline of an unknown run is the daemon's 404" 4
check "a failed timeline leaves no file" not test -e "$TEST_TMP/none.csv" -o -e "$TEST_TMP/none.csv.partial"
sl logs "$TL_RUN" load; check_rc "logs load" 0

# --- a failed experiment ----------------------------------------------------------------------
sl submit "$TEST_TMP/fail.json"; check_rc "submit" 0
FAIL_ID=$OUT
sl wait "$FAIL_ID"; check_rc "wait of a failed experiment" 1
check_match "wait says failed" "^$FAIL_ID failed \(1/1 runs\)$" "$OUT"
sl status "$FAIL_ID"; check_rc "status of a failed experiment" 1
sl report "$FAIL_ID"; check_rc "report of a failed experiment" 1

# A jar that is not there: the run fails preflight, and every command says so with the field.
sl submit "$TEST_TMP/nojar.json" --wait; check_rc "submit --wait of a definition whose jar is missing" 1
NOJAR_ID=$(head -1 <<<"$OUT")
NOJAR_RUN=$(first_run "$NOJAR_ID")
WHY="run $NOJAR_RUN: failed \(preflight\): sut\.command\[2\]: -jar file missing\.jar: No such file or directory"
check_match "submit --wait prints the failed run's reason and message" "^$WHY$" "$OUT"
sl wait "$NOJAR_ID"; check_rc "wait" 1
check_match "wait prints them" "^$WHY$" "$OUT"
sl status "$NOJAR_ID"; check_rc "status" 1
check_match "status prints them" "^$WHY$" "$OUT"
sl report "$NOJAR_ID"; check_rc "report" 1
check_match "report prints them" "^$WHY$" "$OUT"
sl run "$NOJAR_RUN"; check_rc "run of the failed run" 0
check_match "run shows the state and reason" "^state: +failed \(preflight\)$" "$OUT"
check_match "and the message naming the field" "^message: sut\.command\[2\]: -jar file missing\.jar: No such file or directory$" "$OUT"
check_match "and that the SUT never started" "^exit: +sut -, load -$" "$OUT"
sl status "$OK_ID"
check "a succeeded experiment prints no failed run" not grep -q '^run ' <<<"$OUT"

# --- capacity and labels without --json; columns sized to long values -------------------------------
CAP_PORT=$(loopback_port)
CAP_NAME="an experiment whose name is long enough to run past any column of the list"
CAP_CELL="a cell name longer than the twenty columns"
definition --name "$CAP_NAME" --iterations 1 --merge '{"labels":{"team":"perf","build":"42"}}' \
        --ready "{\"http\":\"http://127.0.0.1:$CAP_PORT/\",\"timeout_s\":60}" \
        --load "{\"target\":\"http://127.0.0.1:$CAP_PORT/\",\"mode\":\"capacity\",\"sla\":[{\"percentile\":99,\"max_ms\":3000}],\"rate_min\":20,\"rate_max\":40,
                 \"step\":{\"warmup_s\":1,\"measure_s\":1},\"precision\":0.5,\"connections\":4}" \
        --cell "$CAP_CELL" -- python3 -m http.server "$CAP_PORT" --bind 127.0.0.1 >"$TEST_TMP/cap.json"
sl submit "$TEST_TMP/cap.json" --wait; check_rc "a small capacity search with labels" 0
CAP_ID=$(head -1 <<<"$OUT")
CAP_RUN=$(first_run "$CAP_ID")
sl run "$CAP_RUN"; check_rc "run of a capacity search" 0
check_match "run shows the search's outcome and rate" "^  capacity +rate_max_met, max 40 req/s, critical 40 req/s$" "$OUT"
check_match "and each SLA's rate" "^    p99 <= 3000 ms: 40 req/s$" "$OUT"
sl report "$CAP_ID"; check_rc "report of a capacity search" 0
check_match "report shows the cell's capacity" "^  $CAP_CELL: max 40 req/s, critical 40 req/s, p99_3000ms 40 req/s$" "$OUT"
sl status "$CAP_ID"; check_rc "status of a capacity search" 0
check_match "status shows the labels" "^labels: (build=42, team=perf|team=perf, build=42)$" "$OUT"
check_match "and the capacity" "^  $CAP_CELL: max 40 req/s" "$OUT"
sl list; check_rc "list with a long name" 0
COL=$(head -1 <<<"$OUT" | grep -bo STATUS | cut -d: -f1)
check_eq "every row's status starts under STATUS" "" "$(tail -n +2 <<<"$OUT" | cut -c$((COL + 1))- | grep -Ev '^(queued|running|succeeded|failed|partial|cancelled) ')"
check_match "the long name is cut with an ellipsis, the labels follow" "^$CAP_ID .* an experiment whose name .*… +(build=42, team=perf|team=perf, build=42)$" "$OUT"
sl runs "$CAP_ID"; check_rc "runs with a long cell name" 0
COL=$(head -1 <<<"$OUT" | grep -bo STATE | cut -d: -f1)
check_match "the cell is shown whole and the state under STATE" "^$CAP_RUN +$CAP_CELL +1 +succeeded " "$(tail -1 <<<"$OUT")"
check_eq "at STATE's column" "succeeded" "$(tail -1 <<<"$OUT" | cut -c$((COL + 1))- | awk '{print $1}')"

# --- a cancelled experiment ------------------------------------------------------------------
sl submit "$TEST_TMP/long.json" --json; check_rc "submit --json" 0; json_ok submit
LONG_ID=$(jq -r .id <<<"$OUT")
LONG_RUN=$(first_run "$LONG_ID")
wait_for 30 run_state_is "$LONG_RUN" measuring
"$CLIENT" wait "$LONG_ID" >"$TEST_TMP/wait.out" 2>"$TEST_TMP/wait.err" &
WAITER=$!
wait_for 30 grep -q "running, 0/1 runs done" "$TEST_TMP/wait.err"
check_match "waiting says which phase the run is in" "^experiment $LONG_ID: running, 0/1 runs done, 1 measuring$" "$(cat "$TEST_TMP/wait.err")"
SLICELAB_STATE_DIR=/nonexistent sl cancel "$LONG_ID"
check_rc "cancel without a token is the daemon's 401" 4
check_match "the 401 is printed" "HTTP 401" "$ERR"
SLICELAB_STATE_DIR=/nonexistent SLICELAB_TOKEN=$DAEMON_TOKEN sl cancel "$LONG_ID"
check_rc "cancel with \$SLICELAB_TOKEN" 0
check_match "cancel names the run it stops" "stopping $LONG_RUN" "$OUT"
wait "$WAITER"; RC=$? ERR=$(cat "$TEST_TMP/wait.err") OUT=$(cat "$TEST_TMP/wait.out")
check_rc "wait of an experiment cancelled meanwhile" 1
check_match "wait says cancelled" "^$LONG_ID cancelled" "$OUT"
check "nothing of the cancelled run is left" not running_cmd "[s]licelab-spin --threads 1 --seconds $LONG_S"
sl cancel "$LONG_ID" --json; check_rc "cancel again (token from the state dir)" 0; json_ok cancel

# --- errors from the daemon, printed as it gave them -------------------------------------------
sl submit "$TEST_TMP/bad.json"; check_rc "a bad definition" 4
api_auth POST /v1/experiments -H 'Content-Type: application/json' --data @"$TEST_TMP/bad.json"
MSG=$(jq -r .error.message <<<"$BODY")
check_match "the 400 and its field are printed" "^slicelab: HTTP 400 [a-z_]+ field cells\[0\]\.cpus: " "$ERR"
check "the daemon's message is printed as it gave it" grep -qF -- "$MSG" "$TEST_TMP/err"
sl status nosuchexperiment; check_rc "an unknown experiment is the daemon's 404" 4
check_match "the 404 is printed" "HTTP 404" "$ERR"

# findings and compare: JSON as the daemon gives it, and tables.
for cmd in "findings $OK_ID" "compare $OK_ID $FAIL_ID"; do
        set -- $cmd
        sl "$@" --json; check_rc "$1" 0
        json_ok "$1"
        sl "$@"; check_rc "$1 as a table" 0
done
check_match "compare's table names both experiments" "a: $OK_ID .*b: $FAIL_ID" "$(tr '\n' ' ' <<<"$OUT")"
# Each finding's line starts with its id (F5 [medium] throttling: ...): other findings' claims
# name it by that id. In findings and in the report's findings, in the daemon's order.
sl findings "$OK_ID" --json
IDS=$(jq -r '.findings[].id' <<<"$OUT")
check "findings: the experiment has findings (cell b's quota throttles it)" test -n "$IDS"
sl findings "$OK_ID"
check_eq "findings: each finding's line starts with its id, in order" "$IDS" "$(grep -v '^    ' <<<"$OUT" | cut -d' ' -f1)"
check "findings: each as 'F<n> [severity] kind: claim'" json_true 'all(test("^F[0-9]+ \\[(high|medium|info)\\] [a-z-]+: ."))' \
        "$(grep -v '^    ' <<<"$OUT" | jq -R . | jq -s -c .)"
sl report "$OK_ID"
check_eq "report: its findings' lines start with their ids too" "$IDS" \
        "$(sed -n '/^findings:$/,/^$/p' <<<"$OUT" | grep -E '^F[0-9]+ ' | cut -d' ' -f1)"

# Checks failing: exit 3.
jq -c '.name = "checks" | .checks = [{"metric":"ops_per_s","cell":"a","min":1e15}]' "$TEST_TMP/ok.json" >"$TEST_TMP/checks.json"
api_auth POST /v1/experiments -H 'Content-Type: application/json' --data @"$TEST_TMP/checks.json"
check_eq "an experiment with checks is accepted" 201 "$HTTP_STATUS"
CHECKS_ID=$(jq -r .id <<<"$BODY")
sl wait "$CHECKS_ID"; check_rc "an experiment whose checks fail" 3
check_match "wait says the checks failed" "^$CHECKS_ID succeeded \(2/2 runs\), checks FAILED$" "$OUT"
sl report "$CHECKS_ID"; check_rc "its report" 3
check_match "the report lists the failed check" "FAIL +a ops_per_s = " "$OUT"
sl submit "$TEST_TMP/ok.json" --wait; check_rc "an experiment without checks still exits 0" 0

# --- retries: the first answer lost, the same key, one experiment ---------------------------------
# proxy_start: the proxy in front of the daemon (not a coproc: the daemon's is the one coproc).
proxy_start() {
        rm -f "$TEST_TMP/proxy.port"
        python3 "$SRC/tests/client/drop-first-answer.py" "$DAEMON_PORT" "$TEST_TMP/proxy.log" >"$TEST_TMP/proxy.port" &
        PROXY_PID=$!
        wait_for 10 test -s "$TEST_TMP/proxy.port"
        PROXY_PORT=$(cat "$TEST_TMP/proxy.port")
}
proxy_stop() {
        [ -n "${PROXY_PID:-}" ] && kill "$PROXY_PID" 2>/dev/null && wait "$PROXY_PID" 2>/dev/null
        PROXY_PID=
}
trap 'proxy_stop; daemon_stop; rm -rf "$TEST_TMP"' EXIT
proxy_start
jq -c '.name = "retried"' "$TEST_TMP/ok.json" >"$TEST_TMP/retried.json"
SLICELAB_URL=http://127.0.0.1:$PROXY_PORT sl submit "$TEST_TMP/retried.json"
check_rc "submit through a connection that drops the first answer" 0
check_match "the retry is said on stderr, once" "^slicelab: .*; retrying for up to 60 s with key slicelab-[0-9a-f]{32}$" "$ERR"
check_eq "two POSTs reached the daemon with one generated key" "2 1" \
        "$(grep -c '^POST' "$TEST_TMP/proxy.log") $(grep '^POST' "$TEST_TMP/proxy.log" | awk '{print $3}' | sort -u | wc -l)"
RETRIED_ID=$OUT
sl list --json
check_eq "one experiment was created" "$RETRIED_ID" "$(jq -r '[.experiments[] | select(.name == "retried") | .id] | join(" ")' <<<"$OUT")"
: >"$TEST_TMP/proxy.log"
proxy_stop
proxy_start
jq -c '.name = "keyed"' "$TEST_TMP/ok.json" >"$TEST_TMP/keyed.json"
SLICELAB_URL=http://127.0.0.1:$PROXY_PORT sl submit "$TEST_TMP/keyed.json" --key "ci-job-$$"
check_rc "submit --key through the same kind of connection" 0
check_eq "both POSTs carried the key given" "2 ci-job-$$" \
        "$(grep -c '^POST' "$TEST_TMP/proxy.log") $(grep '^POST' "$TEST_TMP/proxy.log" | awk '{print $3}' | sort -u)"
KEYED_ID=$OUT
sl submit "$TEST_TMP/keyed.json" --key "ci-job-$$"
check_eq "submitting again with the key finds the same experiment" "$KEYED_ID" "$OUT"
proxy_stop
sl list --json
check_eq "one experiment per key" 1 "$(jq '[.experiments[] | select(.name == "keyed")] | length' <<<"$OUT")"
sl wait "$RETRIED_ID"; sl wait "$KEYED_ID"

# --- wait across a daemon restart: tried again, then the outcome -----------------------------------
sl submit "$TEST_TMP/long.json"; RESTART_ID=$OUT
wait_for 30 run_state_is "$(first_run "$RESTART_ID")" measuring
"$CLIENT" wait "$RESTART_ID" --retry-for 60 >"$TEST_TMP/wait.out" 2>"$TEST_TMP/wait.err" &
WAITER=$!
PORT=$DAEMON_PORT
daemon_stop
# Restarted once the waiter has met the daemon down: a restart quicker than its poll would not be.
wait_for 30 grep -q "trying again for up to 60 s" "$TEST_TMP/wait.err"
check "the waiter waits while the daemon is down" alive "$WAITER"
DAEMON_LISTEN=127.0.0.1:$PORT daemon_start --cgroup-root "$CGROOT" || { not_ok "daemon restarts on its port"; finish; exit 1; }
wait "$WAITER"; RC=$? ERR=$(cat "$TEST_TMP/wait.err") OUT=$(cat "$TEST_TMP/wait.out")
check_match "wait said it was trying again" "trying again for up to 60 s" "$ERR"
check_rc "wait across a restart ends with the interrupted experiment's outcome" 1
check_match "wait names the outcome" "^$RESTART_ID (failed|partial|cancelled)" "$OUT"

# --- the daemon stopped: exit 4, then the same state over a unix socket -------------------------
daemon_stop
sl health; check_rc "health with the daemon stopped" 4
check_match "the connection error is printed" "127.0.0.1:$DAEMON_PORT.*(onnect|refused)" "$ERR"
sl submit "$TEST_TMP/ok.json" --retry-for 1; check_rc "submit with the daemon stopped, after its retries" 4
check_match "submit says how often it tried and the key to retry with" "attempts, key slicelab-" "$ERR"
check_eq "the retrying is said once, the giving up once" 2 "$(wc -l <<<"$ERR")"

SOCK=$TEST_TMP/slicelabd.sock
DAEMON_LISTEN=unix:$SOCK daemon_start --cgroup-root "$CGROOT" || { not_ok "daemon starts on a unix socket"; finish; exit 1; }
export SLICELAB_URL=unix:$SOCK
sl health; check_rc "health over a unix socket" 0
sl list --json; check_rc "list over a unix socket" 0
check_eq "the experiments are still there" 1 "$(jq --arg id "$OK_ID" '[.experiments[] | select(.id == $id)] | length' <<<"$OUT")"
sl report "$OK_ID"; check_rc "report over a unix socket" 0
sl submit "$TEST_TMP/ok.json" --wait --json; check_rc "submit --wait --json over a unix socket" 0; json_ok "submit --wait"
check_eq "the final experiment is printed" succeeded "$(jq -r .status <<<"$OUT")"
sl --url "unix:$TEST_TMP/nothing.sock" health; check_rc "a unix socket nobody listens on" 4

finish
