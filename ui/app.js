/* app.js: slicelab's dashboard. Read-only views over the REST API, one hash route each
 * (#/, #/experiments/ID, #/experiments/ID/profile?cell=..&baseline=.., #/runs/ID, #/runs/ID/profile,
 * #/compare?a=..&b=.., #/series?label=..&cell=..&metric=.., #/peers, #/bisections, #/bisections/ID).
 * Every string from the API goes into the page as text (textContent, never innerHTML); polling sends
 * If-None-Match and a 304 costs nothing; the token, when reads need it, is asked once and kept in
 * sessionStorage. */
'use strict';

const POLL_MS = 2000;
const TARGET_BUCKETS = 600;
const view = document.getElementById('view');
let generation = 0;           /* bumped on each navigation: a stale view's work stops */
const charts = [];

/* ---- DOM helpers: elements built with text only --------------------------------------- */

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = String(v);
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function table(headers, rows, caption) {
  const head = el('tr', {}, headers.map(h => el('th', { scope: 'col', class: h.num ? 'num' : null, text: h.label || h })));
  return el('div', { class: 'table-wrap' },
    el('table', {}, caption ? el('caption', { class: 'sub', text: caption }) : null,
      el('thead', {}, head), el('tbody', {}, rows)));
}

function stateBadge(state) {
  return el('span', { class: 'state state-' + String(state).replace(/[^a-z]/g, ''), text: state || 'unknown' });
}

function fmt(v, digits) {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  if (typeof v !== 'number') return String(v);
  const d = digits === undefined ? (Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2) : digits;
  return v.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: 0 });
}

/* µs as people read them on a log axis: 100 µs, 1 ms, 10 s. */
function fmtMicros(v) {
  return v >= 1e6 ? `${fmt(v / 1e6)} s` : v >= 1e3 ? `${fmt(v / 1e3)} ms` : `${fmt(v)} µs`;
}

