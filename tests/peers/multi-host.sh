#!/bin/bash
# multi-host.sh: one experiment across hosts (issue 25), the coordinator's side. The coordinator
# is a daemon in the root namespace with the SUT (slicelab-sut.jar) listening on the bridge
# address; two load hosts are network namespaces (tests/peers/netns.sh), each with its own daemon
# in a time namespace whose CLOCK_MONOTONIC is 500 s and 2000 s ahead of ours. Checked: the run
# succeeds; its merged timeline holds exactly the peers' records (fetched with curl from their
# /v1/loads/{id}/timeline and shifted by hand by the offsets the run reports), in scheduled order
# on the coordinator's clock, every scheduled time between the test's own clock readings around
# the run (a missing or wrong-sign correction is 500 s or more off); the request count is the sum
# of the peers'; the SUT's p99 from the merged run equals the one recomputed from the peers'
# files, and its HdrHistogram log (GET /v1/runs/{id}/histogram) counts the merged requests in
# both tags. Failure paths: a peer unreachable at preflight (its link down) fails 'preflight' naming
# it; a peer killed -9 mid-run fails 'load_failed' naming it and the other peer's load is stopped;
# the coordinator killed -9 mid-run: the peers stop their loads within the lease (expired) and its
# restart marks the run interrupted. The token never appears in a log. Prints the start skew
# between the hosts beside their error bounds. A stop rule (issue 37) over merged runs: decided from
# the runs' merged throughput, whole rounds, every host's figures in every run, its loads ended.
# GET /v1/peers (issue 39) lists both hosts with the run's clocks, answering, in the client and the
# dashboard (chromium), and host 2 not answering once killed; no token in it, its bad parameters
# 400s.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/../ui/views-lib.sh"

JAR="$BUILD/contrib/workloads/slicelab-sut.jar"
bash "$SRC/tests/openapi/install-deps.sh" >/dev/null
# Two load hosts 500 s and 2000 s ahead, one token for the lab (each peer takes it as its API
# token, the coordinator sends it), the coordinator here.
netns_two_host_lab

PORT=$(loopback_port)
# sut NAME [definition options]: slicelab-sut.jar on $ME:$PORT, where the hosts reach it.
sut() {
        definition --name "$1" --jvm --ready "{\"tcp\":\"$ME:$PORT\",\"timeout_s\":120}" "${@:2}" \
                -- java -Xmx128m -XX:+UseSerialGC -jar "$JAR" --port "$PORT" --bind "$ME"
}
# two_hosts MEASURE_S: the load, 100 req/s from each host, on their CPU 0.
two_hosts() {
        printf '{"target":"http://%s:%s/work?cpu_us=50","rate":200,"connections":4,"warmup_s":2,"measure_s":%s,"hosts":[{"host":"%s","cpus":"0"},{"host":"%s","cpus":"0"}]}' \
                "$ME" "$PORT" "$1" "$H1" "$H2"
}
# experiment NAME MEASURE_S: two hosts' load; the SUT on our CPU 1.
experiment() { sut "$1" --load "$(two_hosts "$2")" --cell one:1; }
mono_ns() { python3 -c 'import time; print(time.monotonic_ns())'; }
jq_quiet() { jq "$@" >/dev/null; }

# ---- a load host named like a lab address ------------------------------------------------------
# --peer-allow 10.231.K.* is an address pattern: a name that begins with those octets is no lab
# host (it resolves wherever its owner points it, and would be sent the lab's token).
post_experiment "$(experiment named-like-an-address 5 | sed "s/\"host\":\"$H2\"/\"host\":\"$H2.evil.invalid\"/")"
check_eq "a load host named like a lab address ($H2.evil.invalid): 400" 400 "$HTTP_STATUS"
check_eq "the 400 names it" "not_allowed load.hosts[1].host" "$(jq -r '.error.code + " " + .error.field' <<<"$BODY")"

