#!/bin/bash
# http-limits.sh: HTTP basics a shared host needs. HEAD is answered wherever GET is, with the
# GET's headers and no body; a GET or HEAD with a body is 400; one client's 2000 idle
# connections and a client that sends its headers one byte a second do not stop a normal client,
# and both are closed by the server (the per-client connection limit, the header deadline); the
# queue is bounded (429 naming the limit, the default's and --queue-max's) and rate x duration is
# bounded at validation.
. "$SLICELAB_SRC/tests/lib.sh"

HOLD="$BUILD/tests/conn-hold"
SPIN="$BUILD/contrib/workloads/slicelab-spin"
bash "$SRC/tests/openapi/install-deps.sh" >/dev/null
daemon_start --cgroup-root "slicelab-h$$" || { not_ok "daemon starts"; finish; exit 1; }

# A finished run: its GETs are stable (ETag), so HEAD and GET can be compared byte for byte.
post_experiment "$(definition --name h --cell a:1 -- "$SPIN" --threads 1 --seconds 1)"
RUN=$(first_run "$EXP_ID")
wait_for 60 run_finished "$RUN"

# headers_of METHOD PATH: the response's status line and headers, without Date, sorted.
headers_of() {
        curl -s -X "$1" ${1/GET/} -D - -o "$TEST_TMP/hbody" "$DAEMON_URL$2" ${3:+"$3"} | tr -d '\r' | grep -v '^Date:' | grep -v '^$' | sort
}
for path in "/v1/runs/$RUN" "/v1/experiments/$EXP_ID" "/v1/experiments/$EXP_ID/report" /v1/health "/v1/runs/$RUN/timeline"; do
        get=$(curl -s -D - -o /dev/null "$DAEMON_URL$path" | tr -d '\r' | grep -v '^Date:' | grep -v '^$' | sort)
        head=$(curl -s -I "$DAEMON_URL$path" | tr -d '\r' | grep -v '^Date:' | grep -v '^$' | sort)
        # /v1/health carries the uptime, so its length may differ by a digit between two calls.
        [ "$path" = /v1/health ] && { get=$(grep -v '^Content-Length' <<<"$get"); head=$(grep -v '^Content-Length' <<<"$head"); }
        check_eq "HEAD $path has the GET's status and headers" "$get" "$head"
done
check_match "HEAD carries the GET's Content-Length" '^Content-Length: [1-9]' "$(curl -s -I "$DAEMON_URL/v1/runs/$RUN" | tr -d '\r' | grep '^Content-Length')"
check_eq "HEAD sends no body" 0 "$(curl -s -I "$DAEMON_URL/v1/runs/$RUN" -o /dev/null -w '%{size_download}')"
# A raw HEAD, read to the end of the stream: nothing follows the headers.
raw=$(exec 3<>"/dev/tcp/127.0.0.1/$DAEMON_PORT"; printf 'HEAD /v1/runs/%s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' "$RUN" >&3; timeout 10 cat <&3)
check_match "a raw HEAD is answered 200" '^HTTP/1.1 200' "$(head -1 <<<"$raw")"
check_eq "nothing after the headers of a raw HEAD" "" "$(printf '%s' "$raw" | sed '1,/^\r$/d')"
api HEAD "/v1/experiments/$EXP_ID/runs" -I
check_eq "HEAD of a list is 200" 200 "$HTTP_STATUS"
api DELETE /v1/health
check_match "a 405 lists HEAD beside GET in Allow" '^Allow: GET, HEAD' "$(curl -s -D - -o /dev/null -X DELETE "$DAEMON_URL/v1/health" | tr -d '\r' | grep '^Allow')"

# --- bodies on reads -----------------------------------------------------------------------
api GET /v1/health --data-binary '{"a":1}' -H 'Content-Type: application/json'
check_eq "GET with a body is 400" "400 body_not_allowed" "$HTTP_STATUS $(jq -r .error.code <<<"$BODY")"
check_schema "the GET-with-body error" getHealth 400
api GET "/v1/runs/$RUN" -H 'Transfer-Encoding: chunked' --data-binary @/dev/null
check_eq "GET with a chunked body is 400" 400 "$HTTP_STATUS"
check_eq "HEAD with a body is 400" 400 "$(curl -s -o /dev/null -w '%{http_code}' -I -H 'Content-Length: 5' "$DAEMON_URL/v1/health")"
api GET /v1/health -H 'Content-Length: 0'
check_eq "GET with Content-Length 0 is fine" 200 "$HTTP_STATUS"