function fmtTime(s) {
  if (!s) return '–';
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? String(s) : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

function setStatus(text) {
  document.getElementById('status').textContent = text;
}

function showError(where, err) {
  where.append(el('p', { class: 'error', role: 'alert', text: String(err.message || err) }));
}

/* ---- the API: token, ETags -------------------------------------------------------------- */

const etags = new Map();      /* url -> [etag, body] */
let tokenWaiters = null;

function askToken() {
  if (tokenWaiters) return new Promise(r => tokenWaiters.push(r));
  tokenWaiters = [];
  const form = document.getElementById('token-form');
  const input = document.getElementById('token-input');
  form.hidden = false;
  input.focus();
  return new Promise(resolve => {
    tokenWaiters.push(resolve);
    form.addEventListener('submit', ev => {
      ev.preventDefault();
      sessionStorage.setItem('slicelab-token', input.value.trim());
      form.hidden = true;
      const w = tokenWaiters;
      tokenWaiters = null;
      w.forEach(f => f());
    }, { once: true });
  });
}

class ApiError extends Error {
  constructor(status, body) {
    super(body && body.error ? `${status}: ${body.error.message}` : `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

/* GET a JSON resource; {changed:false} when a poll's If-None-Match matched. */
async function api(url, opts) {
  const o = opts || {};
  for (let attempt = 0; attempt < 3; attempt++) {
    const headers = { Accept: 'application/json' };
    const token = sessionStorage.getItem('slicelab-token');
    if (token) headers.Authorization = 'Bearer ' + token;
    const known = etags.get(url);
    if (o.poll && known) headers['If-None-Match'] = known[0];
    const resp = await fetch(url, { headers, cache: 'no-store' });
    if (resp.status === 304 && known) {
      await resp.text();
      return { body: known[1], changed: false };
    }
    if (resp.status === 401) {
      sessionStorage.removeItem('slicelab-token');
      await askToken();
      continue;
    }
    const body = await resp.json().catch(() => null);
    if (!resp.ok) throw new ApiError(resp.status, body);
    const tag = resp.headers.get('ETag');
    if (tag) etags.set(url, [tag, body]);
    return { body, changed: true };
  }
  throw new Error('the token was refused');
}

/* An endpoint another part of slicelab may not have yet: null unless it answers 200. */
async function optional(url) {
  const token = sessionStorage.getItem('slicelab-token');
  const resp = await fetch(url, { headers: token ? { Authorization: 'Bearer ' + token } : {}, cache: 'no-store' });
  if (resp.status !== 200) {
    await resp.text();
    return null;
  }
  return resp.json();
}

function pollEvery(fn) {
  const gen = generation;
  const tick = async () => {
    if (gen !== generation) return;
    try {
      await fn();
      setStatus('updated ' + new Date().toLocaleTimeString());
    } catch (e) {
      setStatus('update failed: ' + e.message);
    }
    if (gen === generation) setTimeout(tick, POLL_MS);
  };
  setTimeout(tick, POLL_MS);
}

/* ---- charts ----------------------------------------------------------------------------- */

/* Bands on the x axis: GC and safepoint pauses, and the warmup, drawn behind the lines. */
const bandsPlugin = {
  id: 'bands',
  beforeDatasetsDraw(chart, args, opts) {
    const { ctx, chartArea: a, scales: { x } } = chart;
    if (!opts.bands || !x) return;
    ctx.save();
    ctx.beginPath();
    ctx.rect(a.left, a.top, a.right - a.left, a.bottom - a.top);
    ctx.clip();
    let drawn = 0;
    for (const b of opts.bands) {
      const x0 = x.getPixelForValue(b.from), x1 = x.getPixelForValue(b.to);
      if (x1 < a.left || x0 > a.right) continue;
      const w = Math.max(x1 - x0, 2);
      ctx.fillStyle = b.color;
      if (b.strip) ctx.fillRect(x0, a.bottom - 10, w, 10);
      else ctx.fillRect(x0, a.top, w, a.bottom - a.top);
      if (b.label) {
        ctx.fillStyle = '#5b6475';
        ctx.font = '12px sans-serif';
        ctx.fillText(b.label, Math.max(x0, a.left) + 4, a.top + 14);
      }
      if (b.gc) drawn++;
    }
    ctx.restore();
    chart.canvas.dataset.gcBands = String(drawn);
  },
};

/* 95% interval whiskers on a cell-means chart. */
const whiskerPlugin = {
  id: 'whiskers',
  afterDatasetsDraw(chart, args, opts) {
    if (!opts.intervals) return;
    const { ctx, chartArea: a, scales: { x, y } } = chart;
    ctx.save();
    ctx.beginPath();
    ctx.rect(a.left, a.top, a.right - a.left, a.bottom - a.top);
    ctx.clip();
    ctx.strokeStyle = '#1d2330';
    ctx.lineWidth = 1.5;
    opts.intervals.forEach((iv, i) => {
      if (!iv) return;
      const px = x.getPixelForValue(i), lo = y.getPixelForValue(iv.low), hi = y.getPixelForValue(iv.high);
      ctx.beginPath();
      ctx.moveTo(px, lo); ctx.lineTo(px, hi);
      ctx.moveTo(px - 8, lo); ctx.lineTo(px + 8, lo);
      ctx.moveTo(px - 8, hi); ctx.lineTo(px + 8, hi);
      ctx.stroke();
    });
    ctx.restore();
  },
};

/* After every draw, what the chart holds, for people with tools and for the tests. */
const countPlugin = {
  id: 'drawnCount',
  afterDraw(chart) {
    const meta = chart.getDatasetMeta(0);
    chart.canvas.dataset.points = String(meta && meta.data ? meta.data.length : 0);
    chart.canvas.dataset.drawn = String(Number(chart.canvas.dataset.drawn || 0) + 1);
  },
};

function newChart(canvas, config) {
  const c = new Chart(canvas, config);
  charts.push(c);
  return c;
}

function destroyCharts() {
  while (charts.length) charts.pop().destroy();
}

/* Every time chart's y axis has the same width, so the x axes line up one under the other. */
const Y_AXIS_WIDTH = 64;
const fixedWidth = { afterFit: scale => { scale.width = Y_AXIS_WIDTH; } };

const palette = ['#1f5fbf', '#b3261e', '#1b7f3b', '#8a5a00', '#6a3fb5', '#00838f'];
const dashes = [[], [6, 3], [2, 2], [8, 3, 2, 3]];

/* ---- view: experiments ------------------------------------------------------------------ */

function progressCell(p) {
  if (!p) return el('td', { text: '–' });
  return el('td', {},
    el('progress', { max: p.total || 1, value: p.done || 0, 'aria-label': `${p.done} of ${p.total} runs done` }),
    el('span', { class: 'progress-text', text: `${p.done}/${p.total}` }));
}

function experimentRow(x, withLabels) {
  return el('tr', { 'data-id': x.id },
    el('td', {}, el('a', { href: '#/experiments/' + encodeURIComponent(x.id), class: 'exp-name', text: x.name })),
    el('td', { class: 'mono', text: x.id }),
    withLabels ? el('td', { class: 'exp-labels', text: x.labels ? Object.entries(x.labels).map(([k, v]) => `${k}=${v}`).join(', ') : '–' }) : null,
    el('td', { class: 'exp-status' }, stateBadge(x.status)),
    progressCell(x.progress),
    el('td', { class: 'mono', text: fmtTime(x.created_at) }),
    el('td', { class: 'mono', text: fmtTime(x.finished_at) }));
}

async function viewExperiments() {
  view.append(el('h1', { text: 'Experiments' }));
  const holder = el('div', { id: 'experiments' });
  view.append(holder);
  const render = body => {
    /* Labels where the daemon's experiments have them. */
    const withLabels = body.experiments.some(x => x.labels);
    const rows = body.experiments.map(x => experimentRow(x, withLabels));
    const heads = ['Name', 'Id', withLabels ? 'Labels' : null, 'Status', 'Progress', 'Created', 'Finished'].filter(Boolean);
    holder.replaceChildren(rows.length ? table(heads, rows)
      : el('p', { class: 'empty', text: 'No experiments yet: POST one to /v1/experiments.' }));
  };
  const url = '/v1/experiments?limit=200';
  render((await api(url)).body);
  pollEvery(async () => {
    const r = await api(url, { poll: true });
    if (r.changed) render(r.body);
  });
}

/* ---- view: an experiment ---------------------------------------------------------------- */

/* The share of CFS periods in which the SUT was throttled, in %, over the cell's runs (as the
 * client's report and the throttling finding say it); the report holds the counts' means. */
function throttledShare(metrics) {
  const t = metrics['cgroup.nr_throttled'], p = metrics['cgroup.nr_periods'];
  return t && p && p.mean > 0 ? { mean: 100 * t.mean / p.mean } : null;
}

const cellMetrics = [
  { key: 'throughput_rps', label: 'Throughput (req/s)', better: 'higher' },
  { key: 'latency_us.scheduled.p50', label: 'p50 from scheduled (µs)', better: 'lower' },
  { key: 'latency_us.scheduled.p99', label: 'p99 from scheduled (µs)', better: 'lower' },
  { key: 'latency_us.scheduled.p999', label: 'p99.9 from scheduled (µs)', better: 'lower' },
  { key: 'gc.pause_total_ms', label: 'GC pauses (ms)', better: 'lower' },
  { key: 'jit.compile_time_s', label: 'JIT compile (s)', better: 'lower' },
  { key: 'cgroup.throttled_share', label: 'Throttled periods (%)', unit: '%', stat: throttledShare, better: 'lower' },
  { key: 'cgroup.throttled_s', label: 'Throttled (s)', better: 'lower' },
];
const cellStat = (c, m) => m.stat ? m.stat(c.metrics) : c.metrics[m.key];
const ergonomics = ['jvm.ActiveProcessorCount', 'jvm.ParallelGCThreads', 'jvm.CICompilerCount', 'jvm.ConcGCThreads'];

function summaryFacts(def) {
  const facts = [];
  const add = (k, v) => facts.push(el('dt', { text: k }), el('dd', {}, v));
  add('Iterations', String(def.iterations ?? 1));
  add('Order', def.order || 'default');
  if (def.sut) add('SUT', el('code', { text: (def.sut.command || []).join(' ') }));
  if (def.load) {
    const l = def.load;
    add('Load', l.command ? el('code', { text: l.command.join(' ') })
      : Object.entries(l).map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`).join(', '));
  }
  for (const k of ['warmup_s', 'duration_s', 'phases']) if (def[k] !== undefined) add(k, JSON.stringify(def[k]));
  if (def.host) add('Host checks', Object.entries(def.host).map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`).join(', '));
  return el('dl', { class: 'facts' }, facts);
}

function cellsTable(def) {
  const keys = [...new Set((def.cells || []).flatMap(c => Object.keys(c).filter(k => k !== 'name')))];
  const rows = (def.cells || []).map(c => el('tr', {}, el('th', { scope: 'row', text: c.name }),
    keys.map(k => el('td', { class: 'mono', text: c[k] === undefined ? '–' : typeof c[k] === 'object' ? JSON.stringify(c[k]) : String(c[k]) }))));
  return table(['Cell', ...keys], rows);
}

/* The mean a metric's interval belongs to: the geometric mean for log-t intervals, else the mean. */
const geometric = stat => stat && stat.interval_of === 'geometric_mean' && stat.geometric_mean !== null && stat.geometric_mean !== undefined;
const intervalCenter = stat => geometric(stat) ? stat.geometric_mean : stat ? stat.mean : null;
const intervalText = stat => stat.ci95 ? `${geometric(stat) ? 'geo. mean' : 'mean'} ${fmt(intervalCenter(stat))} [${fmt(stat.ci95.low)}, ${fmt(stat.ci95.high)}]` : '';
const ratioText = r => `×${fmt(r.ratio, 3)}` + (r.ci95 ? ` [${fmt(r.ci95.low, 3)}, ${fmt(r.ci95.high, 3)}]` : '') + (r.excludes_one ? ' *' : '') + (r.approximate ? ' ~' : '');

function statCell(stat, ratio, unit) {
  const td = el('td', { class: 'num' });
  if (!stat) {
    td.textContent = '–';
    return td;
  }
  td.append(fmt(stat.mean) + (unit || ''));
  if (stat.ci95) td.append(el('span', { class: 'ci', text: intervalText(stat) }));
  if (ratio && ratio.ratio !== null && ratio.ratio !== undefined) {
    const r = el('span', { class: 'ci', text: ratioText(ratio) });
    if (ratio.approximate) r.title = 'approximate: fewer than 5 iterations on a side and sides of different sizes';
    td.append(r);
  }
  return td;
}

/* A cell's runs by steady-state class: "warmup 2, flat 1; not consistent" */
function steadyClasses(st) {
  if (!st || !st.classes) return '–';
  const list = Object.entries(st.classes).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(', ');
  return list ? `${list}${st.consistent === false ? '; not consistent' : ''}` : '–';
}

function reportTable(report) {
  const headers = ['Cell', 'Runs ok', ...cellMetrics.map(m => ({ label: m.label, num: true })), { label: 'JVM ergonomics', num: false },
    'Steady state'];
  const rows = report.cells.map(c => {
    const erg = ergonomics.map(k => c.metrics[k] ? `${k.slice(4)}=${fmt(c.metrics[k].mean)}` : null).filter(Boolean).join(', ');
    return el('tr', {},
      el('th', { scope: 'row', text: c.name + (report.baseline === c.name ? ' (baseline)' : '') }),
      el('td', { class: 'num', text: `${c.runs.succeeded}/${c.runs.total}` }),
      cellMetrics.map(m => statCell(cellStat(c, m), c.ratios && c.ratios[m.key], m.unit)),
      el('td', { text: erg || '–' }), el('td', { class: 'steady-classes', text: steadyClasses(c.steady_state) }));
  });
  return [el('p', { class: 'legend-note', text: 'Mean of the runs; below it the 95% interval with the mean it belongs to (the geometric mean for positive metrics, whose intervals are on the log scale); with a baseline, ×ratio of geometric means to it [95% interval], * when that interval excludes 1, ~ when it is approximate (fewer than 5 iterations on a side and sides of different sizes).' }),
    table(headers, rows)];
}

function metricCharts(report, holder) {
  const names = report.cells.map(c => c.name);
  for (const m of cellMetrics) {
    const stats = report.cells.map(c => cellStat(c, m));
    if (!stats.some(Boolean)) continue;
    if (stats.every(st => !st || (st.mean === 0 && !st.max))) {
      holder.append(el('div', { class: 'panel' }, el('h3', { text: m.label }), el('p', { class: 'empty', text: '0 in every run of every cell' })));
      continue;
    }
    const lows = stats.map(st => st && st.ci95 ? st.ci95.low : st ? intervalCenter(st) : 0), highs = stats.map(st => st && st.ci95 ? st.ci95.high : st ? intervalCenter(st) : 0);
    /* bars at the mean the whiskers belong to */
    const label = stats.some(geometric) ? 'geometric mean' : 'mean';
    const canvas = el('canvas', { role: 'img', 'aria-label': `${m.label} per cell: ${label} with 95% interval` });
    holder.append(el('div', { class: 'panel' }, el('h3', { text: m.label }), el('div', { class: 'chart-box metric' }, canvas)));
    newChart(canvas, {
      type: 'bar',
      data: { labels: names, datasets: [{ label, data: stats.map(s => s ? intervalCenter(s) : null), backgroundColor: '#9db8e3', borderColor: '#1f5fbf', borderWidth: 1 }] },
      options: {
        animation: false, maintainAspectRatio: false,
        plugins: { legend: { display: false }, whiskers: { intervals: stats.map(s => s && s.ci95) },
          tooltip: { callbacks: { afterLabel: i => { const s = stats[i.dataIndex]; return s && s.ci95 ? `95% of the ${geometric(s) ? 'geometric mean' : 'mean'}: [${fmt(s.ci95.low)}, ${fmt(s.ci95.high)}]` : ''; } } } },
        scales: { y: { beginAtZero: true, suggestedMin: Math.min(0, ...lows), suggestedMax: Math.max(...highs),
          ticks: m.unit ? { callback: v => fmt(v) + m.unit } : {} } },
      },
      plugins: [whiskerPlugin, countPlugin],
    });
  }
}

function runsTable(runs) {
  const rows = runs.map(r => el('tr', {},
    el('td', {}, el('a', { href: '#/runs/' + encodeURIComponent(r.id), class: 'mono', text: r.id })),
    el('td', { text: r.cell }), el('td', { class: 'num', text: r.iteration }),
    el('td', {}, stateBadge(r.state)),
    el('td', { text: [r.reason, r.message].filter(Boolean).join(': ') || '–' }),
    el('td', { class: 'num', text: r.headline ? fmt(r.headline.throughput_rps) : '–' }),
    el('td', { class: 'num', text: r.headline ? fmt(r.headline.p99_us) : '–' }),
    el('td', { class: 'mono', text: fmtTime(r.started_at) }), el('td', { class: 'mono', text: fmtTime(r.finished_at) })));
  return table(['Run', 'Cell', 'Iteration', 'State', 'Reason', { label: 'req/s', num: true }, { label: 'p99 µs', num: true }, 'Started', 'Finished'], rows);
}

function findingsSection(findings) {
  const list = Array.isArray(findings) ? findings : findings.findings || [];
  const sec = el('section', { id: 'findings' }, el('h2', { text: 'Findings' }));
  if (!list.length) sec.append(el('p', { class: 'empty', text: 'No findings: nothing explains a difference between the cells.' }));
  for (const f of list) {
    const ev = f.evidence || {};
    const runs = [].concat(ev.runs || f.runs || []);
    sec.append(el('div', { class: 'finding severity-' + String(f.severity || '').replace(/[^a-z]/g, '') },
      el('strong', { text: `${f.severity ? f.severity + ' · ' : ''}${f.kind || 'finding'}` }),
      el('p', { text: f.claim || f.message || '' }),
      ev.metric ? el('p', { class: 'ci', text: `${ev.metric}${ev.cell ? ' in ' + ev.cell : ''}${ev.values ? ': ' + JSON.stringify(ev.values) : ''}` }) : null,
      f.suggestion ? el('p', { text: 'Suggestion: ' + f.suggestion }) : null,
      runs.length ? el('p', {}, 'Runs: ', runs.flatMap((r, i) => [i ? ', ' : '', el('a', { href: '#/runs/' + encodeURIComponent(r.id || r), class: 'mono', text: r.id || r })])) : null));
  }
  return sec;
}

/* profile.cpu: each cell's flame graph, and each other cell's differential one against the first. */
function profileLinks(id, cells) {
  const href = (cell, baseline) => `#/experiments/${encodeURIComponent(id)}/profile?cell=${encodeURIComponent(cell)}` +
    (baseline ? `&baseline=${encodeURIComponent(baseline)}` : '');
  const first = cells.length ? cells[0].name : null;
  return el('section', { id: 'profiles' }, el('h2', { text: 'Profiles' }), el('ul', { class: 'plain' }, cells.map(c => el('li', {},
    el('a', { href: href(c.name), class: 'cell-flame', text: `${c.name}: flame graph` }),
    c.name !== first ? [' · ', el('a', { href: href(c.name, first), class: 'cell-diff-flame', text: `against ${first}` })] : null))));
}

/* A stop rule's comparisons as they stand (the report's `sequential`): where the rule is, and per
 * comparison its decision, the round it came at, the ratio and its confidence sequence. */
function sequentialSection(seq) {
  if (!seq) return [];
  const iv = c => c.interval ? `${fmt(c.interval.low, 3)}–${fmt(c.interval.high, 3)}` : 'no bound yet';
  const rows = (seq.comparisons || []).map(c => el('tr', { class: 'comparison' },
    el('td', { text: c.cell }), el('td', { text: c.baseline }), el('td', { class: 'mono', text: c.metric }),
    el('td', { class: 'decision decision-' + c.decision, text: c.decision }),
    el('td', { class: 'num', text: c.round == null ? `– (after ${seq.rounds})` : c.round }),
    el('td', { class: 'num', text: c.ratio == null ? '–' : fmt(c.ratio, 3) }), el('td', { class: 'num', text: iv(c) })));
  return [el('h2', { text: 'Stop rule' }),
    el('p', { class: 'sub', id: 'stop-state',
      text: `${seq.state} after ${seq.rounds} of at most ${seq.max_rounds} rounds (at least ${seq.min_rounds}); ` +
        `confidence sequences at ${fmt(seq.level * 100, 3)}% shared by ${(seq.comparisons || []).length} comparison(s), ` +
        `equivalent within ${fmt(seq.difference_pct, 3)}%` }),
    table(['Cell', 'Baseline', 'Metric', 'Decision', 'Round', 'Ratio', 'Interval'], rows, 'each comparison of the stop rule')];
}

async function viewExperiment(id) {
  const base = '/v1/experiments/' + encodeURIComponent(id);
  const exp = (await api(base)).body;
  view.append(el('h1', {}, 'Experiment ', el('span', { id: 'exp-title', text: exp.name })),
    el('p', { class: 'sub' }, stateBadge(exp.status), ` · ${id} · created ${fmtTime(exp.created_at)} · finished ${fmtTime(exp.finished_at)}`));
  if (exp.warnings && exp.warnings.length) view.append(el('ul', { class: 'plain' }, exp.warnings.map(w => el('li', { text: w }))));
  view.append(el('h2', { text: 'Definition' }), el('div', { class: 'grid wide' },
    el('div', { class: 'panel' }, summaryFacts(exp.definition || {})), el('div', { class: 'panel' }, cellsTable(exp.definition || {}))));

  const picker = el('select', { id: 'baseline', 'aria-label': 'baseline cell' }, el('option', { value: '', text: 'none' }),
    (exp.definition.cells || []).map(c => el('option', { value: c.name, text: c.name })));
  const reportHolder = el('div', { id: 'report' });
  const chartsHolder = el('div', { class: 'grid', id: 'metric-charts' });
  const stopHolder = el('div', { id: 'stop-rule' });
  view.append(el('h2', { text: 'Cells' }), el('div', { class: 'controls' }, el('label', { for: 'baseline', text: 'Ratios to baseline:' }), picker),
    reportHolder, el('h3', { text: 'Cell means with 95% intervals' }), chartsHolder, stopHolder);
  /* a cell with "profile": false runs unprofiled: it has no flame graph */
  if (exp.definition.profile && exp.definition.profile.cpu) view.append(profileLinks(id, (exp.definition.cells || []).filter(c => c.profile !== false)));
  const findingsHolder = el('div');
  const runsHolder = el('div', { id: 'runs' });
  view.append(findingsHolder, el('h2', { text: 'Runs' }), runsHolder,
    el('p', {}, el('a', { href: '#/compare?a=' + encodeURIComponent(id), text: 'Compare with another experiment…' })));

  const gen = generation;
  const showReport = async (poll) => {
    const b = picker.value;
    const r = await api(base + '/report' + (b ? '?baseline=' + encodeURIComponent(b) : ''), { poll });
    if (!r.changed || gen !== generation) return;
    reportHolder.replaceChildren(...reportTable(r.body));
    stopHolder.replaceChildren(...sequentialSection(r.body.sequential));
    for (const c of charts.splice(0)) c.destroy();
    chartsHolder.replaceChildren();
    metricCharts(r.body, chartsHolder);
  };
  picker.addEventListener('change', () => showReport(false).catch(e => showError(reportHolder, e)));
  const showRuns = async (poll) => {
    const r = await api(base + '/runs', { poll });
    if (r.changed && gen === generation) runsHolder.replaceChildren(runsTable(r.body.runs));
  };
  await Promise.all([showReport(false), showRuns(false)]);
  const findings = await optional(base + '/findings');
  if (findings && gen === generation) findingsHolder.replaceChildren(findingsSection(findings));
  if (exp.status === 'queued' || exp.status === 'running')
    pollEvery(async () => {
      await Promise.all([showRuns(true), showReport(true)]);
    });
}

/* ---- view: a run ------------------------------------------------------------------------ */

function runFacts(run) {
  const facts = [];
  const add = (k, v) => facts.push(el('dt', { text: k }), el('dd', {}, v));
  add('Experiment', el('a', { href: '#/experiments/' + encodeURIComponent(run.experiment_id), class: 'mono', text: run.experiment_id }));
  add('Cell', `${run.cell} · iteration ${run.iteration}`);
  add('State', [stateBadge(run.state), run.reason ? ` ${run.reason}` : '', run.message ? `: ${run.message}` : '']);
  add('Parameters', el('code', { text: JSON.stringify(run.parameters) }));
  const ex = run.exit || {};
  add('Exit', ['sut', 'load'].map(k => ex[k] ? `${k}: ${ex[k].signal ? 'signal ' + ex[k].signal : 'code ' + ex[k].code}` : `${k}: –`).join(' · '));
  if (run.slices) add('Slices', el('code', { text: `${run.slices.sut} · ${run.slices.load}` }));
  const m = run.metrics || {};
  if (m.requests !== undefined) add('Requests', `${fmt(m.requests)} (${fmt(m.errors)} errors) at ${fmt(m.throughput_rps)} req/s`);
  const lat = m.latency_us && m.latency_us.scheduled;
  if (lat) add('From scheduled (µs)', `p50 ${fmt(lat.p50)} · p99 ${fmt(lat.p99)} · p99.9 ${fmt(lat.p999)} · max ${fmt(lat.max)}`);
  if (m.gc) add('GC', `${fmt(m.gc.pauses)} pauses, ${fmt(m.gc.pause_total_ms)} ms total, max ${fmt(m.gc.pause_max_ms)} ms`);
  if (m.jvm) add('Ergonomics', Object.entries(m.jvm).map(([k, v]) => `${k}=${v}`).join(', '));
  if (m.cgroup) add('cgroup', `${fmt(m.cgroup.nr_throttled)} of ${fmt(m.cgroup.nr_periods)} periods throttled, ${fmt(m.cgroup.throttled_s)} s`);
  const base = '/v1/runs/' + encodeURIComponent(run.id);
  if (m.profile)
    add('Profile', [el('a', { href: `#/runs/${encodeURIComponent(run.id)}/profile`, id: 'run-flame', text: 'flame graph' }),
      ` of ${fmt(m.profile.samples)} samples · `, el('a', { href: base + '/profile', text: 'folded text', onclick: downloadVia(null, `${run.id}.folded`) })]);
  add('Downloads', [el('a', { href: base + '/logs/sut', text: 'SUT log', onclick: downloadVia(null, `${run.id}-sut.log`) }), ' · ',
    el('a', { href: base + '/logs/load', text: 'load log', onclick: downloadVia(null, `${run.id}-load.log`) }), ' · ',
    el('a', { href: base + '/timeline?phase=all', text: 'timeline CSV', onclick: downloadVia('text/csv', `${run.id}-timeline.csv`) })]);
  return el('dl', { class: 'facts' }, facts);
}

/* Downloads through fetch: the timeline as CSV needs its Accept header, and where reads need the
 * token a plain link cannot send it. */
function downloadVia(accept, filename) {
  return async ev => {
    const token = sessionStorage.getItem('slicelab-token');
    if (!accept && !token) return;     /* a plain link does */
    ev.preventDefault();
    const headers = accept ? { Accept: accept } : {};
    if (token) headers.Authorization = 'Bearer ' + token;
    const resp = await fetch(ev.currentTarget.getAttribute('href'), { headers });
    if (!resp.ok) {
      setStatus(`download failed: HTTP ${resp.status}`);
      return;
    }
    const a = el('a', { href: URL.createObjectURL(await resp.blob()), download: filename });
    document.body.append(a);
    a.click();
    a.remove();
  };
}

function bucketWidth(spanMs) {
  return Math.max(1, Math.ceil(spanMs / TARGET_BUCKETS));
}

/* The run's span: from its states (the timeline starts at most at "starting"). */
function runSpanMs(run) {
  const start = run.metrics && run.metrics.measure_start_ns;
  const monos = (run.states || []).map(s => s.mono_ns).filter(Boolean);
  if (!start || !monos.length) return { from: -60000, to: 600000 };
  return { from: Math.floor((Math.min(...monos) - start) / 1e6), to: Math.ceil((Math.max(...monos) - start) / 1e6) + 1 };
}

/* Buckets over [from, to), or over the whole timeline when explicit is false: the daemon then
 * picks the width (about TARGET_BUCKETS buckets), as only it knows the timeline's span. */
async function fetchBuckets(runId, from, to, explicit) {
  const q = explicit ? `width_ms=${bucketWidth(to - from)}&phase=all&from_ms=${from}&to_ms=${to}` : 'phase=all';
  return (await api(`/v1/runs/${encodeURIComponent(runId)}/timeline/buckets?${q}`)).body;
}

/* metrics.steady_state on the latency chart (x: ms from measure start): each segment of the
 * p50 series at its mean, and a mark where the steady state begins. A throughput series (a
 * closed loop) has another unit than the chart's: it is said in words only. */
function steadyDatasets(ss) {
  if (!ss || ss.metric !== 'latency_us.scheduled.p50' || typeof ss.measure_start_s !== 'number') return [];
  const x = t => (t - ss.measure_start_s) * 1000;
  const data = (ss.segments || []).flatMap(g => [{ x: x(g.start_s), y: g.mean }, { x: x(g.end_s), y: g.mean }, { x: x(g.end_s), y: null }]);
  const sets = [{ label: 'steady-state segments (p50, mean)', data, borderColor: '#7a4f9a', backgroundColor: '#7a4f9a',
    borderWidth: 3, pointRadius: 0, spanGaps: false }];
  if (typeof ss.start_s === 'number')
    sets.push({ label: `steady from ${fmt(ss.start_s, 1)} s`, data: [{ x: x(ss.start_s), y: ss.mean }], pointStyle: 'triangle',
      pointRadius: 7, borderColor: '#7a4f9a', backgroundColor: '#7a4f9a', showLine: false });
  return sets;
}

/* "warmup: steady from 4.0 s (the measure phase began at 2.0 s), 3 segments" */
function steadyText(ss) {
  if (!ss) return 'not classified (no series of 4 intervals or more)';
  const start = typeof ss.start_s === 'number' ? `steady from ${fmt(ss.start_s, 1)} s` : 'never steady';
  const measure = typeof ss.measure_start_s === 'number' ? ` (the measure phase began at ${fmt(ss.measure_start_s, 1)} s)` : '';
  return `${ss.class}: ${start}${measure}; ${(ss.segments || []).length} segment(s) of ${ss.intervals} points of ${ss.metric}`;
}

function latencyDatasets(b) {
  const pts = key => b.t_ms.map((t, i) => ({ x: t + b.width_ms / 2, y: b[key][i] }));
  const series = [['p50_us', 'p50 from scheduled'], ['p99_us', 'p99 from scheduled'], ['max_us', 'max from scheduled'], ['lag_p99_us', 'lag p99 (injector)']];
  return series.map(([k, label], i) => ({ label, data: pts(k), borderColor: palette[i], backgroundColor: palette[i], borderDash: dashes[i],
    borderWidth: 1.5, pointRadius: 0, spanGaps: false }));
}

function gcBands(gc) {
  const start = BigInt(gc.measure_start_ns || 0);
  return (gc.events || []).map(e => {
    const from = Number(BigInt(e.start_ns) - start) / 1e6;
    const pause = e.kind === 'pause';
    return { from, to: from + e.duration_ns / 1e6, gc: true, strip: !pause, color: pause ? 'rgba(179, 38, 30, 0.28)' : 'rgba(138, 90, 0, 0.55)' };
  });
}

/* Every page of a run's GC events (the endpoint is paged like the timeline) as one answer. */
async function gcEvents(base) {
  const first = (await api(base + '/gc')).body;
  const events = first.events.slice();
  for (let page = first; page.next_cursor;) {
    page = (await api(base + '/gc?cursor=' + encodeURIComponent(page.next_cursor))).body;
    events.push(...page.events);
  }
  return { ...first, events, next_cursor: null };
}

/* The run's load hosts (metrics.load.hosts): each host's clock against this one's, its share of
 * the load and whether it kept its schedule; a host that fell behind (saturated, or lag p99
 * above 1 ms, as the client says) is marked. */
function loadHostsSection(hosts) {
  if (!Array.isArray(hosts) || !hosts.length) return [];
  const late = l => l && typeof l.requests === 'number'
    ? `${l.requests} (server ${l.server || 0}, stalled ${l.stalled || 0}, injector ${l.injector || 0})` : '–';
  const behind = h => h.saturated === true || (typeof h.lag_p99_us === 'number' && h.lag_p99_us > 1000);
  const rows = hosts.map(h => el('tr', { class: 'load-host' + (behind(h) ? ' behind' : ''), 'data-host': h.host },
    el('td', { class: 'mono', text: h.host }), el('td', { text: h.state || '–' }),
    el('td', { class: 'num host-offset', text: fmtOffset(h.offset_ns) }),
    el('td', { class: 'num', text: typeof h.rtt_ns === 'number' ? fmtMicros(h.rtt_ns / 1e3) : '–' }),
    el('td', { class: 'num', text: typeof h.error_ns === 'number' ? fmtMicros(h.error_ns / 1e3) : '–' }),
    el('td', { class: 'num host-requests', text: fmt(h.requests, 0) }),
    el('td', { class: 'num', text: typeof h.achieved_rps === 'number' ? `${fmt(h.achieved_rps, 0)} req/s` : '–' }),
    el('td', { class: 'num', text: typeof h.lag_p99_us === 'number' ? fmtMicros(h.lag_p99_us) : '–' }),
    el('td', { text: late(h.late) }),
    el('td', { class: 'host-behind', text: behind(h) ? 'fell behind' : typeof h.saturated === 'boolean' ? 'kept up' : '–' })));
  return [el('h2', { text: 'Load hosts' }), el('div', { id: 'load-hosts' },
    table(['Host', 'State', { label: 'Clock offset', num: true }, { label: 'Round trip', num: true }, { label: 'Error bound', num: true },
      { label: 'Requests', num: true }, { label: 'Achieved', num: true }, { label: 'Lag p99', num: true }, 'Late requests', 'Schedule'],
    rows, 'each host\'s clock against this daemon\'s, its requests and whether it kept its schedule'))];
}

async function viewRun(id) {
  const base = '/v1/runs/' + encodeURIComponent(id);
  /* GC events and samples do not depend on the run's answer: ask for them at once. */
  const gcP = gcEvents(base), samplesP = api(base + '/samples').then(r => r.body).catch(() => null);
  gcP.catch(() => {});
  const run = (await api(base)).body;
  view.append(el('h1', {}, 'Run ', el('span', { class: 'mono', text: id })),
    el('p', { class: 'sub' }, stateBadge(run.state), ` · cell ${run.cell} · iteration ${run.iteration}`));
  view.append(el('div', { class: 'grid wide' }, el('div', { class: 'panel' }, runFacts(run)),
    el('div', { class: 'panel' }, el('h3', { text: 'States' }),
      table(['State', 'At', 'Message'], (run.states || []).map(s => el('tr', {}, el('td', {}, stateBadge(s.state)),
        el('td', { class: 'mono', text: fmtTime(s.at) }), el('td', { text: s.message || '' })))),
      el('h3', { text: 'Warnings' }),
      (run.warnings || []).length ? el('ul', { class: 'plain', id: 'warnings' }, run.warnings.map(w => el('li', { text: w })))
        : el('p', { class: 'empty', text: 'none' }))));
  view.append(...loadHostsSection(run.metrics && run.metrics.load && run.metrics.load.hosts));

  /* A run in progress: its page follows it (a whole new render when it changed; a finished
   * run's answer no longer changes). */
  if (!['succeeded', 'failed', 'cancelled', 'interrupted'].includes(run.state))
    pollEvery(async () => {
      if ((await api(base, { poll: true })).changed) route();
    });
  view.append(el('h2', { text: 'Latency over time' }));
  if (!run.metrics || !run.metrics.measure_start_ns) {
    view.append(el('p', { class: 'empty', text: 'No timeline yet: it is stored when the run has been collected.' }));
    return;
  }
  const span = runSpanMs(run);
  const fromIn = el('input', { type: 'number', id: 'zoom-from', step: 1, value: span.from, 'aria-label': 'from (ms)' });
  const toIn = el('input', { type: 'number', id: 'zoom-to', step: 1, value: span.to, 'aria-label': 'to (ms)' });
  const info = el('span', { id: 'bucket-info', class: 'legend-note' });
  view.append(el('div', { class: 'controls' },
    el('label', { for: 'zoom-from', text: 'From ms' }), fromIn, el('label', { for: 'zoom-to', text: 'to ms' }), toIn,
    el('button', { type: 'button', id: 'zoom', text: 'Zoom' }), el('button', { type: 'button', id: 'zoom-reset', text: 'Whole run' }), info),
  el('p', { class: 'legend-note', text: 'Time in ms from the start of the measure phase (negative: warmup, shaded). Red bands: GC pauses; brown marks at the bottom: safepoints. Drag across the chart to zoom.' }));
  const ss = run.metrics.steady_state;
  view.append(el('p', { id: 'steady-state', class: 'sub', text: 'Steady state (Barrett et al.): ' + steadyText(ss) }));
  const latCanvas = el('canvas', { id: 'latency-chart', role: 'img', 'aria-label': 'latency per time bucket with GC pauses as bands' });
  view.append(el('div', { class: 'chart-box' }, latCanvas));
  const sampleHolder = el('div', { id: 'samples' });
  view.append(el('h2', { text: '1 s samples' }), sampleHolder);

  const [buckets, gc, samples] = await Promise.all([fetchBuckets(id, span.from, span.to, false), gcP, samplesP]);
  const bands = gcBands(gc);
  const xRange = b => ({ min: b.from_ms, max: b.to_ms });
  const allBands = b => [{ from: Math.min(b.from_ms, 0), to: 0, color: 'rgba(91, 100, 117, 0.10)', label: b.from_ms < 0 ? 'warmup' : null }, ...bands];
  const chart = newChart(latCanvas, {
    type: 'line',
    data: { datasets: [...latencyDatasets(buckets), ...steadyDatasets(ss)] },
    options: {
      animation: false, maintainAspectRatio: false, parsing: false, normalized: true,
      interaction: { mode: 'nearest', axis: 'x', intersect: false },
      scales: { x: { type: 'linear', ...xRange(buckets), title: { display: true, text: 'ms from measure start' } },
        /* Labelled where Chart.js would label (1, 2, 5 x 10^n), in units that fit the axis's
         * fixed width: its own "10,000,000.0" was cut off at the left. */
        y: { type: 'logarithmic', ...fixedWidth,
          ticks: { callback(v, i, ticks) { return Chart.Ticks.formatters.logarithmic.call(this, v, i, ticks) && fmtMicros(v); } } } },
      plugins: { bands: { bands: allBands(buckets) }, legend: { position: 'bottom' } },
    },
    plugins: [bandsPlugin, countPlugin],
  });
  const sampleCharts = drawSamples(samples, sampleHolder, xRange(buckets));
  const showBuckets = b => {
    fromIn.value = b.from_ms;
    toIn.value = b.to_ms;
    info.textContent = `${b.t_ms.length} buckets of ${b.width_ms} ms`;
    latCanvas.dataset.buckets = String(b.t_ms.length);
    chart.data.datasets = [...latencyDatasets(b), ...steadyDatasets(ss)];
    Object.assign(chart.options.scales.x, xRange(b));
    chart.options.plugins.bands.bands = allBands(b);
    chart.update('none');
    for (const c of sampleCharts) {
      Object.assign(c.options.scales.x, xRange(b));
      c.update('none');
    }
  };
  showBuckets(buckets);
  const zoom = async (from, to) => {
    if (!(to > from)) return;
    fromIn.value = from; toIn.value = to;
    try {
      showBuckets(await fetchBuckets(id, from, to, true));
    } catch (e) {
      showError(view, e);
    }
  };
  document.getElementById('zoom').addEventListener('click', () => zoom(Math.floor(+fromIn.value), Math.ceil(+toIn.value)));
  document.getElementById('zoom-reset').addEventListener('click', () => showBuckets(buckets));
  let dragFrom = null;
  latCanvas.addEventListener('mousedown', ev => { dragFrom = chart.scales.x.getValueForPixel(ev.offsetX); });
  latCanvas.addEventListener('mouseup', ev => {
    if (dragFrom === null) return;
    const to = chart.scales.x.getValueForPixel(ev.offsetX), a = Math.min(dragFrom, to), b = Math.max(dragFrom, to);
    dragFrom = null;
    if (b - a >= 1) zoom(Math.floor(a), Math.ceil(b));
  });
  latCanvas.dataset.ready = '1';
}

function drawSamples(s, holder, range) {
  if (!s || !s.t_ms || !s.t_ms.length) {
    holder.append(el('p', { class: 'empty', text: 'No 1 s samples for this run.' }));
    return [];
  }
  const series = [['requests', 'requests per interval'], ['cpu_usage_s', 'SUT CPU (s per interval)'], ['nr_throttled', 'throttled periods'], ['freq_mhz', 'CPU frequency (MHz)'], ['gc_ms', 'GC (ms)']];
  const out = [];
  for (const [key, label] of series) {
    if (!s[key] || !s[key].some(v => v !== null)) {
      holder.append(el('p', { class: 'legend-note', text: `${label}: not measured` }));
      continue;
    }
    const canvas = el('canvas', { role: 'img', 'aria-label': label });
    holder.append(el('div', { class: 'chart-box small' }, canvas));
    out.push(newChart(canvas, {
      type: 'line',
      data: { datasets: [{ label, data: s.t_ms.map((t, i) => ({ x: t + (s.interval_ms || 1000) / 2, y: s[key][i] })), borderColor: '#1d2330',
        backgroundColor: 'rgba(31, 95, 191, 0.15)', fill: true, stepped: 'middle', pointRadius: 2, borderWidth: 1 }] },
      options: { animation: false, maintainAspectRatio: false, parsing: false,
        scales: { x: { type: 'linear', ...range }, y: { beginAtZero: true, ...fixedWidth } },
        plugins: { legend: { display: false }, title: { display: true, text: label, align: 'start' } } },
      plugins: [countPlugin],
    }));
  }
  return out;
}

/* ---- view: compare ---------------------------------------------------------------------- */

async function viewCompare(params) {
  view.append(el('h1', { text: 'Compare experiments' }));
  const a = el('input', { id: 'cmp-a', name: 'a', value: params.get('a') || '', placeholder: 'EXP[:CELL]', required: true });
  const b = el('input', { id: 'cmp-b', name: 'b', value: params.get('b') || '', placeholder: 'EXP[:CELL]', required: true });
  const form = el('form', { class: 'controls' }, el('label', { for: 'cmp-a', text: 'A' }), a, el('label', { for: 'cmp-b', text: 'B' }), b,
    el('button', { type: 'submit', text: 'Compare' }));
  form.addEventListener('submit', ev => {
    ev.preventDefault();
    location.hash = `#/compare?a=${encodeURIComponent(a.value.trim())}&b=${encodeURIComponent(b.value.trim())}`;
  });
  view.append(form);
  if (!params.get('a') || !params.get('b')) return;
  const result = await optional(`/v1/compare?a=${encodeURIComponent(params.get('a'))}&b=${encodeURIComponent(params.get('b'))}`);
  if (!result) {
    view.append(el('p', { class: 'empty', text: 'This slicelabd gives no comparison of these (GET /v1/compare did not answer 200).' }));
    return;
  }
  for (const w of result.warnings || []) view.append(el('p', { class: 'error', text: w }));
  const side = v => v && typeof v === 'object' ? (v.ci95 ? intervalText(v) : fmt(v.mean)) : fmt(v);
  const ratio = r => r ? ratioText(r) : '–';
  /* One table per matched pair of cells: both sides' means with their intervals, and b/a. */
  for (const cell of result.cells || []) {
    view.append(el('h2', { text: `${cell.a} (A) against ${cell.b} (B)` }));
    const rows = Object.entries(cell.metrics || {}).map(([name, m]) => el('tr', {}, el('th', { scope: 'row', text: name }),
      el('td', { class: 'num', text: side(m.a) }), el('td', { class: 'num', text: side(m.b) }), el('td', { class: 'num', text: ratio(m.ratio) })));
    view.append(table(['Metric', { label: 'A', num: true }, { label: 'B', num: true }, { label: 'B/A (95% CI)', num: true }], rows));
  }
  const diffs = result.differences || [];
  if (diffs.length) {
    view.append(el('h2', { text: 'What differs between the two' }));
    const text = v => typeof v === 'string' ? v : JSON.stringify(v);
    view.append(table(['Source', 'Field', 'A', 'B'], diffs.map(d => el('tr', {}, el('td', { text: d.source }),
      el('th', { scope: 'row', text: d.field }), el('td', { text: text(d.a) }), el('td', { text: text(d.b) })))));
  }
  view.append(el('p', { class: 'legend-note', text: '* = the 95% interval of the ratio excludes 1' }));
}

/* ---- view: series ------------------------------------------------------------------------ */

/* Dashed vertical lines between the two experiments of each change point. */
const changeLinePlugin = {
  id: 'changeLines',
  afterDatasetsDraw(chart, args, opts) {
    if (!opts.points) return;
    const { ctx, chartArea: a, scales: { x } } = chart;
    ctx.save();
    ctx.strokeStyle = '#b3261e';
    ctx.lineWidth = 2;
    ctx.setLineDash([6, 4]);
    for (const cp of opts.points) {
      const px = (x.getPixelForValue(cp.before.index) + x.getPixelForValue(cp.after.index)) / 2;
      ctx.beginPath();
      ctx.moveTo(px, a.top); ctx.lineTo(px, a.bottom);
      ctx.stroke();
    }
    ctx.restore();
  },
};

function seriesForm(params) {
  const input = (id, name, placeholder, required) => el('input', { id, name, value: params.get(name) || '', placeholder, required });
  const labels = el('input', { id: 'ser-label', name: 'label', value: params.getAll('label').join(' '), placeholder: 'app=shop (space-separated)' });
  const cell = input('ser-cell', 'cell', 'CELL', true), metric = input('ser-metric', 'metric', 'latency_us.scheduled.p99', true);
  const alpha = input('ser-alpha', 'alpha', '0.01'), minSegment = input('ser-min-segment', 'min_segment', '4');
  const form = el('form', { class: 'controls' },
    el('label', { for: 'ser-label', text: 'Labels' }), labels, el('label', { for: 'ser-cell', text: 'Cell' }), cell,
    el('label', { for: 'ser-metric', text: 'Metric' }), metric, el('label', { for: 'ser-alpha', text: 'alpha' }), alpha,
    el('label', { for: 'ser-min-segment', text: 'min segment' }), minSegment, el('button', { type: 'submit', text: 'Show' }));
  form.addEventListener('submit', ev => {
    ev.preventDefault();
    const q = new URLSearchParams();
    for (const l of labels.value.split(/\s+/).filter(Boolean)) q.append('label', l);
    for (const [k, i] of [['cell', cell], ['metric', metric], ['alpha', alpha], ['min_segment', minSegment]])
      if (i.value.trim()) q.set(k, i.value.trim());
    location.hash = '#/series?' + q.toString();
  });
  return form;
}

function seriesChart(s, holder) {
  const pts = s.experiments;
  const canvas = el('canvas', { id: 'series-chart', role: 'img', 'aria-label': `${s.metric} of cell ${s.cell} per experiment, with 95% intervals; change points dashed` });
  holder.append(el('div', { class: 'panel' }, el('div', { class: 'chart-box metric' }, canvas)));
  const lows = pts.filter(p => p.value !== null).map(p => p.ci95 ? p.ci95.low : p.value);
  const highs = pts.filter(p => p.value !== null).map(p => p.ci95 ? p.ci95.high : p.value);
  newChart(canvas, {
    type: 'line',
    data: { labels: pts.map(p => `#${p.index}`), datasets: [{ label: s.metric, data: pts.map(p => p.value), borderColor: '#1f5fbf', backgroundColor: '#1f5fbf', spanGaps: true, pointRadius: 3 }] },
    options: {
      animation: false, maintainAspectRatio: false,
      onClick: (ev, items) => { if (items.length) location.hash = '#/experiments/' + encodeURIComponent(pts[items[0].index].id); },
      plugins: { legend: { display: false }, whiskers: { intervals: pts.map(p => p.ci95) }, changeLines: { points: s.change_points },
        tooltip: { callbacks: { afterLabel: i => { const p = pts[i.dataIndex]; return `${p.id} ${fmtTime(p.created_at)}` + (p.ci95 ? `\n95%: [${fmt(p.ci95.low)}, ${fmt(p.ci95.high)}]` : ''); } } } },
      scales: { y: { suggestedMin: Math.min(...lows), suggestedMax: Math.max(...highs) } },
    },
    plugins: [whiskerPlugin, changeLinePlugin, countPlugin],
  });
}

function changePointsTable(s) {
  const pct = v => v === null || v === undefined ? '–' : (v >= 0 ? '+' : '') + fmt(v * 100, 1) + '%';
  const text = v => typeof v === 'string' ? v : JSON.stringify(v);
  const rows = s.change_points.map(cp => {
    const why = cp.why.differences.map(d => `${d.source} ${d.field}: ${text(d.a)} → ${text(d.b)}`)
      .concat(cp.why.findings.before_only.map(f => `only before: ${f.kind}: ${f.claim}`))
      .concat(cp.why.findings.after_only.map(f => `only after: ${f.kind}: ${f.claim}`))
      .concat(['before', 'after'].filter(side => cp.why.findings[`${side}_only_omitted`] > 0)
        .map(side => `${cp.why.findings[`${side}_only_omitted`]} more findings only ${side}, not listed`));
    const compare = `#/compare?a=${encodeURIComponent(cp.before.experiment_id + ':' + s.cell)}&b=${encodeURIComponent(cp.after.experiment_id + ':' + s.cell)}`;
    return el('tr', { class: 'change-point' },
      el('td', {}, el('a', { href: compare, class: 'cp-compare', text: `#${cp.before.index} → #${cp.after.index}` })),
      el('td', { class: 'num', text: pct(cp.shift) + (cp.shift_ci95 ? ` [${pct(cp.shift_ci95.low)}, ${pct(cp.shift_ci95.high)}]` : '') }),
      el('td', { class: 'num', text: fmt(cp.p_value, 3) }),
      el('td', {}, why.length ? el('ul', {}, why.map(w => el('li', { text: w }))) : 'no definition field, host fact or finding differs'));
  });
  return table(['Between (compare)', { label: 'Shift (95% CI)', num: true }, { label: 'p', num: true }, 'Why: what differs'], rows);
}

async function viewSeries(params) {
  view.append(el('h1', { text: 'Series' }));
  view.append(seriesForm(params));
  if (!params.get('cell') || !params.get('metric')) return;
  const s = (await api('/v1/series?' + params.toString())).body;
  const holder = el('div', { id: 'series' });
  view.append(holder);
  holder.append(el('p', { class: 'sub', text: `${s.metric} of cell ${s.cell} over ${s.experiments.length} experiments` +
    (s.worse_when ? ` (worse when ${s.worse_when})` : '') + `; E-Divisive means, alpha ${s.parameters.alpha}, min segment ${s.parameters.min_segment}` +
    (s.truncated ? '; the newest only' : '') }));
  seriesChart(s, holder);
  holder.append(el('h2', { text: s.change_points.length ? 'Change points' : 'No change point' }));
  if (s.change_points.length) holder.append(changePointsTable(s));
  holder.append(table(['#', 'Experiment', 'Created', { label: 'Value', num: true }, { label: '95% CI', num: true }],
    s.experiments.map(p => el('tr', { class: 'series-point' }, el('td', { class: 'num', text: p.index }),
      el('td', {}, el('a', { href: '#/experiments/' + encodeURIComponent(p.id), class: 'mono', text: p.id })),
      el('td', { class: 'mono', text: fmtTime(p.created_at) }), el('td', { class: 'num', text: fmt(p.value) }),
      el('td', { class: 'num', text: p.ci95 ? `[${fmt(p.ci95.low)}, ${fmt(p.ci95.high)}]` : '–' })))));
}

/* ---- view: profiles (flame graphs) ------------------------------------------------------ */

const FLAME_ROW = 18;         /* px per stack level */
const FLAME_MIN_PX = 2;       /* a frame narrower than this is not drawn on its own */
const FLAME_TREE_NODES = 20000;

/* A share (0..1) as a percentage; a difference of shares in percentage points. */
const pct = v => v === null || v === undefined ? '–' : `${fmt(v * 100, 2)}%`;
const points = v => v === null || v === undefined ? '–' : `${v > 0 ? '+' : ''}${fmt(v * 100, 2)} pts`;
const shareText = s => s ? `${pct(s.mean)}` + (s.ci_low !== null && s.ci_low !== undefined ? ` [${pct(s.ci_low)}, ${pct(s.ci_high)}]` : ' (no interval: fewer than 2 runs)') : '–';

/* Warm colours for a plain flame graph, stable per name. */
function warmColor(name) {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
  return `hsl(${8 + h % 42}, ${70 + (h >> 8) % 20}%, ${58 + (h >> 16) % 14}%)`;
}

/* Red when the cell spends a larger share in the frame than the baseline, blue when smaller;
 * the stronger, the larger the difference against the largest one drawn; pale when the
 * difference's interval includes 0. Grey: no difference known for the frame. */
function diffColor(entry, maxAbs) {
  const d = entry && entry.total && entry.total.difference ? entry.total.difference.value : null;
  if (d === null || d === undefined || !maxAbs) return '#d6d6d6';
  if (d === 0) return '#efefef';
  const t = Math.min(1, Math.abs(d) / maxAbs);
  const strength = entry.total.difference.excludes_zero ? 0.35 + 0.65 * t : 0.12 + 0.23 * t;
  const [r, g, b] = d > 0 ? [200, 30, 25] : [25, 80, 210];
  const mix = c => Math.round(255 + (c - 255) * strength);
  return `rgb(${mix(r)}, ${mix(g)}, ${mix(b)})`;
}

/* The names' colour on a fill: white where the fill is strong (a large difference). */
function inkOn(fill) {
  const m = /^rgb\((\d+), (\d+), (\d+)\)$/.exec(fill);
  return m && 0.299 * m[1] + 0.587 * m[2] + 0.114 * m[3] < 140 ? '#ffffff' : '#1d2330';
}

/* Parents, and children in name order (as flame graphs sort them). */
function flamePrepare(node, parent) {
  node.parent = parent;
  node.children.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  for (const c of node.children) flamePrepare(c, node);
  return node;
}

/* The rectangles of the tree seen from focus (its ancestors full width above it), in CSS px.
 * Siblings narrower than FLAME_MIN_PX next to each other become one grey block when together
 * they are wide enough, and are left out (their samples still in their parent's width) when
 * not; nothing below them is drawn. */
function flameLayout(focus, width) {
  const rects = [];
  const path = [];
  for (let n = focus.parent; n; n = n.parent) path.unshift(n);
  path.forEach((n, depth) => rects.push({ node: n, name: n.name, x: 0, w: width, depth, ancestor: true }));
  const scale = width / (focus.total || 1);
  let merged = 0, omitted = 0;
  const walk = (n, x, depth) => {
    rects.push({ node: n, name: n.name, x, w: n.total * scale, depth });
    let cx = x, run = null;
    const flush = () => {
      if (!run) return;
      if (run.w >= FLAME_MIN_PX) {
        rects.push({ name: `${run.count} frames narrower than ${FLAME_MIN_PX} px`, x: run.x, w: run.w, depth: depth + 1, merged: run });
        merged += run.count;
      } else omitted += run.count;
      run = null;
    };
    for (const c of n.children) {
      const w = c.total * scale;
      if (w < FLAME_MIN_PX) {
        run = run || { x: cx, w: 0, count: 0, total: 0 };
        run.w += w; run.count++; run.total += c.total;
      } else {
        flush();
        walk(c, cx, depth + 1);
      }
      cx += w;
    }
    flush();
  };
  walk(focus, 0, path.length);
  return { rects, merged, omitted };
}

function flameText(r, tree, diff) {
  if (r.merged) return `${r.merged.count} frames, each narrower than ${FLAME_MIN_PX} px, drawn as one\n${fmt(r.merged.total)} samples, ${pct(r.merged.total / (tree.samples || 1))} of all\nclick a frame above them to widen it`;
  const n = r.node;
  const lines = [n.name, `${fmt(n.total)} samples (${pct(n.total / (tree.samples || 1))} of all), ${fmt(n.self)} in the frame itself`];
  if (diff) {
    const e = diff.lookup(r);
    if (!e) lines.push(r.depth === 0 ? '' : `no difference known: not among the ${diff.limit} frames that differ most`);
    else {
      const t = e.total;
      lines.push(`share of each run's samples (mean [95% interval]):`, `  ${diff.cell}: ${shareText(t.cell)}`, `  ${diff.baseline}: ${shareText(t.baseline)}`,
        `difference: ${points(t.difference.value)}` + (t.difference.ci_low !== null ? ` [${points(t.difference.ci_low)}, ${points(t.difference.ci_high)}]` : ' (no interval)') +
          (t.difference.excludes_zero ? ', the interval excludes 0' : ', the interval includes 0'));
    }
  }
  return lines.filter(Boolean).join('\n');
}

/* A flame graph of tree ({samples, truncated, root}) in holder: root at the top, each frame as
 * wide as its samples, its callees below it; hover for the figures, click to widen a frame.
 * diff (optional): {lookup(rect) -> entry of GET .../profile, maxAbs, cell, baseline, limit}. */
function flameGraph(holder, tree, diff) {
  const gen = generation;
  const root = flamePrepare(tree.root, null);
  const box = el('div', { class: 'flame-box' });
  const canvas = el('canvas', { id: 'flame', role: 'img',
    'aria-label': diff ? `differential flame graph of ${diff.cell} against ${diff.baseline}` : 'flame graph: each frame as wide as its share of the samples' });
  const tip = el('div', { class: 'flame-tip', id: 'flame-tip', role: 'tooltip', hidden: true });
  const info = el('p', { class: 'legend-note', id: 'flame-info' });
  const reset = el('button', { type: 'button', id: 'flame-reset', text: 'Whole profile', disabled: true });
  holder.append(el('div', { class: 'controls' }, reset, info), box);
  box.append(canvas, tip);
  let focus = root, layout = null;
  const draw = () => {
    if (gen !== generation) return;
    const width = Math.max(200, box.clientWidth);
    layout = flameLayout(focus, width);
    const depth = layout.rects.reduce((m, r) => Math.max(m, r.depth), 0) + 1;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(depth * FLAME_ROW * dpr);
    canvas.style.width = `${width}px`;
    canvas.style.height = `${depth * FLAME_ROW}px`;
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.font = '12px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    for (const r of layout.rects) {
      r.y = r.depth * FLAME_ROW;
      r.h = FLAME_ROW - 1;
      r.fill = r.merged ? '#c3c8d0' : diff ? (r.depth === 0 ? '#d9dde3' : diffColor(diff.lookup(r), diff.maxAbs)) : r.depth === 0 ? '#c9ccd3' : warmColor(r.name);
      ctx.fillStyle = r.fill;
      ctx.fillRect(r.x, r.y, Math.max(r.w - 1, 1), r.h);
      if (r.w < 30) continue;
      /* the name, cut to the frame's width with an ellipsis */
      let label = r.name;
      const room = r.w - 8;
      if (ctx.measureText(label).width > room) {
        let lo = 0, hi = label.length;
        while (lo < hi) {
          const mid = (lo + hi + 1) >> 1;
          if (ctx.measureText(label.slice(0, mid) + '…').width <= room) lo = mid; else hi = mid - 1;
        }
        label = lo > 0 ? label.slice(0, lo) + '…' : '';
      }
      ctx.fillStyle = inkOn(r.fill);
      ctx.fillText(label, r.x + 4, r.y + r.h / 2 + 0.5);
    }
    /* what was drawn, for people with tools and for the tests */
    canvas.flameRects = layout.rects.map(r => ({ name: r.name, x: r.x, y: r.y, w: r.w, h: r.h, fill: r.fill, depth: r.depth,
      samples: r.merged ? r.merged.total : r.node.total, merged: Boolean(r.merged), ancestor: Boolean(r.ancestor) }));
    canvas.dataset.frames = String(layout.rects.length);
    canvas.dataset.drawn = String(Number(canvas.dataset.drawn || 0) + 1);
    info.textContent = `${fmt(tree.samples)} samples; ${layout.rects.length} frames drawn` +
      (layout.merged ? `, ${layout.merged} narrower than ${FLAME_MIN_PX} px merged into grey blocks` : '') +
      (layout.omitted ? `, ${layout.omitted} too narrow even together left out` : '') +
      (tree.truncated ? '; the tree was cut at the API\'s depth or node bound (their samples are in the deepest frame kept)' : '') +
      (focus !== root ? `; widened to ${focus.name}` : '');
    reset.disabled = focus === root;
  };
  const at = ev => {
    const b = canvas.getBoundingClientRect();
    const x = ev.clientX - b.left, depth = Math.floor((ev.clientY - b.top) / FLAME_ROW);
    return layout && layout.rects.find(r => r.depth === depth && x >= r.x && x < r.x + r.w);
  };
  canvas.addEventListener('mousemove', ev => {
    const r = at(ev);
    if (!r) {
      tip.hidden = true;
      return;
    }
    tip.textContent = flameText(r, tree, diff);
    tip.hidden = false;
    const b = box.getBoundingClientRect();
    const left = Math.min(ev.clientX - b.left + 12, Math.max(0, b.width - tip.offsetWidth));
    tip.style.left = `${left}px`;
    tip.style.top = `${ev.clientY - b.top + 16}px`;
  });
  canvas.addEventListener('mouseleave', () => { tip.hidden = true; });
  canvas.addEventListener('click', ev => {
    const r = at(ev);
    if (!r || r.merged) return;
    focus = r.node;
    tip.hidden = true;
    draw();
  });
  reset.addEventListener('click', () => { focus = root; draw(); });
  let pending = null;
  const onResize = () => {
    if (gen !== generation) {
      window.removeEventListener('resize', onResize);
      return;
    }
    clearTimeout(pending);
    pending = setTimeout(draw, 100);
  };
  window.addEventListener('resize', onResize);
  draw();
  canvas.dataset.ready = '1';
}

