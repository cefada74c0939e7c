#!/bin/bash
# compare-checks.sh: labels, checks and comparisons across experiments with real JVM runs:
# ?label=k=v filters (repeatable, AND); a definition's checks give a verdict in the report and in
# GET /v1/experiments/{id}, one experiment passing and one failing, its report's warmup the fixed
# warmup_s (API and slicelab report's column); GET /v1/compare across two real experiments gives
# both sides and the ratio b/a with its Fieller interval, and warns naming the definition field
# that differs (the load's rate); bad compare parameters are 400s naming the parameter.
. "$SLICELAB_SRC/tests/lib.sh"

JAR="$BUILD/contrib/workloads/slicelab-sut.jar"
bash "$SRC/tests/openapi/install-deps.sh" >/dev/null
daemon_start --cgroup-root "slicelab-c$$" || { not_ok "daemon starts"; finish; exit 1; }
PORT=$(loopback_port)

# experiment RATE LABELS CHECKS: two cells, two iterations, short phases.
experiment() {
        post_experiment "$(definition --name "cmp-$1" --iterations 2 \
                --jvm --ready "{\"http\":\"http://127.0.0.1:$PORT/health\",\"timeout_s\":120}" \
                --load "{\"target\":\"http://127.0.0.1:$PORT/work?cpu_us=200\",\"rate\":$1,\"connections\":8,\"warmup_s\":1,\"measure_s\":2,\"cpus\":\"0\"}" \
                --cell A:1 --cell B:1:0.5 --merge "{\"labels\":$2,\"checks\":$3}" \
                -- java -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -jar "$JAR" --port "$PORT")"
}

experiment 100 '{"team":"perf","build":"41"}' \
  '[{"metric":"errors","cell":"A","max":0},{"metric":"throughput_rps","cell":"B","ratio_to":"A","min":0.8,"max":1.2}]'
check_eq "an experiment with labels and checks is accepted" 201 "$HTTP_STATUS"
E1=$EXP_ID
experiment 150 '{"team":"perf","build":"42"}' \
  '[{"metric":"latency_us.scheduled.p99","cell":"A","max":1},{"metric":"errors","cell":"B","max":0}]'
E2=$EXP_ID
post_experiment "$(definition --name other --merge '{"labels":{"team":"web"}}' -- /bin/echo '{"ops_per_s": 1}')"
E3=$EXP_ID

# --- labels --------------------------------------------------------------------------------
ids() { jq -r '[.experiments[].id] | join(" ")' <<<"$BODY"; }
api GET "/v1/experiments?label=team=perf"
check_eq "?label=team=perf finds both perf experiments, newest first" "$E2 $E1" "$(ids)"
check_schema "a filtered list" listExperiments 200
api GET "/v1/experiments?label=team=perf&label=build=41"
check_eq "two labels are both required" "$E1" "$(ids)"
api GET "/v1/experiments?label=team=web"
check_eq "another value, another experiment" "$E3" "$(ids)"
api GET "/v1/experiments?label=team=perf&label=build=43"
check_eq "no experiment has both" "" "$(ids)"
check_eq "the list carries the labels" '{"build":"41","team":"perf"}' "$(curl -s "$DAEMON_URL/v1/experiments?label=build=41" | jq -c '.experiments[0].labels')"
api GET "/v1/experiments?label=team"
check_eq "a label filter without '=' is a 400" "400 label" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
api GET "/v1/experiments?label=Team=perf"
check_eq "a label key outside [a-z0-9_.-] is a 400" "400 label" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"

# --- checks on real runs -------------------------------------------------------------------
# Both take about a minute; the test's 600 s would cut a hang short of saying where it was.
wait_for 250 experiment_finished "$E1" || not_finished "$E1"
wait_for 250 experiment_finished "$E2" || not_finished "$E2"
api GET "/v1/experiments/$E1/report"
check_schema "a report with a verdict" getExperimentReport 200
check_eq "every run of the first experiment succeeded" succeeded "$(jq -r .status <<<"$BODY")"
check_eq "its checks pass: no errors, B's throughput within 0.8-1.2 of A's" "true true true" \
  "$(jq -r '"\(.verdict.passed) \(.verdict.checks[0].passed) \(.verdict.checks[1].passed)"' <<<"$BODY")"
