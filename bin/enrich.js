#!/usr/bin/env node
'use strict';
// The `enrich` command. It runs the compiled JavaScript in dist/ (`npm run build`; `npm ci` builds
// it through the `prepare` script, and `npm start` and `npm test` rebuild it first), so it starts
// in a fraction of a second. When dist/ is missing, or src/ has changed since the last build, it
// runs the TypeScript sources through tsx instead (correct, but a second or more slower to start)
// and says so in one line on stderr.
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const compiled = path.join(root, 'dist', 'src', 'cli', 'main.js');
const stamp = path.join(root, 'dist', '.built');
const sources = path.join(root, 'src');

function mtime(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/** The newest modification time of any file under `dir` (about 100 files: a millisecond or two). */
function newest(dir) {
  let max = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    max = Math.max(max, entry.isDirectory() ? newest(full) : fs.statSync(full).mtimeMs);
  }
  return max;
}

function fromSources(reason) {
  process.stderr.write(`enrich: ${reason}; running the TypeScript sources through tsx (slower start). \`npm run build\` fixes this.\n`);
  require('tsx/cjs');
  return require('../src/cli/main.ts');
}

function cli() {
  const built = mtime(stamp);
  if (built === undefined || mtime(compiled) === undefined) return fromSources('dist/ is not built');
  if (fs.existsSync(sources) && newest(sources) > built) return fromSources('src/ changed since dist/ was built');
  return require(compiled);
}

cli()
  .runCli(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
