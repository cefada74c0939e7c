#!/bin/bash
# ui.sh: the dashboard and the endpoints it polls, against one real daemon with real finished
# runs: real JVMs (slicelab-sut.jar, GC forced during the load so that the run has pauses) under
# an external load writing a synthetic timeline, and an experiment named like an HTML attack.
# - the embedded files: content types, strong ETags, Content-Security-Policy, 304s;
# - GET .../timeline/buckets: counts add up to the run's records, each bucket's p99 equals the
#   one recomputed from the CSV rows of that bucket, bad width_ms/from_ms/to_ms/phase are 400s;
# - every GET of a finished run's timeline page, GC events, samples, logs and buckets answers
#   304 to its ETag;
# - in Debian's chromium (tests/ui/views.js): each view loads with no console error and no failed
#   request, the run chart drew as many buckets as the endpoint returned, GC bands where the run
#   has GC events, the name shows as text and no dialog opens, a queued experiment turns running
#   in the list without a reload; the series view draws a series with its change point, whose
#   link opens the two experiments' comparison; a real bisection (3 spin versions) is listed
#   with its outcome and versions, and its view draws a bar per step linking its experiment,
#   the found version and the last unchanged marked, the daemon's result sentence; the flame graphs (tests/ui/profile-data.sh's
#   profiles): a run's, a cell's and a cell's against its baseline draw the frames of the folded
#   text as wide as their samples, red and blue by the sign of the API's differences, the
#   intervals on hover, a large profile's narrow frames as one block, and a run without a
#   profile says so; the load hosts' view, without any, says so (with two: tests/peers/multi-host.sh).
. "$SLICELAB_SRC/tests/lib.sh"
. "$SLICELAB_SRC/tests/ui/profile-data.sh"
. "$SLICELAB_SRC/tests/ui/views-lib.sh"

JAR="$BUILD/contrib/workloads/slicelab-sut.jar"
SYNTH="$BUILD/tests/synth-timeline"
XSS='<img src=x onerror=alert(1)>'
daemon_start --cgroup-root "slicelab-u$$" || { not_ok "daemon starts"; finish; exit 1; }
PORT=$(loopback_port)

# --- the embedded dashboard --------------------------------------------------------------
headers() { curl -s -D - -o /dev/null "$@" | tr -d '\r'; }
header() { awk -F': ' -v h="$1" 'tolower($1) == tolower(h) { print $2 }'; }
h=$(headers "$DAEMON_URL/")
check_eq "/ serves the dashboard's page" "text/html; charset=utf-8" "$(header Content-Type <<<"$h")"
check_eq "with a Content-Security-Policy of the daemon's own files only" "default-src 'self'" "$(header Content-Security-Policy <<<"$h" | cut -d';' -f1)"
tag=$(header ETag <<<"$h")
check_match "and a strong ETag" '^"[0-9a-f]{16}"$' "$tag"
check_eq "which answers 304" 304 "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $tag" "$DAEMON_URL/")"
for f in app.js:text/javascript app.css:text/css chart.min.js:text/javascript favicon.svg:image/svg.xml; do
        check_match "/ui/${f%%:*} is served as ${f#*:}" "^${f#*:}" "$(headers "$DAEMON_URL/ui/${f%%:*}" | header Content-Type)"
done
check_match "Chart.js is Debian's, embedded" 'Chart.js v3' "$(curl -s "$DAEMON_URL/ui/chart.min.js" | head -c 300)"
api GET /ui/nothing.js
check_eq "an unknown file is 404" 404 "$HTTP_STATUS"
check "the page has no inline script or style" test -z "$(curl -s "$DAEMON_URL/" | grep -Ei '<script>|<script [^>]*>[^<]|<style|style=| on[a-z]+=')"

# --- real runs: JVMs with a GC pause during the load ---------------------------------------
load="$SYNTH t.bin 6000 1000 2000 && curl -sf -X POST http://127.0.0.1:$PORT/gc"
post_experiment "$(definition --name "$XSS" --iterations 2 --merge '{"order":"sequential"}' \
        --jvm --ready "{\"http\":\"http://127.0.0.1:$PORT/health\",\"timeout_s\":120}" \
        --load "$(jq -cn --arg load "$load" '{command: ["/bin/sh", "-c", $load], timeline: "t.bin"}')" \
        --cell 1cpu:0 --cell 2cpu:0-1 -- java -Xmx128m -XX:+UseParallelGC -jar "$JAR" --port "$PORT")"