/* The view's answer to a 404: the message of the API, said as the page's. */
async function profileOrMessage(holder, url, what) {
  try {
    return (await api(url)).body;
  } catch (e) {
    if (!(e instanceof ApiError) || (e.status !== 404 && e.status !== 409)) throw e;
    holder.append(el('p', { class: 'empty', id: 'no-profile', text: `No profile for ${what}: ${e.body && e.body.error ? e.body.error.message : e.message}` }));
    return null;
  }
}

async function viewRunProfile(id) {
  const base = '/v1/runs/' + encodeURIComponent(id);
  view.append(el('h1', {}, 'Profile of run ', el('a', { href: '#/runs/' + encodeURIComponent(id), class: 'mono', text: id })));
  const holder = el('div', { id: 'profile' });
  view.append(holder);
  const tree = await profileOrMessage(holder, `${base}/profile?format=json&max_nodes=${FLAME_TREE_NODES}`, `run ${id}`);
  if (!tree) return;
  holder.append(el('p', { class: 'legend-note', text: 'CPU samples of the SUT during the measure window, each stack under its thread group (app, gc, jit, vm, kernel, other). Root at the top; a frame is as wide as its samples with its callees\'; hover for the figures, click to widen.' }),
    el('p', {}, el('a', { href: base + '/profile', text: 'folded text (flamegraph.pl, speedscope)', onclick: downloadVia(null, `${id}.folded`) })));
  flameGraph(holder, tree, null);
}

