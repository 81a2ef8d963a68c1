#!/usr/bin/env node
'use strict';
/**
 * `npm run build`: compiles src/ into dist/ (tsconfig.build.json; incremental, so an unchanged tree
 * takes a second or two), removes what src/ no longer has, and then writes dist/.built, the time bin/enrich.js compares with src/ to
 * decide whether dist/ is current. Plain JavaScript so it runs before anything is compiled.
 *
 * `--if-possible` (the `prepare` script, run by `npm ci` and `npm install`): an install without
 * dev dependencies has no TypeScript; it then skips the build and `enrich` runs from the sources.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
} catch {
  if (process.argv.includes('--if-possible')) {
    process.stdout.write('build: TypeScript is not installed (no dev dependencies); dist/ not built, `enrich` will run from src/ through tsx\n');
    process.exit(0);
  }
  process.stderr.write('build: TypeScript is not installed; run `npm ci` first\n');
  process.exit(1);
}
// The stamp goes first and comes back last: a build that is interrupted (Ctrl-C during `npm ci`,
// a killed CI job) leaves no stamp, so bin/enrich.js runs the sources instead of a half-written dist/.
const stampFile = path.join(root, 'dist', '.built');
fs.rmSync(stampFile, { force: true });
const run = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
if (run.status !== 0) process.exit(run.status ?? 1);

// tsc never deletes what it emitted for a source that has since been moved or removed: do it, so
// dist/ holds nothing that src/ no longer has.
function prune(dir, sources) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const source = path.join(sources, entry.name);
    if (entry.isDirectory()) {
      if (fs.existsSync(source)) prune(full, source);
      else fs.rmSync(full, { recursive: true, force: true });
    } else if (entry.name.endsWith('.js') && !fs.existsSync(source.replace(/\.js$/, '.ts'))) {
      fs.rmSync(full);
    }
  }
}
prune(path.join(root, 'dist', 'src'), path.join(root, 'src'));

// knex as one file (src/db/knexLibrary.ts says why: a third of `enrich key list`'s CPU was finding,
// reading and compiling knex's ~330 files). esbuild comes with the dev dependencies (through tsx and
// vite); without it, or if bundling fails, dist/ has no bundle and knexLibrary.ts takes the package.
const vendorKnex = path.join(root, 'dist', 'vendor', 'knex.js');
fs.rmSync(vendorKnex, { force: true });
try {
  const esbuild = require(require.resolve('esbuild', { paths: [root] }));
  esbuild.buildSync({
    // The two parts of knex that src/db/knexLibrary.ts takes: the library, and the PostgreSQL client
    // class (db/knex.ts extends it; knex does not export it from its main module).
    stdin: {
      contents: "module.exports = { knex: require('knex'), ClientPg: require('knex/lib/dialects/postgres') };",
      resolveDir: root,
      sourcefile: 'knex-vendor-entry.js',
    },
    outfile: vendorKnex,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: `node${process.versions.node.split('.')[0]}`,
    // pg stays the installed one (one copy per process, db/pg.ts); the other databases' drivers are
    // not installed and are only required by their dialects.
    external: ['pg', 'pg-query-stream', 'pg-native', 'mysql', 'mysql2', 'mariadb', 'mariadb/*', 'sqlite3', 'better-sqlite3', '@vscode/sqlite3', 'oracledb', 'tedious'],
    logLevel: 'silent',
  });
} catch (err) {
  fs.rmSync(vendorKnex, { force: true });
  process.stdout.write(`build: knex not bundled (${String((err && err.message) || err).split('\n')[0]}); the CLI loads the installed package\n`);
}
// The commit this build was made from, for /health, enrich_build_info and the startup line
// (src/observability/version.ts; ENRICH_COMMIT overrides it where the image has no .git).
const commitFile = path.join(root, 'dist', 'commit.txt');
const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' });
if (head.status === 0 && /^[0-9a-f]{40,64}\s*$/.test(head.stdout)) fs.writeFileSync(commitFile, head.stdout.trim() + '\n');
else fs.rmSync(commitFile, { force: true });
fs.writeFileSync(stampFile, `${new Date().toISOString()}\n`);
