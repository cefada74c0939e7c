#!/usr/bin/env node
// test-validate.js: tests validate.js on every case of cases/cases.tsv (good bodies that must
// pass, bad ones that must fail naming the place). Every case runs in-process (one document
// load for all); every CLI_EVERY-th case also runs through the command line exactly as
// integration tests call it, and must give the same verdict, as must the usage errors (exit 2).
// Prints TAP; exit 0 when every case behaves, 1 otherwise.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { createValidator, parseArgs } = require('./validate.js');
const oas = require('./oas.js');

const casesDir = path.join(__dirname, 'cases');
const validate = path.join(__dirname, 'validate.js');
const CLI_EVERY = 10;

// `/a/b=JSON` sets (creating the last key), `-/a/b` deletes; several joined with `;`.
function applyPatch(value, patch) {
  for (const edit of patch.split(';')) {
    const del = edit.startsWith('-');
    const spec = del ? edit.slice(1) : edit;
    const eq = del ? -1 : spec.indexOf('=');
    const pointer = del ? spec : spec.slice(0, eq);
    if (!pointer.startsWith('/') || (!del && eq < 0)) throw new Error(`bad patch ${edit}`);
    const keys = pointer.slice(1).split('/');
    const last = keys.pop();
    const parent = keys.reduce((o, k) => {
      if (o === null || typeof o !== 'object' || !(k in o)) throw new Error(`patch ${edit}: no ${k}`);
      return o[k];
    }, value);
    if (del) {
      if (!(last in parent)) throw new Error(`patch ${edit}: nothing to delete`);
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
    } else {
      parent[last] = JSON.parse(spec.slice(eq + 1));
    }
  }
  return value;
}

function loadCases() {
  const text = fs.readFileSync(path.join(casesDir, 'cases.tsv'), 'utf8');
  return text.split('\n').map((line, i) => ({ line, n: i + 1 }))
    .filter(({ line }) => line.trim() && !line.startsWith('#'))
    .map(({ line, n }) => {
      const f = line.split('\t');
      if (f.length !== 7 || !['valid', 'invalid'].includes(f[0]))
        throw new Error(`cases.tsv:${n}: want 7 tab-separated fields starting with valid|invalid`);
      const [expect, op, status, file, patch, media, want] = f;
      return { n, expect, op, status, file, patch, media, want };
    });
}

function caseFile(c, tmp) {
  const file = path.join(casesDir, c.file);
  if (c.patch === '-') return file;
  const patched = applyPatch(JSON.parse(fs.readFileSync(file, 'utf8')), c.patch);
  const out = path.join(tmp, `case-${c.n}.json`);
  fs.writeFileSync(out, JSON.stringify(patched));
  return out;
}

function cliArgs(c, file) {
  const args = [c.op, c.status, file];
  if (c.media !== '-') args.push(c.media);
  return args;
}

function runCli(args) {
  const r = spawnSync(process.execPath, [validate, ...args], { encoding: 'utf8' });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

function judge(c, code, out) {
  const wantCode = c.expect === 'valid' ? 0 : 1;
  const why = [];
  if (code !== wantCode) why.push(`exit ${code}, expected ${wantCode}`);
  if (c.want !== '-' && !out.includes(c.want)) why.push(`output lacks ${JSON.stringify(c.want)}`);
  return why;
}

function runCase(c, i, validator, tmp) {
  const file = caseFile(c, tmp);
  const args = parseArgs(cliArgs(c, file));
  const { errors, note } = validator.check(args, fs.readFileSync(file, 'utf8'));
  const out = errors.length ? `INVALID\n${errors.join('\n')}` : `VALID${note ? ` (${note})` : ''}`;
  const why = judge(c, errors.length ? 1 : 0, out);
  if (i % CLI_EVERY === 0) {
    const r = runCli(cliArgs(c, file));
    why.push(...judge(c, r.code, r.out).map((w) => `CLI: ${w}`));
  }
  return { ok: why.length === 0, why, out };
}

// The command line's own contract: usage errors are 2, never a verdict.
const USAGE_CASES = [
  [[], 'no arguments'],
  [['getHealth', '200'], 'no file'],
  [['getHealth', 'OK', path.join(casesDir, 'health-ok.json')], 'bad status'],
  [['getHealth', '200', path.join(casesDir, 'no-such-file.json')], 'unreadable file'],
  [['GET', 'v1/health', '200', path.join(casesDir, 'health-ok.json')], 'relative path'],
];

// The definition validator's own good definitions (tests/definition/good*/) must all be valid
// under the request schema: the document and the daemon agree on what is accepted.
function definitionCases() {
  const src = process.env.SLICELAB_SRC || path.join(__dirname, '..', '..');
  const base = path.join(src, 'tests', 'definition');
  if (!fs.existsSync(base)) return [];
  return fs.readdirSync(base).filter((d) => d.startsWith('good')).sort()
    .flatMap((d) => fs.readdirSync(path.join(base, d)).filter((f) => f.endsWith('.json')).sort()
      .map((f) => ({
        n: `${d}/${f}`, expect: 'valid', op: 'createExperiment', status: 'request',
        file: path.join('..', '..', 'definition', d, f), patch: '-', media: '-', want: '-',
      })));
}

function main() {
  const cases = [...loadCases(), ...definitionCases()];
  const validator = createValidator(process.env.OPENAPI_DOC || oas.defaultDocPath());
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'slicelab-openapi-'));
  let failed = 0;
  const total = cases.length + USAGE_CASES.length;
  try {
    process.stdout.write(`1..${total}\n`);
    cases.forEach((c, i) => {
      const label = `${c.expect} ${c.op} ${c.status} ${c.file}${c.patch !== '-' ? ` [${c.patch}]` : ''}`;
      let r;
      try {
        r = runCase(c, i, validator, tmp);
      } catch (e) {
        r = { ok: false, why: [e.message], out: '' };
      }
      process.stdout.write(`${r.ok ? 'ok' : 'not ok'} ${i + 1} - ${typeof c.n === 'number' ? `cases.tsv:${c.n}` : c.n} ${label}\n`);
      if (!r.ok) {
        failed++;
        process.stdout.write(`# ${r.why.join('; ')}\n${r.out.split('\n').map((l) => `#   ${l}`).join('\n')}\n`);
      }
    });
    USAGE_CASES.forEach(([args, label], i) => {
      const r = runCli(args);
      const ok = r.code === 2 && r.out.includes('usage:');
      if (!ok) failed++;
      process.stdout.write(`${ok ? 'ok' : 'not ok'} ${cases.length + i + 1} - CLI usage error: ${label}\n`);
      if (!ok) process.stdout.write(`# exit ${r.code}, expected 2 with usage\n#   ${r.out}\n`);
    });
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  process.stdout.write(`${total - failed} passed, ${failed} failed\n`);
  process.exit(failed ? 1 : 0);
}

main();