function profileForm(id, cells, params) {
  const select = (sid, name, none) => el('select', { id: sid, name, 'aria-label': name },
    none ? el('option', { value: '', text: none }) : null,
    cells.map(c => el('option', { value: c, text: c, selected: params.get(name) === c })));
  const cell = select('prof-cell', 'cell'), baseline = select('prof-baseline', 'baseline', 'none (the cell alone)');
  const form = el('form', { class: 'controls' }, el('label', { for: 'prof-cell', text: 'Cell' }), cell,
    el('label', { for: 'prof-baseline', text: 'against baseline' }), baseline, el('button', { type: 'submit', text: 'Show' }));
  form.addEventListener('submit', ev => {
    ev.preventDefault();
    const q = new URLSearchParams({ cell: cell.value });
    if (baseline.value) q.set('baseline', baseline.value);
    location.hash = `#/experiments/${encodeURIComponent(id)}/profile?${q}`;
  });
  return form;
}

/* The frames whose total share differs most, as a table (the figures the colours stand for). */
function profileDiffTable(d) {
  const rows = d.groups.concat(d.frames.slice(0, 25)).map(e => {
    const t = e.total, diffCell = el('td', { class: 'num ' + (t.difference.excludes_zero ? (t.difference.value > 0 ? 'more' : 'less') : '') });
    diffCell.textContent = points(t.difference.value) + (t.difference.ci_low !== null ? ` [${points(t.difference.ci_low)}, ${points(t.difference.ci_high)}]` : '');
    return el('tr', { class: 'profile-frame' }, el('th', { scope: 'row', text: e.name }),
      el('td', { class: 'num', text: shareText(t.cell) }), el('td', { class: 'num', text: shareText(t.baseline) }), diffCell);
  });
  return [el('h2', { text: `Thread groups, then the ${Math.min(25, d.frames.length)} frames whose total share differs most` }),
    table(['Thread group, then frame', { label: `${d.cell}: share (95% CI)`, num: true }, { label: `${d.baseline}: share (95% CI)`, num: true },
      { label: 'Difference (95% CI)', num: true }], rows)];
}

