#!/bin/bash
# slurm.sh: contrib/slurm/ on a real Slurm on this one machine: munged, slurmctld and three slurmd
# (node names: this host's, load1, load2; slurmd -N) from Debian, started here from a generated slurm.conf in a temporary directory (private ports on 127.0.0.1,
# a private munge socket, state and spool under the directory) and stopped after, against a real
# slicelabd with its own state dir and cgroup root. Three sbatch jobs complete with their results
# in their job directories and exactly three experiments in the daemon; scancel mid-run leaves
# the experiment cancelled and no process of the run alive; scontrol requeue of a finished job
# creates no second experiment. The jobs push their bundles to a --results-only slicelabd started
# here (SLICELAB_RESULTS_URL): it holds each job's experiment once, requeue or not.
# slicelab-hetjob.sh as a heterogeneous job (component 0 on this host's node, 1 on load1 and
# load2) submits a definition whose load.hosts are load1 and load2 with the CPUs Slurm gave it
# there, and prints the experiment's id. A Slurm daemon that cannot run here is a failure, never a pass.
. "$SLICELAB_SRC/tests/lib.sh"

export SLICELAB="$BUILD/client/slicelab"
JOB="$SRC/contrib/slurm/slicelab-job.sh"
SPIN="$BUILD/contrib/workloads/slicelab-spin"
# Slurm's files live in a directory the munge user may enter (TEST_TMP is root's alone).
SDIR=$(mktemp -d /tmp/slicelab-slurm.XXXXXX)
chmod 755 "$SDIR"
MUNGED_PID=
LONG_S=$((7000 + $$ % 1000))
# Three node names on this machine, one slurmd each (slurmd -N): this host's, for the jobs, and
# load1, load2 in a partition of their own, for the heterogeneous job's load component.
HOST=$(hostname -s)
LOAD_NODES="load1 load2"

stop_pidfile() { # FILE: the daemon whose pid is in FILE, waited for
        local pid
        pid=$(cat "$1" 2>/dev/null) || return 0
        kill -TERM "$pid" 2>/dev/null || return 0
        for _ in $(seq 1 100); do alive "$pid" || return 0; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null
}

slurm_stop() {
        local node
        for node in "$HOST" $LOAD_NODES; do stop_pidfile "$SDIR/slurmd-$node.pid"; done
        stop_pidfile "$SDIR/slurmctld.pid"
        if [ -n "$MUNGED_PID" ]; then kill -TERM "$MUNGED_PID" 2>/dev/null; wait "$MUNGED_PID" 2>/dev/null; fi
        MUNGED_PID=
}

cleanup() {
        slurm_stop
        rm -rf "$SDIR"
}
trap 'cleanup; daemon_stop_all LAB RESULTS; rm -rf "$TEST_TMP"' INT TERM EXIT

alive_any() { local p; for p; do alive "$p" && return 0; done; return 1; }

# cannot_run WHAT: says plainly that Slurm cannot run here, and fails.
cannot_run() {
        not_ok "a single-node Slurm runs on this machine" "$1: the Slurm test cannot run here, which counts as a failure" \
                "$(tail -n 20 "$SDIR"/log/*.log 2>/dev/null)"
        cleanup
        finish
        exit 1
}

for tool in munged munge unmunge slurmctld slurmd sbatch scontrol scancel sinfo; do
        command -v "$tool" >/dev/null || cannot_run "$tool is not installed (apt-get install slurm-wlm munge)"
done

# --- munge, on a socket of its own ---------------------------------------------------------------
mkdir -p "$SDIR/munge" "$SDIR/log" "$SDIR/state" "$SDIR/spool" "$SDIR/jobs"
chown munge:munge "$SDIR/munge"
chmod 755 "$SDIR/munge"
MUNGE_SOCK=$SDIR/munge/munge.socket
# setpriv execs (runuser would fork): $! is munged itself, stopped and waited for by its pid.
setpriv --reuid=munge --regid=munge --init-groups /usr/sbin/munged -F --socket="$MUNGE_SOCK" --pid-file="$SDIR/munge/munged.pid" \
        --log-file="$SDIR/munge/munged.log" --seed-file="$SDIR/munge/munged.seed" &
MUNGED_PID=$!
wait_for 10 test -S "$MUNGE_SOCK" || cannot_run "munged did not start"
munge -S "$MUNGE_SOCK" -n | unmunge -S "$MUNGE_SOCK" >/dev/null || cannot_run "munge credentials do not round-trip"
ok "munged runs on a private socket"

