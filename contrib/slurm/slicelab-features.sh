#!/bin/bash
# slicelab-features.sh [URL]: the Slurm node Features= of this host, from its slicelabd's
# GET /v1/host, for slurm.conf's NodeName line and `sbatch --constraint`:
#   Features=cpu_intel_xeon_gold_6338,cores_32,smt_on,cgroup_v2,numa_2
# (CPU model lowercased with runs of other characters as "_", physical cores, SMT, cgroup
# version, NUMA nodes; a fact the host does not expose is left out.)
set -eu
SL=${SLICELAB:-slicelab}
HOST=$("$SL" ${1:+--url "$1"} host --json)
jq -r '
  def slug: ascii_downcase | gsub("[^a-z0-9]+"; "_") | ltrimstr("_") | rtrimstr("_");
  [ (.cpu_model // empty | "cpu_" + slug),
    (.topology.cores // empty | "cores_\(.)"),
    (.topology.smt.active | if . == true then "smt_on" elif . == false then "smt_off" else empty end),
    "cgroup_\(.cgroup.mode)",
    (.topology.numa_nodes // empty | "numa_\(length)")
  ] | "Features=" + join(",")' <<<"$HOST"
