/**
 * npm run bench:jobs:profile — where a list job's chunk spends its time (issue 34 open point 1),
 * in process on the bench lake (database `enrich_bench_jobs`, built by bench:jobs): an identifier
 * job of `--rows` slugs is submitted through the domain (submitJob), then its chunks are claimed,
 * resolved and committed one after the other, each phase timed; beside it, the same slugs through
 * bulkEnrichPeople 100 at a time (the bulk path's database work, without HTTP). Prints the
 * per-phase medians per chunk and the load average. A measurement aid, not a bench with an aim.
 */
import os from 'node:os';
import { Readable } from 'node:stream';
import { loadConfig } from '../src/config';
import { createKnex, migrateLatest } from '../src/db/knex';
import * as repo from '../src/db/repositories/listJobs';
import { createWorkspace } from '../src/domain/workspaces/admin';
import { purgeDeletedJob } from '../src/domain/jobs/jobs';
import { submitJob } from '../src/domain/jobs/upload';
import { resolveChunk } from '../src/domain/jobs/work';
import { bulkEnrichPeople } from '../src/domain/people/bulk';
import { serverKeysOf } from '../src/domain/webhooks/secrets';
import { benchDatabaseUrl, intArg, percentile, stringArg } from './lib';
import { bulkMatchPeople } from '../src/domain/match/bulk';

const rows = intArg('rows', 10_000);
const chunkRows = intArg('chunk-rows', loadConfig().jobs.chunkRows);
/** `--kind=match`: name + company rows (the match path) instead of slugs. */
const kind = stringArg('kind') ?? 'id';

async function main() {
  const db = await benchDatabaseUrl('enrich_bench_jobs');
  const knex = createKnex(db.url, 4);
  await migrateLatest(knex);
  const config = loadConfig();
  const ws = await createWorkspace(knex, { name: `bench-jobs-profile-${Date.now()}`, rateLimit: 1_000_000_000, active: true });
  const sample = (await knex('persons')
    .select('username', 'full_name', knex.raw("record->>'current_company' as company"))
    .whereRaw("record->>'current_company' is not null")
    .orderByRaw('random()')
    .limit(rows)) as { username: string; full_name: string; company: string }[];
  const slugs = sample.map((p) => p.username);
  const quote = (v: string) => `"${v.replace(/"/g, '""')}"`;
  const csv = kind === 'match' ? `name,company\n${sample.map((p) => `${quote(p.full_name)},${quote(p.company)}`).join('\n')}\n` : `username\n${slugs.join('\n')}\n`;
  // The body in 64 KB pieces; the moment the last one has been read by submitJob (the server's
  // "last byte received") to its answer is the server's part of "last byte sent -> 202".
  let bodyEndedAt = NaN;
  const bodyOf = (text: string) =>
    Readable.from(
      (function* () {
        const bytes = Buffer.from(text);
        for (let i = 0; i < bytes.length; i += 65_536) yield bytes.subarray(i, i + 65_536);
        bodyEndedAt = performance.now();
      })(),
    );
  const { job } = await submitJob(
    { db: knex, limits: { ...config.jobs, chunkRows }, webhooks: { keys: serverKeysOf(config), ssrf: { allowLoopback: false }, resolveHost: async () => [] } },
    ws.workspace_id,
    {},
    { format: 'csv', declaredBytes: undefined, body: bodyOf(csv) },
  );
  const afterBodyMs = performance.now() - bodyEndedAt;
  if (process.argv.includes('--submit-only')) {
    // Only the upload's figure (a large --rows without working the job through).
    process.stdout.write(`jobs:profile submit ${rows} rows (${(csv.length / 1024 / 1024).toFixed(1)} MB): the body's last byte read -> job stored and queued: ${afterBodyMs.toFixed(0)} ms  load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
    await repo.markJobDeleted(knex, job.id);
    await purgeDeletedJob(knex, job.id, 600_000);
    await knex.destroy();
    await db.stop();
    return;
  }
  // The bulk path's database work on the same rows: run before AND after the job, so neither
  // side alone profits from pages the other brought into the cache.
  const bulkRound = async () => {
    const bulkStarted = performance.now();
    for (let i = 0; i < slugs.length; i += chunkRows) {
      await time('bulk', async () => {
        for (let k = i; k < Math.min(i + chunkRows, slugs.length); k += 100) {
          if (kind === 'match') {
            const out = await bulkMatchPeople(knex, sample.slice(k, k + 100).map((p) => ({ name: p.full_name, company: p.company })), 0.7);
            JSON.stringify(out.results.map((r) => r.text));
          } else {
            const out = await bulkEnrichPeople(knex, slugs.slice(k, k + 100).map((username) => ({ username })));
            JSON.stringify(out.results.map((r) => r.record));
          }
        }
      });
    }
    return performance.now() - bulkStarted;
  };
  const t: Record<string, number[]> = { claim: [], resolve: [], commit: [], bulk: [] };
  const time = async <T>(k: string, fn: () => Promise<T>) => {
    const s = performance.now();
    const v = await fn();
    t[k]!.push(performance.now() - s);
    return v;
  };
  const bulkBeforeMs = await bulkRound();
  const token = '00000000-0000-4000-8000-000000000001';
  const started = performance.now();
  for (;;) {
    const [chunk] = await time('claim', () => repo.claimChunks(knex, { token, limit: 1, leaseSeconds: 60, perWorkspace: 100 }));
    if (!chunk) break;
    const results = await time('resolve', () => resolveChunk(knex, chunk));
    await time('commit', () => repo.commitChunk(knex, { job_id: chunk.job_id, chunk_no: chunk.chunk_no, token }, results, async () => undefined));
  }
  const jobMs = performance.now() - started;
  const bulkAfterMs = await bulkRound();
  await repo.markJobDeleted(knex, job.id);
  await purgeDeletedJob(knex, job.id, 600_000);
  const med = (k: string) => percentile([...t[k]!].sort((a, b) => a - b), 0.5).toFixed(1);
  process.stdout.write(
    `jobs:profile ${rows} ${kind === 'match' ? 'match' : 'identifier'} rows, chunks of ${chunkRows}, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}\n` +
      `  submit: the body's last byte read -> job stored and queued: ${afterBodyMs.toFixed(0)} ms\n` +
      `  per chunk (median ms): claim ${med('claim')}  resolve ${med('resolve')}  commit ${med('commit')}  |  ${kind === 'match' ? 'bulkMatchPeople' : 'bulkEnrichPeople'} x${Math.ceil(chunkRows / 100)} ${med('bulk')}\n` +
      `  in all: job ${(rows / (jobMs / 1000)).toFixed(0)} rows/s, bulk (database work only) ${(rows / (bulkBeforeMs / 1000)).toFixed(0)} rows/s before the job, ${(rows / (bulkAfterMs / 1000)).toFixed(0)} after\n`,
  );
  await knex.destroy();
  await db.stop();
}

void main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