# ---- one run on two hosts ---------------------------------------------------------------------
before=$(mono_ns)
post_experiment "$(experiment two-hosts 5)"
check_eq "the experiment with load.hosts is accepted" 201 "$HTTP_STATUS"
RUN=$(first_run "$EXP_ID")
TWO_HOSTS_RUN=$RUN
wait_for 240 run_finished "$RUN" || not_finished "$EXP_ID"
after=$(mono_ns)
api GET "/v1/runs/$RUN"
cp "$TEST_TMP/body" "$TEST_TMP/run.json"
check_eq "the run on two load hosts succeeds" succeeded "$(jq -r "$RUN_OUTCOME_JQ" <<<"$BODY")"
check_schema "the run with metrics.load.hosts" getRun 200
check_eq "metrics.load.hosts names both hosts" "$H1 $H2" "$(jq -r '[.metrics.load.hosts[].host] | join(" ")' <<<"$BODY")"
check "each host's offset is its time namespace's, within its error bound (+500 s, +2000 s)" json_true \
        '.metrics.load.hosts as $h | ([500, 2000] | to_entries | all(. as $e | ($h[$e.key].offset_ns - $e.value * 1e9 | fabs) <= $h[$e.key].error_ns + 5e6))' "$BODY"
check "requests are the sum of the hosts'" json_true '.metrics.requests == ([.metrics.load.hosts[].requests] | add)' "$BODY"
for i in 1 2; do
        id=$(jq -r ".metrics.load.hosts[$((i - 1))].load_id" <<<"$BODY")
        curl -sS --max-time 60 -o "$TEST_TMP/peer$i.bin" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
                "http://$(netns_addr "$i"):7878/v1/loads/$id/timeline" >"$TEST_TMP/peer$i.status"
        check_eq "peer $i serves its load's timeline" 200 "$(cat "$TEST_TMP/peer$i.status")"
done

# The peers' files shifted by hand against the run's merged timeline.
verdict=$(python3 - "$DAEMON_STATE/runs/$RUN/timeline.bin" "$TEST_TMP/peer1.bin" "$TEST_TMP/peer2.bin" \
        "$TEST_TMP/run.json" "$before" "$after" 2>"$TEST_TMP/skew" <<'EOF'
import json, math, struct, sys
merged_path, p1, p2, run_path, before, after = sys.argv[1:7]
before, after = int(before), int(after)
run = json.load(open(run_path))
hosts = run["metrics"]["load"]["hosts"]
REC = struct.Struct("<qqqHHIII")
def records(path):
    data = open(path, "rb").read()
    assert data[:4] == b"SLTL", path
    return [REC.unpack_from(data, off) for off in range(32, len(data), 40)]
merged = records(merged_path)
shifted = []
for i, path in enumerate((p1, p2)):
    off = int(hosts[i]["offset_ns"])
    for s, sub, done, status, err, nbytes, conn, flags in records(path):
        shifted.append((s - off, sub - off, done - off, status, err, nbytes, conn, flags | ((i + 1) << 8)))
problems = []
if sorted(merged) != sorted(shifted):
    problems.append("the merged records are not the peers' shifted by their offsets")
if any(merged[k][0] < merged[k - 1][0] for k in range(1, len(merged))):
    problems.append("the merged timeline is not in scheduled order")
outside = [r for r in merged if not before < r[0] < after]
if outside:
    problems.append("%d scheduled times outside the test's clock readings around the run (first %d, window %d..%d)"
                    % (len(outside), outside[0][0], before, after))
def p99(recs):
    lat = sorted(d - s for s, sub, d, status, *rest in recs if status != 0 and not rest[-1] & 1)
    return lat[max(1, math.ceil(len(lat) * 0.99)) - 1]
want = p99(shifted)
got = run["metrics"]["latency_us"]["scheduled"]["p99"] * 1000
if abs(got - want) > 1:
    problems.append("p99 from scheduled: the run says %.0f ns, the peers' files %d ns" % (got, want))
# The start skew between the hosts as the merged timeline shows it (their first scheduled times
# on our clock), printed beside the error bounds, not a check. Each start_at is the instant plus
# the measured offset, so this is 0 by construction: the true skew is the offsets' error, which
# only the bounds describe.
first = {}
for r in merged:
    first.setdefault(r[7] >> 8 & 0xff, r[0])
# host 2's uniform phase is 1/(200 req/s): 5 ms after host 1 by design
print("start skew in the merged timeline: %d ns (first scheduled times, less host 2's 5 ms phase; 0 by construction); the true skew is within the error bounds %s ns"
      % (first.get(2, 0) - first.get(1, 0) - 5000000, [int(h["error_ns"]) for h in hosts]), file=sys.stderr)
print("; ".join(problems) or "ok %d records" % len(merged))
EOF
)
check_match "the merged timeline is the peers' shifted into our clock, in order, with the same p99" '^ok [0-9]+ records$' "$verdict"
echo "# $(cat "$TEST_TMP/skew")"

