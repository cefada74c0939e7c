// views.js: the dashboard in a real browser (Debian's chromium, headless, driven by
// playwright-core) against a real daemon with real finished runs. Called by ui.sh with the
// daemon and the things it made in the environment; prints TAP-like lines that ui.sh counts:
// "ok - NAME" / "not ok - NAME" / "# comment".
//   URL XSS_EXP GC_RUN QUEUED_EXP BLOCKER_EXP SPIN_EXP WRITE_TOKEN SERIES_LABEL
//   PROFILE_EXP PROFILE_RUN LARGE_RUN PROFILE_FOLDED_DIR PEERS HOSTS_RUN BISECTION node views.js
// (each group of views runs when its variables are set: PROFILE_* are profile-data.sh's; PEERS,
// "HOST yes|no,..." as GET /v1/peers answered, tests/peers/multi-host.sh's load hosts)
// QUEUED_EXP waits behind BLOCKER_EXP, which holds the machine until this cancels it.
'use strict';
const { chromium } = require('playwright-core');

const URL = process.env.URL, XSS_EXP = process.env.XSS_EXP, GC_RUN = process.env.GC_RUN, QUEUED_EXP = process.env.QUEUED_EXP;
const BLOCKER_EXP = process.env.BLOCKER_EXP, WRITE_TOKEN = process.env.WRITE_TOKEN, SPIN_EXP = process.env.SPIN_EXP;
const SERIES_LABEL = process.env.SERIES_LABEL, PROFILE_EXP = process.env.PROFILE_EXP;
const PROFILE_RUN = process.env.PROFILE_RUN, LARGE_RUN = process.env.LARGE_RUN;
const PEERS = process.env.PEERS, HOSTS_RUN = process.env.HOSTS_RUN, BISECTION = process.env.BISECTION;
const XSS_NAME = '<img src=x onerror=alert(1)>';
let failed = 0;

function ok(cond, name, detail) {
  if (cond) console.log(`ok - ${name}`);
  else {
    failed++;
    console.log(`not ok - ${name}`);
    if (detail !== undefined) console.log(`#   ${String(detail).split('\n').join('\n#   ')}`);
  }
}

async function openPage(browser, opts) {
  const context = await browser.newContext({ viewport: opts && opts.viewport || { width: 1280, height: 800 } });
  const page = await context.newPage();
  const problems = { console: [], failed: [], dialogs: [], http: [] };
  page.on('console', m => {
    if (m.type() !== 'error') return;
    const where = m.location() && m.location().url || '';
    problems.console.push(`${m.text()} (${where})`);
  });
  page.on('pageerror', e => problems.console.push('page error: ' + e.message));
  page.on('requestfailed', r => problems.failed.push(`${r.url()}: ${r.failure() && r.failure().errorText}`));
  page.on('response', r => {
    if (r.status() >= 400) problems.http.push(`${r.status()} ${r.url()}`);
  });
  page.on('dialog', d => {
    problems.dialogs.push(d.message());
    d.dismiss().catch(() => {});
  });
  return { context, page, problems };
}

async function loadView(browser, hash, waitFor, name, opts) {
  const v = await openPage(browser, opts);
  const navigations = [];
  v.page.on('framenavigated', f => { if (f === v.page.mainFrame()) navigations.push(f.url()); });
  v.navigations = navigations;
  const t0 = Date.now();
  await v.page.goto(`${URL}/${hash}`);
  try {
    await v.page.waitForSelector(waitFor, { timeout: 20000 });
    await v.page.waitForFunction(() => document.getElementById('view').dataset.loaded, null, { timeout: 20000 });
  } catch (e) {
    ok(false, `${name}: the view shows ${waitFor}`, e.message);
  }
  v.ms = Date.now() - t0;
  return v;
}

function clean(v, name) {
  ok(v.problems.console.length === 0, `${name}: no console error`, v.problems.console.join('\n'));
  ok(v.problems.failed.length === 0 && v.problems.http.length === 0, `${name}: no failed request`, v.problems.failed.concat(v.problems.http).join('\n'));
  ok(v.problems.dialogs.length === 0, `${name}: no dialog opened`, v.problems.dialogs.join('\n'));
}

async function experimentsView(browser) {
  const v = await loadView(browser, '#/', '#experiments table', 'experiments');
  const names = await v.page.$$eval('.exp-name', as => as.map(a => a.textContent));
  ok(names.includes(XSS_NAME), 'experiments: the experiment named <img src=x onerror=alert(1)> shows that text', names.join(' | '));
  ok(await v.page.$('img') === null, 'experiments: no <img> element was made from a name');
  // Let a poll or two go by: a dialog would open on any later render too.
  await v.page.waitForTimeout(2500);
  clean(v, 'experiments');
  await v.context.close();
}

