#!/bin/bash
# least-privilege.sh: the runs' processes are the slicelab user's by default and cannot read the
# token or the database; root only with --allow-root-sut; JVM options that run commands or write
# outside the run directory, and executables off the --allow-exec list, get 400 naming the field.
. "$SLICELAB_SRC/tests/lib.sh"

SLICELAB_UID=$(id -u slicelab)
# The SUT says who it is and what it can reach, then its result line.
probe_def() {
        local state=$1
        definition --name "$2" --cell a:1 -- /bin/sh -c "id -u; cat $state/token >/dev/null 2>&1 && echo TOKEN-READ; head -c1 $state/slicelab.db >/dev/null 2>&1 && echo DB-READ; ls $state/runs >/dev/null 2>&1 && echo RUNS-LISTED; echo \"{\\\"ops_per_s\\\": 1}\""
}
sut_out() {
        cat "$DAEMON_STATE/runs/$1/sut.stdout"
}

# --- by default: the slicelab user ------------------------------------------------------------
daemon_start || { not_ok "daemon starts"; finish; exit 1; }
post_experiment "$(probe_def "$DAEMON_STATE" default)"
check_eq "the experiment is accepted" 201 "$HTTP_STATUS"
RUN=$(first_run "$EXP_ID")
wait_for 60 run_finished "$RUN"
check_eq "the run succeeds" succeeded "$(run_outcome "$RUN")"
check_eq "the SUT runs as the slicelab user" "$SLICELAB_UID" "$(sut_out "$RUN" | head -1)"
check "the SUT cannot read the token" not grep -q TOKEN-READ "$DAEMON_STATE/runs/$RUN/sut.stdout"
check "the SUT cannot read the database" not grep -q DB-READ "$DAEMON_STATE/runs/$RUN/sut.stdout"
check "the SUT cannot list the other runs" not grep -q RUNS-LISTED "$DAEMON_STATE/runs/$RUN/sut.stdout"
check_eq "the token is 0600" 600 "$(stat -c %a "$DAEMON_STATE/token")"
check_eq "the database is 0600" 600 "$(stat -c %a "$DAEMON_STATE/slicelab.db")"
check_eq "the run directory is the run user's" slicelab "$(stat -c %U "$DAEMON_STATE/runs/$RUN")"

# --- refused JVM options and executables --------------------------------------------------------
JAR="$BUILD/contrib/workloads/slicelab-sut.jar"
jvm_def() { # JVM_ARGS_JSON [SUT_COMMAND_JSON]
        definition --name j --jvm --sut "{\"command\":${2:-[\"java\",\"-jar\",\"$JAR\"]}}" \
                --cell "{\"name\":\"a\",\"cpus\":\"1\",\"jvm_args\":$1}"
}
refused() { # NAME DEFINITION FIELD
        post_experiment "$2"
        check_eq "$1: 400" 400 "$HTTP_STATUS"
        check_eq "$1: names $3" "$3 not_allowed" "$(jq -r '.error.field + " " + .error.code' <<<"$BODY")"
}
refused "-XX:OnError" "$(jvm_def '["-XX:OnError=touch /tmp/x"]')" "cells[0].jvm_args[0]"
refused "-XX:OnOutOfMemoryError" "$(jvm_def '["-Xmx64m","-XX:OnOutOfMemoryError=sh -c id"]')" "cells[0].jvm_args[1]"
refused "-Xlog to /etc" "$(jvm_def '["-Xlog:gc:file=/etc/evil.log"]')" "cells[0].jvm_args[0]"
refused "-Xlog to a bare path above the run" "$(jvm_def '["-Xlog:gc*:../x.log"]')" "cells[0].jvm_args[0]"
refused "-XX:HeapDumpPath" "$(jvm_def '["-XX:HeapDumpPath=/var/tmp"]')" "cells[0].jvm_args[0]"
refused "-javaagent" "$(jvm_def '["-javaagent:/tmp/a.jar"]')" "cells[0].jvm_args[0]"
refused "an @argfile in sut.command" "$(jvm_def '[]' "[\"java\",\"@/tmp/opts\",\"-jar\",\"$JAR\"]")" "sut.command[1]"
refused "-XX:ErrorFile in sut.command" "$(jvm_def '[]' "[\"java\",\"-XX:ErrorFile=/tmp/e.log\",\"-jar\",\"$JAR\"]")" "sut.command[1]"
refused "-agentpath in JAVA_TOOL_OPTIONS" \
        "$(definition --name e --sut '{"env":{"JAVA_TOOL_OPTIONS":"-Xmx64m -agentpath:/tmp/a.so"}}' -- java -jar "$JAR")" \
        "sut.env.JAVA_TOOL_OPTIONS"
