#!/bin/bash
# capacity-hosts.sh: a capacity search whose steps run on load hosts (issue 39, item 3). The
# coordinator is a daemon in the root namespace with the SUT (slicelab-sut.jar) on its CPU 1 under
# a half-CPU quota, so that its capacity is the quota's, not the machine's; two load hosts are
# network namespaces (tests/peers/netns.sh), each with its own daemon in a time namespace 500 s
# and 2000 s ahead of ours, sending on their CPU 0. Checked: the search across the hosts finds a
# capacity, and a local search of the same SUT (one injector here, on CPU 0, with the hosts'
# connections together) finds the same within the searches' precision (each brackets the
# capacity within (1 + precision), so two of one SUT differ by less than that while it holds
# still; the bound allows one precision more for the machine); each step keeps both hosts'
# figures, its requests are the sum of theirs, each host sent half the step's rate, and every
# host's schedule started at the step's one instant (the first scheduled times of the step's
# merged timeline, on our clock, a uniform phase apart); the step at max_rps is the run's
# timeline with its hosts in metrics.load.hosts. Then a host killed -9 mid-search: the run fails
# load_failed naming it and where the search stood, the steps judged before stay, the other host's
# load is stopped and no slice is left.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/netns.sh"

JAR="$BUILD/contrib/workloads/slicelab-sut.jar"
bash "$SRC/tests/openapi/install-deps.sh" >/dev/null
# Two load hosts 500 s and 2000 s ahead, one token for the lab (each peer takes it as its API
# token, the coordinator sends it), the coordinator here.
netns_two_host_lab

PORT=$(loopback_port)
PRECISION=0.1
# 2 ms of CPU a request under half a CPU: about 250 req/s at most, far below what one injector sends.
SEARCH="{\"target\":\"http://$ME:$PORT/work?cpu_us=2000\",\"mode\":\"capacity\",\"sla\":[{\"percentile\":99,\"max_ms\":200}],
         \"rate_min\":50,\"rate_max\":800,\"warmup_s\":3,\"step\":{\"warmup_s\":1,\"measure_s\":2},\"precision\":$PRECISION,\"timeout_ms\":2000"
HOSTS="\"hosts\":[{\"host\":\"$H1\",\"cpus\":\"0\"},{\"host\":\"$H2\",\"cpus\":\"0\"}]"
# search NAME LOAD_TAIL: the SUT on our CPU 1 at a 0.5 quota, searched with SEARCH plus LOAD_TAIL.
search() {
        post_experiment "$(definition --name "$1" --jvm --ready "{\"tcp\":\"$ME:$PORT\",\"timeout_s\":120}" \
                --load "$SEARCH,$2}" --cell half:1:0.5 \
                -- java -Xmx128m -XX:+UseSerialGC -jar "$JAR" --port "$PORT" --bind "$ME")"
        RUN=$(first_run "$EXP_ID")
}

# ---- the search across the hosts and the same search here -------------------------------------
search "capacity on two hosts" "\"connections\":16,$HOSTS"
check_eq "a capacity search with load.hosts is accepted" 201 "$HTTP_STATUS"
HRUN=$RUN
wait_for 600 run_finished "$HRUN" || not_finished "$EXP_ID"
search "capacity here" "\"connections\":32,\"cpus\":\"0\""
LRUN=$RUN
wait_for 600 run_finished "$LRUN" || not_finished "$EXP_ID"

api GET "/v1/runs/$HRUN"
cp "$TEST_TMP/body" "$TEST_TMP/hrun.json"
check_eq "the search on two load hosts succeeds" succeeded "$(jq -r "$RUN_OUTCOME_JQ" <<<"$BODY")"
check_schema "the capacity run with load hosts" getRun 200
check_eq "the local search succeeds" succeeded "$(run_outcome "$LRUN")"
HCAP=$(jq -c .metrics.capacity "$TEST_TMP/hrun.json")
LCAP=$(curl -s "$DAEMON_URL/v1/runs/$LRUN" | jq -c .metrics.capacity)
echo "# on the hosts: $HCAP"
echo "# here:         $LCAP"
check_eq "both searches found a capacity" "found found" "$(jq -r .outcome <<<"$HCAP") $(jq -r .outcome <<<"$LCAP")"
check "the hosts' max_rps is the local search's within its precision (x (1 + $PRECISION)^2 either way)" json_true \
        "(.[0].max_rps / .[1].max_rps) as \$r | \$r <= (1 + $PRECISION) * (1 + $PRECISION) and \$r >= 1 / ((1 + $PRECISION) * (1 + $PRECISION))" \
        "[$HCAP, $LCAP]"

