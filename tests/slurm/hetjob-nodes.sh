#!/bin/bash
# hetjob-nodes.sh: contrib/slurm/slicelab-hetjob.sh's node lists alone, with the environment a
# heterogeneous job has faked (SLURM_HET_SIZE, SLURM_JOB_NODELIST_HET_GROUP_N,
# SLURM_JOB_CPUS_PER_NODE_HET_GROUP_N) and Debian's scontrol expanding the lists from a minimal
# slurm.conf: load.hosts gets every node of components 1.., in order, with the CPUs Slurm gave
# the job there; load.cpus goes; a job that is not heterogeneous, a missing list or an
# unreadable CPU count is refused with a message. A real heterogeneous job (three slurmd node
# names on this machine, slurmd -N) submits the script in tests/slurm/slurm.sh.
. "$SLICELAB_SRC/tests/lib.sh"

HETJOB="$SRC/contrib/slurm/slicelab-hetjob.sh"
command -v scontrol >/dev/null || { not_ok "scontrol is installed (apt-get install slurm-client)"; finish; exit 1; }
printf 'ClusterName=t\nSlurmctldHost=localhost\nNodeName=localhost CPUs=1 State=UNKNOWN\nPartitionName=p Nodes=localhost Default=YES\n' \
        >"$TEST_TMP/slurm.conf"
export SLURM_CONF="$TEST_TMP/slurm.conf"
definition --name lab --load '{"target":"http://sut01:8080/work","rate":900,"cpus":"1","warmup_s":2,"measure_s":5}' \
        --cell a:0-7 -- java -jar sut.jar >"$TEST_TMP/def.json"

filled=$(env SLURM_HET_SIZE=3 SLURM_JOB_NODELIST_HET_GROUP_0=sut01 SLURM_JOB_NODELIST_HET_GROUP_1='bench[02-03]' \
        SLURM_JOB_CPUS_PER_NODE_HET_GROUP_1='8(x2)' SLURM_JOB_NODELIST_HET_GROUP_2=gpu7 SLURM_JOB_CPUS_PER_NODE_HET_GROUP_2=4 \
        "$HETJOB" --print-definition "$TEST_TMP/def.json" 2>"$TEST_TMP/err")
check_eq "load.hosts: components 1 and 2's nodes with their CPUs" \
        '[{"host":"bench02","cpus":"0-7"},{"host":"bench03","cpus":"0-7"},{"host":"gpu7","cpus":"0-3"}]' \
        "$(jq -c .load.hosts <<<"$filled")"
check_eq "load.cpus is dropped, the rest kept" "null 900 sut01:8080" \
        "$(jq -r '"\(.load.cpus) \(.load.rate) \(.load.target | sub("http://"; "") | sub("/work"; ""))"' <<<"$filled")"

filled=$(env SLURM_HET_SIZE=2 SLURM_JOB_NODELIST_HET_GROUP_1='n[1,3-4]' SLICELAB_LOAD_CPUS=2-3 \
        "$HETJOB" --print-definition "$TEST_TMP/def.json" 2>"$TEST_TMP/err")
check_eq "SLICELAB_LOAD_CPUS for every load host" '[{"host":"n1","cpus":"2-3"},{"host":"n3","cpus":"2-3"},{"host":"n4","cpus":"2-3"}]' \
        "$(jq -c .load.hosts <<<"$filled")"

# refused: exit status 1 and a message saying why
refused() { # NAME PATTERN ENV...
        local name=$1 pattern=$2
        shift 2
        env "$@" "$HETJOB" --print-definition "$TEST_TMP/def.json" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
        check_eq "$name: refused" 1 "$?"
        check_match "$name: says why" "$pattern" "$(cat "$TEST_TMP/err")"
}
refused "one component" "not a heterogeneous job" SLURM_HET_SIZE=1
refused "no SLURM_HET_SIZE" "not a heterogeneous job" SLURM_HET_SIZE=
refused "a component's list missing" "SLURM_JOB_NODELIST_HET_GROUP_2 is not set" SLURM_HET_SIZE=3 SLURM_JOB_NODELIST_HET_GROUP_1=a \
        SLICELAB_LOAD_CPUS=0
refused "no CPU count" "no CPU count for a" SLURM_HET_SIZE=2 SLURM_JOB_NODELIST_HET_GROUP_1=a
refused "an unreadable CPU count" "cannot read the CPU counts" SLURM_HET_SIZE=2 SLURM_JOB_NODELIST_HET_GROUP_1=a \
        SLURM_JOB_CPUS_PER_NODE_HET_GROUP_1='8x'
finish
