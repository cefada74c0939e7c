#!/bin/bash
# slicelab-hetjob.sh: one slicelab experiment across hosts as a Slurm heterogeneous job: component
# 0 is the SUT's host (its slicelabd runs the experiment and coordinates), every other component's
# nodes are load hosts (their slicelabd run the load, issue 25). The definition's load.hosts is
# filled from the components' node lists, each host with the CPUs Slurm gave the job on it
# (0 to N-1) and share 1 (or SLICELAB_LOAD_CPUS for all); then contrib/slurm/slicelab-job.sh
# submits it to component 0's daemon (this script runs there) and collects the results.
#
#   sbatch contrib/slurm/slicelab-hetjob.sh DEFINITION.json [OUTDIR]
#   slicelab-hetjob.sh --print-definition DEFINITION.json   (the filled definition, nothing submitted)
#
# Environment: that of slicelab-job.sh, SLICELAB_JOB (its path; default the submit directory's
# contrib/slurm/slicelab-job.sh, else PATH) and SLICELAB_LOAD_CPUS (the load hosts' cpus).
# The daemons' peers come from their own configuration: component 0's slicelabd needs
# --peer-url-template, --peer-allow matching the load hosts' names and --peer-token-file; each
# load host's needs --peer-allow matching component 0's host and the SUT's target. load.target
# must name the SUT's host as the load hosts reach it (not localhost).
#SBATCH --job-name=slicelab-lab
#SBATCH --exclusive
#SBATCH --requeue
#SBATCH hetjob
#SBATCH --exclusive
set -u

usage() {
        echo "usage: sbatch slicelab-hetjob.sh DEFINITION.json [OUTDIR] | slicelab-hetjob.sh --print-definition DEFINITION.json" >&2
        exit 2
}

# expand_counts "8(x2),4": one CPU count per node, "8 8 4" (Slurm's SLURM_JOB_CPUS_PER_NODE form).
expand_counts() {
        local item k
        local -a items
        IFS=, read -r -a items <<<"$1"
        for item in "${items[@]}"; do
                if [[ $item =~ ^([0-9]+)\(x([0-9]+)\)$ ]]; then
                        for ((k = 0; k < BASH_REMATCH[2]; k++)); do echo "${BASH_REMATCH[1]}"; done
                elif [[ $item =~ ^[0-9]+$ ]]; then
                        echo "$item"
                else
                        echo "slicelab-hetjob: cannot read the CPU counts '$1'" >&2
                        return 1
                fi
        done
}

# host_entries: one load.hosts entry (JSON) per node of components 1.. of the job.
host_entries() {
        local size=${SLURM_HET_SIZE:-} g list counts host cpus i
        if ! [[ $size =~ ^[0-9]+$ ]] || [ "$size" -lt 2 ]; then
                echo "slicelab-hetjob: not a heterogeneous job of 2 or more components (SLURM_HET_SIZE '${size}'):" \
                        "component 0 runs the SUT, the others the load" >&2
                return 1
        fi
        for ((g = 1; g < size; g++)); do
                list=$(printenv "SLURM_JOB_NODELIST_HET_GROUP_$g") || {
                        echo "slicelab-hetjob: SLURM_JOB_NODELIST_HET_GROUP_$g is not set" >&2
                        return 1
                }
                local -a hosts counts_a
                mapfile -t hosts < <(scontrol show hostnames "$list") || return 1
                [ "${#hosts[@]}" -gt 0 ] || { echo "slicelab-hetjob: component $g has no nodes ('$list')" >&2; return 1; }
                counts=$(printenv "SLURM_JOB_CPUS_PER_NODE_HET_GROUP_$g" || true)
                mapfile -t counts_a < <([ -n "$counts" ] && expand_counts "$counts")
                for i in "${!hosts[@]}"; do
                        host=${hosts[$i]}
                        if [ -n "${SLICELAB_LOAD_CPUS:-}" ]; then
                                cpus=$SLICELAB_LOAD_CPUS
                        elif [ -n "${counts_a[$i]:-}" ] && [ "${counts_a[$i]}" -gt 0 ]; then
                                cpus="0-$((counts_a[i] - 1))"
                        else
                                echo "slicelab-hetjob: no CPU count for $host (SLURM_JOB_CPUS_PER_NODE_HET_GROUP_$g '$counts');" \
                                        "set SLICELAB_LOAD_CPUS" >&2
                                return 1
                        fi
                        jq -n --arg host "$host" --arg cpus "$cpus" '{host: $host, cpus: $cpus}' || return 1
                done
        done
}

# load_hosts: the JSON array of load.hosts.
load_hosts() {
        local entries
        entries=$(host_entries) || return 1
        jq -s . <<<"$entries"
}

# fill DEFINITION: the definition with load.hosts from the job (and no load.cpus: no injector
# runs on component 0).
fill() {
        local hosts
        hosts=$(load_hosts) || return 1
        jq --argjson hosts "$hosts" '.load.hosts = $hosts | del(.load.cpus)' "$1"
}

[ $# -ge 1 ] || usage
if [ "$1" = --print-definition ]; then
        [ $# -eq 2 ] || usage
        fill "$2"
        exit $?
fi
DEF=$1
OUT=${2:-${SLURM_SUBMIT_DIR:-$PWD}/slicelab-${SLURM_JOB_ID:?not a Slurm job}}
mkdir -p "$OUT" || exit 4
fill "$DEF" >"$OUT/definition.json" || exit 2
echo "slicelab-hetjob: load hosts $(jq -c '[.load.hosts[].host]' "$OUT/definition.json")" >&2
# sbatch runs a copy of this script from its spool: slicelab-job.sh is found by SLICELAB_JOB, in
# the submit directory's contrib/slurm/, or on PATH.
JOB=${SLICELAB_JOB:-${SLURM_SUBMIT_DIR:-.}/contrib/slurm/slicelab-job.sh}
[ -x "$JOB" ] || JOB=$(command -v slicelab-job.sh) || { echo "slicelab-hetjob: slicelab-job.sh not found: set SLICELAB_JOB" >&2; exit 2; }
exec "$JOB" "$OUT/definition.json" "$OUT"