# The merged run's HdrHistogram log: a local run keeps no .hlog file either; GET .../histogram
# builds it from the stored timeline, which for a merged run is the merged one (and the bundle
# carries that timeline), so both kinds of run serve it alike. Decoded here (V2 compressed
# histograms, format 1.3) and counted: every measured request of the merged run, in both tags.
api GET "/v1/runs/$RUN/histogram" -H 'Accept: text/plain'
check_eq "the merged run's histogram log is 200" 200 "$HTTP_STATUS"
counts=$(python3 - "$TEST_TMP/body" <<'EOF'
import base64, struct, sys, zlib
def varints(b):
    i = 0
    while i < len(b):
        v = shift = 0
        for k in range(9):
            c = b[i]; i += 1
            v |= (c if k == 8 else c & 0x7f) << shift
            shift += 7
            if k == 8 or not c & 0x80:
                break
        yield (v >> 1) ^ -(v & 1)
total = {}
for line in open(sys.argv[1]):
    if not line.startswith("Tag="):
        continue
    tag, _, _, _, b64 = line.strip().split(",")
    raw = base64.b64decode(b64)
    inner = zlib.decompress(raw[8:8 + struct.unpack(">i", raw[4:8])[0]])
    n = struct.unpack(">i", inner[4:8])[0]
    total[tag[4:]] = total.get(tag[4:], 0) + sum(c for c in varints(inner[40:40 + n]) if c > 0)
print(" ".join("%s %d" % kv for kv in sorted(total.items())))
EOF
)
# A latency exists for an answered request only (basic/latency.h): the requests the transport
# failed (a timeout on a busy machine) are in metrics.requests but in no histogram.
requests=$(jq -r '.metrics.requests - ([.metrics.errors_by_kind | to_entries[] | select(.key != "http_status") | .value] | add // 0)' "$TEST_TMP/run.json")
check_eq "its tags scheduled and submit each count the merged run's answered requests" "scheduled $requests submit $requests" "$counts"

# The client shows the hosts as the JSON has them: `slicelab run` a row per host with its
# requests and offset, `slicelab report` the cell that ran with load hosts.
out=$("$BUILD/client/slicelab" --url "$DAEMON_URL" run "$RUN")
for i in 0 1; do
        want=$(jq -r ".metrics.load.hosts[$i] | \"\(.host) \(.state) \(.offset_ns / 1e9 | floor)\"" "$TEST_TMP/run.json")
        row=$(awk -v h="$(jq -r ".metrics.load.hosts[$i].host" "$TEST_TMP/run.json")" '$1 == h' <<<"$out")
        check_eq "slicelab run's row of host $((i + 1)): its state and whole seconds of offset" "$want" \
                "$(awk '{ split($3, s, "."); print $1, $2, s[1] + 0 }' <<<"$row")"
        check_eq "and its requests, as the JSON's" "$(jq -r ".metrics.load.hosts[$i].requests" "$TEST_TMP/run.json")" \
                "$(awk '{ print $9 }' <<<"$row")"
