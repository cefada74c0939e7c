#!/usr/bin/env node
// test-lint.js: proves the lint can fail. Each case breaks a copy of openapi.yaml in one way
// (a dangling $ref, a wrong type, a missing build status, an open schema, ...) and asserts that
// the lint stage meant to catch it rejects it and says why: Redocly (run alone per file: its
// multi-file mode carries rule state from one file to the next and misses errors), check.js
// (in-process), or lint.sh as a whole (which also proves its exit status). The unbroken copy
// must pass every stage first. Prints TAP; exit 0 when every breakage is caught.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const oas = require('./oas.js');
const { checkDocument } = require('./check.js');

// [what, text to find (must occur), replacement, what the output must say, stage]
const MUTATIONS = [
  ['dangling $ref', "$ref: '#/components/schemas/Health'", "$ref: '#/components/schemas/Healthy'", "Can't resolve $ref", 'redocly'],
  ['unknown type', 'type: integer', 'type: int', '`type` can be one of', 'redocly'],
  ['duplicate YAML key', '      operationId: getHealth\n', '      operationId: getHealth\n      operationId: getHealth2\n', 'duplicated mapping key', 'lint.sh'],
  ['duplicate operationId', 'operationId: getHost', 'operationId: getHealth', 'operation-operationId-unique', 'redocly'],
  ['missing build status', '      x-slicelab-status: built\n', '', 'x-slicelab-status', 'check'],
  ['unknown build status', '      x-slicelab-status: built', '      x-slicelab-status: someday', 'x-slicelab-status', 'check'],
  ['open object schema', '    Health:\n      type: object\n      additionalProperties: false\n', '    Health:\n      type: object\n', 'not closed', 'check'],
  ['design endpoint missing', '\n  /metrics:\n', '\n  /v1/metrics:\n', 'GET /metrics: endpoint of design.md missing', 'check'],
  ['error answer without the Error body',
    '      description: No such experiment, run or path.\n      content:\n        application/json:\n          schema:\n            $ref: \'#/components/schemas/Error\'',
    '      description: No such experiment, run or path.\n      content:\n        application/json:\n          schema:\n            $ref: \'#/components/schemas/Health\'',
    'Error body', 'check'],
  ['regex that does not compile', "pattern: '^(0|[1-9][0-9]{0,3})$'", "pattern: '^(0|[1-9'", 'does not compile', 'check'],
  ['anonymous mutation', "      security:\n        - bearerAuth: []\n      parameters:\n        - $ref: '#/components/parameters/IdempotencyKey'",
    "      security:\n        - {}\n        - bearerAuth: []\n      parameters:\n        - $ref: '#/components/parameters/IdempotencyKey'", 'mutation', 'check'],
  ['401 without WWW-Authenticate', "      headers:\n        WWW-Authenticate:\n          $ref: '#/components/headers/WWWAuthenticate'\n", '', '401 without WWW-Authenticate', 'check'],
  ['201 without Location', "        '201':\n          description: Created; the runs are queued.\n          headers:\n            Location:\n              $ref: '#/components/headers/Location'\n",
    "        '201':\n          description: Created; the runs are queued.\n", '201 without Location', 'check'],
  ['path parameter not declared', '  /v1/runs/{id}/gc:\n    parameters:\n      - $ref: \'#/components/parameters/RunId\'\n', '  /v1/runs/{id}/gc:\n', 'path-parameters-defined', 'redocly'],
];

const redoclyEnv = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_UPDATE_NOTIFIER: '1' };

function runRedocly(file) {
  const r = spawnSync(process.execPath, [
    path.join(__dirname, 'node_modules/@redocly/cli/bin/cli.js'), 'lint',
    '--config', path.join(__dirname, 'redocly.yaml'), '--format', 'stylish', file],
  { encoding: 'utf8', env: redoclyEnv });
  return { failed: r.status !== 0, out: `${r.stdout}${r.stderr}`.replace(/^.*[║╔╚].*\n/gm, '') };
}

function runCheck(file) {
  const { problems } = checkDocument(file);
  return { failed: problems.length > 0, out: problems.join('\n') };
}

function runLintSh(file) {
  const r = spawnSync(path.join(__dirname, 'lint.sh'), [file], { encoding: 'utf8' });
  return { failed: r.status !== 0, out: `${r.stdout}${r.stderr}` };
}

const STAGES = { redocly: runRedocly, check: runCheck, 'lint.sh': runLintSh };

function main() {
  const r = spawnSync(path.join(__dirname, 'install-deps.sh'), { stdio: 'inherit' });
  if (r.status !== 0) process.exit(1);
  const source = fs.readFileSync(oas.defaultDocPath(), 'utf8');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'slicelab-openapi-lint-'));
  let failed = 0;
  const total = MUTATIONS.length + 2;
  const report = (ok, n, label, why) => {
    if (!ok) failed++;
    process.stdout.write(`${ok ? 'ok' : 'not ok'} ${n} - ${label}\n`);
    if (!ok) process.stdout.write(`${why.trimEnd()}\n`.replace(/^(?=.)/gm, '#   '));
  };
  process.stdout.write(`1..${total}\n`);
  try {
    // The unbroken copy must pass, or every "caught" below means nothing.
    const clean = path.join(tmp, 'clean.yaml');
    fs.writeFileSync(clean, source);
    const cr = runRedocly(clean);
    report(!cr.failed, 1, 'openapi.yaml passes Redocly', cr.out);
    const cc = runCheck(clean);
    report(!cc.failed, 2, 'openapi.yaml passes check.js', cc.out);

    MUTATIONS.forEach(([what, from, to, want, stage], i) => {
      let why = '';
      if (!STAGES[stage]) {
        why = `unknown stage ${stage}`;
      } else if (!source.includes(from)) {
        why = 'the text to break is no longer in openapi.yaml: update this case';
      } else {
        const file = path.join(tmp, `mutant-${i + 1}.yaml`);
        fs.writeFileSync(file, source.replace(from, to));
        const v = STAGES[stage](file);
        if (!v.failed) why = `${stage} passed it:\n${v.out}`;
        else if (!v.out.includes(want)) why = `${stage} failed but did not say ${JSON.stringify(want)}:\n${v.out}`;
      }
      report(!why, i + 3, `${stage} rejects: ${what}`, why);
    });
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  process.stdout.write(`${total - failed} passed, ${failed} failed\n`);
  process.exit(failed ? 1 : 0);
}

main();
