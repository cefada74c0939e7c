#!/bin/bash
# fail-fast.sh: a definition naming a file that does not exist fails preflight naming the field
# (sut.command[N]) before anything starts; after max_consecutive_failures (default 3) runs in a
# row fail with the same reason, the experiment's other runs are cancelled saying why; failures
# that are not consecutive stop nothing; 0 turns it off.
. "$SLICELAB_SRC/tests/lib.sh"

SPIN="$BUILD/contrib/workloads/slicelab-spin"
JAR="$BUILD/contrib/workloads/slicelab-sut.jar"
bash "$SRC/tests/openapi/install-deps.sh" >/dev/null
daemon_start --cgroup-root "slicelab-f$$" || { not_ok "daemon starts"; finish; exit 1; }

# run_all JSON: post it and wait until every run has finished; RUNS holds "state reason" lines.
run_all() {
        post_experiment "$1"
        [ -n "$EXP_ID" ] || { echo "# POST failed: $BODY"; return 1; }
        wait_for 120 experiment_finished "$EXP_ID" || not_finished "$EXP_ID"
        RUNS=$(curl -s "$DAEMON_URL/v1/experiments/$EXP_ID/runs" | jq -r '.runs[] | "\(.state) \(.reason)"')
}
nth_run() { curl -s "$DAEMON_URL/v1/experiments/$EXP_ID/runs" | jq -r ".runs[$1].id"; }

# --- files that do not exist fail preflight, naming the field ------------------------------
run_all "$(definition --name nojar --jvm -- java -Xmx64m -jar "/nonexistent/slicelab-$$.jar")"
RUN=$(nth_run 0)
check_eq "a missing -jar file fails preflight" "failed preflight" "$(run_field "$RUN" '"\(.state) \(.reason)"')"
check_match "the message names sut.command[3] and the file" "^sut.command\[3\]: -jar file /nonexistent/slicelab-$$.jar: No such file or directory" \
        "$(run_field "$RUN" .message)"
check_eq "the history stops at preparing" "queued preparing failed" "$(run_field "$RUN" '[.states[].state] | join(" ")')"
check "no slice was made" no_slices_of "$RUN"

run_all "$(definition --name noexe -- "/nonexistent/bin/server-$$")"
check_match "a missing executable fails preflight naming sut.command[0]" "^sut.command\[0\]: executable /nonexistent/bin/server-$$: No such file or directory" \
        "$(run_field "$(nth_run 0)" .message)"
run_all "$(definition --name nopath -- "no-such-server-$$")"
check_match "a bare name not on the run's PATH too" "^sut.command\[0\]: executable no-such-server-$$: No such file or directory" \
        "$(run_field "$(nth_run 0)" .message)"
run_all "$(definition --name dirjar --jvm -- java -jar /tmp)"
check_match "a directory is not a jar" "^sut.command\[2\]: -jar file /tmp: Is a directory" "$(run_field "$(nth_run 0)" .message)"
run_all "$(definition --name goodjar --jvm -- java -Xmx64m -jar "$JAR" --help)"
check "a jar that exists passes preflight" not json_true '.reason == "preflight"' "$(curl -s "$DAEMON_URL/v1/runs/$(nth_run 0)")"

# --- three identical failures stop the experiment -------------------------------------------
run_all "$(definition --name false --iterations 6 -- /bin/false)"
check_eq "three sut_exit failures, then the rest cancelled" \
        "$(printf 'failed sut_exit\n%.0s' 1 2 3; printf 'cancelled repeated_failure\n%.0s' 1 2 3)" "$RUNS"
check_match "the cancelled runs say why" "^cancelled: the last 3 runs of the experiment failed with the same reason \(sut_exit\): the SUT exited with code 1" \
        "$(run_field "$(nth_run 5)" .message)"
check_match "the log says so" "experiment $EXP_ID: 3 queued run\(s\) cancelled: the last 3 runs" "$(cat "$TEST_TMP/daemon.log")"
check_eq "the experiment ends failed" failed "$(curl -s "$DAEMON_URL/v1/experiments/$EXP_ID" | jq -r .status)"

