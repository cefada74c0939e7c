#!/bin/bash
# experiments-api.sh: POST/GET/DELETE /v1/experiments against a real daemon: strict validation
# (the shared table of bad definitions: status, field, and no row gained), auth, limits,
# idempotency, listing with cursors, cancel of queued runs, concurrent clients, restart.
. "$SLICELAB_SRC/tests/lib.sh"

bash "$SRC/tests/openapi/install-deps.sh" >/dev/null
daemon_start --cgroup-root "slicelab-api$$" || { not_ok "daemon starts"; finish; exit 1; }
DB=$DAEMON_STATE/slicelab.db
api GET /v1/health
check_schema "health" getHealth 200

# A run that holds the queue (one run at a time), so that the experiments below stay queued.
api_auth POST /v1/experiments -H 'Content-Type: application/json' \
        --data "$(definition --name blocker -- /bin/sleep 600)"
BLOCKER=$(jq -r .id <<<"$BODY")
wait_for 30 run_state_is "$(first_run "$BLOCKER")" measuring
# Rows of everything but the blocker: experiments, cells, runs, run events.
rows() {
        sqlite3 "$DB" "SELECT (SELECT count(*) FROM experiments WHERE id <> '$BLOCKER') || ' ' ||
                (SELECT count(*) FROM cells WHERE experiment_id <> '$BLOCKER') || ' ' ||
                (SELECT count(*) FROM runs WHERE experiment_id <> '$BLOCKER') || ' ' ||
                (SELECT count(*) FROM run_events e JOIN runs r ON r.id = e.run_id WHERE r.experiment_id <> '$BLOCKER')"
}

GOOD='{"name":"spin","iterations":2,"sut":{"command":["/bin/true"]},"cells":[{"name":"a","cpus":"0"},{"name":"b","cpus":"0-1","cpu_quota":1.0}]}'
post() { api POST /v1/experiments -H "Authorization: Bearer $DAEMON_TOKEN" -H 'Content-Type: application/json' "$@"; }

# --- auth and protocol -------------------------------------------------------------------
api POST /v1/experiments -H 'Content-Type: application/json' --data "$GOOD"
check_eq "POST without a token is 401" 401 "$HTTP_STATUS"
hdr=$(curl -s -D - -o /dev/null -X POST -H 'Content-Type: application/json' --data "$GOOD" "$DAEMON_URL/v1/experiments" | tr -d '\r')
check_match "401 carries WWW-Authenticate: Bearer" '^WWW-Authenticate: Bearer' "$(grep -i '^WWW-Authenticate' <<<"$hdr")"
wrong_token=$(tr '0-9a-f' '1-9a-f0' <<<"$DAEMON_TOKEN")
api POST /v1/experiments -H "Authorization: Bearer $wrong_token" -H 'Content-Type: application/json' --data "$GOOD"
check_eq "POST with a wrong token is 401" 401 "$HTTP_STATUS"
api DELETE /v1/experiments/aaaaaaaaaaaa
check_eq "DELETE without a token is 401" 401 "$HTTP_STATUS"
api_auth POST /v1/experiments -H 'Content-Type: text/plain' --data "$GOOD"
check_eq "Content-Type other than JSON is 415" 415 "$HTTP_STATUS"
check_schema "415 error body" createExperiment 415
head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' ' ' >"$TEST_TMP/big.json"
post --data-binary @"$TEST_TMP/big.json"
check_eq "body over 1 MiB is 413" 413 "$HTTP_STATUS"
check_eq "413 says why" body_too_large "$(jq -r .error.code <<<"$BODY")"
post -H 'Transfer-Encoding: chunked' --data-binary @"$TEST_TMP/big.json"
check_eq "chunked body over 1 MiB is 413" 413 "$HTTP_STATUS"
check_eq "refused requests left no row" "0 0 0 0" "$(rows)"

# --- the table of bad definitions --------------------------------------------------------
n=0
bad=0
while IFS=$'\t' read -r status field body; do
        case $status in '#'* | '') continue ;; esac
        n=$((n + 1))
        printf '%s' "$body" >"$TEST_TMP/def.json"
        post --data-binary @"$TEST_TMP/def.json"
        got_field=$(jq -r '.error.field // "-"' <<<"$BODY" 2>/dev/null)
        [ "$field" = "-" ] && [ "$got_field" = "null" ] && got_field=-
        if [ "$HTTP_STATUS" != "$status" ] || [ "$got_field" != "$field" ]; then
                bad=$((bad + 1))
                echo "# case $n: want $status $field, got $HTTP_STATUS $got_field: ${body:0:120}"
        fi
