#!/bin/bash
# bundles.sh: a finished experiment moves between daemons as a bundle. A short real experiment of
# slicelab-sut.jar on one daemon is exported (slicelab export) and imported into a second,
# --results-only daemon with its own state dir and port: every read endpoint answers the same
# bytes there; the bundle cut at every 10% of its length, with one byte flipped, or claiming a
# newer format version is refused naming what failed, with nothing stored (the list and the state
# dir's files unchanged); importing twice stores once (201, then 200 with the same Location); an
# unfinished experiment has no bundle (409); a results-only daemon runs nothing (403). Then the
# same export made hostile (hostile-bundles.py: the cases of issue 33 and 150 seeded mutations of
# its rows, files and entries, every hash recomputed) is refused with a 400 naming what broke, or
# stored and then read by every GET: never a 5xx, never a hang, the store unchanged by a refusal.
. "$SLICELAB_SRC/tests/lib.sh"

JAR="$BUILD/contrib/workloads/slicelab-sut.jar"
CLIENT="$BUILD/client/slicelab"
bash "$SRC/tests/openapi/install-deps.sh" >/dev/null

trap 'daemon_stop_all LAB RESULTS; rm -rf "$TEST_TMP"' INT TERM

daemon_start --cgroup-root "slicelab-b$$" || { not_ok "daemon starts"; finish; exit 1; }
daemon_save LAB
PORT=$(loopback_port)
post_experiment "$(definition --name bundled --jvm --ready "{\"http\":\"http://127.0.0.1:$PORT/health\",\"timeout_s\":120}" \
        --load "{\"target\":\"http://127.0.0.1:$PORT/work?cpu_us=200\",\"rate\":100,\"connections\":4,\"warmup_s\":1,\"measure_s\":2,\"cpus\":\"0\"}" \
        --cell A:1 --cell B:1:0.5 --merge '{"labels":{"app":"sut"}}' \
        -- java -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 '-Xlog:gc*:file=gc.log' -jar "$JAR" --port "$PORT")"
EXP=$EXP_ID
wait_for 250 experiment_finished "$EXP" || not_finished "$EXP"
check_eq "the experiment to export succeeded" succeeded "$(curl -s "$DAEMON_URL/v1/experiments/$EXP" | jq -r .status)"

# --- export ----------------------------------------------------------------------------------
post_experiment "$(definition --name unfinished -- /bin/sleep 600)"
api GET "/v1/experiments/$EXP_ID/bundle"
check_eq "an unfinished experiment has no bundle" "409 not_finished" "$HTTP_STATUS $(jq -r .error.code <<<"$BODY")"
api_auth DELETE "/v1/experiments/$EXP_ID"
wait_for 60 experiment_finished "$EXP_ID" || not_finished "$EXP_ID"

BUNDLE=$TEST_TMP/exp.slbundle
check "slicelab export writes the bundle" "$CLIENT" --url "$DAEMON_URL" export "$EXP" -o "$BUNDLE"
check_eq "it starts with the magic" SLBUNDLE "$(head -c 8 "$BUNDLE")"
SIZE=$(stat -c %s "$BUNDLE")
echo "# bundle of $SIZE bytes"
etag=$(curl -s -D - -o "$TEST_TMP/again.slbundle" "$DAEMON_URL/v1/experiments/$EXP/bundle" | tr -d '\r' | awk 'tolower($1) == "etag:" { print $2 }')
check "a second export is the same bytes" cmp -s "$BUNDLE" "$TEST_TMP/again.slbundle"
check_eq "If-None-Match with its ETag is 304" 304 \
        "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "$DAEMON_URL/v1/experiments/$EXP/bundle")"
RUNS=$(curl -s "$DAEMON_URL/v1/experiments/$EXP/runs" | jq -r '.runs[].id')
check "the bundle carries the runs' timelines and GC logs" \
        grep -qa "runs/$(head -1 <<<"$RUNS")/gc.log" "$BUNDLE"

