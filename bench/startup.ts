/**
 * `npm run bench:startup`: wall time of `enrich` commands as a user runs them (a new node process
 * each), next to a bare `node -e 0`, in interleaved rounds so a busy machine slows all of them alike;
 * medians. `enrich key list` runs against a database of its own (DATABASE_URL's server, or an
 * embedded PostgreSQL in a temporary directory), so its time includes connecting, the migration
 * check and the query. The last row runs the TypeScript sources through tsx, as bin/enrich.js did
 * before dist/ existed (and still does when dist/ is missing or stale).
 *
 *   npm run bench:startup [-- --rounds=15]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { databaseUrl, freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../src/db/embedded';
import { dropDatabase, ensureDatabase } from '../src/db/knex';
import { intArg, median, percentile } from './lib';

const root = path.resolve(__dirname, '..');
const bin = path.join(root, 'bin', 'enrich.js');

async function database(): Promise<{ url: string; stop(): Promise<void> }> {
  const name = `enrich_startup_${process.pid}`;
  let embedded: EmbeddedDatabase | undefined;
  let admin = process.env.DATABASE_URL;
  if (!admin) {
    embedded = await startEmbeddedPostgres({ dir: fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-startup-')), port: await freePort() });
    admin = embedded.adminUrl;
  }
  await ensureDatabase(admin, name);
  return {
    url: databaseUrl(admin, name),
    stop: async () => {
      await dropDatabase(admin!, name);
      if (embedded) {
        await embedded.stop();
        fs.rmSync(embedded.dir, { recursive: true, force: true });
      }
    },
  };
}

function timed(args: string[], env: NodeJS.ProcessEnv): number {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (run.status !== 0) throw new Error(`${args.join(' ')} exited with ${run.status}: ${run.stderr}`);
  return ms;
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(root, 'dist', '.built'))) throw new Error('dist/ is not built: run `npm run build` first');
  const rounds = intArg('rounds', 15);
  const db = await database();
  try {
    const env = { ...process.env, DATABASE_URL: db.url };
    const created = JSON.parse(execFileSync(process.execPath, [bin, 'workspace', 'create', '--name', 'startup', '--json'], { env }).toString()) as {
      workspace_id: string;
    };
    const cases: [string, string[]][] = [
      ['node -e 0 (bare node)', ['-e', '0']],
      ['enrich --help', [bin, '--help']],
      ['enrich key list --json (with the database round trips)', [bin, 'key', 'list', '--workspace', created.workspace_id, '--json']],
      ['enrich --help from the sources through tsx', ['--require', 'tsx/cjs', path.join(root, 'src', 'cli', 'main.ts'), '--help']],
    ];
    const times = cases.map(() => [] as number[]);
    for (let round = 0; round < rounds; round++) cases.forEach(([, args], i) => times[i].push(timed(args, env)));
    process.stdout.write(`${rounds} interleaved rounds, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(2)} at the end\n`);
    process.stdout.write(`${'command'.padEnd(58)} ${'median'.padStart(8)} ${'min'.padStart(8)} ${'p90'.padStart(8)}\n`);
    cases.forEach(([label], i) => {
      const sorted = [...times[i]].sort((a, b) => a - b);
      const ms = (v: number) => `${v.toFixed(0)} ms`.padStart(8);
      process.stdout.write(`${label.padEnd(58)} ${ms(median(sorted))} ${ms(sorted[0])} ${ms(percentile(sorted, 90))}\n`);
    });
  } finally {
    await db.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