check_eq "an experiment named $XSS is accepted" 201 "$HTTP_STATUS"
XSS_EXP=$EXP_ID
last=$(curl -s "$DAEMON_URL/v1/experiments/$XSS_EXP/runs" | jq -r '.runs[-1].id')
wait_for 600 run_finished "$last"
RUN=$(first_run "$XSS_EXP")
check_eq "its runs succeed" "succeeded succeeded succeeded succeeded" \
        "$(curl -s "$DAEMON_URL/v1/experiments/$XSS_EXP/runs" | jq -r '[.runs[].state] | join(" ")')"
api GET "/v1/runs/$RUN/gc"
check_match "the run has GC pauses during its load" '^[1-9]' "$(jq '[.events[] | select(.kind == "pause")] | length' <<<"$BODY")"

# A benchmark held to a hundredth of a CPU (1 ms per 100 ms period): throttled whenever it runs
# more than that in a period, even on a busy host; for the dashboard's % chart. Against the same
# CPU without a quota under a stop rule: the experiment view's stop rule section (it decides
# "different" from round 3, the least its 95% sequence needs, and stops before max).
post_experiment "$(definition --name "spin at 1% of a CPU" \
        --merge '{"iterations":{"min":3,"max":6},"stop":{"baseline":"whole","metrics":["ops_per_s"]}}' \
        --cell hundredth:0:0.01 --cell whole:0 -- "$BUILD/contrib/workloads/slicelab-spin" --threads 1 --seconds 2)"
SPIN_EXP=$EXP_ID
wait_for 120 experiment_finished "$SPIN_EXP" || not_finished "$SPIN_EXP"
check_match "the benchmark at a hundredth of a CPU was throttled" '^[1-9]' \
        "$(curl -s "$DAEMON_URL/v1/runs/$(first_run "$SPIN_EXP")" | jq .metrics.cgroup.nr_throttled)"

# --- buckets ------------------------------------------------------------------------------
curl -s "$DAEMON_URL/v1/runs/$RUN" >"$TEST_TMP/run.json"
START=$(jq -r .metrics.measure_start_ns "$TEST_TMP/run.json")
curl -s -H 'Accept: text/csv' "$DAEMON_URL/v1/runs/$RUN/timeline?phase=all" >"$TEST_TMP/all.csv"
api GET "/v1/runs/$RUN/timeline/buckets?width_ms=250"
check_eq "buckets answer 200" 200 "$HTTP_STATUS"
check_schema "buckets" getRunTimelineBuckets 200
cp "$TEST_TMP/body" "$TEST_TMP/b.json"
check_eq "bucket counts add up to the run's measured records" "$(jq .metrics.requests "$TEST_TMP/run.json")" "$(jq '.count | add' "$TEST_TMP/b.json")"
check_eq "columns have one entry per bucket" 1 "$(jq '[.t_ms, .count, .errors, .p50_us, .p99_us, .max_us, .lag_p99_us] | map(length) | unique | length' "$TEST_TMP/b.json")"
# Each bucket's p99 (nearest rank over answered requests) and max, recomputed from the CSV rows.
recompute() { # recompute WIDTH_MS FROM_MS TO_MS FLAGS: "t p99 max count" per bucket with records
        tail -n +2 "$TEST_TMP/all.csv" | awk -F, -v s="$START" -v w="$1" -v from="$2" -v to="$3" -v flags="$4" '
                flags != "" && ($8 % 2) != flags { next }
                $1 - s >= to * 1000000 { next }
                { rel = $1 - s - from * 1000000; b = int(rel / (w * 1000000)); if (rel < 0) next
                  n[b]++; if ($4 != 0) print b, $3 - $1 }
                END { for (b in n) print b, "n", n[b] }' | sort -k1,1n -k2,2n >"$TEST_TMP/vals"
        awk -v w="$1" -v from="$2" '
                $2 == "n" { cnt[$1] = $3; next }
                { v[$1, ++k[$1]] = $2 }
                END { for (b in cnt) { m = k[b]; r = m * 0.99; i = int(r); if (i < r) i++; if (i < 1) i = 1
                        printf "%d %.3f %.3f %d\n", from + b * w, v[b, i] / 1000, v[b, m] / 1000, cnt[b] } }' "$TEST_TMP/vals" | sort -n
}
jq -r '[.t_ms, .p99_us, .max_us, .count] | transpose[] | select(.[3] > 0) | "\(.[0]) \(.[1]) \(.[2]) \(.[3])"' "$TEST_TMP/b.json" |
        awk '{ printf "%d %.3f %.3f %d\n", $1, $2, $3, $4 }' >"$TEST_TMP/got"