done
check_match "slicelab report names the cell that ran with load hosts" "load from load hosts \\($H1, $H2\\) in cells one" \
        "$("$BUILD/client/slicelab" --url "$DAEMON_URL" report "$EXP_ID")"

# ---- the lab's view of its hosts (issue 39) ----------------------------------------------------
# GET /v1/peers: the hosts the runs used that --peer-allow names, with the clock their last run
# measured and whether they answer now (their /v1/health, asked by the coordinator).
api GET /v1/peers
check_eq "GET /v1/peers is 200" 200 "$HTTP_STATUS"
check_schema "the hosts this coordinator used" listPeers 200
cp "$TEST_TMP/body" "$TEST_TMP/peers.json"
check_eq "it lists both load hosts, both answering" "$H1 true,$H2 true" \
        "$(jq -r '[.peers[] | "\(.host) \(.answers)"] | sort | join(",")' <<<"$BODY")"
check "each host's clock and last run are those of the run" jq_quiet -e --slurpfile run "$TEST_TMP/run.json" --arg id "$RUN" \
        '[.peers[] | . as $p | $run[0].metrics.load.hosts[] | select(.host == $p.host)
          | $p.clock == {offset_ns, rtt_ns, error_ns} and $p.last_run == $id and $p.clock.rtt_ns > 0] | length == 2 and all' \
        "$TEST_TMP/peers.json"
check_eq "each host's version is its daemon's" "$(curl -s "$DAEMON_URL/v1/health" | jq -r .version)" \
        "$(jq -r '[.peers[].version] | unique | join(" ")' <<<"$BODY")"
check "the answer holds no token" not grep -qF -e "$TOKEN" -e "$DAEMON_TOKEN" "$TEST_TMP/peers.json"
# A storm of GETs is answered from the list kept max_age_s: 40 GETs, 20 at a time, all 200, and
# the times their hosts were checked (with the first GET's) each max_age_s or more apart.
mkdir "$TEST_TMP/storm"
seq 40 | xargs -P 20 -I{} curl -s --max-time 30 -o "$TEST_TMP/storm/{}.json" -w '%{http_code}\n' "$DAEMON_URL/v1/peers" \
        >"$TEST_TMP/storm.codes"
check_eq "40 GETs at once: all 200" "40 200" "$(sort "$TEST_TMP/storm.codes" | uniq -c | awk '{ print $1, $2 }')"
check "the hosts were checked once per max_age_s, not for every GET" jq_quiet -s -e \
        '.[0].max_age_s as $age | [.[].checked_at | sub("\\.[0-9]+Z$"; "Z") | fromdate] | unique
         | . as $t | [range(1; length) | $t[.] - $t[. - 1] >= $age] | all' "$TEST_TMP/peers.json" "$TEST_TMP"/storm/*.json
api GET '/v1/peers?limit=1'
check_eq "?limit=1: the host used last, and truncated" "1 true" "$(jq -r '"\(.peers | length) \(.truncated)"' <<<"$BODY")"
for bad in 'limit=0 limit' 'limit=x limit' 'limit=101 limit' 'host=x host'; do
        api GET "/v1/peers?${bad% *}"
        check_eq "?${bad% *}: 400 naming ${bad#* }" "400 ${bad#* }" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
done
# The dashboard's load hosts view in chromium (tests/ui/views.js), each host's row as the answer;
# and the two-host run's view, each host's row as the run's metrics.load.hosts.
if bash "$SRC/tests/openapi/install-deps.sh" "$SRC/tests/ui" >"$TEST_TMP/npm.log" 2>&1; then
        URL=$DAEMON_URL HOSTS_RUN=$TWO_HOSTS_RUN PEERS=$(jq -r '[.peers[] | "\(.host) \(if .answers then "yes" else "no" end)"] | sort | join(",")' "$TEST_TMP/peers.json") \
                node "$SRC/tests/ui/views.js" >"$TEST_TMP/views.out" 2>&1
        count_views_output