async function viewExperimentProfile(id, params) {
  const base = '/v1/experiments/' + encodeURIComponent(id);
  const exp = (await api(base)).body;
  const cells = (exp.definition.cells || []).filter(c => c.profile !== false).map(c => c.name);
  view.append(el('h1', {}, 'Profiles of ', el('a', { href: '#/experiments/' + encodeURIComponent(id), id: 'exp-title', text: exp.name })),
    profileForm(id, cells, params));
  const cell = params.get('cell') || cells[0], baseline = params.get('baseline');
  const holder = el('div', { id: 'profile' });
  view.append(holder);
  if (!cell) return;
  const tree = await profileOrMessage(holder, `${base}/profile/tree?cell=${encodeURIComponent(cell)}&max_nodes=${FLAME_TREE_NODES}`, `cell ${cell}`);
  if (!tree) return;
  const runs = `${tree.runs.length} profiled run${tree.runs.length === 1 ? '' : 's'}`;
  if (!baseline) {
    holder.append(el('p', { class: 'legend-note', text: `Cell ${cell}: the samples of its ${runs} added up. Root at the top; a frame is as wide as its samples with its callees'; hover for the figures, click to widen.` }));
    flameGraph(holder, tree, null);
    return;
  }
  const LIMIT = 1000;
  const d = await profileOrMessage(holder, `${base}/profile?cell=${encodeURIComponent(cell)}&baseline=${encodeURIComponent(baseline)}&limit=${LIMIT}`, `${cell} against ${baseline}`);
  if (!d) return;
  const groups = new Map(d.groups.map(g => [g.name, g])), frames = new Map(d.frames.map(f => [f.name, f]));
  const maxAbs = d.groups.concat(d.frames).reduce((m, e) => Math.max(m, Math.abs(e.total.difference.value)), 0);
  holder.append(el('p', { class: 'legend-note', id: 'flame-legend', text: `Cell ${cell} (${runs}) drawn as its frames' widths; the colour is the difference of the frame's share of each run's samples (total: anywhere in the stack) between ${cell} (${d.cell_runs} runs) and ${baseline} (${d.baseline_runs} runs): red, ${cell} spends more there; blue, less; strong when the 95% interval of the difference excludes 0, pale when it includes 0, grey when not among the ${LIMIT} frames that differ most. A frame has one colour wherever it appears. Hover for the means and intervals.` }));
  flameGraph(holder, tree, { cell, baseline, maxAbs, limit: LIMIT,
    lookup: r => r.merged || r.depth === 0 ? null : (r.depth === 1 ? groups : frames).get(r.name) || null });
  holder.append(...profileDiffTable(d));
}

