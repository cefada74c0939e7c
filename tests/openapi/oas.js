// oas.js: loads openapi.yaml and turns its schemas into ajv (JSON Schema 2020-12) validators,
// shared by validate.js (bodies against operations) and check.js (the document's own rules).
'use strict';

const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

// Callers (integration tests) just run validate.js: the pinned packages are installed on
// first use, under install-deps.sh's lock.
function requireDeps() {
  const load = () => ({
    YAML: require('yaml'),
    Ajv2020: require('ajv/dist/2020').default,
    addFormats: require('ajv-formats').default,
  });
  try {
    return load();
  } catch (e) {
    if (e.code !== 'MODULE_NOT_FOUND') throw e;
    const r = spawnSync(path.join(__dirname, 'install-deps.sh'), { stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0) throw new Error('installing the npm packages failed (install-deps.sh)');
    return load();
  }
}
const { YAML, Ajv2020, addFormats } = requireDeps();

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const SCHEMAS_ID = 'urn:slicelab:openapi-schemas';
const COMPONENT_SCHEMA = '#/components/schemas/';

function defaultDocPath() {
  const src = process.env.SLICELAB_SRC || path.join(__dirname, '..', '..');
  return path.join(src, 'openapi.yaml');
}

function loadDoc(file) {
  const text = fs.readFileSync(file, 'utf8');
  // uniqueKeys: a key given twice in the document is a mistake, never an override.
  const doc = YAML.parse(text, { uniqueKeys: true, prettyErrors: true });
  if (!doc || typeof doc !== 'object' || !String(doc.openapi || '').startsWith('3.1.'))
    throw new Error(`${file}: not an OpenAPI 3.1 document`);
  return doc;
}

// JSON pointer lookup for the document's own "#/..." references (parameters, responses, headers).
function deref(doc, obj) {
  const seen = new Set();
  while (obj && typeof obj === 'object' && typeof obj.$ref === 'string') {
    const ref = obj.$ref;
    if (!ref.startsWith('#/') || seen.has(ref))
      throw new Error(`unresolvable or circular reference ${ref}`);
    seen.add(ref);
    obj = ref.slice(2).split('/').reduce((o, k) => {
      k = k.replace(/~1/g, '/').replace(/~0/g, '~');
      if (!o || !(k in o)) throw new Error(`dangling reference ${ref}`);
      return o[k];
    }, doc);
  }
  return obj;
}

// Schemas refer to each other as "#/components/schemas/X"; ajv sees them as $defs of one
// resource, so component refs are rewritten to point into it.
function rewriteRefs(node, prefix) {
  if (Array.isArray(node)) return node.map((n) => rewriteRefs(n, prefix));
  if (!node || typeof node !== 'object') return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith(COMPONENT_SCHEMA))
      out[k] = prefix + v.slice(COMPONENT_SCHEMA.length);
    else
      out[k] = rewriteRefs(v, prefix);
  }
  return out;
}

function newAjv(doc) {
  const ajv = new Ajv2020({
    strict: true,
    strictTypes: false,       // OpenAPI-style `type: [x, 'null']` with per-type keywords is intended
    strictTuples: false,      // argv: prefixItems for argv[0], then `items` for the rest
    allowUnionTypes: true,
    allErrors: true,
    validateFormats: true,
  });
  addFormats(ajv);
  // Keywords the OpenAPI 3.1 base dialect adds to JSON Schema: annotations for ajv.
  ajv.addVocabulary(['discriminator', 'xml', 'externalDocs', 'example']);
  const schemas = (doc.components && doc.components.schemas) || {};
  ajv.addSchema({ $id: SCHEMAS_ID, $defs: rewriteRefs(schemas, '#/$defs/') });
  return ajv;
}

function compile(ajv, schema) {
  return ajv.compile(rewriteRefs(schema, `${SCHEMAS_ID}#/$defs/`));
}

function* operations(doc) {
  for (const [p, item] of Object.entries(doc.paths || {}))
    for (const m of METHODS)
      if (item[m]) yield { method: m.toUpperCase(), path: p, item, op: item[m] };
}

// "GET /v1/runs/abc" or "getRun": the operation, and the path parameters a concrete path gave.
function findOperation(doc, method, reqPath) {
  if (!method) {
    for (const o of operations(doc))
      if (o.op.operationId === reqPath) return { ...o, params: null };
    return null;
  }
  const segs = reqPath.split('?')[0].split('/');
  for (const o of operations(doc)) {
    if (o.method !== method.toUpperCase()) continue;
    const tsegs = o.path.split('/');
    if (tsegs.length !== segs.length) continue;
    const params = {};
    const match = tsegs.every((t, i) => {
      const m = /^\{(.+)\}$/.exec(t);
      if (!m) return t === segs[i];
      if (segs[i] === t) return true;   // the template itself
      params[m[1]] = decodeURIComponent(segs[i]);
      return segs[i].length > 0;
    });
    if (match) return { ...o, params };
  }
  return null;
}

function formatErrors(errors) {
  return (errors || []).map((e) => {
    const where = e.instancePath === '' ? '(body)' : e.instancePath;
    const extra = e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : '';
    return `  ${where}: ${e.message}${extra} [${e.schemaPath}]`;
  });
}

module.exports = {
  METHODS, defaultDocPath, loadDoc, deref, newAjv, compile, operations, findOperation,
  formatErrors,
};