done <"$SRC/tests/definition/bad-definitions.tsv"
check "at least 40 bad definitions in the table ($n)" test "$n" -ge 40
check_eq "every bad definition gets its status and field" 0 "$bad"
check_eq "no bad definition left a row" "0 0 0 0" "$(rows)"
api GET /v1/health
check_eq "the daemon is still up after the table" 200 "$HTTP_STATUS"

# --- create, read, list ------------------------------------------------------------------
hdr=$(curl -s -D "$TEST_TMP/hdr" -o "$TEST_TMP/body" -w '%{http_code}' -X POST -H "Authorization: Bearer $DAEMON_TOKEN" \
        -H 'Content-Type: application/json' --data "$GOOD" "$DAEMON_URL/v1/experiments")
BODY=$(cat "$TEST_TMP/body")
check_eq "good definition is 201" 201 "$hdr"
ID=$(jq -r .id <<<"$BODY")
check_match "id is 12 base32 characters" '^[a-z2-7]{12}$' "$ID"
check_eq "Location names the experiment" "/v1/experiments/$ID" "$(sed -n 's/^Location: //Ip' "$TEST_TMP/hdr" | tr -d '\r')"
check_eq "answer counts cells x iterations runs" "queued 4" "$(jq -r '"\(.status) \(.runs)"' <<<"$BODY")"
check_schema "201 body" createExperiment 201
check_eq "one experiment, 2 cells, 4 runs, 4 events stored" "1 2 4 4" "$(rows)"
api GET "/v1/experiments/$ID"
check_eq "GET experiment is 200" 200 "$HTTP_STATUS"
check_schema "experiment" getExperiment 200
check_eq "definition is stored with defaults" "spin 2 interleaved" "$(jq -r '"\(.definition.name) \(.definition.iterations) \(.definition.order)"' <<<"$BODY")"
check_eq "progress counts runs by state" "4 4 0" "$(jq -r '"\(.progress.total) \(.progress.by_state.queued) \(.progress.done)"' <<<"$BODY")"
api GET "/v1/experiments/$ID/runs"
check_eq "runs are interleaved a1 b1 a2 b2" "a1 b1 a2 b2" "$(jq -r '[.runs[] | "\(.cell)\(.iteration)"] | join(" ")' <<<"$BODY")"
check_schema "runs list" listExperimentRuns 200
RUN=$(jq -r '.runs[0].id' <<<"$BODY")
all_runs=$(jq -r '[.runs[].id] | join(" ")' <<<"$BODY")
api GET "/v1/experiments/$ID/runs?limit=3"
page1=$(jq -r '[.runs[].id] | join(" ")' <<<"$BODY")
api GET "/v1/experiments/$ID/runs?limit=3&cursor=$(jq -r .next_cursor <<<"$BODY")"
check_eq "runs page by cursor: 3, then 1, then the end" "$all_runs null" "$page1 $(jq -r '"\(.runs[0].id) \(.next_cursor)"' <<<"$BODY")"
api GET "/v1/runs/$RUN"
check_eq "GET run has its history" "queued queued" "$(jq -r '"\(.state) \(.states[0].state)"' <<<"$BODY")"
check_schema "run" getRun 200
check_eq "GET run names its cell and parameters" "a 0" "$(jq -r '"\(.cell) \(.parameters.cpus)"' <<<"$BODY")"
api GET /v1/experiments/zzzzzzzzzzzz
check_eq "unknown experiment is 404" 404 "$HTTP_STATUS"
api GET /v1/runs/not-an-id
check_eq "malformed run id is 404" 404 "$HTTP_STATUS"

# --- idempotency -------------------------------------------------------------------------
post -H 'Idempotency-Key: retry-1' --data "$GOOD"
check_eq "first POST with a key is 201" 201 "$HTTP_STATUS"
KID=$(jq -r .id <<<"$BODY")
post -H 'Idempotency-Key: retry-1' --data "$(jq -c . <<<"$GOOD")"
check_eq "retry with the same key and body is 200" 200 "$HTTP_STATUS"
check_eq "retry answers the same experiment" "$KID" "$(jq -r .id <<<"$BODY")"
post -H 'Idempotency-Key: retry-1' --data "${GOOD/\"spin\"/\"other\"}"
check_eq "same key, different body is 409" 409 "$HTTP_STATUS"
check_eq "409 names the header" Idempotency-Key "$(jq -r .error.field <<<"$BODY")"
check_schema "409 error body" createExperiment 409
check_eq "retries made no new experiment" 2 "$(rows | cut -d' ' -f1)"
post -H 'Idempotency-Key: has space' --data "$GOOD"
check_eq "malformed Idempotency-Key is 400" 400 "$HTTP_STATUS"