/* ---- view: the load hosts (GET /v1/peers) ------------------------------------------------ */

/* The clock offset in seconds with its sign, as the client prints it: "+500.000016 s". */
function fmtOffset(ns) {
  return typeof ns === 'number' ? `${ns >= 0 ? '+' : '−'}${Math.abs(ns / 1e9).toFixed(6)} s` : '–';
}

async function viewPeers() {
  view.append(el('h1', { text: 'Load hosts' }),
    el('p', { class: 'sub', text: 'The hosts this daemon\'s runs used for load that --peer-allow still names, ' +
      'with the clock their last run measured; whether each answers is asked by the daemon and kept 10 s.' }));
  const holder = el('div', { id: 'peers' });
  view.append(holder);
  const render = body => {
    const rows = body.peers.map(p => el('tr', { 'data-host': p.host },
      el('td', { class: 'mono', text: p.host }),
      el('td', {}, el('span', { class: 'peer-answers state ' + (p.answers ? 'state-succeeded' : 'state-failed'), text: p.answers ? 'yes' : 'no' })),
      el('td', { class: 'num peer-offset', text: fmtOffset(p.clock.offset_ns) }),
      el('td', { class: 'num', text: fmtMicros(p.clock.rtt_ns / 1e3) }),
      el('td', { class: 'num', text: fmtMicros(p.clock.error_ns / 1e3) }),
      el('td', { class: 'mono', text: p.version || '–' }),
      el('td', { class: 'mono', text: fmtTime(p.last_used) }),
      el('td', {}, el('a', { href: '#/runs/' + encodeURIComponent(p.last_run), class: 'mono', text: p.last_run })),
      el('td', { text: p.error || '' })));
    holder.replaceChildren(rows.length
      ? table(['Host', 'Answers', { label: 'Clock offset', num: true }, { label: 'Round trip', num: true },
        { label: 'Error bound', num: true }, 'Version', 'Last used', 'Last run', 'Why not'], rows,
        `checked ${fmtTime(body.checked_at)}${body.truncated ? '; more hosts were used than are listed' : ''}`)
      : el('p', { class: 'empty', text: 'No load host used yet (of those --peer-allow names).' }));
  };
  render((await api('/v1/peers')).body);
  pollEvery(async () => render((await api('/v1/peers')).body));
}