# --- slurmctld and slurmd --------------------------------------------------------------------------
CTLD_PORT=$(loopback_port 4)
SLURMD_PORT=$((CTLD_PORT + 1))
export SLURM_CONF=$SDIR/slurm.conf
cat >"$SLURM_CONF" <<CONF
ClusterName=sltest
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCK
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$SDIR/state
SlurmdSpoolDir=$SDIR/spool/%n
SlurmctldPidFile=$SDIR/slurmctld.pid
SlurmdPidFile=$SDIR/slurmd-%n.pid
SlurmctldLogFile=$SDIR/log/slurmctld.log
SlurmdLogFile=$SDIR/log/slurmd-%n.log
ReturnToService=2
JobRequeue=1
KillWait=30
MinJobAge=600
# heterogeneous jobs start from the backfill scheduler only (every 30 s by default)
SchedulerParameters=bf_interval=1
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
NodeName=load1 NodeHostname=$HOST NodeAddr=127.0.0.1 Port=$((CTLD_PORT + 2)) CPUs=$(nproc) State=UNKNOWN
NodeName=load2 NodeHostname=$HOST NodeAddr=127.0.0.1 Port=$((CTLD_PORT + 3)) CPUs=$(nproc) State=UNKNOWN
PartitionName=bench Nodes=$HOST Default=YES OverSubscribe=EXCLUSIVE MaxTime=INFINITE State=UP
PartitionName=lab Nodes=load1,load2 OverSubscribe=EXCLUSIVE MaxTime=INFINITE State=UP
CONF
slurmctld -f "$SLURM_CONF" -i || cannot_run "slurmctld did not start"
for node in "$HOST" $LOAD_NODES; do
        mkdir -p "$SDIR/spool/$node"
        slurmd -f "$SLURM_CONF" -N "$node" || cannot_run "slurmd -N $node did not start"
done
nodes_idle() { [ "$(sinfo -h -N -o %T 2>/dev/null | sort -u)" = idle ]; }
wait_for 60 nodes_idle || cannot_run "the nodes never became idle (sinfo: $(sinfo -h -N -o '%N %T' 2>&1 | paste -sd' '))"
ok "slurmctld and three slurmd (node names $HOST $LOAD_NODES) run; the nodes are idle"

# --- slicelabd, as the host's own daemon -----------------------------------------------------------
# The lab's results daemon first, then the host's own (the one the helpers below talk to).
DAEMON_STATE=$TEST_TMP/results
daemon_start --results-only || { not_ok "a results daemon starts"; cleanup; finish; exit 1; }
daemon_save RESULTS
DAEMON_STATE=$TEST_TMP/state
# Its peers for the heterogeneous job: the load nodes' names; no daemon answers behind them here.
daemon_start --cgroup-root "slicelab-s$$" --peer-allow 'load*' --peer-url-template 'http://{host}:9' || { not_ok "slicelabd starts"; cleanup; daemon_stop_all RESULTS; finish; exit 1; }
daemon_save LAB
# Exported into the jobs (sbatch passes the environment on).
export SLICELAB_URL=$DAEMON_URL SLICELAB_TOKEN=$DAEMON_TOKEN SLICELAB_STATE_DIR=$DAEMON_STATE
export SLICELAB_RESULTS_URL=$RESULTS_DAEMON_URL SLICELAB_RESULTS_TOKEN_FILE=$RESULTS_DAEMON_STATE/token
results() { curl -s "$RESULTS_DAEMON_URL/v1/experiments" | jq -r "[.experiments[] | $1] | sort | join(\",\")"; }
origins() { # "host id" of each experiment of the results daemon
        local id
        for id in $(results .id | tr , ' '); do
                curl -s "$RESULTS_DAEMON_URL/v1/experiments/$id" | jq -r '"\(.origin.host) \(.origin.id)"'
        done | sort | paste -sd,
}

job_field() { # JOB FIELD: one field of `scontrol show job`
        scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p"
}
job_state_is() { [ "$(job_field "$1" JobState)" = "$2" ]; }
job_ended() { case $(job_field "$1" JobState) in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL) return 0 ;; esac; return 1; }
experiments() { "$SLICELAB" list --json | jq '.experiments | length'; }

# --- three jobs -------------------------------------------------------------------------------------
JOBS=()
for i in 1 2 3; do
        definition --name "slurm-$i" --iterations 1 --cell a:0 --cell b:1:0.5 -- "$SPIN" --threads 1 --seconds 1 >"$SDIR/jobs/def-$i.json"
        JOBS+=("$(sbatch --parsable -D "$SDIR/jobs" -o "$SDIR/jobs/slurm-%j.out" "$JOB" "$SDIR/jobs/def-$i.json" "$SDIR/jobs/out-$i")")