async function queuedToRunning(browser) {
  const v = await loadView(browser, '#/', `tr[data-id="${QUEUED_EXP}"]`, 'experiments (live)');
  const status = () => v.page.$eval(`tr[data-id="${QUEUED_EXP}"] .exp-status`, e => e.textContent);
  const first = await status();
  ok(first === 'queued', 'experiments: the waiting experiment shows queued', first);
  await v.page.evaluate(() => { window.__noReload = true; });
  // The blocker ends when the page has shown the wait, never on a clock that a slow start of
  // the browser could outlast.
  const cancel = await fetch(`${URL}/v1/experiments/${BLOCKER_EXP}`,
    { method: 'DELETE', headers: { Authorization: `Bearer ${WRITE_TOKEN}` } });
  ok(cancel.status === 202, 'experiments: the blocker is cancelled', cancel.status);
  try {
    await v.page.waitForFunction(id => {
      const e = document.querySelector(`tr[data-id="${id}"] .exp-status`);
      return e && e.textContent === 'running';
    }, QUEUED_EXP, { timeout: 60000, polling: 100 });
    ok(true, 'experiments: it changes to running in place');
  } catch (e) {
    ok(false, 'experiments: it changes to running in place', `still ${await status()}`);
  }
  ok(await v.page.evaluate(() => window.__noReload === true) && v.navigations.length === 1,
    'experiments: without a reload', v.navigations.join(' '));
  clean(v, 'experiments (live)');
  await v.context.close();
}

