#!/usr/bin/env node
// check.js FILE: parses Prometheus text exposition with parse-prometheus-text-format and prints
// the families as JSON ({name, type, metrics}); exits 1 if the text does not parse.
'use strict';
const fs = require('fs');
const path = require('path');
const parse = require(path.join(__dirname, 'node_modules', 'parse-prometheus-text-format'));
try {
  const families = parse(fs.readFileSync(process.argv[2], 'utf8'));
  process.stdout.write(JSON.stringify(families) + '\n');
} catch (e) {
  process.stderr.write(`not Prometheus text: ${e.message}\n`);
  process.exit(1);
}