/* ---- view: bisections (GET /v1/bisections) ------------------------------------------------ */

const bisectionEnded = status => !['queued', 'running'].includes(status);
const outcomeText = o => o ? o.replace(/_/g, ' ') : '–';

/* The list has a bisection's outcome but not the versions it found: a found one's come from its
 * own answer, asked once, as a found bisection no longer changes. */
const foundResults = new Map();      /* id -> result */
async function foundResult(b) {
  if (b.outcome !== 'found') return null;
  if (!foundResults.has(b.id)) foundResults.set(b.id, (await api('/v1/bisections/' + encodeURIComponent(b.id))).body.result);
  return foundResults.get(b.id);
}

function bisectionRow(b, result) {
  return el('tr', { 'data-id': b.id },
    el('td', {}, el('a', { href: '#/bisections/' + encodeURIComponent(b.id), class: 'bis-name', text: b.name })),
    el('td', { class: 'mono', text: b.id }),
    el('td', { class: 'bis-status' }, stateBadge(b.status)),
    el('td', { class: 'bis-outcome', text: outcomeText(b.outcome) }),
    el('td', { class: 'mono bis-first-changed', text: result ? result.first_changed : '–' }),
    el('td', { class: 'mono bis-last-unchanged', text: result ? result.last_unchanged : '–' }),
    el('td', { class: 'mono', text: fmtTime(b.created_at) }),
    el('td', { class: 'mono', text: fmtTime(b.finished_at) }));
}

