#!/usr/bin/env node
'use strict';
/**
 * Writes test/durations.json, the order test/sequencer.js starts test files in, from the output of
 * one whole run: `npx jest --json --outputFile=/tmp/run.json`, then
 * `node scripts/test-durations.js /tmp/run.json`. Seconds per file, longest first.
 */
const fs = require('node:fs');
const path = require('node:path');

const input = process.argv[2];
if (!input) {
  process.stderr.write('usage: node scripts/test-durations.js <jest --json output file>\n');
  process.exit(2);
}
const root = path.resolve(__dirname, '..');
const run = JSON.parse(fs.readFileSync(input, 'utf8'));
const seconds = {};
for (const r of run.testResults.sort((a, b) => b.endTime - b.startTime - (a.endTime - a.startTime))) {
  const file = path.relative(root, r.name).split(path.sep).join('/');
  seconds[file] = Math.round((r.endTime - r.startTime) / 100) / 10;
}
const out = {
  about: 'Seconds per test file in one whole run (longest first), the order test/sequencer.js starts them in. Refresh: node scripts/test-durations.js <jest --json output>.',
  measured: `${new Date(run.startTime).toISOString().slice(0, 10)}, one whole run: the order matters, not the figures (machines differ)`,
  seconds,
};
fs.writeFileSync(path.join(root, 'test', 'durations.json'), `${JSON.stringify(out, null, 2)}\n`);
process.stdout.write(`test/durations.json: ${Object.keys(seconds).length} files\n`);
