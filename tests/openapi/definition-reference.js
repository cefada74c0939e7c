// definition-reference.js: docs/definition.md's reference of the experiment definition, one row
// per field with its type, default and rule, made from openapi.yaml's ExperimentDefinition (the
// authority), so that the two cannot drift.
//   node definition-reference.js          check: the document's table is the one made now (exit 1 if not)
//   node definition-reference.js --write  rewrite the document's table
// The table sits between the document's two marker lines BEGIN and END below.
'use strict';

const fs = require('fs');
const path = require('path');
const { loadDoc, deref, defaultDocPath } = require('./oas');

const BEGIN = '<!-- definition reference: made from openapi.yaml by tests/openapi/definition-reference.js --write -->';
const END = '<!-- end of the definition reference -->';
const DOC = 'docs/definition.md';

// A property's schema with its $ref followed; a description beside the $ref wins.
function resolve(doc, schema) {
  const target = deref(doc, schema);
  return schema.description && target !== schema ? { ...target, description: schema.description } : target;
}

function typeOf(doc, s) {
  if (s.type) return Array.isArray(s.type) ? s.type.join(' or ') : s.type;
  const alternatives = s.oneOf || s.anyOf;
  if (alternatives) return [...new Set(alternatives.map(a => typeOf(doc, resolve(doc, a))))].join(' or ');
  if (s.const !== undefined) return JSON.stringify(s.const);
  return 'any';
}

// What a schema bounds, in words: enum, ranges, lengths, counts.
function bounds(s) {
  const b = [];
  if (s.enum) b.push('one of ' + s.enum.map(v => '`' + v + '`').join(', '));
  const range = (lo, hi, unit, above) => {
    if (lo !== undefined && hi !== undefined && !above) b.push(`${lo} to ${hi}${unit}`);
    else {
      if (lo !== undefined) b.push(`${above ? 'above' : 'at least'} ${lo}${unit}`);
      if (hi !== undefined) b.push(`at most ${hi}${unit}`);
    }
  };
  range(s.minimum ?? s.exclusiveMinimum, s.maximum, '', s.exclusiveMinimum !== undefined);
  range(s.minLength, s.maxLength, ' characters');
  range(s.minItems, s.maxItems, ' items');
  range(s.minProperties, s.maxProperties, ' entries');
  return b;
}

function oneLine(text) {
  return String(text || '').replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|');
}

// The rule of a field: its description, then its bounds in parentheses, then the forms an
// object of several forms (oneOf) takes, each named by its required fields.
function rule(s, forms) {
  const text = oneLine(s.description).replace(/\.$/, '');
  const b = bounds(s);
  let r = text && b.length ? `${text} (${b.join(', ')})` : text || b.join(', ');
  if (forms.length)
    r += (r ? '. ' : '') + 'One of: ' + forms.map(f => f.required.map(k => '`' + k + '`').join(' and ') +
      (f.description ? ` (${oneLine(f.description).replace(/\.$/, '')})` : '')).join('; ');
  return r && !r.endsWith('.') ? r + '.' : r;
}

// rows(doc, schema, field, required, out): one row per field under schema, depth first.
// required is '' (optional), 'required', or 'in its form' (required by one form of a oneOf).
function rows(doc, schema, field, required, out) {
  const s = resolve(doc, schema);
  const alternatives = s.oneOf ? s.oneOf.map(a => resolve(doc, a)) : [];
  const forms = alternatives.filter(a => a.properties);
  const items = s.type === 'array' && s.items ? resolve(doc, s.items) : null;
  if (field && !out.some(r => r.field === field)) {
    const def = s.default !== undefined ? '`' + JSON.stringify(s.default) + '`' : required;
    out.push({ field, type: items ? `array of ${typeOf(doc, items)}` : typeOf(doc, s), def, rule: rule(s, forms) });
  }
  const prefix = field ? field + '.' : '';
  if (s.properties) {
    for (const [k, v] of Object.entries(s.properties))
      rows(doc, v, prefix + k, (s.required || []).includes(k) ? 'required' : '', out);
  }
  for (const a of forms)
    for (const [k, v] of Object.entries(a.properties))
      rows(doc, v, prefix + k, (a.required || []).includes(k) ? 'required in its form' : '', out);
  if (items && (items.properties || (items.oneOf || []).some(a => resolve(doc, a).properties)))
    rows(doc, items, field + '[]', '', out);
  if (s.additionalProperties && typeof s.additionalProperties === 'object' && field)
    rows(doc, s.additionalProperties, field + '.KEY', '', out);
  return out;
}

function table(doc) {
  const root = doc.components.schemas.ExperimentDefinition;
  const out = rows(doc, root, '', '', []).filter(r => r.field);
  const lines = ['| field | type | default | rule |', '|---|---|---|---|'];
  for (const r of out) lines.push(`| \`${r.field}\` | ${r.type} | ${r.def} | ${r.rule} |`);
  return lines.join('\n');
}

function main() {
  const src = process.env.SLICELAB_SRC || path.join(__dirname, '..', '..');
  const docPath = path.join(src, DOC);
  const text = fs.readFileSync(docPath, 'utf8');
  const a = text.indexOf(BEGIN), b = text.indexOf(END);
  if (a < 0 || b < a) {
    console.error(`${DOC}: no definition reference between the lines\n  ${BEGIN}\n  ${END}`);
    process.exit(1);
  }
  const made = BEGIN + '\n' + table(loadDoc(defaultDocPath())) + '\n';
  const now = text.slice(a, b);
  if (process.argv[2] === '--write') {
    fs.writeFileSync(docPath, text.slice(0, a) + made + text.slice(b));
    return;
  }
  if (now !== made) {
    const have = now.split('\n'), want = made.split('\n');
    const i = want.findIndex((l, k) => l !== have[k]);
    console.error(`${DOC}: the definition reference is not the one openapi.yaml makes ` +
      '(node tests/openapi/definition-reference.js --write):');
    console.error(`  first difference, line ${i + 1} of the table:\n  ${DOC}:  ${have[i]}\n  openapi: ${want[i]}`);
    process.exit(1);
  }
  console.log(`${DOC}'s definition reference matches openapi.yaml (${fieldCount(made)} fields)`);
}

function fieldCount(made) {
  return made.split('\n').filter(l => l.startsWith('| `')).length;
}

main();
