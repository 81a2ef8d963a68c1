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

// Only `enrich import` involves a worker thread (below; in the worker, argv[2] is `import` too), so
// only it loads worker_threads: every other command starts without it.
const threads = process.argv[2] === 'import' ? require('node:worker_threads') : undefined;
const { Worker, isMainThread, parentPort, workerData } = threads || { isMainThread: true };

/** The terminal facts of this process's stdout and stderr, which a worker's own streams lack. */
const terminalOf = (stream) => (stream.isTTY ? { columns: stream.columns, rows: stream.rows } : null);

if (isMainThread && process.argv[2] === 'import') {
  // `enrich import` in a worker thread with a larger young generation (bin/heap.js says why); its
  // output goes to this process's stdout and stderr, and its exit code becomes this one's.
  const { IMPORT_RESOURCE_LIMITS } = require('./heap');
  const worker = new Worker(__filename, {
    argv: process.argv.slice(2),
    resourceLimits: IMPORT_RESOURCE_LIMITS,
    workerData: { terminals: { stdout: terminalOf(process.stdout), stderr: terminalOf(process.stderr) } },
  });
  worker.on('message', (message) => {
    if (message && typeof message.exitCode === 'number') process.exitCode = message.exitCode;
  });
  worker.on('error', (err) => {
    process.stderr.write(`${(err && err.stack) || err}\n`);
    process.exitCode = 1;
  });
  worker.on('exit', (code) => {
    if (code !== 0 && !process.exitCode) process.exitCode = code;
  });
} else {
  // In the worker: what it writes reaches this terminal through the parent, so the progress bar is
  // drawn as it would be in the parent (cli-progress asks the stream whether it is a terminal).
  for (const name of ['stdout', 'stderr']) {
    const terminal = !isMainThread && workerData && workerData.terminals && workerData.terminals[name];
    if (terminal) Object.assign(process[name], { isTTY: true, columns: terminal.columns, rows: terminal.rows });
  }
  cli()
    .runCli(process.argv.slice(2))
    .then((code) => {
      process.exitCode = code;
      if (!isMainThread) parentPort.postMessage({ exitCode: code });
    });
}