else
        not_ok "playwright-core installs" "$(cat "$TEST_TMP/npm.log")"
fi
out=$("$BUILD/client/slicelab" --url "$DAEMON_URL" peers)
for h in "$H1" "$H2"; do
        want=$(jq -r --arg h "$h" '.peers[] | select(.host == $h) | "\(.host) yes \(.clock.offset_ns / 1e9 | floor)"' "$TEST_TMP/peers.json")
        check_eq "slicelab peers' row of $h: answers, whole seconds of offset" "$want" \
                "$(awk -v h="$h" '$1 == h { split($3, s, "."); print $1, $2, s[1] + 0 }' <<<"$out")"
done

# ---- a stop rule across hosts (issue 37) --------------------------------------------------------
# iterations chosen by the data with the load from both hosts: each round's runs are merged runs,
# and the rule reads their merged figures. A quota of half a CPU the SUT does not need (200 req/s
# of 50 us) leaves the throughput it serves equivalent (within 3%); level 0.5 bounds the sequence
# from round 2, so two rounds decide and the third is dropped.
post_experiment "$(sut "stop rule on two hosts" --load "$(two_hosts 2)" --cell one:1 --cell half:1:0.5 \
        --merge '{"iterations":{"min":2,"max":3},"stop":{"metrics":["throughput_rps"],"level":0.5}}')"
check_eq "a stop rule with load.hosts is accepted" 201 "$HTTP_STATUS"
SX=$EXP_ID
wait_for 600 experiment_finished "$SX" || not_finished "$SX"
sequential_of "$SX"
check_schema "the report of a stop rule over load hosts" getExperimentReport 200
check_eq "stop rule over hosts: decided, half's throughput equivalent to one's" "decided half one throughput_rps equivalent" \
        "$(sequential_decisions)"
SXRUNS=$(experiment_runs "$SX")
echo "# its runs: $(jq -c '[.[] | [.cell, .iteration, .state, .metrics.throughput_rps, [.metrics.load.hosts[]? | .requests]]]' <<<"$SXRUNS")"
check "stop rule over hosts: the rounds it needed, whole, every run succeeded with both hosts' figures adding up" json_true \
        "length == 2 * $(jq .rounds <<<"$SEQ") and ([.[] | [.cell, .iteration]] | unique | length) == length and
         all(.state == \"succeeded\" and ([.metrics.load.hosts[] | select(.state == \"succeeded\" and .requests > 0) | .host] == [\"$H1\", \"$H2\"])
             and .metrics.requests == ([.metrics.load.hosts[].requests] | add))" "$SXRUNS"
check "its ratio is the runs' merged throughput recomputed" json_true \
        "(.comparisons[0].ratio - ($(jq '[group_by(.iteration)[] | map({(.cell): .metrics.throughput_rps}) | add | (.half / .one | log)] | add / length | exp' <<<"$SXRUNS"))) | fabs < 1e-9" "$SEQ"
# Each host's loads of those runs ended there (GET /v1/loads/{id} on the host), and no injector is left.
loads_ended() {
        local i id state
        for i in 1 2; do
                for id in $(jq -r ".[].metrics.load.hosts[$((i - 1))].load_id" <<<"$SXRUNS"); do
                        state=$(curl -s --max-time 10 -H "Authorization: Bearer $TOKEN" "http://$(netns_addr "$i"):7878/v1/loads/$id" | jq -r .state)
                        [ "$state" = succeeded ] || { echo "# host $i's load $id: $state"; return 1; }
                done
        done
}
check "every load the hosts ran for it ended succeeded" loads_ended
check "the hosts have no injector left" not running_cmd "[s]licelab-inject .*$TEST_TMP/peer[12]/"