done
check "sbatch took three jobs" test "${#JOBS[@]}" -eq 3 -a -n "${JOBS[2]}"
for i in 1 2 3; do
        j=${JOBS[$((i - 1))]}
        wait_for 90 job_ended "$j"
        check_eq "job $i completed" "COMPLETED 0:0" "$(job_field "$j" JobState) $(job_field "$j" ExitCode)"
        d=$SDIR/jobs/out-$i
        check "job $i's directory has the experiment's id" test -s "$d/experiment-id"
        check_eq "job $i's report says succeeded" succeeded "$(jq -r .status "$d/report.json" 2>/dev/null)"
        check_match "job $i's table names both cells" "^a .*1 \(baseline\)" "$(grep '^a ' "$d/report.txt")"
        check_eq "job $i's runs are listed" 2 "$(jq '.runs | length' "$d/runs.json" 2>/dev/null)"
        check_eq "job $i's directory has a timeline CSV per run" "2 2" \
                "$(ls "$d"/timeline-*.csv 2>/dev/null | wc -l) $(head -qn1 "$d"/timeline-*.csv 2>/dev/null | grep -c '^scheduled_ns,')"
        check_eq "job $i's key is the cluster's and the job's" "1 slurm-sltest-$j" \
                "$(grep -c "experiment $(cat "$d/experiment-id") (key slurm-sltest-$j)" "$SDIR/jobs/slurm-$j.out") slurm-sltest-$j"
done
check_eq "exactly three experiments in the daemon" 3 "$(experiments)"
check_eq "one per job, each succeeded" "slurm-1 succeeded,slurm-2 succeeded,slurm-3 succeeded" \
        "$("$SLICELAB" list --json | jq -r '[.experiments[] | "\(.name) \(.status)"] | sort | join(",")')"
FIRST_ID=$(cat "$SDIR/jobs/out-1/experiment-id")
check_eq "the results daemon holds the three experiments, from this host" \
        "$(for i in 1 2 3; do echo "$(hostname) $(cat "$SDIR/jobs/out-$i/experiment-id")"; done | sort | paste -sd,)" "$(origins)"

# --- scancel mid-run ---------------------------------------------------------------------------------
definition --name slurm-long --iterations 2 --cell a:1 -- "$SPIN" --threads 1 --seconds "$LONG_S" >"$SDIR/jobs/def-long.json"
LJ=$(sbatch --parsable -D "$SDIR/jobs" -o "$SDIR/jobs/slurm-%j.out" "$JOB" "$SDIR/jobs/def-long.json" "$SDIR/jobs/out-long")
long_measuring() {
        [ -s "$SDIR/jobs/out-long/experiment-id" ] || return 1
        LONG_ID=$(cat "$SDIR/jobs/out-long/experiment-id")
        LONG_RUN=$(first_run "$LONG_ID")
        run_state_is "$LONG_RUN" measuring
}
check "the long job's experiment is measuring" wait_for 60 long_measuring
scancel "$LJ"
wait_for 60 job_ended "$LJ"
check_eq "the cancelled job ended cancelled" CANCELLED "$(job_field "$LJ" JobState)"
exp_cancelled() { [ "$("$SLICELAB" status "$LONG_ID" --json | jq -r .status)" = cancelled ]; }
check "scancel left the experiment cancelled" wait_for 30 exp_cancelled
check_eq "both of its runs are cancelled" "cancelled cancelled" \
        "$("$SLICELAB" runs "$LONG_ID" --json | jq -r '[.runs[].state] | join(" ")')"
check "no process of the run is alive" not running_cmd "[s]licelab-spin --threads 1 --seconds $LONG_S"
check "no slice of the run is left" no_slices_of "$LONG_RUN"
check "no process of the job is alive" not running_cmd "[s]licelab(-job.sh| wait) .*$LONG_ID|[s]licelab-job.sh $SDIR/jobs/def-long.json"
check_match "the job said it cancelled the experiment" "cancelling experiment $LONG_ID" "$(cat "$SDIR/jobs/slurm-$LJ.out")"