run_all "$(definition --name false2 --iterations 4 --merge '{"max_consecutive_failures":2}' -- /bin/false)"
check_eq "max_consecutive_failures 2 stops after two" "failed failed cancelled cancelled" "$(awk '{print $1}' <<<"$RUNS" | tr '\n' ' ' | sed 's/ $//')"
run_all "$(definition --name false0 --iterations 4 --merge '{"max_consecutive_failures":0}' -- /bin/false)"
check_eq "max_consecutive_failures 0 never stops" "failed failed failed failed" "$(awk '{print $1}' <<<"$RUNS" | tr '\n' ' ' | sed 's/ $//')"

# Failures between successes are not consecutive: every run runs.
run_all "$(definition --name mixed --iterations 3 \
        --cell '{"name":"bad","env":{"MODE":"bad"}}' --cell '{"name":"good","env":{"MODE":"good"}}' \
        -- /bin/sh -c "test \"\$MODE\" = good && exec $SPIN --threads 1 --seconds 1; exit 3")"
check_eq "interleaved failures and successes: nothing cancelled" "failed succeeded failed succeeded failed succeeded" \
        "$(awk '{print $1}' <<<"$RUNS" | tr '\n' ' ' | sed 's/ $//')"

# --- a shipped example works after contrib/demo.sh (tests/readme runs first-try.json as is) ---
EX="$SRC/contrib/examples/gc-latency.json"
named=$(jq -r '.sut.command[] | select(endswith(".jar"))' "$EX")
check "contrib/demo.sh installs everything, the workloads too (meson install without --tags)" \
        grep -Eq '^meson install -C build( --quiet)?( |$)' "$SRC/contrib/demo.sh"
# The findings once: in the report demo.sh prints, not again as a findings table after it.
check "contrib/demo.sh prints the report, whose findings the client prints" grep -Eq '^"\$SL" report "\$ID"' "$SRC/contrib/demo.sh"
check "and runs no findings table after it" not grep -Eq '^[[:space:]]*"\$SL" findings' "$SRC/contrib/demo.sh"
# Installed under a DESTDIR: the test puts nothing on the host.
DEST=$TEST_TMP/dest
meson install -C "$BUILD" --tags workloads --destdir "$DEST" --no-rebuild --quiet >/dev/null 2>&1
check "the jar the example names ($named) is where that install puts it" test -f "$DEST$named"
# The example as it is, but for the jar's DESTDIR, a port of this test's own, short phases and a
# fifth of its rate (a busy test host, the ASan build's injector).
PORT=$(loopback_port)
DEF=$(jq -c --arg jar "$DEST$named" --arg port "$PORT" '.iterations = 1 | .load.warmup_s = 3 | .load.measure_s = 4 | .load.rate = 200
        | .cells = [.cells[0]] | .sut.command |= map(if endswith(".jar") then $jar elif . == "9081" then $port else . end)
        | .sut.ready.http |= sub("9081"; $port) | .load.target |= sub("9081"; $port)' "$EX")
run_all "$DEF"
RUN=$(nth_run 0)
if [ "$RUNS" = "succeeded null" ]; then ok "gc-latency.json, shortened, succeeds"; else
        not_ok "gc-latency.json, shortened, succeeds" "got: $RUNS" "$(run_field "$RUN" .message)"; fi

# --- the field is validated strictly --------------------------------------------------------
for bad in '"3"' 2.5 -1 1001 null true; do
        api_auth POST /v1/experiments -H 'Content-Type: application/json' \
                --data "$(definition --name v --merge "{\"max_consecutive_failures\":$bad}" -- /bin/true)"
        check_eq "max_consecutive_failures $bad is 400 naming the field" "400 max_consecutive_failures" \
                "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
done
api GET "/v1/experiments/$EXP_ID"
check_eq "the canonical definition carries the default" 3 "$(jq -r .definition.max_consecutive_failures <<<"$BODY")"
check_schema "an experiment with the field" getExperiment 200
finish
