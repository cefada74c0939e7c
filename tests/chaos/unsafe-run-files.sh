#!/bin/bash
# unsafe-run-files.sh: the run directory is the run user's, so the SUT or its load can put a
# symlink to /dev/zero or a FIFO where the daemon (root) will read gc.log, sut.stdout,
# summary.json or the timeline. Each time the run fails collect_failed naming the file, and the
# daemon keeps answering.
. "$SLICELAB_SRC/tests/lib.sh"

daemon_start || { not_ok "daemon starts"; finish; exit 1; }
# replace NAME KIND: the shell words that put a KIND (symlink|fifo) where NAME was.
replace() {
        if [ "$2" = symlink ]; then echo "rm -f $1; ln -s /dev/zero $1"; else echo "rm -f $1; mkfifo -m 666 $1"; fi
}
expect_refused() { # NAME KIND
        RUN=$(first_run "$EXP_ID")
        wait_for 90 run_finished "$RUN"
        check_eq "$1 as a $2: the run fails collect_failed" "failed collect_failed" \
                "$(run_field "$RUN" '.state + " " + (.reason // "")')"
        check_match "$1 as a $2: the message names the file" "^$1 in the run directory (is a symbolic link|is a FIFO)" \
                "$(run_field "$RUN" '.message // ""')"
        api GET /v1/health
        check_eq "$1 as a $2: the daemon still answers" 200 "$HTTP_STATUS"
}

# A "JVM" (sut.jvm) that is a script: it ignores the JVM options, replaces the file and prints
# its result; the daemon then reads sut.stdout and gc.log as a JVM's.
FAKE_JVM="$TEST_TMP/fake-jvm"
cat >"$FAKE_JVM" <<'SH'
#!/bin/sh
eval "$UNSAFE"
echo '{"ops_per_s": 1}'
SH
chmod 755 "$FAKE_JVM"
for name in gc.log sut.stdout; do
        for kind in symlink fifo; do
                post_experiment "$(definition --name unsafe --jvm --sut "$(jq -cn --arg u "$(replace "$name" "$kind")" '{env: {UNSAFE: $u}}')" \
                        --cell a:1 -- "$FAKE_JVM")"
                expect_refused "$name" "$kind"
        done
done

# The timeline: an external load that leaves a symlink or a FIFO as its timeline.
for kind in symlink fifo; do
        post_experiment "$(definition --name unsafe --load "$(jq -cn --arg u "$(replace t.bin "$kind")" '{command: ["/bin/sh", "-c", $u], timeline: "t.bin"}')" \
                --cell a:1 -- /bin/sleep 60)"
        expect_refused t.bin "$kind"
done

# summary.json: the injector writes it as it exits; the SUT, told to stop once the load is done,
# puts its replacement there before the daemon reads it.
PORT=$(loopback_port)
SERVER="$TEST_TMP/server"
cat >"$SERVER" <<'SH'
#!/bin/sh
python3 -m http.server "$PORT" --bind 127.0.0.1 >/dev/null 2>&1 &
pid=$!
trap 'kill $pid; eval "$UNSAFE"; exit 0' TERM
wait
SH
chmod 755 "$SERVER"
for kind in symlink fifo; do
        post_experiment "$(definition --name unsafe --sut "$(jq -cn --arg p "$PORT" --arg u "$(replace summary.json "$kind")" '{env: {UNSAFE: $u, PORT: $p}}')" \
                --ready "{\"http\":\"http://127.0.0.1:$PORT/\",\"timeout_s\":30}" \
                --load "{\"target\":\"http://127.0.0.1:$PORT/\",\"rate\":50,\"connections\":2,\"warmup_s\":0,\"measure_s\":1,\"cpus\":\"0\"}" \
                --cell a:1 -- "$SERVER")"
        expect_refused summary.json "$kind"
done

# The logs endpoint reads the run directory too: a FIFO put where a log was must not hang an API
# worker (curl would give up with status 000), and is refused as not a regular file.
rm -f "$DAEMON_STATE/runs/$RUN/load.log" && mkfifo -m 666 "$DAEMON_STATE/runs/$RUN/load.log"
status=$(curl -s -o /dev/null -w '%{http_code}' --max-time 20 "$DAEMON_URL/v1/runs/$RUN/logs/load")
check_eq "a FIFO as load.log: GET .../logs/load answers at once, refusing it" 500 "$status"
api GET /v1/health
check_eq "and the daemon still answers" 200 "$HTTP_STATUS"
finish
