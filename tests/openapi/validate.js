#!/usr/bin/env node
// validate.js: checks one real HTTP body against openapi.yaml, for integration tests.
//
//   validate.js <operationId | METHOD PATH> <status | request> <file> [media-type]
//
// PATH may be a template (/v1/runs/{id}) or a concrete path (/v1/runs/k3x9..., query ignored);
// a concrete path's parameters are checked against their schemas too. <status> is the HTTP
// status of the response, or `request` to check a request body (e.g. a definition).
// media-type (a Content-Type as received; parameters such as charset are ignored) defaults
// to application/json; application/x-ndjson checks every line; a non-JSON type only checks
// that the document lists it for that status. A status without
// content (304) expects an empty file. Exit 0 valid, 1 invalid (errors printed), 2 usage.
// OPENAPI_DOC overrides the document's path. As a module: createValidator(docPath).check(...).
'use strict';

const fs = require('fs');
const oas = require('./oas.js');

class UsageError extends Error {}

function parseArgs(argv) {
  let method = null;
  let target;
  let rest;
  const first = (argv[0] || '').split(' ');
  if (first.length === 2) {
    [method, target] = first;
    rest = argv.slice(1);
  } else if (oas.METHODS.includes((argv[0] || '').toLowerCase())) {
    [method, target] = argv;
    rest = argv.slice(2);
  } else {
    target = argv[0];
    rest = argv.slice(1);
  }
  if (!target || rest.length < 2 || rest.length > 3) throw new UsageError('wrong number of arguments');
  if (method && !target.startsWith('/')) throw new UsageError(`path must start with '/': ${target}`);
  const [status, file, mediaType = 'application/json'] = rest;
  if (status !== 'request' && !/^[1-5][0-9][0-9]$/.test(status)) throw new UsageError(`bad status ${status}`);
  return { method, target, status, file, mediaType };
}

function createValidator(docPath) {
  const doc = oas.loadDoc(docPath);
  const ajv = oas.newAjv(doc);
  const compiled = new Map();
  const validatorFor = (schema) => {
    const key = JSON.stringify(schema);
    if (!compiled.has(key)) compiled.set(key, oas.compile(ajv, schema));
    return compiled.get(key);
  };

  function pathParamErrors(found) {
    if (!found.params) return [];
    const declared = [...(found.item.parameters || []), ...(found.op.parameters || [])]
      .map((p) => oas.deref(doc, p)).filter((p) => p.in === 'path');
    const errors = [];
    for (const p of declared) {
      const v = validatorFor(p.schema || {});
      if (!v(found.params[p.name]))
        errors.push(`path parameter ${p.name}=${JSON.stringify(found.params[p.name])} invalid:`,
          ...oas.formatErrors(v.errors));
    }
    return errors;
  }

  function bodyContent(found, status) {
    if (status === 'request') {
      if (!found.op.requestBody) return { error: 'the operation takes no request body' };
      return { content: oas.deref(doc, found.op.requestBody).content || {} };
    }
    const responses = found.op.responses || {};
    const resp = responses[status] || responses[`${status[0]}XX`] || responses.default;
    if (!resp) return { error: `status ${status} is not documented for this operation (documented: ${Object.keys(responses).join(', ')})` };
    return { content: oas.deref(doc, resp).content || null };
  }

  // Returns { errors: [lines], note }; errors empty = valid.
  function check({ method, target, status, mediaType = 'application/json' }, body) {
    const found = oas.findOperation(doc, method, target);
    if (!found) return { errors: [`no operation ${method ? `${method} ${target}` : target} in ${docPath}`] };
    const errors = pathParamErrors(found);
    const { content, error } = bodyContent(found, status);
    if (error) return { errors: [...errors, error] };
    if (content === null) {
      if (body.length !== 0) errors.push(`status ${status} has no body, got ${body.length} bytes`);
      return { errors };
    }
    // A Content-Type header as sent ("application/json; charset=utf-8") matches its base type.
    const base = (t) => t.split(';')[0].trim().toLowerCase();
    const key = mediaType in content ? mediaType
      : Object.keys(content).find((k) => base(k) === base(mediaType));
    if (!key) return { errors: [...errors, `media type ${mediaType} not documented for ${status} (documented: ${Object.keys(content).join(', ') || 'none'})`] };
    const media = content[key];
    const isNdjson = base(key) === 'application/x-ndjson';
    if (base(key) !== 'application/json' && !isNdjson)
      return { errors, note: `${key}: no schema to check` };

    const v = validatorFor(media.schema || {});
    const texts = isNdjson ? body.split('\n').filter((l) => l.length > 0) : [body];
    texts.forEach((text, i) => {
      const where = isNdjson ? `line ${i + 1}: ` : '';
      let value;
      try {
        value = JSON.parse(text);
      } catch (e) {
        errors.push(`${where}not JSON: ${e.message}`);
        return;
      }
      if (!v(value)) errors.push(...oas.formatErrors(v.errors).map((l) => where + l));
    });
    return { errors };
  }

  return { doc, check };
}

function cli() {
  let args;
  let validator;
  let body;
  try {
    args = parseArgs(process.argv.slice(2));
    const docPath = process.env.OPENAPI_DOC || oas.defaultDocPath();
    try {
      validator = createValidator(docPath);
    } catch (e) {
      throw new UsageError(`cannot load ${docPath}: ${e.message}`);
    }
    try {
      body = fs.readFileSync(args.file, 'utf8');
    } catch (e) {
      throw new UsageError(`cannot read ${args.file}: ${e.message}`);
    }
  } catch (e) {
    process.stderr.write(`validate.js: ${e instanceof UsageError ? e.message : e.stack}\n`);
    process.stderr.write('usage: validate.js <operationId | METHOD PATH> <status | request> <file> [media-type]\n');
    process.exit(2);
  }
  let result;
  try {
    result = validator.check(args, body);
  } catch (e) {
    process.stderr.write(`validate.js: internal error: ${e.stack}\n`);
    process.exit(2);
  }
  const { errors, note } = result;
  if (errors.length) {
    process.stdout.write(`INVALID\n${errors.join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write(note ? `VALID (${note})\n` : 'VALID\n');
}

module.exports = { createValidator, parseArgs };
if (require.main === module) cli();
