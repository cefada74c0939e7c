# chaos-lib.sh: what the chaos scripts share on top of tests/lib.sh: killing the daemon with
# SIGKILL and starting it again on the same state dir and root.

# daemon_kill9: SIGKILL, then notify-listen's "SIGNAL 9" line; the coprocess is reaped.
daemon_kill9() {
        kill -KILL "$DAEMON_PID" 2>/dev/null
        daemon_wait_event 'SIGNAL' 30
        wait "$NL_PID" 2>/dev/null
        DAEMON_PID=
}

# daemon_restart ARGS...: daemon_start again with the same state dir (DAEMON_STATE is kept).
daemon_restart() {
        daemon_start "$@"
}

# running_cmd is in lib.sh; nothing_of RUN PATTERN...: no slice of the run, and no process whose
# command line matches one of the patterns (each with a [x] so pgrep does not find itself).
nothing_of() {
        local run=$1 p
        shift
        no_slices_of "$run" || return 1
        for p in "$@"; do
                running_cmd "$p" && return 1
        done
        return 0
}
