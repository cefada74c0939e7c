#!/bin/bash
# contrib/demo.sh: the main job on a fresh Debian 12 machine as root. Installs the build
# dependencies, builds slicelab, starts slicelabd on its embedded defaults (127.0.0.1:7878,
# /var/lib/slicelab) unless one already answers there, and shows what it serves.
set -eu
cd "$(dirname "$0")/.."
SRC=$PWD
URL=${SLICELAB_URL:-http://127.0.0.1:7878}
STATE_DIR=${SLICELAB_STATE_DIR:-/var/lib/slicelab}

packages=(build-essential meson ninja-build pkg-config libmicrohttpd-dev libcjson-dev libsqlite3-dev
          libsystemd-dev libcgroup-dev libcmocka-dev curl jq openjdk-17-jdk-headless)
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

if curl -sf "$URL/v1/health" >/dev/null; then
        echo "== a slicelabd already answers at $URL"
else
        echo "== starting slicelabd (log: /tmp/slicelabd.log)"
        nohup "$SRC/build/slicelabd" >/tmp/slicelabd.log 2>&1 &
        echo $! >/tmp/slicelabd.pid
        for _ in $(seq 1 100); do
                curl -sf "$URL/v1/health" >/dev/null && break
                kill -0 "$(cat /tmp/slicelabd.pid)" 2>/dev/null || { cat /tmp/slicelabd.log; exit 1; }
                sleep 0.1
        done
fi

echo "== GET $URL/v1/health"
curl -s "$URL/v1/health" | jq .
echo
echo "slicelabd is running (pid $(cat /tmp/slicelabd.pid 2>/dev/null || echo '?'))."
echo "API token for mutations: $STATE_DIR/token"
echo "Stop it with: kill \$(cat /tmp/slicelabd.pid)"