# --- requeue of a finished job ---------------------------------------------------------------------
BEFORE=$(experiments)
# The job's results are removed first, so that what is found after is the requeued run's work.
rm -f "$SDIR/jobs/out-1"/*
REQ_OUT=$(scontrol requeue "${JOBS[0]}" 2>&1)
check_eq "scontrol requeue of the finished job is taken" "" "$REQ_OUT"
# slurmctld holds a requeued job for two minutes (its BeginTime); an administrator may start it now.
scontrol update JobId="${JOBS[0]}" StartTime=now
requeued_and_done() { [ "$(job_field "${JOBS[0]}" Restarts)" = 1 ] && job_state_is "${JOBS[0]}" COMPLETED; }
if wait_for 60 requeued_and_done; then
        ok "the requeued job ran again and completed"
else
        not_ok "the requeued job ran again and completed" "$(scontrol -o show job "${JOBS[0]}")"
fi
check_eq "the requeued job found its experiment again" "$FIRST_ID" "$(cat "$SDIR/jobs/out-1/experiment-id")"
check_eq "no second experiment (still $BEFORE)" "$BEFORE" "$(experiments)"
check_eq "its report was written again" succeeded "$(jq -r .status "$SDIR/jobs/out-1/report.json")"
check_eq "its push again stored nothing twice: the results daemon holds the three jobs' experiments (the cancelled job pushed none)" \
        "slurm-1,slurm-2,slurm-3" "$(results .name)"

# --- a heterogeneous job: component 0 on this host's node, component 1 on load1 and load2 --------------
# slicelab-hetjob.sh fills load.hosts from component 1's node list and submits to this host's
# daemon; no slicelabd runs behind load1 and load2, so the run stops at preflight naming load1:
# what is checked is the definition the job submitted and the experiment it printed.
definition --name slurm-het --load "{\"target\":\"http://$HOST:8080/work\",\"rate\":100,\"warmup_s\":1,\"measure_s\":1}" \
        --cell a:1 -- "$SPIN" --threads 1 --seconds 1 >"$SDIR/jobs/def-het.json"
HJ=$(SLICELAB_JOB=$JOB sbatch --parsable -D "$SDIR/jobs" -o "$SDIR/jobs/slurm-%j.out" -p bench -w "$HOST" : -p lab -N 2 \
        "$SRC/contrib/slurm/slicelab-hetjob.sh" "$SDIR/jobs/def-het.json" "$SDIR/jobs/out-het" 2>&1)
check_match "sbatch took the heterogeneous job" '^[0-9]+$' "$HJ"
wait_for 120 job_ended "$HJ+0" || not_ok "the heterogeneous job ended" "$(scontrol -o show job "$HJ" 2>&1)"
HET_OUT=$(cat "$SDIR/jobs/slurm-$HJ.out" 2>/dev/null)
check_match "the job named its load hosts" 'slicelab-hetjob: load hosts \["load1","load2"\]' "$HET_OUT"
check_eq "load.hosts: component 1's nodes with the CPUs Slurm gave the job there" \
        "[{\"host\":\"load1\",\"cpus\":\"0-$(($(nproc) - 1))\"},{\"host\":\"load2\",\"cpus\":\"0-$(($(nproc) - 1))\"}]" \
        "$(jq -c .load.hosts "$SDIR/jobs/out-het/definition.json" 2>/dev/null)"
HET_ID=$(cat "$SDIR/jobs/out-het/experiment-id" 2>/dev/null)
check_match "the job printed the experiment's id" "experiment $HET_ID " "$HET_OUT"
check_eq "the daemon holds that definition" "load1 load2" \
        "$(curl -s "$DAEMON_URL/v1/experiments/$HET_ID" | jq -r '[.definition.load.hosts[].host] | join(" ")')"
check_match "its run tried load1 at preflight" "^failed preflight: .*load host load1 " "$(run_outcome "$(first_run "$HET_ID")")"

# --- the Features= line of this host -----------------------------------------------------------------
FEAT=$("$SRC/contrib/slurm/slicelab-features.sh")
check_match "slicelab-features.sh prints the node's Features=" "^Features=(cpu_[a-z0-9_]+,)?cores_[0-9]+,smt_(on|off),cgroup_(v1|v2|hybrid)(,numa_[0-9]+)?$" "$FEAT"

CTLD_PID=$(cat "$SDIR/slurmctld.pid") SLURMD_PIDS=$(cat "$SDIR"/slurmd-*.pid) M_PID=$MUNGED_PID
cleanup
daemon_stop_all LAB RESULTS
# shellcheck disable=SC2086 # one pid a word
check "slurmctld, the three slurmd and munged are stopped" not alive_any "$CTLD_PID" $SLURMD_PIDS "$M_PID"
finish
