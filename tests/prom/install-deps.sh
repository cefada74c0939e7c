#!/bin/bash
# install-deps.sh: installs the pinned parser into tests/prom/node_modules once.
set -eu
cd "$(dirname "$0")"
[ -d node_modules/parse-prometheus-text-format ] && exit 0
exec 9>.install.lock
flock 9
[ -d node_modules/parse-prometheus-text-format ] && exit 0
npm install --no-audit --no-fund --silent --no-package-lock >/dev/null
