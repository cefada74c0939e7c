#!/bin/bash
# slicelab-job.sh: a Slurm batch job that runs one slicelab experiment on the host Slurm leased
# to it, through that host's own slicelabd (a systemd service outside Slurm's cgroups: Slurm
# leases the host, slicelabd owns its CPUs), and leaves the results in the job's directory.
#
#   sbatch [--constraint=FEATURES] contrib/slurm/slicelab-job.sh DEFINITION.json [OUTDIR]
#
# OUTDIR (default $SLURM_SUBMIT_DIR/slicelab-$SLURM_JOB_ID) receives experiment-id, report.txt,
# report.json, findings.json (when the daemon has findings), runs.json and timeline-RUN.csv per
# succeeded run. The job exits with slicelab's status (0 succeeded, 1 not succeeded, 3 checks
# failed, 4 daemon or HTTP error).
# - The experiment is submitted with `Idempotency-Key: slurm-<cluster>-<job id>`, so a requeued
#   job (same id) finds its experiment again instead of starting a second one.
# - scancel (SIGTERM to the job) cancels the experiment: nothing of it keeps running.
# - With SLICELAB_RESULTS_URL set, the experiment's bundle (bundle.slbundle in OUTDIR) is also
#   imported into the lab's results daemon there (slicelabd --results-only), with the token read
#   from SLICELAB_RESULTS_TOKEN_FILE (or SLICELAB_RESULTS_TOKEN); importing again (a requeued job)
#   stores nothing twice. A failed push is said on stderr and exits 4.
# Environment: SLICELAB (the client, default `slicelab`), SLICELAB_URL, SLICELAB_TOKEN (or a
# readable token file in SLICELAB_STATE_DIR), SLICELAB_BASELINE (the report's baseline cell),
# SLICELAB_RESULTS_URL, SLICELAB_RESULTS_TOKEN_FILE, SLICELAB_RESULTS_TOKEN.
#SBATCH --job-name=slicelab
#SBATCH --exclusive
#SBATCH --requeue
set -u
DEF=${1:?usage: sbatch slicelab-job.sh DEFINITION.json [OUTDIR]}
OUT=${2:-${SLURM_SUBMIT_DIR:-$PWD}/slicelab-${SLURM_JOB_ID:?not a Slurm job}}
SL=${SLICELAB:-slicelab}
KEY="slurm-${SLURM_CLUSTER_NAME:-cluster}-${SLURM_JOB_ID:?not a Slurm job}"
ID=
CHILD=

mkdir -p "$OUT" || exit 4

# Runs the client in the background and waits for it, so that a SIGTERM reaches the trap at
# once instead of after the client returned.
client() {
        "$SL" "$@" &
        CHILD=$!
        wait "$CHILD"
        local rc=$?
        CHILD=
        return $rc
}

on_term() {
        trap '' TERM INT
        [ -n "$CHILD" ] && kill "$CHILD" 2>/dev/null
        # Signalled while submitting: the key finds the experiment if the daemon has it (or makes
        # it, to be cancelled at once), so none is left running unseen.
        [ -n "$ID" ] || ID=$("$SL" submit "$DEF" --key "$KEY" --retry-for 10)
        if [ -n "$ID" ]; then
                echo "slicelab-job: job $SLURM_JOB_ID signalled: cancelling experiment $ID" >&2
                "$SL" cancel "$ID" >&2
        fi
        exit 143
}
trap on_term TERM INT

ID=$(client submit "$DEF" --key "$KEY") || exit $?
echo "$ID" >"$OUT/experiment-id"
echo "slicelab-job: job $SLURM_JOB_ID on $(hostname -s): experiment $ID (key $KEY)" >&2
client wait "$ID" >&2
RC=$?
[ "$RC" -eq 4 ] && exit 4

BASELINE=${SLICELAB_BASELINE:+--baseline $SLICELAB_BASELINE}
# shellcheck disable=SC2086
client report "$ID" $BASELINE >"$OUT/report.txt"
# shellcheck disable=SC2086
client report "$ID" $BASELINE --json >"$OUT/report.json"
client findings "$ID" --json >"$OUT/findings.json" || {
        rm -f "$OUT/findings.json"
        echo "slicelab-job: no findings from this daemon" >&2
}
client runs "$ID" --json >"$OUT/runs.json"
client runs "$ID" | awk 'NR > 1 && $4 == "succeeded" { print $1 }' | while read -r run; do
        client timeline "$run" --csv -o "$OUT/timeline-$run.csv"
done

# The lab's results daemon keeps every host's experiments in one place.
if [ -n "${SLICELAB_RESULTS_URL:-}" ]; then
        client export "$ID" -o "$OUT/bundle.slbundle" || exit 4
        RESULTS_TOKEN=${SLICELAB_RESULTS_TOKEN:-}
        if [ -n "${SLICELAB_RESULTS_TOKEN_FILE:-}" ]; then
                RESULTS_TOKEN=$(cat "$SLICELAB_RESULTS_TOKEN_FILE") || exit 4
        fi
        SLICELAB_TOKEN=$RESULTS_TOKEN client --url "$SLICELAB_RESULTS_URL" import "$OUT/bundle.slbundle" >&2 || {
                echo "slicelab-job: could not push experiment $ID to $SLICELAB_RESULTS_URL" >&2
                exit 4
        }
fi
exit "$RC"