check_eq "the ratio check is decided on its interval" ratio_interval "$(jq -r '.verdict.checks[1].basis' <<<"$BODY")"
check "the interval bounds the ratio" json_true '.verdict.checks[1] | .ci95.low <= .value and .value <= .ci95.high' "$BODY"
check_eq "the plain check is on the mean of 2 runs" "mean 2" "$(jq -r '.verdict.checks[0] | "\(.basis) \(.n)"' <<<"$BODY")"
check "a fixed warmup is the report's: each cell's 2 runs had warmup_s 1 (within 1 ms), and no auto" json_true \
  '[.cells[].warmup | .runs == 2 and ((.min_s - 1) | fabs) < 0.001 and ((.max_s - 1) | fabs) < 0.001 and (has("auto") | not)] | all' "$BODY"
check_match "slicelab report shows it in its warmup column" "^A .* 1\.0 s +[0-9-]" \
  "$("$BUILD/client/slicelab" --url "$DAEMON_URL" report "$E1" | grep '^A ')"
api GET "/v1/experiments/$E2"
check_schema "an experiment with a verdict" getExperiment 200
check_eq "the second experiment fails its p99 <= 1 us check and passes the other" "false false true" \
  "$(jq -r '"\(.verdict.passed) \(.verdict.checks[0].passed) \(.verdict.checks[1].passed)"' <<<"$BODY")"
check "the failing check shows the value it saw" json_true '.verdict.checks[0].value > 1' "$BODY"
check_eq "an experiment without checks has no verdict" null "$(curl -s "$DAEMON_URL/v1/experiments/$E3" | jq -c .verdict)"

# --- compare -------------------------------------------------------------------------------
api GET "/v1/compare?a=$E1&b=$E2"
check_eq "compare answers 200" 200 "$HTTP_STATUS"
check_schema "a comparison" getCompare 200
check_eq "cells are matched by name" "A=A B=B" "$(jq -r '[.cells[] | "\(.a)=\(.b)"] | join(" ")' <<<"$BODY")"
tp=$(jq -c '.cells[0].metrics.throughput_rps' <<<"$BODY")
check "both sides' mean throughput is there" json_true '.a.mean > 90 and .b.mean > 140' "$tp"
check "the ratio b/a of throughput is near 1.5" json_true '.ratio.ratio > 1.4 and .ratio.ratio < 1.6' "$tp"
check "and its 95% interval contains it, on the log scale (throughput is positive)" json_true '.ratio.ci95.low <= .ratio.ratio and .ratio.ratio <= .ratio.ci95.high and .ratio.method == "log-welch"' "$tp"
# Two runs a side: a geometric mean is sqrt(min x max).
check "the ratio is b's geometric mean over a's" json_true '((.b.min * .b.max | sqrt) / (.a.min * .a.max | sqrt) - .ratio.ratio) | fabs < 1e-9' "$tp"
check_match "a warning names the load field that differs" 'definition field load.rate differs: 100 in a, 150 in b' "$(jq -r '.warnings | join(" | ")' <<<"$BODY")"
check_eq "the differences list the rate and nothing else of the definitions" "load.rate" \
  "$(jq -r '[.differences[] | select(.source == "definition") | .field] | join(" ")' <<<"$BODY")"
check_eq "the hosts were recorded and are the same here" "" "$(jq -r '[.differences[] | select(.source == "host") | .field] | join(" ")' <<<"$BODY")"
check "both sides had their host facts recorded" not json_true '.warnings | any(test("no host facts"))' "$BODY"
api GET "/v1/compare?a=$E1:A&b=$E1:B"
check_eq "two cells of one experiment compare, with no difference but the quota, each side named by its cell" \
  "cells[A|B].cpu_quota cells[A|B].cpu_period_us cells[A|B].cpu_burst_us" \
  "$(jq -r '[.differences[].field] | join(" ")' <<<"$BODY")"
api GET "/v1/compare?a=$E1:A&b=$E1:B"
check "the same experiment's same load: no warning about the load" not json_true '.warnings | any(test("load"))' "$BODY"

api GET "/v1/compare?a=$E1"
check_eq "b is required" "400 b" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
api GET "/v1/compare?a=nope&b=$E2"
check_eq "a malformed side is a 400 naming it" "400 a" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
api GET "/v1/compare?a=$E1:Z&b=$E2"
check_eq "an unknown cell is a 400 naming the side" "400 a" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
api GET "/v1/compare?a=$E1&b=$E3"
check_eq "no cell in common is a 400" "400 b" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
api GET "/v1/compare?a=aaaaaaaaaaaa&b=$E2"
check_eq "an unknown experiment is a 404" 404 "$HTTP_STATUS"
api GET "/v1/compare?a=$E1&b=$E2&c=1"
check_eq "an unknown parameter is a 400" 400 "$HTTP_STATUS"
finish
