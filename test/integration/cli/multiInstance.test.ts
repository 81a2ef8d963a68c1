/**
 * Two real server processes (`enrich serve`) on one database and one Redis share a single
 * rate-limit window: together they admit exactly the workspace limit. Runs when REDIS_URL is set.
 *
 * Under load (issue 32) this once saw 10 answers 200 of the 20 admitted: the others were 503s of a
 * database pool starved at a load average of 13, and each had used a point of the window. The
 * service now gives an admitted request's points back when it fails to answer it (limits.ts), and
 * this test, which is about sharing one window, gives the database the time it needs and waits
 * until both processes really count in Redis (readiness) before the burst.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../../src/db/embedded';
import { createWorkspace } from '../../../src/domain/workspaces/admin';
import { createKnex } from '../../../src/db/knex';
import { testDatabaseUrl } from '../../helpers/harness';
import { assertInContract } from '../../helpers/contractValidator';
import { eventually } from '../../helpers/live';

const BIN = path.resolve(__dirname, '../../../bin/enrich.js');
const redisUrl = process.env.REDIS_URL;
const describeRedis = redisUrl ? describe : describe.skip;

async function serve(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    // A generous Redis timeout: this test is about sharing one window, and on a busy machine the
    // default 150 ms would send a slow answer to the per-process fallback (test/faults covers that).
    // For the same reason, generous database timeouts: a slow answer is still an answer (the
    // fault suite covers the bounds).
    env: {
      ...process.env,
      DATABASE_URL: testDatabaseUrl(),
      REDIS_URL: redisUrl,
      REDIS_COMMAND_TIMEOUT_MS: '5000',
      DB_ACQUIRE_TIMEOUT_MS: '30000',
      DB_STATEMENT_TIMEOUT_MS: '30000',
      PORT: String(port),
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('"rate_limit_store":"redis"')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
  // "listening" names the store configured, not whether Redis answered yet: a process that found
  // it slow at start counts in its own memory until its probe succeeds. Wait for that.
  const shared = await eventually(async () => {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/health/ready`).catch(() => undefined);
    const body = res ? ((await res.json()) as { checks?: { redis?: string } }) : undefined;
    return body?.checks?.redis === 'up';
  }, 60_000).catch(() => false);
  expect(shared).toBe(true);
  return child;
}

describeRedis('two server processes on one Redis', () => {
  let servers: ChildProcess[] = [];
  const ports: number[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((r) => (s.once('exit', r), s.kill('SIGTERM')))));
  });

  it('admit exactly the workspace limit between them', async () => {
    ports.push(await freePort(), await freePort());
    servers = await Promise.all(ports.map(serve));
    const knex = createKnex(testDatabaseUrl(), 2);
    const { api_key } = await createWorkspace(knex, { name: 'fleet', rateLimit: 20, active: true });
    await knex.destroy();
    const call = async (port: number) => {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/account`, { headers: { Authorization: `Bearer ${api_key}` } });
      const body = await res.json();
      await assertInContract('GET', '/api/v1/account', { status: res.status, headers: Object.fromEntries(res.headers), body });
      return `${res.status} ${(body as { code?: string }).code ?? ''}`.trim();
    };
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => call(ports[i % 2])));
    // Every status with its count, so a failure says what the other answers were.
    const tally: Record<string, number> = {};
    for (const a of answers) tally[a] = (tally[a] ?? 0) + 1;
    expect(tally).toEqual({ '200': 20, '429 RATE_LIMIT_EXCEEDED': 40 });
  }, 120_000);
});