# --- a results-only daemon -------------------------------------------------------------------
DAEMON_STATE=$TEST_TMP/results
daemon_start --results-only --import-max 20M --cgroup-root "slicelab-b$$-unused" ||
        { not_ok "a results-only daemon starts"; daemon_stop_all LAB RESULTS; finish; exit 1; }
daemon_save RESULTS
check_match "it says it runs nothing" 'results only' "$(grep 'listening on' "$TEST_TMP/daemon.log" | tail -1)"
post_experiment "$(definition --name x -- /bin/true)"
check_eq "a results-only daemon refuses experiments" "403 results_only" "$HTTP_STATUS $(jq -r .error.code <<<"$BODY")"
api_auth POST /v1/loads -H 'Content-Type: application/json' --data '{}'
check_eq "and peer loads" "403 results_only" "$HTTP_STATUS $(jq -r .error.code <<<"$BODY")"

import() { # import FILE [CONTENT_TYPE]: POST /v1/imports
        api_auth POST /v1/imports -H "Content-Type: ${2:-application/vnd.slicelab.bundle}" --data-binary "@$1"
}
state_files() { # every file of the state dir, with its size for those the store does not rewrite
        (cd "$DAEMON_STATE" && find . -printf '%P %y\n' && find . -type f ! -name 'slicelab.db*' -printf '%P %s\n') | sort
}
list_before=$(curl -s "$DAEMON_URL/v1/experiments")
files_before=$(state_files)

statuses=
for pct in 0 10 20 30 40 50 60 70 80 90; do
        head -c $((SIZE * pct / 100)) "$BUNDLE" >"$TEST_TMP/cut"
        import "$TEST_TMP/cut"
        statuses+="$pct%:$HTTP_STATUS "
        [ "$pct" = 50 ] && cut_message=$(jq -r .error.message <<<"$BODY")
done
check_eq "a bundle cut at every 10% is refused" \
        "0%:400 10%:400 20%:400 30%:400 40%:400 50%:400 60%:400 70%:400 80%:400 90%:400 " "$statuses"
check_match "the refusal says what is cut" 'truncated|cut' "$cut_message"

flip() { # flip FILE OFFSET: a copy of the bundle with the byte at OFFSET inverted, in $TEST_TMP/flipped
        local b
        cp "$1" "$TEST_TMP/flipped"
        b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
        printf "\\x$(printf %02x $((b ^ 255)))" | dd of="$TEST_TMP/flipped" bs=1 seek="$2" conv=notrunc status=none
}
flip "$BUNDLE" $((SIZE / 2))
import "$TEST_TMP/flipped"
check_eq "one byte flipped in the middle is refused" 400 "$HTTP_STATUS"
check_match "naming the entry whose sha256 failed" '^entry [^ ]+: sha256 mismatch$' "$(jq -r .error.message <<<"$BODY")"
flip "$BUNDLE" $((SIZE - 1))
import "$TEST_TMP/flipped"
check_match "the end marker's hash is checked" "400 the end marker's sha256" "$HTTP_STATUS $(jq -r .error.message <<<"$BODY")"
cp "$BUNDLE" "$TEST_TMP/newer"
printf '\x02' | dd of="$TEST_TMP/newer" bs=1 seek=8 conv=notrunc status=none
import "$TEST_TMP/newer"
check_eq "a newer format version is refused by name" "400 bundle.version" "$HTTP_STATUS $(jq -r .error.field <<<"$BODY")"
import "$BUNDLE" application/json
check_eq "a bundle must say it is one" 415 "$HTTP_STATUS"
api POST /v1/imports -H "Content-Type: application/vnd.slicelab.bundle" --data-binary "@$BUNDLE"
check_eq "imports need the token" 401 "$HTTP_STATUS"
head -c $((21 * 1024 * 1024)) /dev/zero >"$TEST_TMP/big"
import "$TEST_TMP/big"
check_eq "a bundle over --import-max is 413" "413 body_too_large" "$HTTP_STATUS $(jq -r .error.code <<<"$BODY")"
check_eq "after the refusals nothing is stored" "$list_before" "$(curl -s "$DAEMON_URL/v1/experiments")"
check_eq "and the state dir's files are as they were" "$files_before" "$(state_files)"

