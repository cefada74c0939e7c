# api-lib.sh: sourced by the API benchmarks after tests/bench/bench-lib.sh, tests/lib.sh and
# daemon_start: wrk's rate against the daemon, and POSTs whose runs stay queued.

# api_rate URL [wrk args...]: answers per second (wrk, 2 threads, 32 connections, DURATION s),
# counting only 2xx and 3xx: wrk's own rate counts errors too, and POSTs past the queue's limit
# (--queue-max, 10 000 runs by default) are refused fast with 429. How many were left out goes to
# stderr.
api_rate() {
        wrk -t2 -c32 -d"${DURATION}s" "$@" 2>/dev/null | awk '
                / requests in / { n = $1; t = $4 + 0 }
                /Non-2xx or 3xx responses:/ { bad = $NF }
                END {
                        if (bad > 0) printf "# %d of %d answers were not 2xx or 3xx: not counted\n", bad, n > "/dev/stderr"
                        if (t > 0) printf "%.2f\n", (n - bad) / t
                }'
}

# api_post_rate: the rate of POST /v1/experiments of a one-run /bin/true experiment on CPU 0,
# each with its own Idempotency-Key.
api_post_rate() {
        cat >"$TEST_TMP/post.lua" <<LUA
wrk.method = "POST"
wrk.body = '$(definition --name post --cell a:0 -- /bin/true)'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer $DAEMON_TOKEN"
-- A new Idempotency-Key each, as slicelab submit sends one; each thread's Lua state has its
-- own table addresses, so its own prefix.
local thread_tag, n = tostring({}):sub(8), 0
request = function()
        n = n + 1
        wrk.headers["Idempotency-Key"] = string.format("bench-$$-%s-%d", thread_tag, n)
        return wrk.format()
end
LUA
        api_rate -s "$TEST_TMP/post.lua" "$DAEMON_URL/v1/experiments"
}

# api_post_cost: "RATE CPU_MS": api_post_rate and the daemon's CPU milliseconds per POST answered.
api_post_cost() {
        local c0 rate
        c0=$(bench_daemon_cpu)
        rate=$(api_post_rate)
        awk -v r="$rate" -v c0="$c0" -v c1="$(bench_daemon_cpu)" -v d="$DURATION" \
                'BEGIN { printf "%s %.3f\n", r, (r > 0 ? (c1 - c0) * 1e3 / (r * d) : 0) }'
}

# api_hold_cpu0: an experiment whose run sleeps on CPU 0, so the runs posted after it wait
# behind it (queued, in order) and a POST's rate is the API's and the store's, not the runs'.
api_hold_cpu0() {
        post_experiment "$(definition --name hold --load '{"command":["/bin/sleep","3600"],"timeline":"t.bin"}' --cell a:0 -- /bin/sleep 3600)"
        HOLD_ID=$EXP_ID
}

# api_fill_queue N: N more queued runs (N a multiple of 1000), /bin/true on CPU 0 in experiments
# of up to 64 cells x 1000 iterations (the most a definition plans), behind api_hold_cpu0's run:
# the POSTs after them are measured with a long queue.
api_fill_queue() {
        local left=$1 cells
        while [ "$left" -gt 0 ]; do
                cells=$((left / 1000 < 64 ? left / 1000 : 64))
                post_experiment "$(definition --name fill --iterations 1000 \
                        --cells "$(jq -cn --argjson c "$cells" '[range($c) | {name: "c\(.)", cpus: "0"}]')" -- /bin/true)"
                [ "$HTTP_STATUS" = 201 ] || { echo "# filling the queue: $HTTP_STATUS $BODY" >&2; return 1; }
                left=$((left - cells * 1000))
        done
}

# api_queue_depth: the queued runs, as GET /v1/health counts them.
api_queue_depth() { curl -s "$DAEMON_URL/v1/health" | jq -r .queue.depth; }

# api_drop_queue: the queued runs cancelled (they would run /bin/true one by one), and the
# holding experiment too.
api_drop_queue() {
        # With a busy timeout: the daemon writes as it runs the queue, and without one the update
        # failed unseen while it did, leaving the runs queued (and running) into the next phase.
        sqlite3 -cmd '.timeout 30000' "$DAEMON_STATE/slicelab.db" "UPDATE runs SET state = 'cancelled' WHERE state = 'queued'" ||
                echo "# the queued runs could not be dropped: the next figure is not the API's alone" >&2
        [ -z "${HOLD_ID:-}" ] || api_auth DELETE "/v1/experiments/$HOLD_ID" >/dev/null
        HOLD_ID=
}
