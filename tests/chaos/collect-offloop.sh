#!/bin/bash
# collect-offloop.sh: a run's collection (its timeline read, sorted and stored) runs on a worker
# thread, off the event loop. While the worker collects a large synthetic timeline (6 M records,
# 2 M in the ASan build; several seconds here), GET /v1/health and a POST answer and WATCHDOG=1
# keeps arriving, and the run is still collecting afterwards; it then succeeds with every
# record. Cancelled while collecting, the run ends cancelled with none of its timeline stored;
# SIGTERM while collecting, the daemon ends cleanly and the run is interrupted with nothing stored.
. "$SLICELAB_SRC/tests/lib.sh"

SYNTH="$BUILD/tests/synth-timeline"
N=6000000
# The sanitized daemon collects several times slower: a third of the records keeps its worker
# busy longer than the plain build's 6 M do, which is all the checks below need.
if ldd "$SLICELABD" | grep -q libasan; then N=2000000; fi
WARMUP=100000
CGROOT=slicelab-c$$
# Pinged every 250 ms: several pings fit in the time the worker is held.
export WATCHDOG_USEC=500000
daemon_start --cgroup-root "$CGROOT" || { not_ok "daemon starts"; finish; exit 1; }
DB="$DAEMON_STATE/slicelab.db"
[ -f "$DB" ] || DB=$(ls "$DAEMON_STATE"/*.db | head -1)

EXPERIMENT=$(definition --name big \
        --load "{\"command\":[\"$SYNTH\",\"synthetic.bin\",\"$N\",\"6000\",\"$WARMUP\"],\"timeline\":\"synthetic.bin\"}" \
        -- /bin/sleep 600)

# collecting RUN: waits until the run collects (the worker reads, sorts and stores its timeline).
collecting() {
        wait_for 120 run_state_is "$1" collecting
}

stored_blocks() {
        sqlite3 -readonly "$DB" "SELECT count(*) FROM requests WHERE run_id = '$1'"
}

# --- the loop answers while the worker collects --------------------------------------------
post_experiment "$EXPERIMENT"
RUN=$(first_run "$EXP_ID")
collecting "$RUN" || { not_ok "the run reaches collecting" "$(run_field "$RUN" '"\(.state) \(.message)"')"; finish; exit 1; }
pings=0
for _ in 1 2 3; do daemon_wait_event 'WATCHDOG=1' 5 && pings=$((pings + 1)); done
check_eq "WATCHDOG=1 keeps arriving during collection" 3 "$pings"
api GET /v1/health -m 20
check_eq "GET /v1/health answers during collection" 200 "$HTTP_STATUS"
api_auth POST /v1/experiments -m 20 -H 'Content-Type: application/json' \
        --data "$(definition --name behind -- /bin/sh -c 'echo {\"ops_per_s\": 1}')"
check_eq "a POST answers during collection" 201 "$HTTP_STATUS"
BEHIND=$(first_run "$(jq -r .id <<<"$BODY")")
check_eq "and the run was still collecting meanwhile" collecting "$(run_field "$RUN" .state)"
wait_for 300 run_finished "$RUN"
check_eq "the run succeeds" succeeded "$(run_outcome "$RUN")"
check_eq "with every measured record" $((N - WARMUP)) "$(run_field "$RUN" .metrics.requests)"
grep -o "timeline of $N records loaded, measured and stored in [0-9.]* s" "$TEST_TMP/daemon.log" | sed 's/^/# /'
wait_for 60 run_finished "$BEHIND"
check_eq "the run queued behind it succeeds" succeeded "$(run_outcome "$BEHIND")"

# --- cancelled while collecting -------------------------------------------------------------
post_experiment "$EXPERIMENT"
EXP_B=$EXP_ID
RUN=$(first_run "$EXP_B")
collecting "$RUN"
api_auth DELETE "/v1/experiments/$EXP_B" -m 20
check_match "the experiment can be cancelled during collection" '^20[02]$' "$HTTP_STATUS"
wait_for 120 run_finished "$RUN"
check_eq "cancelled while collecting, the run is cancelled" cancelled "$(run_field "$RUN" .state)"
check_eq "and none of its timeline is stored" 0 "$(stored_blocks "$RUN")"
check "no slice of it is left" no_slices_of "$RUN"

# --- daemon shutdown while collecting -------------------------------------------------------
post_experiment "$EXPERIMENT"
RUN=$(first_run "$EXP_ID")
collecting "$RUN"
kill -TERM "$DAEMON_PID"
daemon_wait_event 'EXIT' 60 || daemon_wait_event 'SIGNAL' 1
check_eq "SIGTERM while collecting: the daemon exits cleanly" "EXIT 0" "$DAEMON_LAST_EVENT"
wait "$NL_PID" 2>/dev/null
DAEMON_PID=
check_eq "nothing of its timeline is stored" 0 "$(stored_blocks "$RUN")"
check "no slice of it is left" no_slices_of "$RUN"
unset WATCHDOG_USEC
daemon_start --cgroup-root "$CGROOT" || { not_ok "the daemon restarts"; finish; exit 1; }
check_eq "after a restart the run is interrupted by the shutdown" "interrupted daemon_shutdown" \
        "$(run_field "$RUN" '"\(.state) \(.reason)"')"
finish