recompute 250 0 999999 0 >"$TEST_TMP/want"
check "every bucket's p99 and max equal the ones recomputed from its CSV rows" diff "$TEST_TMP/want" "$TEST_TMP/got"
check_match "(and there are buckets to compare)" '^[1-9][0-9]' "$(wc -l <"$TEST_TMP/want")"
api GET "/v1/runs/$RUN/timeline/buckets?width_ms=7&from_ms=-1500&to_ms=333&phase=all"
jq -r '[.t_ms, .p99_us, .max_us, .count] | transpose[] | select(.[3] > 0) | "\(.[0]) \(.[1]) \(.[2]) \(.[3])"' <<<"$BODY" |
        awk '{ printf "%d %.3f %.3f %d\n", $1, $2, $3, $4 }' >"$TEST_TMP/got"
recompute 7 -1500 333 "" >"$TEST_TMP/want"
check "a window across warmup and measure in 7 ms buckets: the same" diff "$TEST_TMP/want" "$TEST_TMP/got"
check_eq "and it has ceil(1833 / 7) buckets, empty ones included" 262 "$(jq '.t_ms | length' <<<"$BODY")"
api GET "/v1/runs/$RUN/timeline/buckets?phase=all"
check_eq "without width_ms the daemon picks one: every record counted" "$(($(wc -l <"$TEST_TMP/all.csv") - 1))" "$(jq '.count | add' <<<"$BODY")"
check_eq "... in at most 600 buckets, with the finest whole width that allows" true \
        "$(jq '(.t_ms | length) <= 600 and (.width_ms == 1 or ((.to_ms - .from_ms) / (.width_ms - 1)) > 600)' <<<"$BODY")"
api GET "/v1/runs/$RUN/timeline/buckets?width_ms=1000&phase=warmup"
check_eq "phase=warmup counts the warmup records" 2000 "$(jq '.count | add' <<<"$BODY")"
for bad in "width_ms=0:width_ms" "width_ms=abc:width_ms" "width_ms=1&from_ms=0&to_ms=5001:width_ms" \
           "from_ms=x:from_ms" "to_ms=1e3:to_ms" "from_ms=10&to_ms=10:from_ms" "from_ms=-90000000:from_ms" \
           "to_ms=99999999999:to_ms" "phase=later:phase" "limit=5:limit"; do
        api GET "/v1/runs/$RUN/timeline/buckets?${bad%:*}"
        check_eq "buckets?${bad%:*} is 400 naming ${bad##*:}" "400 ${bad##*:}" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
done
api GET "/v1/runs/$RUN/timeline/buckets?width_ms=1&from_ms=0&to_ms=5000"
check_eq "5000 buckets are allowed" "200 5000" "$HTTP_STATUS $(jq '.t_ms | length' <<<"$BODY")"
api GET "/v1/runs/zzzzzzzzzzzz/timeline/buckets"
check_eq "buckets of no run: 404" 404 "$HTTP_STATUS"

# --- ETags and 304 on everything of a finished run -----------------------------------------
for path in "timeline?limit=100" "timeline?limit=5&from_ms=100&to_ms=900" gc samples logs/sut logs/load "logs/sut?tail=3" \
            "timeline/buckets?width_ms=250" "timeline/buckets?width_ms=3&phase=all"; do
        h=$(headers "$DAEMON_URL/v1/runs/$RUN/$path")
        tag=$(header ETag <<<"$h")
        check_eq "GET runs/{id}/$path answers 304 to its ETag ($tag), with no body" "304 0" \
                "$(curl -s -o /dev/null -w '%{http_code} %{size_download}' -H "If-None-Match: $tag" "$DAEMON_URL/v1/runs/$RUN/$path")"
