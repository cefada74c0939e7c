#!/bin/bash
# contrib/demo.sh: the main job on a fresh Debian 12 machine as root. Installs the build
# dependencies, builds slicelab, starts slicelabd on its embedded defaults (127.0.0.1:7878,
# /var/lib/slicelab) unless one already answers there, runs the seed experiment (4 CPUs at 100%
# vs 8 CPUs at a 50% quota, with and without container support) scaled to this host, shows its
# progress, and prints the seed-style table per cell, all through the client (slicelab(1)).
#   --full   the example's real phases (10 iterations of 240 s measure), each run's warmup ended
#            by the daemon once the JVM is steady (load.warmup_s "auto", at most 120 s)
set -eu
cd "$(dirname "$0")/.."
URL=${SLICELAB_URL:-http://127.0.0.1:7878}
STATE_DIR=${SLICELAB_STATE_DIR:-/var/lib/slicelab}
FULL=0
[ "${1:-}" = "--full" ] && FULL=1

# bash-completion and man-db: `man slicelab` and completion at the prompt, which a minimal
# image may lack.
packages=(build-essential meson ninja-build pkg-config libmicrohttpd-dev libcjson-dev libsqlite3-dev
          libsystemd-dev libcgroup-dev libcmocka-dev libcurl4-openssl-dev curl jq openjdk-17-jdk-headless libjs-chart.js zlib1g-dev
          bash-completion man-db)
missing=()
for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
        echo "== installing ${missing[*]}"
        DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

echo "== building"
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
# Everything a user reads about afterwards: the programs, the workloads the examples name
# (/usr/local/share/slicelab/slicelab-sut.jar), the man pages, the bash completion, the examples
# and openapi.yaml, the commented config file. The runs' processes are the slicelab user's, who
# may not reach this checkout (under /root, say): the daemon, its injector and the workloads run
# from where they are installed.
echo "== installing (meson install: programs, workloads, man pages, bash completion, examples)"
meson install -C build --quiet >/dev/null
option() { meson introspect build --buildoptions | jq -r --arg n "$1" '.[] | select(.name == $n) | .value'; }
PREFIX=$(option prefix)
SBINDIR=$(option sbindir)
BINDIR=$(option bindir)
DATADIR=$(option datadir)

# The runs' processes are the slicelab user's (slicelabd's default --run-as; units/sysusers.conf
# makes it where systemd installs the units).
if ! id -u slicelab >/dev/null 2>&1; then
        echo "== creating the system user slicelab"
        useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin slicelab
fi

# The client, slicelab(1), does the talking (the token from the state dir): the installed one,
# as a user would run it.
SL="$PREFIX/$BINDIR/slicelab"
export SLICELAB_URL=$URL SLICELAB_STATE_DIR=$STATE_DIR

if "$SL" health >/dev/null 2>&1; then
        echo "== a slicelabd already answers at $URL"
else
        echo "== starting slicelabd on its defaults (log: /tmp/slicelabd.log)"
        nohup "$PREFIX/$SBINDIR/slicelabd" >/tmp/slicelabd.log 2>&1 &
        echo $! >/tmp/slicelabd.pid
        # No notify socket here: ask the API itself until it answers (or the daemon died).
        for _ in $(seq 1 300); do
                "$SL" health >/dev/null 2>&1 && break
                kill -0 "$(cat /tmp/slicelabd.pid)" 2>/dev/null || { cat /tmp/slicelabd.log; exit 1; }
                sleep 0.1
        done
fi
"$SL" health

# The seed's cells on this host: the load on the first CPUs, the JVM on the rest; cell A gets
# half of the JVM's CPUs, cells B and C all of them with a quota of half.
N=$(nproc)
if [ "$N" -ge 4 ]; then
        L=$((N / 4)); HALF=$(((N - L) / 2))
        LOAD="0-$((L - 1))"; A="$L-$((L + HALF - 1))"; B="$L-$((L + 2 * HALF - 1))"; Q=$HALF
else
        LOAD="0"; A="$((N - 1))"; B="0-$((N - 1))"; Q=$(awk -v n="$N" 'BEGIN { printf "%.1f", n / 2 }')
fi
JAR="$PREFIX/$DATADIR/slicelab/slicelab-sut.jar"
if [ "$FULL" -eq 1 ]; then PHASES='.load.warmup_s = "auto" | .load.warmup_max_s = 120'; else
        # Short phases, and the load closed-loop (as the seed's JMeter): each cell's peak throughput.
        PHASES='.iterations = 3 | .load.warmup_s = 5 | .load.measure_s = 10 | .load.mode = "max" | del(.load.rate)
                 | del(.load.arrival) | .load.connections = 8
                 | .sut.command[1] = "-Xms256m" | .sut.command[2] = "-Xmx256m" | .sut.memory_max = "1G"'
fi
DEF=$(jq -c --arg jar "$JAR" --arg load "$LOAD" --arg a "$A" --arg b "$B" --argjson q "$Q" "
        .sut.command |= map(if endswith(\"slicelab-sut.jar\") then \$jar else . end)
        | .sut.command[-1] = \"19080\" | .sut.ready.http = \"http://127.0.0.1:19080/health\"
        | .load.target = \"http://127.0.0.1:19080/work?cpu_us=200&alloc_kb=64\"
        | .load.cpus = \$load | .cells[0].cpus = \$a | .cells[1].cpus = \$b | .cells[1].cpu_quota = \$q
        | .cells[2].cpus = \$b | .cells[2].cpu_quota = \$q
        | .cells[0].name = \"cpus-\(\$a)\" | .cells[1].name = \"cpus-\(\$b)-quota-\(\$q)\"
        | .cells[2].name = \"cpus-\(\$b)-quota-\(\$q)-nocs\"
        | $PHASES" contrib/examples/quota-vs-cpuset.json)

echo "== slicelab submit (cells: $A; $B at quota $Q; $B at quota $Q without container support; load on $LOAD)"
ID=$("$SL" submit - <<<"$DEF")
echo "experiment $ID"
STATUS=0
"$SL" wait "$ID" || STATUS=$?
echo
"$SL" report "$ID" || STATUS=$?
echo
echo "The findings above say why the cells differ; their evidence: $SL findings $ID --json"
echo "More: slicelab report $ID --json | jq .   (slicelab --help, man slicelab; tab completes in a new bash)"
echo "Examples and the API description: $PREFIX/$DATADIR/slicelab/ (examples/, openapi.yaml)"
echo "slicelabd keeps running (pid $(cat /tmp/slicelabd.pid 2>/dev/null || echo '?')); stop it with: kill \$(cat /tmp/slicelabd.pid)"
exit "$STATUS"