# --- the import --------------------------------------------------------------------------------
location() { curl -s -D - -o "$TEST_TMP/body" -H "Authorization: Bearer $DAEMON_TOKEN" -H "Content-Type: application/vnd.slicelab.bundle" \
        --data-binary "@$BUNDLE" "$DAEMON_URL/v1/imports" | tr -d '\r' | awk 'NR == 1 { s = $2 } tolower($1) == "location:" { print s, $2 }'; }
check_eq "the first import stores it (201)" "201 /v1/experiments/$EXP" "$(location)"
check_schema "the import's answer" importBundle 201
check_match "slicelab import of it again says it is stored" "^already stored $EXP " \
        "$(SLICELAB_TOKEN=$DAEMON_TOKEN "$CLIENT" --url "$DAEMON_URL" import "$BUNDLE")"
check_eq "a second import answers 200 with the same Location" "200 /v1/experiments/$EXP" "$(location)"
check_eq "it is stored once" "$EXP" "$(curl -s "$DAEMON_URL/v1/experiments" | jq -r '[.experiments[].id] | join(" ")')"
check_eq "GET answers its origin" "$(hostname) $EXP" \
        "$(curl -s "$DAEMON_URL/v1/experiments/$EXP" | jq -r '"\(.origin.host) \(.origin.id)"')"
api GET "/v1/experiments/$EXP"
check_schema "an imported experiment" getExperiment 200
check_eq "the label filter finds it" "$EXP" "$(curl -s "$DAEMON_URL/v1/experiments?label=app=sut" | jq -r '.experiments[0].id')"

# --- every read endpoint answers the same bytes ---------------------------------------------
same() { # same PATH [curl args]: status and body from both daemons, the import's origin aside
        local a b
        a=$(curl -s -w '\n%{http_code}' "${@:2}" "$LAB_DAEMON_URL$1")
        b=$(curl -s -w '\n%{http_code}' "${@:2}" "$RESULTS_DAEMON_URL$1" | sed '1s/,"origin":{[^}]*}//')
        if [ "$a" = "$b" ]; then
                ok "the same answer: GET $1 ${*:2}"
        else
                not_ok "the same answer: GET $1 ${*:2}" "lab:     ${a:0:300}" "results: ${b:0:300}"
        fi
}
same "/v1/experiments/$EXP"
same "/v1/experiments/$EXP/runs"
same "/v1/experiments/$EXP/report"
same "/v1/experiments/$EXP/report?baseline=B"
same "/v1/experiments/$EXP/findings"
same "/v1/compare?a=$EXP:A&b=$EXP:B"
same "/"
for run in $RUNS; do
        same "/v1/runs/$run"
        same "/v1/runs/$run/timeline?limit=100000&phase=all"
        same "/v1/runs/$run/timeline" -H 'Accept: text/csv'
        same "/v1/runs/$run/timeline/buckets?width_ms=100"
        same "/v1/runs/$run/histogram"
        same "/v1/runs/$run/gc"
        same "/v1/runs/$run/samples"
        same "/v1/runs/$run/steps"
        same "/v1/runs/$run/logs/sut"
        same "/v1/runs/$run/logs/load"
done

