#!/usr/bin/env node
// check.js: the project's own rules for openapi.yaml, beyond what a generic linter knows:
// every endpoint of design.md's API table is there with a build status, schemas are closed
// (additionalProperties: false), every error answer is the Error body, mutations need the
// token, and the protocol headers (Location, WWW-Authenticate, Allow, ETag) are where the
// design puts them. Every schema must compile under ajv's strict mode.
//   check.js [openapi.yaml]      exit 0 clean, 1 with each problem printed
// As a module: checkDocument(file) -> { problems: [...], summary }.
'use strict';

const oas = require('./oas.js');

// design.md, "API": the endpoints the document must describe.
const DESIGN_ENDPOINTS = [
  'GET /v1/health',
  'GET /v1/host',
  'POST /v1/experiments',
  'GET /v1/experiments',
  'GET /v1/experiments/{id}',
  'DELETE /v1/experiments/{id}',
  'GET /v1/experiments/{id}/runs',
  'GET /v1/experiments/{id}/report',
  'GET /v1/runs/{id}',
  'GET /v1/runs/{id}/timeline',
  'GET /v1/runs/{id}/gc',
  'GET /v1/runs/{id}/samples',
  'GET /v1/runs/{id}/logs/{stream}',
  'GET /metrics',
];
const STATUSES = ['built', 'building', 'planned'];
const MUTATIONS = ['POST', 'PUT', 'PATCH', 'DELETE'];
const ERROR_REF = '#/components/schemas/Error';
// Keywords whose subschemas constrain an instance someone else's schema already describes:
// `properties` there are conditions, not a description, so they need not be closed.
const CONDITIONAL = new Set(['if', 'then', 'else', 'not', 'dependentSchemas', 'contains']);

let problems = [];
const problem = (where, msg) => problems.push(`${where}: ${msg}`);

// Walks a schema; an object schema with `properties` must say `additionalProperties: false`
// (or `unevaluatedProperties: false`). Maps (no `properties`, additionalProperties a schema)
// are fine.
function checkClosed(schema, where) {
  if (Array.isArray(schema)) {
    schema.forEach((s, i) => checkClosed(s, `${where}/${i}`));
    return;
  }
  if (!schema || typeof schema !== 'object') return;
  if (schema.properties && typeof schema.properties === 'object'
      && schema.additionalProperties !== false && schema.unevaluatedProperties !== false)
    problem(where, 'object schema with properties is not closed (additionalProperties: false)');
  for (const [k, v] of Object.entries(schema)) {
    if (CONDITIONAL.has(k)) continue;
    if (k === 'properties' || k === '$defs' || k === 'patternProperties') {
      for (const [name, sub] of Object.entries(v || {})) checkClosed(sub, `${where}/${k}/${name}`);
    } else if (v && typeof v === 'object' && !['enum', 'const', 'default', 'examples', 'example', 'required'].includes(k)) {
      checkClosed(v, `${where}/${k}`);
    }
  }
}

function refersTo(doc, obj, ref) {
  return obj && obj.$ref === ref;
}

function headerNames(doc, resp) {
  return Object.keys(resp.headers || {}).map((h) => h.toLowerCase());
}