async function experimentView(browser) {
  const v = await loadView(browser, `#/experiments/${XSS_EXP}`, '#report table', 'experiment');
  ok(await v.page.$eval('#exp-title', e => e.textContent) === XSS_NAME, 'experiment: the name shows as text in the title');
  ok(await v.page.$('img') === null, 'experiment: no <img> element was made from the name');
  const cells = await v.page.$$eval('#report tbody tr', rows => rows.length);
  ok(cells === 2, 'experiment: one row per cell', cells);
  await v.page.waitForSelector('#metric-charts canvas[data-drawn]');
  const charts = await v.page.$$eval('#metric-charts canvas', cs => cs.map(c => Number(c.dataset.points)));
  ok(charts.length >= 4 && charts.every(n => n === 2), 'experiment: a chart per metric with a bar per cell', charts.join(','));
  const intervals = await v.page.$$eval('#report tbody .ci', es => es.map(e => e.textContent));
  ok(intervals.length > 0 && intervals.every(t => /^(geo\. mean|mean) [^ ]+ \[/.test(t) || t.startsWith('×')),
    'experiment: every interval in the report names the mean it belongs to', intervals.join(' | '));
  const report = await (await fetch(`${URL}/v1/experiments/${XSS_EXP}/report`)).json();
  const classes = await v.page.$$eval('#report tbody .steady-classes', tds => tds.map(t => t.textContent));
  const want = report.cells.map(c => !c.steady_state ? '–' : Object.entries(c.steady_state.classes).filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`).join(', ') + (c.steady_state.consistent === false ? '; not consistent' : ''));
  ok(classes.join('|') === want.join('|'), 'experiment: each cell\'s steady-state classes, as the report\'s', `${classes.join('|')} vs ${want.join('|')}`);
  const runs = await v.page.$$eval('#runs a', as => as.map(a => a.getAttribute('href')));
  ok(runs.length === 4 && runs.every(h => h.startsWith('#/runs/')), 'experiment: its runs link to their views', runs.join(' '));
  clean(v, 'experiment');
  await v.context.close();
}

// A benchmark held to a hundredth of a CPU: its throttled periods are a share of its CFS periods, and
// the chart and the cells' table say it in %.
async function throttledView(browser) {
  const v = await loadView(browser, `#/experiments/${SPIN_EXP}`, '#metric-charts canvas[data-drawn]', 'throttled');
  const throttled = await v.page.evaluate(() => {
    const c = [...document.querySelectorAll('#metric-charts canvas')].find(x => /^Throttled periods \(%\)/.test(x.getAttribute('aria-label')));
    return c ? Chart.getChart(c).scales.y.ticks.map(t => t.label) : null;
  });
  ok(throttled && throttled.length > 1 && throttled.every(l => /^[0-9.,]+%$/.test(l)),
    'experiment: the throttled periods chart is a percentage and its axis says %', throttled && throttled.join(' '));
  const share = await v.page.$$eval('#report thead th', ths => {
    const i = ths.findIndex(th => th.textContent === 'Throttled periods (%)');
    return i < 0 ? null : document.querySelector('#report tbody tr').children[i].firstChild.textContent;
  });
  ok(/^[1-9][0-9.,]*%$/.test(share), 'experiment: so does its column of the cells\' table', share);
  /* the stop rule as the report's sequential says it, each figure as the JSON has it */
  const seq = (await (await fetch(`${URL}/v1/experiments/${SPIN_EXP}/report`)).json()).sequential;
  const shown = await v.page.evaluate(() => {
    const state = document.querySelector('#stop-state');
    const row = document.querySelector('#stop-rule tr.comparison');
    return state && row ? { state: state.textContent, cells: [...row.children].map(td => td.textContent) } : null;
  });
  const c = seq && seq.comparisons[0];
  ok(shown && c && shown.state.startsWith(`${seq.state} after ${seq.rounds} of at most 6 rounds`),
    'experiment: the stop rule section says where the rule stands', JSON.stringify(shown));
  ok(shown && c && shown.cells[0] === 'hundredth' && shown.cells[1] === 'whole' && shown.cells[2] === 'ops_per_s' &&
    shown.cells[3] === c.decision && shown.cells[4] === String(c.round) && c.decision === 'different' &&
    shown.cells[5] === c.ratio.toLocaleString('en-US', { maximumFractionDigits: 3 }),
    'experiment: and each comparison with its decision, round and ratio, as the JSON has them', JSON.stringify({ shown, c }));
  clean(v, 'throttled');
  await v.context.close();
}

async function runView(browser, viewport, label) {
  const v = await openPage(browser, { viewport });
  let bucketsCount = null;
  v.page.on('response', async r => {
    if (r.url().includes('/timeline/buckets') && r.status() === 200) bucketsCount = (await r.json()).t_ms.length;
  });
  await v.page.goto(`${URL}/#/runs/${GC_RUN}`);
  try {
    await v.page.waitForSelector('#latency-chart[data-ready][data-drawn]', { timeout: 20000 });
  } catch (e) {
    ok(false, `run${label}: the latency chart is drawn`, e.message);
  }
  const d = await v.page.$eval('#latency-chart', c => ({ ...c.dataset }));
  ok(bucketsCount > 0 && Number(d.points) === bucketsCount && Number(d.buckets) === bucketsCount,
    `run${label}: the chart drew as many buckets as the endpoint returned`, `endpoint ${bucketsCount}, drawn ${d.points}`);
  ok(Number(d.gcBands) > 0, `run${label}: GC bands are drawn where the run has GC events`, `bands ${d.gcBands}`);
  /* the run's steady state, as its metrics say: in words, and its segments on the chart */
  const ss = (await (await fetch(`${URL}/v1/runs/${GC_RUN}`)).json()).metrics.steady_state;
  const shown = await v.page.evaluate(() => {
    const ch = Chart.getChart(document.getElementById('latency-chart'));
    const seg = ch.data.datasets.find(x => /^steady-state segments/.test(x.label));
    return { text: document.querySelector('#steady-state').textContent, segPoints: seg ? seg.data.length : 0 };
  });
  ok(ss ? shown.text.includes(`${ss.class}: `) && shown.segPoints === 3 * ss.segments.length
        : /not classified/.test(shown.text),
    `run${label}: the steady state in words and its segments on the chart, as the run's metrics`,
    JSON.stringify({ shown, ss: ss && { class: ss.class, segments: ss.segments.length } }));
  // Every label of the latency axis fits in the axis's fixed width (the widest, "10,000,000.0",
  // was cut off at the left) and below the top edge, and carries its unit.
  const axis = await v.page.evaluate(() => {
    const ch = Chart.getChart(document.getElementById('latency-chart')), y = ch.scales.y;
    const font = Chart.helpers.toFont(y.options.ticks.font);
    const labels = y.ticks.map(t => t.label).filter(Boolean);
    ch.ctx.save();
    ch.ctx.font = font.string;
    const widest = Math.max(...labels.map(l => ch.ctx.measureText(l).width));
    ch.ctx.restore();
    const room = y.width - y.options.ticks.padding - (y.options.grid.drawTicks ? y.options.grid.tickLength : 0);
    return { labels, widest, room, top: ch.chartArea.top, half: font.lineHeight / 2 };
  });
  ok(axis.labels.length > 1 && axis.widest <= axis.room && axis.top >= axis.half && axis.labels.every(l => /[0-9] (µs|ms|s)$/.test(l)),
    `run${label}: the latency axis's labels fit beside it, whole, with their unit`, JSON.stringify(axis));
  const warnings = await v.page.$$eval('#warnings li', ls => ls.length);
  ok(warnings > 0, `run${label}: the run's warnings are listed`);
  if (!label) {
    // Zoom on the first half: finer buckets come from the endpoint.
    const before = bucketsCount;
    bucketsCount = null;
    const from = await v.page.$eval('#zoom-from', e => Number(e.value));
    await v.page.fill('#zoom-to', String(from + 1000));
    await v.page.click('#zoom');
    await v.page.waitForFunction(() => /buckets of/.test(document.getElementById('bucket-info').textContent) && document.getElementById('latency-chart').dataset.buckets);
    await v.page.waitForFunction(b => document.getElementById('latency-chart').dataset.buckets !== String(b), before).catch(() => {});
    const after = await v.page.$eval('#latency-chart', c => Number(c.dataset.points));
    ok(bucketsCount > 0 && after === bucketsCount, 'run: zooming fetches finer buckets and draws them all', `endpoint ${bucketsCount}, drawn ${after}`);
    const [dl] = await Promise.all([v.page.waitForEvent('download'), v.page.click('text=timeline CSV')]);
    const csv = require('fs').readFileSync(await dl.path(), 'utf8').split('\n');
    ok(csv[0] === 'scheduled_ns,submit_ns,done_ns,status,error,bytes,conn,flags' && csv.length > 1000,
      'run: the CSV link downloads the timeline as CSV', csv[0]);
    await v.page.screenshot({ path: process.env.SHOTS ? `${process.env.SHOTS}/run.png` : '/dev/null' }).catch(() => {});
  }
  const overflow = await v.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  ok(overflow <= 0, `run${label}: nothing wider than the window`, `${overflow} px too wide`);
  clean(v, `run${label}`);
  await v.context.close();
}

async function compareView(browser) {
  const v = await loadView(browser, `#/compare?a=${XSS_EXP}&b=${XSS_EXP}`, '#view form', 'compare');
  const text = await v.page.$eval('#view', e => e.textContent);
  ok(/Compare experiments/.test(text), 'compare: the view loads');
  const rows = await v.page.$$eval('#view table tbody tr th', ths => ths.map(t => t.textContent));
  ok(rows.includes('throughput_rps'), 'compare: the matched cells\' metrics are listed, throughput among them', rows.join(' '));
  ok(/against/.test(text) && /B\/A/.test(text), 'compare: each pair of cells is named, with the ratio column');
  clean(v, 'compare');
  await v.context.close();
}

// Eight experiments whose figure steps from 100 to 150 after the fourth: the chart draws the eight
// values, the change point is listed between #3 and #4 with its why, and its link opens the
// comparison of the two experiments' cells, which names the field that differs.
async function seriesView(browser) {
  const hash = `#/series?label=${encodeURIComponent(SERIES_LABEL)}&cell=B&metric=ops_per_s&alpha=0.1&min_segment=2`;
  const v = await loadView(browser, hash, '#series-chart[data-drawn]', 'series');
  ok(await v.page.$eval('#series-chart', c => c.dataset.points) === '8', 'series: the chart drew the eight experiments');
  const cps = await v.page.$$eval('tr.change-point', rows => rows.map(r => r.textContent));
  ok(cps.length === 1 && /#3 → #4/.test(cps[0]) && /\+50/.test(cps[0]), 'series: one change point, between #3 and #4, +50%', cps.join(' | '));
  ok(/sut\.command/.test(cps[0] || ''), 'series: its why names the definition field that changed', cps.join(' | '));
  ok(await v.page.$$eval('tr.series-point', rows => rows.length) === 8, 'series: the table lists the eight experiments');
  await v.page.click('a.cp-compare');
  await v.page.waitForFunction(() => /^#\/compare\?a=/.test(location.hash) && document.querySelector('#view table'), null, { timeout: 20000 });
  const text = await v.page.$eval('#view', e => e.textContent);
  ok(/B \(A\) against B \(B\)/.test(text) && /sut\.command/.test(text), 'series: the change point opens the compare of the two experiments\' cells', text.slice(0, 300));
  clean(v, 'series');
  await v.context.close();
}

// A real bisection that found its version: its row in the list says what the API says, its
// link opens its view, which draws the versions in order, a bar per step over the two versions
// it compared linking to the step's experiment, the found version and the last unchanged marked,
// and the daemon's own result sentence.
async function bisectionViews(browser) {
  const b = await (await fetch(`${URL}/v1/bisections/${BISECTION}`)).json();
  let v = await loadView(browser, '#/bisections', `#bisections tr[data-id="${BISECTION}"]`, 'bisections');
  const row = await v.page.$eval(`#bisections tr[data-id="${BISECTION}"]`, tr => ['.bis-name', '.bis-status', '.bis-outcome',
    '.bis-first-changed', '.bis-last-unchanged'].map(c => tr.querySelector(c).textContent));
  const want = [b.name, b.status, b.result.outcome, b.result.first_changed, b.result.last_unchanged];
  ok(JSON.stringify(row) === JSON.stringify(want), 'bisections: the list shows its name, status, outcome, first changed and last unchanged',
    `${row.join(' | ')} vs ${want.join(' | ')}`);
  await v.page.click(`#bisections tr[data-id="${BISECTION}"] a.bis-name`);
  await v.page.waitForSelector('#bisection-axis', { timeout: 20000 });
  clean(v, 'bisections');
  await v.context.close();

  v = await loadView(browser, `#/bisections/${BISECTION}`, '#bisection-axis', 'bisection');
  const shown = await v.page.evaluate(() => {
    const box = e => { const r = e.getBoundingClientRect(); return { left: r.left, right: r.right }; };
    const versions = [...document.querySelectorAll('#bisection-axis .bis-version')];
    return {
      versions: versions.map(e => ({ name: e.dataset.version, ...box(e) })),
      steps: [...document.querySelectorAll('#bisection-axis .bis-step')].map(e => ({
        step: Number(e.dataset.step), href: e.querySelector('a').getAttribute('href'), text: e.textContent, ...box(e) })),
      first: [...document.querySelectorAll('#bisection-axis .bis-version.first-changed')].map(e => e.dataset.version),
      last: [...document.querySelectorAll('#bisection-axis .bis-version.last-unchanged')].map(e => e.dataset.version),
      result: document.getElementById('bis-result').textContent,
    };
  });
  ok(shown.versions.map(x => x.name).join() === b.versions.join() && shown.versions.every((x, i) => i === 0 || x.left >= shown.versions[i - 1].right - 1),
    'bisection: the versions in order, left to right', JSON.stringify(shown.versions));
  ok(shown.steps.length === b.steps.length && b.steps.length === 2, 'bisection: one bar per step (2)', JSON.stringify(shown.steps));
  const at = name => shown.versions.find(x => x.name === name);
  const bad = b.steps.filter((s, i) => {
    const d = shown.steps[i];
    return !d || d.step !== s.step || d.href !== `#/experiments/${s.experiment_id}` || !d.text.startsWith(s.decision) ||
      Math.abs(d.left - at(s.versions[0]).left) > 20 || Math.abs(d.right - at(s.versions[1]).right) > 20;
  });
  ok(bad.length === 0, 'bisection: each bar spans its two versions, says its decision and links its experiment',
    JSON.stringify({ bad, shown: shown.steps }));
  ok(shown.first.join() === b.result.first_changed && shown.last.join() === b.result.last_unchanged,
    'bisection: the first changed and the last unchanged version are marked', JSON.stringify(shown));
  ok(shown.result.endsWith(b.message) && shown.result.startsWith('found'), 'bisection: the result as the daemon says it', shown.result);
  await v.page.screenshot({ path: process.env.SHOTS ? `${process.env.SHOTS}/bisection.png` : '/dev/null' }).catch(() => {});
  await v.page.click('#bisection-axis .bis-step a');
  await v.page.waitForSelector('#report table', { timeout: 20000 });
  ok(await v.page.evaluate(() => location.hash) === `#/experiments/${b.steps[0].experiment_id}`, 'bisection: a step\'s link opens its experiment');
  clean(v, 'bisection');
  await v.context.close();
}

// ---- profiles: flame graphs --------------------------------------------------------------
// The folded text profile-data.sh wrote, parsed here on its own: every frame name of a cell's
// stacks below the group, with its samples (a frame's total: its lines' counts).
function foldedFrames(text) {
  const frames = new Map();
  let samples = 0;
  for (const line of text.split('\n').filter(Boolean)) {
    const sp = line.lastIndexOf(' '), n = Number(line.slice(sp + 1));
    samples += n;
    const names = line.slice(0, sp).split(';');
    names.forEach((name, i) => {
      const key = names.slice(0, i + 1).join(';');
      frames.set(key, (frames.get(key) || 0) + n);
    });
  }
  return { frames, samples };
}

const drawnFrames = page => page.$eval('#flame', c => c.flameRects);
// The colour of a frame's rectangle where no text is drawn (its top right corner), from the
// canvas's own pixels.
const pixelOf = (page, r) => page.$eval('#flame', (c, r) => {
  const dpr = c.width / c.getBoundingClientRect().width;
  const d = c.getContext('2d').getImageData(Math.floor((r.x + r.w - 3) * dpr), Math.floor((r.y + 1) * dpr), 1, 1).data;
  return [d[0], d[1], d[2]];
}, r);
async function hover(page, r) {
  const b = await page.$eval('#flame', c => { const x = c.getBoundingClientRect(); return { left: x.left, top: x.top }; });
  await page.mouse.move(b.left + r.x + r.w / 2, b.top + r.y + r.h / 2);
  await page.waitForSelector('#flame-tip:not([hidden])', { timeout: 5000 });
  return page.$eval('#flame-tip', t => t.textContent);
}
// The widths a flame graph owes its frames: a frame's samples over all samples, of the width.
function widthsAgree(rects, expected, samples, width) {
  const bad = [];
  for (const r of rects.filter(x => !x.merged && x.depth > 0)) {
    const want = expected.get(r.path) / samples * width;
    if (!(Math.abs(r.w - want) < 0.5)) bad.push(`${r.path}: ${r.w} px, want ${want}`);
  }
  return bad;
}
// Each drawn rectangle's path from the group down, from the rows above it.
function withPaths(rects) {
  const byDepth = [];
  for (const r of rects) (byDepth[r.depth] = byDepth[r.depth] || []).push(r);
  for (const r of rects) {
    if (r.depth === 0) continue;
    const parent = r.depth === 1 ? null : byDepth[r.depth - 1].find(p => !p.merged && p.x <= r.x + 0.01 && r.x + r.w <= p.x + p.w + 0.01);
    r.path = parent ? `${parent.path};${r.name}` : r.name;
  }
  return rects;
}
const pts = v => `${v > 0 ? '+' : ''}${(v * 100).toLocaleString('en-US', { maximumFractionDigits: 2 })} pts`;
const share = v => `${(v * 100).toLocaleString('en-US', { maximumFractionDigits: 2 })}%`;

async function profileViews(browser) {
  const file = cell => require('fs').readFileSync(`${process.env.PROFILE_FOLDED_DIR}/${cell}.folded`, 'utf8');
  const base = foldedFrames(file('base')), alloc = foldedFrames(file('alloc'));

  // The experiment lists its cells' flame graphs; the differential link opens alloc against base.
  let v = await loadView(browser, `#/experiments/${PROFILE_EXP}`, '#profiles a.cell-diff-flame', 'profile: experiment');
  const links = await v.page.$$eval('#profiles a', as => as.map(a => a.textContent));
  ok(links.join('|') === 'base: flame graph|alloc: flame graph|against base', 'profile: the experiment links each cell\'s flame graph and alloc against base', links.join('|'));
  await v.page.click('#profiles a.cell-diff-flame');
  await v.page.waitForSelector('#flame[data-ready]', { timeout: 20000 });
  ok(/cell=alloc&baseline=base/.test(await v.page.evaluate(() => location.hash)), 'profile: the link opens the differential view');

  // The differential flame graph: alloc's frames with its widths, coloured by the sign of the
  // difference the API reports, the interval in the hover text.
  const rects = withPaths(await drawnFrames(v.page));
  const width = rects[0].w;
  const drawn = rects.filter(r => r.depth > 0).map(r => r.path).sort();
  ok(JSON.stringify(drawn) === JSON.stringify([...alloc.frames.keys()].sort()), 'profile diff: every frame of the cell\'s stacks is drawn, by its name', drawn.join(' | '));
  const badWidths = widthsAgree(rects, alloc.frames, alloc.samples, width);
  ok(badWidths.length === 0, 'profile diff: each frame is as wide as its samples of the cell\'s (3 runs added up)', badWidths.join('\n'));
  const diff = await (await fetch(`${URL}/v1/experiments/${PROFILE_EXP}/profile?cell=alloc&baseline=base&limit=1000`)).json();
  const entry = r => (r.depth === 1 ? diff.groups : diff.frames).find(e => e.name === r.name);
  const colours = [];
  for (const r of rects.filter(x => x.depth > 0)) {
    const e = entry(r), [red, , blue] = await pixelOf(v.page, r), d = e.total.difference.value;
    const sign = red > blue + 10 ? 1 : blue > red + 10 ? -1 : 0;
    colours.push({ name: r.name, d, red, blue, sign, want: Math.sign(d) });
  }
  ok(colours.every(c => c.sign === c.want), 'profile diff: red where the cell\'s share is larger, blue where smaller (the API\'s difference)', JSON.stringify(colours));
  const named = n => colours.find(c => c.name === n) || {};
  ok(named('gc').sign === 1 && named('slicelab.sut.Work.alloc').sign === 1 && named('slicelab.sut.Work.spin').sign === -1,
    'profile diff: gc and Work.alloc red, Work.spin blue, as the data has them', JSON.stringify([named('gc'), named('slicelab.sut.Work.alloc'), named('slicelab.sut.Work.spin')]));
  const spin = rects.find(r => r.name === 'slicelab.sut.Work.spin'), e = entry(spin).total;
  const tipText = await hover(v.page, spin);
  const want = [`slicelab.sut.Work.spin`, `alloc: ${share(e.cell.mean)} [${share(e.cell.ci_low)}, ${share(e.cell.ci_high)}]`,
    `base: ${share(e.baseline.mean)} [${share(e.baseline.ci_low)}, ${share(e.baseline.ci_high)}]`,
    `difference: ${pts(e.difference.value)} [${pts(e.difference.ci_low)}, ${pts(e.difference.ci_high)}], the interval excludes 0`];
  ok(want.every(w => tipText.includes(w)), 'profile diff: hovering Work.spin shows both cells\' shares and the difference with their 95% intervals', `${tipText}\nwanted: ${want.join(' / ')}`);
  await v.page.screenshot({ path: process.env.SHOTS ? `${process.env.SHOTS}/profile-diff.png` : '/dev/null' }).catch(() => {});
  const rows = await v.page.$$eval('tr.profile-frame th', ths => ths.map(t => t.textContent));
  ok(rows.slice(0, diff.groups.length).join() === diff.groups.map(g => g.name).join() && rows.includes('slicelab.sut.Work.alloc'),
    'profile diff: the table lists the groups, then the frames that differ most', rows.join(' | '));
  clean(v, 'profile diff');
  await v.context.close();

  // A cell alone: base's frames, all its runs added up.
  v = await loadView(browser, `#/experiments/${PROFILE_EXP}/profile?cell=base`, '#flame[data-ready]', 'profile: cell');
  const cellRects = withPaths(await drawnFrames(v.page));
  ok(JSON.stringify(cellRects.filter(r => r.depth > 0).map(r => r.path).sort()) === JSON.stringify([...base.frames.keys()].sort()) &&
    widthsAgree(cellRects, base.frames, base.samples, cellRects[0].w).length === 0, 'profile cell: base\'s frames drawn as wide as their samples in its 3 runs',
    widthsAgree(cellRects, base.frames, base.samples, cellRects[0].w).join('\n'));
  // Clicking a frame widens it to the whole width, its ancestors above it.
  const handle = cellRects.find(r => r.name === 'slicelab.sut.Server.handle');
  const b = await v.page.$eval('#flame', c => { const x = c.getBoundingClientRect(); return { left: x.left, top: x.top }; });
  await v.page.mouse.click(b.left + handle.x + handle.w / 2, b.top + handle.y + handle.h / 2);
  await v.page.waitForFunction(() => /widened to/.test(document.getElementById('flame-info').textContent));
  const zoomed = await drawnFrames(v.page);
  ok(Math.abs(zoomed.find(r => r.name === 'slicelab.sut.Server.handle').w - cellRects[0].w) < 0.5, 'profile cell: a click widens the frame to the whole width');
  clean(v, 'profile cell');
  await v.context.close();

  // A run: from its run view's link; the frames of its own profile.folded.
  v = await loadView(browser, `#/runs/${PROFILE_RUN}`, '#run-flame', 'profile: run');
  await v.page.click('#run-flame');
  await v.page.waitForSelector('#flame[data-ready]', { timeout: 20000 });
  const runRects = await drawnFrames(v.page);
  const own = foldedFrames(await (await fetch(`${URL}/v1/runs/${PROFILE_RUN}/profile`)).text());
  const n = own.frames.get('app;java.lang.Thread.run;slicelab.sut.Server.handle;slicelab.sut.Work.spin');
  const tip = await hover(v.page, runRects.find(r => r.name === 'slicelab.sut.Work.spin'));
  ok(tip === `slicelab.sut.Work.spin\n${n} samples (${share(n / own.samples)} of all), ${n} in the frame itself`,
    'profile run: the run\'s flame graph, hover naming the frame and its samples of the run\'s folded text', tip);
  clean(v, 'profile run');
  await v.context.close();

  // A large profile: 3000 frames of one sample each beside one of 30000 are not drawn one by
  // one: they are one grey block that says how many it holds.
  v = await loadView(browser, `#/runs/${LARGE_RUN}/profile`, '#flame[data-ready]', 'profile: large');
  const large = await drawnFrames(v.page);
  await v.page.screenshot({ path: process.env.SHOTS ? `${process.env.SHOTS}/profile-large.png` : '/dev/null' }).catch(() => {});
  const block = large.find(r => r.merged);
  ok(large.filter(r => !r.merged).every(r => r.w >= 2) && large.length < 10, 'profile large: no frame narrower than 2 px is drawn on its own', JSON.stringify(large.map(r => [r.name, r.w])));
  ok(block && block.samples === 3000 && /^3000 frames/.test(block.name), 'profile large: the 3000 narrow frames are one block holding their 3000 samples', JSON.stringify(block));
  clean(v, 'profile large');
  await v.context.close();

  // A run without a profile: the page says so.
  v = await loadView(browser, `#/runs/${GC_RUN}/profile`, '#no-profile', 'profile: none');
  ok(/^No profile for run .*has no profile/.test(await v.page.$eval('#no-profile', e => e.textContent)) && await v.page.$('#flame') === null,
    'profile none: a run without a profile shows why, and no graph');
  // its 404 is the answer the page explains
  v.problems.console = v.problems.console.filter(m => !/404/.test(m));
  v.problems.http = v.problems.http.filter(m => !/^404 .*\/profile\?/.test(m));
  clean(v, 'profile none');
  await v.context.close();
}

// A daemon whose reads need the token: the page asks for it once, keeps it for the tab, and
// sends it; the static files themselves load without it.
async function tokenFlow(browser) {
  const v = await openPage(browser);
  const unauthorized = [];
  v.page.on('response', r => { if (r.status() === 401) unauthorized.push(r.url()); });
  await v.page.goto(`${URL}/#/`);
  await v.page.waitForSelector('#token-input', { state: 'visible', timeout: 20000 });
  ok(unauthorized.length === 1 && /\/v1\/experiments/.test(unauthorized[0]), 'token: the page loads without it and asks for it after one 401', unauthorized.join(' '));
  await v.page.fill('#token-input', process.env.TOKEN);
  await v.page.press('#token-input', 'Enter');
  await v.page.waitForSelector('#experiments > *', { timeout: 20000 });
  ok(await v.page.$eval('#token-form', f => f.hidden), 'token: with it the list shows and the form goes away');
  await v.page.reload();
  await v.page.waitForSelector('#experiments > *', { timeout: 20000 });
  ok(unauthorized.length === 1 && await v.page.$eval('#token-form', f => f.hidden), 'token: a reload of the tab does not ask again (sessionStorage)');
  // The one expected 401 is logged by chromium as a console error; nothing else may be.
  v.problems.console = v.problems.console.filter(m => !/401/.test(m));
  v.problems.http = v.problems.http.filter(m => !/^401 /.test(m));
  clean(v, 'token');
  await v.context.close();
}

// The load hosts' view: each host's row as GET /v1/peers had it (want: "HOST yes|no,..." sorted),
// or, with none, the page says so.
async function peersView(browser, want) {
  const v = await loadView(browser, '#/peers', want ? '#peers table' : '#peers .empty', 'load hosts');
  if (want) {
    const rows = await v.page.$$eval('#peers tbody tr', trs => trs.map(tr =>
      `${tr.dataset.host} ${tr.querySelector('.peer-answers').textContent}`));
    ok(rows.slice().sort().join(',') === want, 'load hosts: a row per host, with whether it answers', rows.join(','));
    const offsets = await v.page.$$eval('#peers .peer-offset', tds => tds.map(t => t.textContent));
    ok(offsets.length > 0 && offsets.every(t => /^[+−][0-9]+\.[0-9]{6} s$/.test(t)), 'load hosts: each clock offset in seconds', offsets.join(','));
  } else {
    ok(/No load host used/.test(await v.page.$eval('#peers', e => e.textContent)), 'load hosts: none used, the view says so');
  }
  clean(v, 'load hosts');
  await v.context.close();
}

/* A two-host run's load hosts in the run view, each row as the run's JSON has it. */
async function loadHostsRunView(browser) {
  const run = await (await fetch(`${URL}/v1/runs/${HOSTS_RUN}`)).json();
  const want = run.metrics.load.hosts.map(h => `${h.host} ${h.requests}`).sort().join(',');
  const v = await loadView(browser, `#/runs/${HOSTS_RUN}`, '#load-hosts table', 'run load hosts');
  const rows = await v.page.$$eval('#load-hosts tr.load-host', trs => trs.map(tr =>
    `${tr.dataset.host} ${tr.querySelector('.host-requests').textContent.replace(/,/g, '')}`));
  ok(rows.slice().sort().join(',') === want, 'run: a row per load host with its requests, as the JSON', `${rows.join(',')} vs ${want}`);
  const offsets = await v.page.$$eval('#load-hosts .host-offset', tds => tds.map(t => t.textContent));
  const wantOffsets = run.metrics.load.hosts.map(h => `${h.offset_ns >= 0 ? '+' : '−'}${Math.abs(h.offset_ns / 1e9).toFixed(6)} s`);
  ok(offsets.slice().sort().join(',') === wantOffsets.sort().join(','), 'run: each host\'s clock offset, as the JSON', offsets.join(','));
  clean(v, 'run load hosts');
  await v.context.close();
}

(async () => {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  try {
    if (process.env.TOKEN) {
      await tokenFlow(browser);
      return;
    }
    if (QUEUED_EXP) await queuedToRunning(browser);
    if (XSS_EXP) {
      await experimentsView(browser);
      await experimentView(browser);
      await throttledView(browser);
      await runView(browser, { width: 1280, height: 800 }, '');
      await runView(browser, { width: 390, height: 800 }, ' (narrow window)');
      await compareView(browser);
      await peersView(browser, null);
    }
    if (PEERS) await peersView(browser, PEERS);
    if (HOSTS_RUN) await loadHostsRunView(browser);
    if (SERIES_LABEL) await seriesView(browser);
    if (BISECTION) await bisectionViews(browser);
    if (PROFILE_EXP) await profileViews(browser);
  } catch (e) {
    ok(false, 'the browser tests ran to their end', e.stack);
  } finally {
    await browser.close();
  }
  process.exit(failed ? 1 : 0);
})();