# --- idle connections and slow headers -----------------------------------------------------
"$HOLD" "$DAEMON_PORT" 127.0.0.2 2000 idle >"$TEST_TMP/idle.out" 2>&1 &
IDLE_PID=$!
"$HOLD" "$DAEMON_PORT" 127.0.0.3 1 trickle >"$TEST_TMP/slow.out" 2>&1 &
SLOW_PID=$!
# line FILE N: the Nth line the tool printed, once it has (the tool's own events).
has_lines() { [ "$(wc -l <"$1")" -ge "$2" ]; }
line() { wait_for 70 has_lines "$1" "$2"; sed -n "${2}p" "$1"; }
check_match "2000 idle connections were opened" '^opened [0-9]+' "$(line "$TEST_TMP/idle.out" 1)"
check_eq "the server keeps 64 of one client's connections" "kept 64" "$(line "$TEST_TMP/idle.out" 2)"
check_eq "the slow-headers client is connected" "opened 1" "$(line "$TEST_TMP/slow.out" 1)"
check_eq "a normal client is answered meanwhile" 200 "$(curl -s -m 10 -o /dev/null -w '%{http_code}' "$DAEMON_URL/v1/health")"
check_eq "and its POST too" 201 "$(curl -s -m 10 -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $DAEMON_TOKEN" \
        -H 'Content-Type: application/json' --data "$(definition --name during -- /bin/true)" \
        "$DAEMON_URL/v1/experiments")"
# 10 s and a sweep each second; under 30 s tells it from the idle timeout on a busy host.
check_match "the slow-headers client is closed by the header deadline" '^closed after (9|1[0-9]|2[0-9]) s' "$(line "$TEST_TMP/slow.out" 3)"
check_match "the idle connections are closed by the header deadline too" '^closed after (9|1[0-9]|2[0-9]) s' "$(line "$TEST_TMP/idle.out" 3)"
wait "$IDLE_PID" "$SLOW_PID" 2>/dev/null
check_eq "the server still answers afterwards" 200 "$(curl -s -m 10 -o /dev/null -w '%{http_code}' "$DAEMON_URL/v1/health")"
# --- a bounded queue ------------------------------------------------------------------------
# many CELLS ITERATIONS [SUT]: a definition of CELLS x ITERATIONS runs whose SUT never gets ready.
many() {
        definition --name many --iterations "$2" --ready '{"log":"never","timeout_s":600}' \
                --cells "$(jq -cn --argjson c "$1" '[range($c) | {name: "c\(.)"}]')" -- /bin/sleep "$((5000 + $$ % 1000))"
}
exps_before=$(curl -s "$DAEMON_URL/v1/experiments?limit=500" | jq '.experiments | length')
post_experiment "$(many 11 1000)"
check_eq "11000 runs in one POST: 429" "429 queue_full" "$HTTP_STATUS $(jq -r .error.code <<<"$BODY")"
check_match "the error names the limit" "limit of 10000 queued runs" "$(jq -r .error.message <<<"$BODY")"
check_schema "the queue_full error" createExperiment 429
check_eq "nothing was stored" "$exps_before" "$(curl -s "$DAEMON_URL/v1/experiments?limit=500" | jq '.experiments | length')"
post_experiment "$(many 5 1000)"
check_eq "5000 runs fit" 201 "$HTTP_STATUS"
FIRST=$EXP_ID
post_experiment "$(many 5 999)"
check_eq "4995 more fit too (the queue is then near 10000)" 201 "$HTTP_STATUS"
SECOND=$EXP_ID
post_experiment "$(many 1 10)"
check_eq "10 more do not: 429" "429 queue_full" "$HTTP_STATUS $(jq -r .error.code <<<"$BODY")"
check_match "the error says how many are queued" "the queue holds [0-9]+ runs; this experiment's 10 would pass the limit of 10000" \
        "$(jq -r .error.message <<<"$BODY")"
api_auth DELETE "/v1/experiments/$FIRST"
api_auth DELETE "/v1/experiments/$SECOND"
post_experiment "$(many 1 10)"
check_eq "once the queue is emptied a POST fits again" 201 "$HTTP_STATUS"
api_auth DELETE "/v1/experiments/$EXP_ID"

# --- rate x duration bounded at validation --------------------------------------------------
api_auth POST /v1/experiments -H 'Content-Type: application/json' \
        --data "$(definition --name big --load '{"target":"http://127.0.0.1:9/","rate":100000,"warmup_s":0,"measure_s":300}' -- /bin/true)"
check_eq "rate x duration over 20 M requests is 400 naming load.rate" "400 load.rate" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
check_match "and the limit" "is 30000000 requests, over the limit of 20000000 per run" "$(jq -r .error.message <<<"$BODY")"

daemon_stop
check_eq "and stops cleanly" "EXIT 0" "$DAEMON_EXIT"

# --- the queue's bound set by --queue-max -----------------------------------------------------
daemon_start --cgroup-root "slicelab-h$$" --queue-max 20 || { not_ok "a daemon with --queue-max 20 starts"; finish; exit 1; }
post_experiment "$(many 1 21)"
check_eq "with --queue-max 20, 21 runs in one POST: 429" "429 queue_full" "$HTTP_STATUS $(jq -r .error.code <<<"$BODY")"
check_match "the error names that limit" "this experiment's 21 would pass the limit of 20 queued runs" "$(jq -r .error.message <<<"$BODY")"
post_experiment "$(many 1 20)"
check_eq "20 fit" 201 "$HTTP_STATUS"
api_auth DELETE "/v1/experiments/$EXP_ID"
daemon_stop
check_eq "and it stops cleanly" "EXIT 0" "$DAEMON_EXIT"
finish