# ---- a peer unreachable at preflight ------------------------------------------------------------
ip -n "$(netns_name 2)" link set eth0 down
post_experiment "$(experiment unreachable 2)"
RUN=$(first_run "$EXP_ID")
wait_for 240 run_finished "$RUN" || not_finished "$EXP_ID"
check_eq "a peer unreachable: failed/preflight" "failed preflight" "$(run_field "$RUN" '"\(.state) \(.reason)"')"
check_match "the message names the host" "load host $H2 " "$(run_field "$RUN" .message)"
check_eq "the SUT never started: the run failed in preflight" "queued preparing failed" \
        "$(run_field "$RUN" '[.states[].state] | join(" ")')"
echo "# preflight: $(run_field "$RUN" .message)"
ip -n "$(netns_name 2)" link set eth0 up

# ---- a peer killed mid-run ----------------------------------------------------------------------
post_experiment "$(experiment killed 30)"
RUN=$(first_run "$EXP_ID")
wait_for 240 run_state_is "$RUN" measuring
peer_kill9 2
wait_for 120 run_finished "$RUN" || not_finished "$EXP_ID"
check_eq "a peer killed -9: failed/load_failed" "failed load_failed" "$(run_field "$RUN" '"\(.state) \(.reason)"')"
check_match "the message names the host" "load host $H2 " "$(run_field "$RUN" .message)"
echo "# load_failed: $(run_field "$RUN" .message)"
# The dead host no longer answers in GET /v1/peers once the list kept from before is older than
# its max_age_s (polled: the list is made again by the first GET after that).
host_answers() { curl -s --max-time 10 "$DAEMON_URL/v1/peers" | jq -e --arg h "$1" ".peers[] | select(.host == \$h) | .answers == $2" >/dev/null; }
check "GET /v1/peers: host 2 killed does not answer" wait_for 60 host_answers "$H2" false
check "and host 1 still answers" host_answers "$H1" true
check_match "its error names host 2" "peer $H2: GET /v1/health: " \
        "$(curl -s "$DAEMON_URL/v1/peers" | jq -r --arg h "$H2" '.peers[] | select(.host == $h) | .error')"
check "the other peer's load is stopped (no injector of host 1 left)" not running_cmd "[s]licelab-inject .*$TEST_TMP/peer1/"
# The killed daemon's restart ends what it left (its load interrupted, its slice removed).
peer_start 2 2000 --peer-allow "$ALLOW" || not_ok "peer 2 restarts"
wait_for 30 not running_cmd "[s]licelab-inject .*$TEST_TMP/peer2/"

# ---- the coordinator killed mid-run ------------------------------------------------------------
post_experiment "$(experiment coordinator-killed 30)"
RUN=$(first_run "$EXP_ID")
wait_for 240 run_state_is "$RUN" measuring
load1=$(pgrep -af "[s]licelab-inject .*$TEST_TMP/peer1/" | grep -o 'runs/load-[a-z0-9]*' | head -1)
load1=${load1#runs/load-}
check_match "host 1 runs the load" '^[a-z0-9]+$' "$load1"
kill -KILL "$DAEMON_PID"
wait "$NL_PID" 2>/dev/null
DAEMON_PID=
check "without the coordinator the peers stop their loads within the lease" \
        wait_for 60 not running_cmd "[s]licelab-inject .*$TEST_TMP/peer[12]/"
check_eq "host 1's load ended expired" expired "$(curl -s --max-time 10 -H "Authorization: Bearer $TOKEN" \
        "http://$H1:7878/v1/loads/$load1" | jq -r .state)"
daemon_start --peer-url-template 'http://{host}:7878' --peer-allow "$ALLOW" --peer-token-file "$TEST_TMP/peer.token" ||
        not_ok "the coordinator starts again"
check_eq "the coordinator's restart marks the run interrupted" interrupted "$(run_field "$RUN" .state)"

# ---- the token --------------------------------------------------------------------------------
check "the token is in no log" not grep -rqF "$TOKEN" "$TEST_TMP/daemon.log" "$TEST_TMP/peer1.log" "$TEST_TMP/peer2.log"

netns_teardown
finish
