#!/usr/bin/env node
'use strict';
/**
 * `npm test`: the checks that need no database, then jest (arguments after `npm test --` go to jest).
 *
 * The four checks (contract up to date and operations registered, the build that `enrich` runs
 * from, the dashboard build, the type check) do not depend on each other, and each is one
 * single-threaded process: they run at the same time, two at a time on two cores instead of one
 * after the other (~75 s one after the other on the 2-core CI machine). Each one's output is printed
 * when it ends, so logs do not interleave. Jest starts once all four passed: the CLI tests run
 * dist/ (the build), and a stale contract would fail tests for the wrong reason.
 *
 * The type check is incremental (its .tsbuildinfo in dist/, like the build's): unchanged files are
 * not checked again on the next run. Plain JavaScript: it runs before anything is compiled.
 */
const { spawn } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const CHECKS = ['contract:check', 'build', 'build:dashboard', 'typecheck'];

function run(cmd, args, { quiet }) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(cmd, args, { cwd: root, stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let out = '';
    if (quiet) {
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
    }
    child.once('exit', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), out, seconds: (Date.now() - started) / 1000 }));
  });
}

async function main() {
  const started = Date.now();
  const results = await Promise.all(
    CHECKS.map(async (script) => {
      const r = await run(npm, ['run', '--silent', script], { quiet: true });
      process.stdout.write(`\n> npm run ${script}: ${r.code === 0 ? 'ok' : `FAILED (exit ${r.code})`} in ${r.seconds.toFixed(1)} s\n${r.out}`);
      return { script, ...r };
    }),
  );
  const failed = results.filter((r) => r.code !== 0).map((r) => r.script);
  if (failed.length) {
    process.stderr.write(`\nnpm test: ${failed.join(', ')} failed; jest not run\n`);
    return 1;
  }
  process.stdout.write(`\nnpm test: checks passed in ${((Date.now() - started) / 1000).toFixed(1)} s; jest\n`);
  const jest = await run(process.execPath, [require.resolve('jest/bin/jest', { paths: [root] }), ...process.argv.slice(2)], { quiet: false });
  process.stdout.write(`\nnpm test: ${jest.code === 0 ? 'passed' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return jest.code;
}

main().then((code) => {
  process.exitCode = code;
});