# --- cancel ------------------------------------------------------------------------------
api_auth DELETE "/v1/experiments/$KID"
check_eq "cancel of a queued experiment is 200" 200 "$HTTP_STATUS"
check_eq "cancel reports the runs it cancelled" "cancelled 4" "$(jq -r '"\(.status) \(.runs_cancelled)"' <<<"$BODY")"
check_schema "cancel" cancelExperiment 200
api_auth DELETE "/v1/experiments/$KID"
check_eq "cancelling twice is 200 and cancels nothing more" "200 0" "$HTTP_STATUS $(jq -r .runs_cancelled <<<"$BODY")"
api GET "/v1/experiments/$KID/runs"
check_eq "every run is cancelled with a reason" "cancelled/cancelled" "$(jq -r '[.runs[] | "\(.state)/\(.reason)"] | unique | join(",")' <<<"$BODY")"
api_auth DELETE /v1/experiments/zzzzzzzzzzzz
check_eq "cancel of an unknown experiment is 404" 404 "$HTTP_STATUS"

# --- listing -----------------------------------------------------------------------------
for i in 1 2 3 4 5; do post --data "${GOOD/\"spin\"/\"list-$i\"}"; done
api GET '/v1/experiments?limit=500'
check_eq "list is newest first" "list-5 list-4" "$(jq -r '[.experiments[0:2][].name] | join(" ")' <<<"$BODY")"
check_schema "experiment list" listExperiments 200
check_eq "the list ends with the oldest" blocker "$(jq -r '.experiments[-1].name' <<<"$BODY")"
all=$(jq -r '[.experiments[].id] | join(" ")' <<<"$BODY")
seen=()
cursor=
for _ in $(seq 1 20); do
        api GET "/v1/experiments?limit=2${cursor:+&cursor=$cursor}"
        seen+=($(jq -r '.experiments[].id' <<<"$BODY"))
        cursor=$(jq -r '.next_cursor // empty' <<<"$BODY")
        [ -z "$cursor" ] && break
done
check_eq "paging with limit=2 returns every experiment once, in order" "$all" "${seen[*]}"
api GET '/v1/experiments?status=cancelled'
check_eq "status filter" "$KID" "$(jq -r '[.experiments[].id] | join(" ")' <<<"$BODY")"
api GET '/v1/experiments?status=bogus'
check_eq "bad status is 400 naming it" "400 status" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
api GET '/v1/experiments?limit=501'
check_eq "limit above 500 is 400" "400 limit" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
api GET '/v1/experiments?cursor=xyz'
check_eq "bad cursor is 400" "400 cursor" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"

# --- 8 concurrent clients x 100 POSTs, then a restart ------------------------------------
before=$(sqlite3 "$DB" 'SELECT count(*) FROM experiments')
runs_before=$(sqlite3 "$DB" 'SELECT count(*) FROM runs')
printf '%s' "$GOOD" >"$TEST_TMP/good.json"
seq 1 800 | xargs -P 8 -I{} curl -s -o /dev/null -w '%{http_code}\n' -X POST \
        -H "Authorization: Bearer $DAEMON_TOKEN" -H 'Content-Type: application/json' \
        --data-binary @"$TEST_TMP/good.json" "$DAEMON_URL/v1/experiments" >"$TEST_TMP/codes"
check_eq "800 concurrent POSTs all answer 201" "800 201" "$(sort "$TEST_TMP/codes" | uniq -c | awk '{print $1, $2}' | tr '\n' ' ' | sed 's/ $//')"
daemon_stop
check_eq "daemon stops cleanly after the load" "EXIT 0" "$DAEMON_EXIT"
daemon_start --cgroup-root "slicelab-api$$" || not_ok "daemon restarts"
api GET '/v1/experiments?limit=500'
p1=$(jq '.experiments | length' <<<"$BODY")
check_eq "after restart all experiments are there" $((before + 800)) "$(sqlite3 "$DB" 'SELECT count(*) FROM experiments')"
check_eq "and the API lists them" 500 "$p1"
check_eq "each with its 4 runs" $((runs_before + 800 * 4)) "$(sqlite3 "$DB" 'SELECT count(*) FROM runs')"
check_eq "the run the stop caught is interrupted" interrupted "$(run_field "$(first_run "$BLOCKER")" .state)"

# --- reads need the token when not on loopback -------------------------------------------
daemon_stop
DAEMON_STATE=$TEST_TMP/state-any DAEMON_LISTEN=0.0.0.0:0 daemon_start --cgroup-root "slicelab-api$$" || not_ok "daemon starts on 0.0.0.0"
api GET /v1/health
check_eq "off loopback, reads without a token are 401" 401 "$HTTP_STATUS"
api_auth GET /v1/health
check_eq "off loopback, reads with the token are 200" 200 "$HTTP_STATUS"
finish
