#!/bin/bash
# daemon-lifecycle.sh: the systemd protocol and the basic API of a real slicelabd: READY=1 only
# once /v1/health answers, WATCHDOG=1 at half of WATCHDOG_USEC, STOPPING=1 and exit 0 on SIGTERM;
# the state dir and token are made with safe modes; unknown paths and methods get JSON errors.
. "$SLICELAB_SRC/tests/lib.sh"

export WATCHDOG_USEC=2000000
daemon_start || { not_ok "daemon starts"; finish; exit 1; }
ok "daemon starts and sends READY=1"

# At the moment READY=1 arrived, the API must already answer: one try, no retry.
api GET /v1/health; body=$BODY
check_eq "health answers 200 as soon as READY=1 arrived" 200 "$HTTP_STATUS"
check_eq "health says ok" ok "$(jq -r .status <<<"$body")"
check_eq "health carries the version" "$("$SLICELABD" --version | cut -d' ' -f2)" "$(jq -r .version <<<"$body")"
check_eq "health reports an empty queue" "0 0" "$(jq -r '"\(.queue.depth) \(.queue.running)"' <<<"$body")"
check_match "health reports the cgroup mode" '^(v1|v2|hybrid|unknown)$' "$(jq -r .cgroup.mode <<<"$body")"

# Pings about 1 s apart (half of 2 s). What matters is that each comes before systemd's 2 s are
# up, on a busy machine too, and that the timer does not spin: a late ping shortens the next gap
# (each is due one interval after the last was due), so the lower bound has room as well.
stamps=()
for i in 1 2 3 4; do
        daemon_wait_event 'WATCHDOG=1' 5 || break
        stamps+=("${DAEMON_LAST_EVENT%% *}")
done
check_eq "four WATCHDOG=1 pings arrive" 4 "${#stamps[@]}"
if [ "${#stamps[@]}" -eq 4 ]; then
        for i in 2 3; do
                gap_ms=$(((stamps[i] - stamps[i - 1]) / 1000))
                if [ "$gap_ms" -ge 500 ] && [ "$gap_ms" -lt 2000 ]; then ok "watchdog gap $i is within WATCHDOG_USEC ($gap_ms ms)"
                else not_ok "watchdog gap $i is within WATCHDOG_USEC, 500 ms at least" "gap: $gap_ms ms"; fi
        done
fi

# The run user (slicelab by default) traverses it to its run directory and cannot list it.
check_eq "state dir is 0711" 711 "$(stat -c %a "$DAEMON_STATE")"
check_eq "the database is 0600" 600 "$(stat -c %a "$DAEMON_STATE/slicelab.db")"
check_eq "token file is 0600" 600 "$(stat -c %a "$DAEMON_STATE/token")"
check_match "token is 32 random bytes in hex" '^[0-9a-f]{64}$' "$(cat "$DAEMON_STATE/token")"

api GET /v1/no/such/thing; body=$BODY
check_eq "unknown path is 404" 404 "$HTTP_STATUS"
check_eq "404 has the JSON error body" not_found "$(jq -r .error.code <<<"$body")"
allow=$(curl -s -o /dev/null -D - -X DELETE "$DAEMON_URL/v1/health" | tr -d '\r' | sed -n 's/^Allow: //Ip')
check_eq "wrong method is 405 with Allow" "GET, HEAD" "$allow"
api GET '/v1/health?verbose=1'; body=$BODY
check_eq "unknown query parameter is 400" 400 "$HTTP_STATUS"
check_eq "400 names the parameter" verbose "$(jq -r .error.field <<<"$body")"

token_before=$(cat "$DAEMON_STATE/token")
kill -TERM "$DAEMON_PID"
daemon_wait_event 'STOPPING=1' 10
check_match "STOPPING=1 arrives on SIGTERM" 'STOPPING=1' "$DAEMON_LAST_EVENT"
daemon_wait_event 'EXIT' 10
check_eq "exit status 0 after SIGTERM" "EXIT 0" "$DAEMON_LAST_EVENT"
wait "$NL_PID" 2>/dev/null
DAEMON_PID=

# A second start keeps the token and the database.
unset WATCHDOG_USEC
daemon_start || not_ok "daemon restarts"
check_eq "the token survives a restart" "$token_before" "$(cat "$DAEMON_STATE/token")"
finish
