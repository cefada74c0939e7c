#!/bin/bash
# tests/bench/ui.sh: how fast the dashboard's run view is. Prints figures; asserts nothing.
#  - GET .../timeline/buckets of a 1 M-record run (1000 buckets over the whole run, and 5000),
#    best and p50 of 20 (the finished run's ETag is not sent: each is computed)
#  - the run view of that run in headless chromium: from navigation to its charts drawn
#    ("interactive"), best and median of 5 fresh page loads
# Goals on the 2-core build machine: buckets <= 200 ms, run view <= 2 s.
# Usage: tests/bench/ui.sh [BUILD_DIR]   (default: build)
set -eu
cd "$(dirname "$0")/../.."
export SLICELAB_SRC=$PWD SLICELAB_BUILD=$(cd "${1:-build}" && pwd)
. tests/lib.sh
. tests/bench/bench-lib.sh
set +u

N=1000000
daemon_start --cgroup-root "slicelab-benchui$$" >/dev/null
bench_synth_experiment bench-ui "$N" 5000 100000
RUN=$(first_run "$EXP_ID")
wait_for 600 run_finished "$RUN"
records=$(curl -s "$DAEMON_URL/v1/runs/$RUN/timeline/buckets?width_ms=1000&phase=all" | jq '.count | add')

stats() { sort -n | awk '{ v[NR] = $1 } END { printf "best %.1f ms, p50 %.1f ms (n=%d)", v[1] * 1000, v[int(NR * 0.5 + 0.999)] * 1000, NR }'; }
for width in 200 40; do
        for _ in $(seq 20); do
                curl -s -o /dev/null -w '%{time_total}\n' "$DAEMON_URL/v1/runs/$RUN/timeline/buckets?width_ms=$width&phase=all"
        done | stats | sed "s/^/buckets:   $records records in $((200000 / width)) buckets of $width ms: /"
        echo
done

bash tests/openapi/install-deps.sh tests/ui >/dev/null
URL=$DAEMON_URL RUN=$RUN node - <<'JS'
const { chromium } = require(process.cwd() + '/tests/ui/node_modules/playwright-core');
(async () => {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  const times = [];
  for (let i = 0; i < 5; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const t0 = Date.now();
    await page.goto(`${process.env.URL}/#/runs/${process.env.RUN}`);
    await page.waitForSelector('#latency-chart[data-ready][data-drawn]', { timeout: 30000 });
    times.push(Date.now() - t0);
    await context.close();
  }
  await browser.close();
  times.sort((a, b) => a - b);
  console.log(`run view:  charts drawn ${times[0]} ms best, ${times[2]} ms median of 5 loads (1280x800, headless chromium)`);
})();
JS
finish >/dev/null || true