done
tag=$(headers "$DAEMON_URL/v1/runs/$RUN/timeline?limit=100" | header ETag)
check_eq "another page has another tag" 200 "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $tag" "$DAEMON_URL/v1/runs/$RUN/timeline?limit=101")"
tag=$(headers "$DAEMON_URL/v1/experiments" | header ETag)
check_eq "the experiments list polled with If-None-Match answers 304 while nothing changes" 304 \
        "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $tag" "$DAEMON_URL/v1/experiments")"

# --- the browser ---------------------------------------------------------------------------
# An experiment that waits behind another (one run at a time): the list must turn it running.
# Each holds the machine until it is cancelled: the blocker by views.js once the page has shown
# the wait, the other here once the page has seen it run. No clock decides what the page sees.
# --- a series for the series view: a control workload's figure steps from 100 to 150 ---------
SERIES_LABEL="app=ui-series-$$"
for ops in 100 101 99 100 150 151 149 150; do
        post_experiment "$(definition --name "series-$ops" --iterations 2 --cell B --merge "{\"labels\":{\"app\":\"ui-series-$$\"}}" \
                -- /bin/echo "{\"ops_per_s\": $ops}")"
        SERIES_LAST=$EXP_ID
done
wait_for 120 experiment_finished "$SERIES_LAST" || not_finished "$SERIES_LAST"
# --- profiles for the flame graphs ------------------------------------------------------------
profile_data_setup
api GET "/v1/experiments/$PROFILE_EXP/profile/tree?cell=alloc"
check_schema "a cell's profile, its runs merged" getExperimentProfileTree 200
check_eq "its samples are its 3 runs' folded counts added up, and it names the 3 runs" \
        "$(awk '{ s += $NF } END { print s }' "$PROFILE_FOLDED_DIR/alloc.folded") 3" "$(jq -r '"\(.samples) \(.runs | length)"' <<<"$BODY")"
check_eq "so is Work.alloc's total (awk over the folded text)" \
        "$(awk '/Work\.alloc / { s += $NF } END { print s }' "$PROFILE_FOLDED_DIR/alloc.folded")" \
        "$(jq '[.root | recurse(.children[]) | select(.name == "slicelab.sut.Work.alloc") | .total] | add' <<<"$BODY")"
check "every node's total is its self plus its children's totals" json_true \
        '[.root | recurse(.children[]) | .total == .self + ([.children[].total] | add // 0)] | all' "$BODY"
tag=$(headers "$DAEMON_URL/v1/experiments/$PROFILE_EXP/profile/tree?cell=alloc" | header ETag)
check_eq "a finished experiment's cell tree answers 304 to its ETag" 304 \
        "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $tag" "$DAEMON_URL/v1/experiments/$PROFILE_EXP/profile/tree?cell=alloc")"
for bad in ":cell" "cell=nope:cell" "cell=alloc&max_depth=0:max_depth" "cell=alloc&max_nodes=200001:max_nodes" "cell=alloc&limit=3:limit"; do
        api GET "/v1/experiments/$PROFILE_EXP/profile/tree?${bad%:*}"
        check_eq "profile/tree?${bad%:*} is 400 naming ${bad##*:}" "400 ${bad##*:}" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
done
api GET "/v1/experiments/$XSS_EXP/profile/tree?cell=1cpu"
check_eq "a cell without a profiled run: 404" 404 "$HTTP_STATUS"