api GET "/v1/runs/$HRUN/steps"
check_schema "the steps on the load hosts" getRunSteps 200
STEPS=$BODY
echo "# steps: $(jq -c '[.steps[] | [.rate, .sla[0].latency_ms, .verdict, [.hosts[] | .requests]]]' <<<"$STEPS")"
check "every step names both hosts, each succeeded" json_true \
        "(.steps | length) > 0 and (.steps | all([.hosts[] | select(.state == \"succeeded\") | .host] == [\"$H1\", \"$H2\"]))" "$STEPS"
check "every step's requests are the sum of its hosts'" json_true \
        '.steps | all(.requests == ([.hosts[].requests] | add))' "$STEPS"
# Each host's schedule held half of the step's rate over its 2 s measure (its measured requests,
# answered or not: a rate the SUT could not serve was still scheduled so).
check "each host's schedule held half of the step's rate" json_true \
        '.steps | all(.rate as $r | .hosts | all((.requests - $r / 2 * 2 | fabs) <= 1 + $r * 0.02))' "$STEPS"
check "the step at max_rps met the SLA" json_true \
        "[.steps[] | select(.rate == $(jq .max_rps <<<"$HCAP"))] | length == 1 and all(.met)" "$STEPS"
check "a step within 2 x precision above max_rps missed it" json_true \
        "[.steps[] | select(.rate > $(jq .max_rps <<<"$HCAP") and .rate <= $(jq .max_rps <<<"$HCAP") * (1 + 2 * $PRECISION) and (.met | not))] | length > 0" "$STEPS"
kept=$(jq -c --argjson r "$(jq .max_rps <<<"$HCAP")" '.steps[] | select(.rate == $r) | .hosts' <<<"$STEPS")
check_eq "metrics.load.hosts are the hosts of the step at max_rps" "$kept" "$(jq -c .metrics.load.hosts "$TEST_TMP/hrun.json")"
check "the run's requests are that step's" json_true \
        ".metrics.requests == ($kept | map(.requests) | add)" "$(cat "$TEST_TMP/hrun.json")"

# Each step's merged timeline: both hosts' records, their first scheduled times on our clock one
# uniform phase apart (host 2 starts 1/rate after host 1, halfway through its own period of
# 2/rate, so that the union is evenly spaced), so both began at the step's one instant.
verdict=$(python3 - "$DAEMON_STATE/runs/$HRUN" "$STEPS" <<'EOF'
import json, struct, sys
run_dir, steps = sys.argv[1], json.loads(sys.argv[2])["steps"]
REC = struct.Struct("<qqqHHIII")
problems = []
for st in steps:
    data = open("%s/timeline-step-%d.bin" % (run_dir, st["step"]), "rb").read()
    first = {}
    for off in range(32, len(data), 40):
        s, *_rest, flags = REC.unpack_from(data, off)
        first.setdefault(flags >> 8 & 0xff, s)
    if sorted(first) != [1, 2]:
        problems.append("step %d: hosts %s in its timeline" % (st["step"], sorted(first)))
        continue
    skew = first[2] - first[1] - 1e9 / st["rate"]
    if abs(skew) > 1e6:
        problems.append("step %d: host 2 began %.3f ms off host 1's instant" % (st["step"], skew / 1e6))
print("; ".join(problems) or "ok %d steps" % len(steps))
EOF
)
check_match "every step's hosts began at its one instant" '^ok [0-9]+ steps$' "$verdict"

# ---- a host killed mid-search -------------------------------------------------------------------
search "a host dies" "\"connections\":16,$HOSTS"
has_steps() { json_true '.steps | length >= 1' "$(curl -s "$DAEMON_URL/v1/runs/$1/steps")"; }
wait_for 300 has_steps "$RUN"
peer_kill9 2
wait_for 120 run_finished "$RUN" || not_finished "$EXP_ID"
check_eq "a host killed -9 mid-search: failed/load_failed" "failed load_failed" "$(run_field "$RUN" '"\(.state) \(.reason)"')"
message=$(run_field "$RUN" .message)
echo "# load_failed: $message"
check_match "the message names the host" "load host $H2 " "$message"
check_match "and where the search stood" "the search stopped \(load_failed\) after [1-9][0-9]* judged steps" "$message"
check "the steps judged before stay visible" has_steps "$RUN"
check "the other host's load is stopped (no injector of host 1 left)" \
        wait_for 30 not running_cmd "[s]licelab-inject .*$TEST_TMP/peer1/"
check "the run left no slice" no_slices_of "$RUN"
check "the token is in no log" not grep -rqF "$TOKEN" "$TEST_TMP/daemon.log" "$TEST_TMP/peer1.log" "$TEST_TMP/peer2.log"

netns_teardown
finish
