/**
 * `npm start` shows the world changing: `enrich serve --demo` with LIVE_SOURCE=simulator (what the
 * npm script sets) on a fresh data directory. Following the printed quick start, a demo record's
 * fetched_at moves and change-log entries appear, the realtime line fetches a profile the lake did
 * not hold, and the control endpoint advances the simulated clock. Polls with a generous deadline;
 * nothing here measures speed.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../../src/db/embedded';
import { assertInContract } from '../../helpers/contractValidator';
import { eventually } from '../../helpers/live';

const BIN = path.resolve(__dirname, '../../../bin/enrich.js');
const run = promisify(execFile);

describe('npm start (serve --demo, LIVE_SOURCE=simulator)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-start-live-'));
  let child: ChildProcess | undefined;
  afterAll(async () => {
    if (child && child.exitCode === null) {
      await new Promise((resolve) => {
        child!.once('exit', resolve);
        child!.kill('SIGTERM');
      });
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('shows a record re-verified and changes logged, within the printed quick start', async () => {
    const env = {
      ...process.env,
      DATABASE_URL: '',
      LIVE_SOURCE: 'simulator',
      LIVE_SIM_PORT: '0',
      PORT: String(await freePort()),
      EMBEDDED_PG_PORT: String(await freePort()),
      ENRICH_DATA_DIR: dataDir,
    };
    child = spawn(process.execPath, [BIN, 'serve', '--demo'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    await eventually(async () => /jump the simulated clock/.test(out), 120_000, 100);

    const key = out.match(/Bearer (ik_live_[A-Za-z0-9]{36})/)![1]!;
    const checkUrl = out.match(/"(http:\/\/127\.0\.0\.1:[0-9]+\/api\/v1\/person\/check\?username=[^"]+)"/)![1]!;
    const realtimeUrl = out.match(/"(http:\/\/127\.0\.0\.1:[0-9]+\/api\/v1\/person\/realtime\?username=[^"]+)"/)![1]!;
    const controlUrl = out.match(/-X POST (http:\/\/127\.0\.0\.1:[0-9]+)\/control\/advance/)![1]!;
    const get = async (url: string) => {
      const res = await fetch(url, { headers: { Authorization: `Bearer ${key}` } });
      const body = (await res.json()) as Record<string, any>;
      await assertInContract('GET', new URL(url).pathname, { status: res.status, headers: Object.fromEntries(res.headers), body });
      return { status: res.status, body };
    };

    const first = await get(checkUrl);
    expect(first.body.data.exists).toBe(true);
    // The demo record is re-verified: its fetched_at moves.
    await eventually(async () => (await get(checkUrl)).body.data.fetched_at !== first.body.data.fetched_at, 180_000, 500);
    // Change-log entries of the refresh appear (`npm run enrich -- changes`, as the quick start says). The
    // first entries are the demo's renamed companies, logged as the world was loaded (origin import).
    const changes = await eventually(async () => {
      const { stdout } = await run(process.execPath, [BIN, 'changes', '--json', '--limit', '1000'], { env });
      const lines = stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { event: string; origin: string });
      return lines.some((c) => c.origin === 'refresh') ? lines : undefined;
    }, 180_000, 1000);
    expect(changes.some((c) => c.origin === 'import')).toBe(true);
    expect(changes.filter((c) => c.origin === 'import').every((c) => c.event === 'company.name_changed')).toBe(true);

    // The realtime line: a profile the lake does not hold, fetched live and metered.
    const realtime = await get(realtimeUrl);
    expect(realtime.status).toBe(200);
    expect(realtime.body.source).toBe('live');

    // The control endpoint moves the simulated clock.
    const before = (await (await fetch(`${controlUrl}/control/state`)).json()) as { sim_time: string };
    const after = (await (await fetch(`${controlUrl}/control/advance`, { method: 'POST', body: '{"days":30}' })).json()) as { sim_time: string };
    expect(new Date(after.sim_time).getTime() - new Date(before.sim_time).getTime()).toBeGreaterThanOrEqual(30 * 86_400_000);

    const code = await new Promise<number | null>((resolve) => {
      child!.once('exit', (c) => resolve(c));
      child!.kill('SIGTERM');
    });
    expect(code).toBe(0);
    expect(out).toMatch(/refresh worker stopped/);
  }, 400_000);
});