post_experiment "$(jvm_def '["-Xlog:gc:file=gc2.log","-XX:HeapDumpPath=dumps/","-Xmx64m"]')"
check_eq "files inside the run directory are fine" 201 "$HTTP_STATUS"
api_auth DELETE "/v1/experiments/$EXP_ID"
daemon_stop

# --allow-exec: another executable gets 400 naming the field; --allow-jvm-option lets one in.
daemon_start --allow-exec /bin/sh,/usr/bin/true --allow-jvm-option -XX:HeapDumpPath=/var/tmp/ \
        || { not_ok "daemon starts with --allow-exec"; finish; exit 1; }
refused "a SUT off the allowlist" "$(definition --name x --cell a:1 -- /bin/echo '{}')" "sut.command[0]"
refused "an external load off the allowlist" \
        "$(definition --name x --load '{"command":["/bin/cat"],"timeline":"t.bin"}' --cell a:1 -- /bin/sh -c 'sleep 1')" \
        "load.command[0]"
post_experiment "$(probe_def "$DAEMON_STATE" allowed)"
check_eq "an allowed executable is accepted" 201 "$HTTP_STATUS"
RUN=$(first_run "$EXP_ID")
wait_for 60 run_finished "$RUN"
check_eq "and runs" succeeded "$(run_outcome "$RUN")"
post_experiment "$(jvm_def '["-XX:HeapDumpPath=/var/tmp/dumps"]' '["/bin/sh","-c","true"]')"
check_eq "an option --allow-jvm-option names is accepted" 201 "$HTTP_STATUS"
api_auth DELETE "/v1/experiments/$EXP_ID"
daemon_stop

# --- root: refused without the flag, allowed with it -----------------------------------------
daemon_start --run-as root
check_eq "--run-as root without --allow-root-sut does not start" "1 EXIT 1" "$? $DAEMON_LAST_EVENT"
wait "$NL_PID" 2>/dev/null
DAEMON_PID=
check_match "it says why" "--run-as root is uid 0.*add --allow-root-sut" "$(tail -3 "$TEST_TMP/daemon.log")"
daemon_start --run-as root --allow-root-sut || { not_ok "daemon starts with --allow-root-sut"; finish; exit 1; }
post_experiment "$(probe_def "$DAEMON_STATE" root)"
RUN=$(first_run "$EXP_ID")
wait_for 60 run_finished "$RUN"
check_eq "with --allow-root-sut the SUT runs as root" 0 "$(sut_out "$RUN" | head -1)"
daemon_stop

# --- a user that does not exist: a clear failure at start --------------------------------------
timeout 30 "$SLICELABD" --listen 127.0.0.1:0 --state-dir "$TEST_TMP/s-nouser" --cgroup-root "slicelab-test$$" \
        --run-as no-such-user-$$ >"$TEST_TMP/nouser.out" 2>&1
check_eq "an unknown run user exits 1" 1 "$?"
check_match "naming the user and the fix" "--run-as no-such-user-$$: no such user \(create it" "$(cat "$TEST_TMP/nouser.out")"
finish