# --- a bisection for the bisections' views: three spin versions, the work per unit three times
# from v2 on; the ends differ, then v2 against v1: v2 found in 2 steps (about 4 s here) ----------
SPIN="$BUILD/contrib/workloads/slicelab-spin"
bis_started=$SECONDS
api_auth POST /v1/bisections -H 'Content-Type: application/json' --data "{\"name\":\"which spin slowed\",
  \"definition\":{\"sut\":{\"command\":[\"$SPIN\",\"--threads\",\"1\",\"--seconds\",\"0.2\",\"--change-at\",\"0.001\",\"--change-factor\",\"{factor}\"]}},
  \"cell\":{\"cpus\":\"0\"},\"versions\":[{\"name\":\"v1\",\"vars\":{\"factor\":\"1\"}},{\"name\":\"v2\",\"vars\":{\"factor\":\"3\"}},
  {\"name\":\"v3\",\"vars\":{\"factor\":\"3\"}}],\"metric\":\"ops_per_s\",\"difference_pct\":40,\"iterations\":{\"min\":3,\"max\":8}}"
check_eq "a bisection of three versions is accepted" 201 "$HTTP_STATUS"
BISECTION=$(jq -r '.id // empty' <<<"$BODY")
bisection_ended() {
        local status
        status=$(curl -s "$DAEMON_URL/v1/bisections/$1" | jq -r .status)
        [ "$status" != queued ] && [ "$status" != running ]
}
wait_for 120 bisection_ended "$BISECTION" || not_ok "the bisection ended in time" "$(curl -s "$DAEMON_URL/v1/bisections/$BISECTION")"
echo "# the bisection took $((SECONDS - bis_started)) s"
check_eq "it found v2, v1 the last unchanged" "succeeded found v2 v1" \
        "$(curl -s "$DAEMON_URL/v1/bisections/$BISECTION" | jq -r '"\(.status) \(.result.outcome) \(.result.first_changed) \(.result.last_unchanged)"')"

# An external load that writes a short timeline and then holds the run in measuring.
BLOCKING_LOAD="{\"command\":[\"/bin/sh\",\"-c\",\"$SYNTH t.bin 100 100 0 && sleep 600\"],\"timeline\":\"t.bin\"}"
post_experiment "$(definition --name blocker --load "$BLOCKING_LOAD" -- /bin/sleep 600)"
BLOCKER=$EXP_ID
post_experiment "$(definition --name waits --load "$BLOCKING_LOAD" -- /bin/sleep 600)"
QUEUED_EXP=$EXP_ID
wait_for 30 run_state_is "$(first_run "$BLOCKER")" measuring
check_eq "the second experiment waits, queued" queued "$(curl -s "$DAEMON_URL/v1/experiments/$QUEUED_EXP" | jq -r .status)"
if bash "$SRC/tests/openapi/install-deps.sh" "$SRC/tests/ui" >"$TEST_TMP/npm.log" 2>&1; then
        URL=$DAEMON_URL XSS_EXP=$XSS_EXP GC_RUN=$RUN QUEUED_EXP=$QUEUED_EXP BLOCKER_EXP=$BLOCKER SPIN_EXP=$SPIN_EXP \
                WRITE_TOKEN=$DAEMON_TOKEN SERIES_LABEL=$SERIES_LABEL SHOTS=${UI_SHOTS:-} BISECTION=$BISECTION \
                PROFILE_EXP=$PROFILE_EXP PROFILE_RUN=$PROFILE_RUN LARGE_RUN=$LARGE_RUN PROFILE_FOLDED_DIR=$PROFILE_FOLDED_DIR \
                node "$SRC/tests/ui/views.js" >"$TEST_TMP/views.out" 2>&1
        count_views_output
else
        not_ok "playwright-core installs" "$(cat "$TEST_TMP/npm.log")"
fi
api_auth DELETE "/v1/experiments/$BLOCKER" # should views.js have stopped before it did
api_auth DELETE "/v1/experiments/$QUEUED_EXP"
wait_for 60 run_finished "$(first_run "$QUEUED_EXP")"

# --- reads that need the token ---------------------------------------------------------------
# Listening on every address (not loopback) makes reads need the token; the test still talks to
# 127.0.0.1 only. A second daemon, after the first has stopped.
daemon_stop
DAEMON_STATE=$TEST_TMP/state-auth DAEMON_LISTEN=0.0.0.0:0 daemon_start --cgroup-root "slicelab-ua$$" ||
        { not_ok "a daemon listening beyond loopback starts"; finish; exit 1; }
api GET /v1/experiments
check_eq "there, reads need the token" 401 "$HTTP_STATUS"
check_eq "but the dashboard's page loads without it" 200 "$(curl -s -o /dev/null -w '%{http_code}' "$DAEMON_URL/")"
URL=$DAEMON_URL TOKEN=$DAEMON_TOKEN node "$SRC/tests/ui/views.js" >"$TEST_TMP/views.out" 2>&1
count_views_output
finish