async function viewBisections() {
  view.append(el('h1', { text: 'Bisections' }),
    el('p', { class: 'sub', text: 'Which of an ordered list of versions first changed a metric: each step an experiment of two versions.' }));
  const holder = el('div', { id: 'bisections' });
  view.append(holder);
  const gen = generation;
  const render = async body => {
    const results = await Promise.all(body.bisections.map(foundResult));
    if (gen !== generation) return;
    const rows = body.bisections.map((b, i) => bisectionRow(b, results[i]));
    holder.replaceChildren(rows.length
      ? table(['Name', 'Id', 'Status', 'Outcome', 'First changed', 'Last unchanged', 'Created', 'Finished'], rows)
      : el('p', { class: 'empty', text: 'No bisections yet: POST one to /v1/bisections (slicelab bisect FILE).' }));
  };
  const url = '/v1/bisections?limit=100';
  await render((await api(url)).body);
  pollEvery(async () => {
    const r = await api(url, { poll: true });
    if (r.changed) await render(r.body);
  });
}

/* ---- view: a bisection ------------------------------------------------------------------ */

/* A cell of the version axis's grid, placed through the CSSOM (the page's CSP allows no style
 * attribute); grid lines count from 1 and the first column holds the steps' names. */
function gridCell(tag, attrs, place, ...children) {
  const e = el(tag, attrs, ...children);
  e.style.gridColumn = place.column;
  e.style.gridRow = place.row;
  return e;
}

/* Each step as a bar over the versions it compared (its baseline, then the other), its decision
 * linking to its experiment; the versions in order on the axis above, the first changed and the
 * last unchanged marked by a column across every step. */
function versionAxis(b) {
  const index = new Map(b.versions.map((v, i) => [v, i]));
  const col = v => index.get(v) + 2;
  const found = b.result && b.result.outcome === 'found' ? b.result : null;
  const rows = b.steps.length + 1;
  const marks = found ? [[found.last_unchanged, 'last-unchanged', 'last unchanged'], [found.first_changed, 'first-changed', 'first changed']] : [];
  const axis = el('div', { class: 'bis-axis', id: 'bisection-axis', role: 'group', 'aria-label': 'the versions in order, and each step over the two it compared' });
  axis.style.gridTemplateColumns = `max-content repeat(${b.versions.length}, minmax(4.5rem, 1fr))`;
  axis.append(
    ...marks.map(([v, cls]) => gridCell('div', { class: 'bis-mark ' + cls, 'aria-hidden': 'true' }, { column: col(v), row: `1 / span ${rows}` })),
    gridCell('div', { class: 'bis-corner', text: 'version' }, { column: 1, row: 1 }),
    ...b.versions.map((v, i) => {
      const mark = marks.find(m => m[0] === v);
      return gridCell('div', { class: 'bis-version mono' + (mark ? ' ' + mark[1] : ''), 'data-version': v }, { column: i + 2, row: 1 },
        v, mark ? el('span', { class: 'bis-mark-label', text: mark[2] }) : null);
    }),
    ...b.steps.flatMap((s, i) => {
      const [lo, hi] = s.versions.map(col).sort((x, y) => x - y);
      const decision = s.decision || 'running';
      const place = { column: `${lo} / ${hi + 1}`, row: i + 2 };
      return [gridCell('div', { class: 'bis-step-name', text: `step ${s.step}` + (s.attempt ? ` (attempt ${s.attempt})` : '') }, { column: 1, row: i + 2 }),
        gridCell('div', { class: 'bis-step decision-' + decision.replace(/[^a-z]/g, ''), 'data-step': s.step,
          title: `${s.versions[1]} against ${s.versions[0]}` + (s.ratio == null ? '' : `: ratio ${fmt(s.ratio, 3)}`) +
            (s.interval ? ` [${fmt(s.interval[0], 3)}, ${fmt(s.interval[1], 3)}]` : '') },
        place, el('a', { href: '#/experiments/' + encodeURIComponent(s.experiment_id), class: 'bis-step-link', text: decision }),
        s.ratio == null ? null : el('span', { class: 'bis-ratio', text: ` ×${fmt(s.ratio, 3)}` }))];
    }));
  return el('div', { class: 'bis-axis-wrap' }, axis);
}

/* What the bisection came to, in the daemon's own words (its message), or how far it is. */
function bisectionResultText(b) {
  if (b.message) return b.message;
  return bisectionEnded(b.status) ? '–' : `Under way: ${b.steps.length} step(s) queued so far.`;
}

async function viewBisection(id) {
  const base = '/v1/bisections/' + encodeURIComponent(id);
  const b = (await api(base)).body;
  view.append(el('h1', {}, 'Bisection ', el('span', { id: 'bis-title', text: b.name })),
    el('p', { class: 'sub' }, stateBadge(b.status), ` · ${id} · ${b.metric}, a change beyond ±${fmt(b.difference_pct, 3)}%` +
      ` · created ${fmtTime(b.created_at)} · finished ${fmtTime(b.finished_at)}`),
    el('p', { id: 'bis-result' }, b.result ? el('strong', { class: 'bis-outcome', text: outcomeText(b.result.outcome) + ': ' }) : null,
      bisectionResultText(b)));
  view.append(el('h2', { text: 'Steps over the versions' }),
    el('p', { class: 'legend-note', text: 'Versions oldest first. Each bar is a step: the experiment of the two versions at its ends, ' +
      'the older one its baseline, with its stop rule\'s decision on the metric (different, equivalent, undecided, failed; running ' +
      'while it runs) and the ratio of the newer one\'s to the baseline\'s; the link opens the experiment, hover for its interval.' }),
    b.versions.length ? versionAxis(b) : el('p', { class: 'empty', text: 'No versions.' }));
  /* An open bisection's page follows it, as a run's does. */
  if (!bisectionEnded(b.status))
    pollEvery(async () => {
      if ((await api(base, { poll: true })).changed) route();
    });
}

/* ---- routing ---------------------------------------------------------------------------- */

async function route() {
  generation++;
  destroyCharts();
  view.replaceChildren();
  setStatus('');
  const hash = location.hash.replace(/^#/, '') || '/';
  const [path, query] = hash.split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  try {
    if (parts.length === 0) await viewExperiments();
    else if (parts[0] === 'experiments' && parts.length === 2) await viewExperiment(parts[1]);
    else if (parts[0] === 'experiments' && parts.length === 3 && parts[2] === 'profile') await viewExperimentProfile(parts[1], new URLSearchParams(query || ''));
    else if (parts[0] === 'runs' && parts.length === 2) await viewRun(parts[1]);
    else if (parts[0] === 'runs' && parts.length === 3 && parts[2] === 'profile') await viewRunProfile(parts[1]);
    else if (parts[0] === 'compare') await viewCompare(new URLSearchParams(query || ''));
    else if (parts[0] === 'series') await viewSeries(new URLSearchParams(query || ''));
    else if (parts[0] === 'peers' && parts.length === 1) await viewPeers();
    else if (parts[0] === 'bisections' && parts.length === 1) await viewBisections();
    else if (parts[0] === 'bisections' && parts.length === 2) await viewBisection(parts[1]);
    else view.append(el('p', { class: 'error', text: 'No such page: ' + hash }));
  } catch (e) {
    showError(view, e);
  }
  view.dataset.loaded = String(generation);
}

window.addEventListener('hashchange', route);
route();