# --- every GET route of openapi.yaml, twice, on the results daemon ---------------------------------
# Sequential requests borrow the same pool connection, so this prepares every statement the reads
# use on one connection (a fixed statement cache once freed a statement a reader still held).
route_paths() { # route_paths TEMPLATE: the concrete paths that exercise one GET route
        local run=${RUNS%%$'\n'*}
        case $1 in
        /v1/health | /v1/host | /v1/clock | /metrics) echo "$1" ;;
        /v1/peers | /v1/bisections) printf '%s\n' "$1" "$1?limit=1" ;;
        /v1/bisections/{id}) echo "/v1/bisections/00000000000000000000000000" ;; # none here: a 404 answers
        /v1/experiments) printf '%s\n' "$1" "$1?status=succeeded&limit=1" "$1?label=app=sut" ;;
        /v1/experiments/{id}) echo "/v1/experiments/$EXP" ;;
        /v1/experiments/{id}/runs) printf '%s\n' "/v1/experiments/$EXP/runs" "/v1/experiments/$EXP/runs?limit=1" ;;
        /v1/experiments/{id}/report | /v1/experiments/{id}/findings)
                printf '%s\n' "${1/\{id\}/$EXP}" "${1/\{id\}/$EXP}?baseline=B" ;;
        /v1/experiments/{id}/bundle) echo "/v1/experiments/$EXP/bundle" ;;
        /v1/experiments/{id}/profile) echo "/v1/experiments/$EXP/profile?cell=B&baseline=A" ;;
        /v1/experiments/{id}/profile/tree) echo "/v1/experiments/$EXP/profile/tree?cell=A" ;;
        /v1/compare) echo "/v1/compare?a=$EXP:A&b=$EXP:B" ;;
        /v1/series) printf '%s\n' "/v1/series?label=app=sut" "/v1/series?label=app=sut&cell=B&metric=p99_ms" ;;
        /v1/runs/{id}/logs/{stream}) printf '%s\n' "/v1/runs/$run/logs/sut" "/v1/runs/$run/logs/load?tail=5" ;;
        /v1/runs/{id}/timeline)
                printf '%s\n' "/v1/runs/$run/timeline" "/v1/runs/$run/timeline?phase=all&limit=10" "/v1/runs/$run/timeline?from_ms=0&to_ms=500" ;;
        /v1/runs/{id}/timeline/buckets) echo "/v1/runs/$run/timeline/buckets?width_ms=100&phase=all" ;;
        /v1/runs/{id}*) echo "${1/\{id\}/$run}" ;;
        /v1/loads/{id}*) echo "${1/\{id\}/00000000000000000000000000}" ;; # none here: a 404 answers
        *) return 1 ;;
        esac
}
get_routes=$(awk '/^  \//{ p = $1 } /^    get:/{ sub(":$", "", p); print p }' "$SRC/openapi.yaml")
unknown=
answers=
for pass in 1 2; do
        for route in $get_routes; do
                paths=$(route_paths "$route") || { unknown+="$route "; continue; }
                for path in $paths; do
                        code=$(curl -s -o /dev/null --max-time 60 -w '%{http_code}' "$RESULTS_DAEMON_URL$path")
                        if [ "$code" -ge 500 ] || [ "$code" = 000 ]; then answers+="$pass $path: $code"$'\n'; fi
                done
        done
done
check_eq "the test knows a path for every GET route of openapi.yaml" "" "$unknown"
check_eq "every GET route answers, twice, without a 5xx" "" "$answers"
check "and the daemon still serves" curl -sf -o /dev/null --max-time 10 "$RESULTS_DAEMON_URL/v1/health"

# --- hostile bundles ---------------------------------------------------------------------------
# The lab's export, made hostile, into the results daemon (each with fresh ids: a new experiment).
python3 "$SRC/tests/history/hostile-bundles.py" "$BUNDLE" --url "$RESULTS_DAEMON_URL" --token "$RESULTS_DAEMON_TOKEN" \
        --state-dir "$RESULTS_DAEMON_STATE" --seed 33 --count 150 --max-time 60 >"$TEST_TMP/hostile" 2>&1
status=$?
check_eq "the hostile bundles ran to their end" "0 6" "$status $(grep -c '^\(not \)\?ok' "$TEST_TMP/hostile")"
while IFS=$'\t' read -r verdict name details; do
        case $verdict in
        ok) ok "hostile bundles: $name" ;;
        "not ok") IFS=$'\t' read -ra lines <<<"$details"; not_ok "hostile bundles: $name" "${lines[@]}" ;;
        *) echo "# ${verdict#\# }${name:+ $name}${details:+ $details}" ;;
        esac
done <"$TEST_TMP/hostile"

daemon_stop_all LAB RESULTS
finish