function checkOperation(doc, o) {
  const name = `${o.method} ${o.path}`;
  const op = o.op;
  if (!STATUSES.includes(op['x-slicelab-status']))
    problem(name, `x-slicelab-status must be one of ${STATUSES.join(', ')}, got ${JSON.stringify(op['x-slicelab-status'])}`);
  if (!op.operationId) problem(name, 'no operationId');

  const security = op.security || doc.security || [];
  const anonymous = security.some((s) => Object.keys(s).length === 0);
  const bearer = security.some((s) => 'bearerAuth' in s);
  if (MUTATIONS.includes(o.method) && (anonymous || !bearer))
    problem(name, 'a mutation must require bearerAuth and allow no anonymous access');
  if (!bearer) problem(name, 'no bearerAuth in security');

  const params = [...(o.item.parameters || []), ...(op.parameters || [])].map((p) => oas.deref(doc, p));
  const conditional = params.some((p) => p.in === 'header' && p.name === 'If-None-Match');
  const responses = op.responses || {};
  for (const [status, raw] of Object.entries(responses)) {
    const resp = oas.deref(doc, raw);
    const where = `${name} ${status}`;
    const headers = headerNames(doc, resp);
    if (/^[45]/.test(status)) {
      const json = resp.content && resp.content['application/json'];
      if (!json || !refersTo(doc, json.schema, ERROR_REF))
        problem(where, 'an error answer must have the Error body as application/json');
    }
    if (status === '201' && !headers.includes('location')) problem(where, '201 without Location');
    if (status === '401' && !headers.includes('www-authenticate')) problem(where, '401 without WWW-Authenticate');
    if (status === '405' && !headers.includes('allow')) problem(where, '405 without Allow');
    if (status === '304' && !conditional) problem(where, '304 without an If-None-Match parameter');
    if (status === '304' && resp.content) problem(where, '304 must have no body');
    if (status === '200' && conditional && o.method === 'GET' && !headers.includes('etag'))
      problem(where, 'conditional GET whose 200 carries no ETag');
  }
  if (conditional && !responses['304']) problem(name, 'If-None-Match without a 304 answer');
  for (const s of ['400', '405', '500'])
    if (!responses[s]) problem(name, `no ${s} answer`);
  if (!responses['401']) problem(name, 'no 401 answer (reads need the token off loopback)');
  if (o.path.includes('{') && !responses['404']) problem(name, 'a path with an id needs a 404 answer');
  if (o.method === 'POST' && op.requestBody) {
    for (const s of ['413', '415'])
      if (!responses[s]) problem(name, `a request body needs a ${s} answer`);
  }

  const inline = [];
  for (const p of params) if (p.schema) inline.push([`${name} parameter ${p.name}`, p.schema]);
  if (op.requestBody) {
    for (const [mt, m] of Object.entries(oas.deref(doc, op.requestBody).content || {}))
      if (m.schema) inline.push([`${name} request ${mt}`, m.schema]);
  }
  for (const [status, raw] of Object.entries(responses)) {
    const resp = oas.deref(doc, raw);
    for (const [mt, m] of Object.entries(resp.content || {}))
      if (m.schema) inline.push([`${name} ${status} ${mt}`, m.schema]);
    for (const [h, hraw] of Object.entries(resp.headers || {})) {
      const hdr = oas.deref(doc, hraw);
      if (hdr.schema) inline.push([`${name} ${status} header ${h}`, hdr.schema]);
    }
  }
  return inline;
}

function checkDocument(file) {
  problems = [];
  let doc;
  try {
    doc = oas.loadDoc(file);
  } catch (e) {
    return { problems: [`${file}: ${e.message}`], summary: null };
  }

  const seenIds = new Map();
  const present = new Set();
  const inline = [];
  for (const o of oas.operations(doc)) {
    present.add(`${o.method} ${o.path}`);
    const id = o.op.operationId;
    if (id && seenIds.has(id)) problem(`${o.method} ${o.path}`, `operationId ${id} also used by ${seenIds.get(id)}`);
    if (id) seenIds.set(id, `${o.method} ${o.path}`);
    inline.push(...checkOperation(doc, o));
  }
  for (const e of DESIGN_ENDPOINTS)
    if (!present.has(e)) problem(e, 'endpoint of design.md missing from the document');

  const schemas = (doc.components && doc.components.schemas) || {};
  let ajv;
  try {
    ajv = oas.newAjv(doc);
  } catch (e) {
    problem('components/schemas', `do not load into ajv: ${e.message}`);
  }
  for (const [n, s] of Object.entries(schemas)) {
    checkClosed(s, `#/components/schemas/${n}`);
    if (ajv) {
      try {
        oas.compile(ajv, { $ref: `#/components/schemas/${n}` });
      } catch (e) {
        problem(`#/components/schemas/${n}`, `does not compile: ${e.message}`);
      }
    }
  }
  for (const [where, s] of inline) {
    checkClosed(s, where);
    if (ajv) {
      try {
        oas.compile(ajv, s);
      } catch (e) {
        problem(where, `does not compile: ${e.message}`);
      }
    }
  }

  const ops = [...oas.operations(doc)];
  const counts = STATUSES.map((s) => `${ops.filter((o) => o.op['x-slicelab-status'] === s).length} ${s}`);
  return {
    problems,
    summary: `${ops.length} operations (${counts.join(', ')}), ${Object.keys(schemas).length} schemas`,
  };
}

function cli() {
  const file = process.argv[2] || oas.defaultDocPath();
  let result;
  try {
    result = checkDocument(file);
  } catch (e) {
    result = { problems: [`check.js: internal error: ${e.stack}`] };
  }
  if (result.problems.length) {
    process.stdout.write(`${file}: ${result.problems.length} problem(s)\n${result.problems.map((p) => `  ${p}`).join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write(`${file}: ${result.summary}: ok\n`);
}

module.exports = { checkDocument };
if (require.main === module) cli();
