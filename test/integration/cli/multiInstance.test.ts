/**
 * Two real server processes (`enrich serve`) on one database and one Redis share a single
 * rate-limit window: together they admit exactly the workspace limit. Runs when REDIS_URL is set.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../../src/db/embedded';
import { createWorkspace } from '../../../src/domain/workspaces/admin';
import { createKnex } from '../../../src/db/knex';
import { testDatabaseUrl } from '../../helpers/harness';
import { assertInContract } from '../../helpers/contractValidator';

const BIN = path.resolve(__dirname, '../../../bin/enrich.js');
const redisUrl = process.env.REDIS_URL;
const describeRedis = redisUrl ? describe : describe.skip;

async function serve(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    // A generous Redis timeout: this test is about sharing one window, and on a busy machine the
    // default 150 ms would send a slow answer to the per-process fallback (test/faults covers that).
    env: { ...process.env, DATABASE_URL: testDatabaseUrl(), REDIS_URL: redisUrl, REDIS_COMMAND_TIMEOUT_MS: '5000', PORT: String(port), LOG_LEVEL: 'info' },
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
      return res.status;
    };
    const statuses = await Promise.all(Array.from({ length: 60 }, (_, i) => call(ports[i % 2])));
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
  }, 60_000);
});
