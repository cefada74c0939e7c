#!/bin/bash
# template-runs.sh: cells from a template (issue 38, item 1) with real JVM runs: two cells of
# slicelab-sut.jar whose port (in sut.command, sut.ready.http and load.target), the work per
# request (load.target's query) and the heap (a cell's jvm_args) come from each cell's vars.
# Each run used its own cell's values: its SUT answered on the cell's port (else it is never
# ready), its JVM has the cell's -Xmx, its median latency from scheduled is at least the cell's
# cpu_us of work. The stored definition keeps the placeholders and the vars; a placeholder no
# vars fill, a variable that fills none and an expansion that is no valid URL are 400s naming
# the field (the rest of the rules: tests/definition/bad-definitions.tsv, also sent to the API).
. "$SLICELAB_SRC/tests/lib.sh"

JAR="$BUILD/contrib/workloads/slicelab-sut.jar"
bash "$SRC/tests/openapi/install-deps.sh" >/dev/null
daemon_start --cgroup-root "slicelab-tpl$$" || { not_ok "daemon starts"; finish; exit 1; }
PORT=$(loopback_port 2)
PORT2=$((PORT + 1))

# template VARS-OF-A VARS-OF-B: the definition, cell b's jvm_args and vars as given.
template() {
        definition --name "two builds from a template" --merge '{"order":"sequential"}' \
                --jvm --ready '{"http":"http://127.0.0.1:{port}/health","timeout_s":120}' \
                --load '{"target":"http://127.0.0.1:{port}/work?cpu_us={cpu_us}","rate":50,"warmup_s":1,"measure_s":2,"cpus":"0"}' \
                --cell "{\"name\":\"a\",\"cpus\":\"1\",\"jvm_args\":[\"-Xmx{heap}\"],\"vars\":$1}" \
                --cell "{\"name\":\"b\",\"cpus\":\"1\",\"jvm_args\":[\"-Xmx{heap}\"],\"vars\":$2}" \
                -- java -XX:+UseSerialGC -jar "$JAR" --port '{port}'
}

# --- bad templates: the field and the rule --------------------------------------------------
post_experiment "$(template "{\"port\":\"$PORT\",\"cpu_us\":\"100\",\"heap\":\"96m\"}" "{\"port\":\"$PORT2\",\"heap\":\"160m\"}")"
check_eq "a placeholder cell b's vars do not fill is a 400 on load.target" "400 load.target" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
check_match "which names it and the cell" "placeholder \{cpu_us\} is not among cells\[1\]\.vars" "$(jq -r .error.message <<<"$BODY")"
post_experiment "$(template "{\"port\":\"$PORT\",\"cpu_us\":\"100\",\"heap\":\"96m\"}" "{\"port\":\"$PORT2\",\"cpu_us\":\"2000\",\"heap\":\"160m\",\"build\":\"7\"}")"
check_eq "a variable that fills no placeholder is a 400 on its cell's vars" "400 cells[1].vars" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
post_experiment "$(template "{\"port\":\"$PORT\",\"cpu_us\":\"100\",\"heap\":\"96m\"}" "{\"port\":\"x\",\"cpu_us\":\"2000\",\"heap\":\"160m\"}")"
check_eq "an expansion that is no URL is a 400 on the first field it breaks" "400 sut.ready.http" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
check_match "said of that cell's vars" "^with cells\[1\]\.vars: " "$(jq -r .error.message <<<"$BODY")"

# --- two builds as two cells ----------------------------------------------------------------
post_experiment "$(template "{\"port\":\"$PORT\",\"cpu_us\":\"100\",\"heap\":\"96m\"}" "{\"port\":\"$PORT2\",\"cpu_us\":\"3000\",\"heap\":\"160m\"}")"
check_eq "a definition with cells from a template is accepted" 201 "$HTTP_STATUS"
check_eq "the refused ones stored nothing: one experiment" 1 "$(curl -s "$DAEMON_URL/v1/experiments" | jq '.experiments | length')"
api GET "/v1/experiments/$EXP_ID"
check_schema "the experiment" getExperiment 200
check_eq "the stored definition keeps the placeholders and the vars" \
        "[\"--port\",\"{port}\"] http://127.0.0.1:{port}/work?cpu_us={cpu_us} [\"-Xmx{heap}\"] {\"cpu_us\":\"3000\",\"heap\":\"160m\",\"port\":\"$PORT2\"}" \
        "$(jq -r '"\(.definition.sut.command[-2:] | tojson) \(.definition.load.target) \(.definition.cells[1].jvm_args | tojson) \(.definition.cells[1].vars | tojson)"' <<<"$BODY")"
wait_for 600 experiment_finished "$EXP_ID" || not_finished "$EXP_ID"
api GET "/v1/experiments/$EXP_ID/runs"
check_eq "both cells' runs succeed (each SUT was ready on its cell's port)" "succeeded succeeded" \
        "$(jq -r "[.runs[] | $RUN_OUTCOME_JQ] | join(\" \")" <<<"$BODY")"
RUN_A=$(jq -r '.runs[] | select(.cell == "a") | .id' <<<"$BODY")
RUN_B=$(jq -r '.runs[] | select(.cell == "b") | .id' <<<"$BODY")
check_eq "each JVM has its cell's -Xmx (96m, 160m)" "100663296 167772160" \
        "$(run_field "$RUN_A" .metrics.jvm.MaxHeapSize) $(run_field "$RUN_B" .metrics.jvm.MaxHeapSize)"
P50_B=$(run_field "$RUN_B" .metrics.latency_us.scheduled.p50)
P50_A=$(run_field "$RUN_A" .metrics.latency_us.scheduled.p50)
echo "# p50 from scheduled: a (cpu_us 100) $P50_A us, b (cpu_us 3000) $P50_B us"
check "cell b's requests did its 3000 us of work (p50 from scheduled $P50_B us)" json_true '. >= 3000' "$P50_B"
check "cell a's did less (p50 $P50_A us, b's $P50_B us)" json_true ".[0] < .[1]" "[$P50_A, $P50_B]"
finish
