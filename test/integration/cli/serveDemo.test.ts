/**
 * `npm start` as a newcomer runs it (`enrich serve --demo`): a fresh data directory, the embedded
 * PostgreSQL, migrations, a demo key printed once with a curl line, and graceful shutdown that stops
 * the embedded server. Runs the real process; the answers are checked against the contract.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../../src/db/embedded';
import { assertInContract } from '../../helpers/contractValidator';

const BIN = path.resolve(__dirname, '../../../bin/enrich.js');

function start(env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string; waitFor: (re: RegExp) => Promise<RegExpMatchArray> } {
  const child = spawn(process.execPath, [BIN, 'serve', '--demo'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const waitFor = (re: RegExp) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const timer = setInterval(() => {
        const m = out.match(re);
        if (m) {
          clearInterval(timer);
          resolve(m);
        }
      }, 50);
      child.once('exit', (code) => {
        clearInterval(timer);
        reject(new Error(`exited with ${code} before ${re}:\n${out}`));
      });
    });
  return { child, output: () => out, waitFor };
}

const stop = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });

describe('enrich serve --demo (npm start)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-start-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('starts on an empty machine, prints a working demo key once, and shuts down cleanly', async () => {
    const env = {
      ...process.env,
      DATABASE_URL: '',
      PORT: String(await freePort()),
      EMBEDDED_PG_PORT: String(await freePort()),
      ENRICH_DATA_DIR: dataDir,
    };
    const first = start(env);
    const [, key, url] = await first.waitFor(/Authorization: Bearer (ik_live_[A-Za-z0-9]{36})" (http:\/\/127\.0\.0\.1:[0-9]+)\/api\/v1\/account/);
    const res = await fetch(`${url}/api/v1/account`, { headers: { Authorization: `Bearer ${key}` } });
    const body = (await res.json()) as { data: { workspace: { name: string } } };
    await assertInContract('GET', '/api/v1/account', { status: res.status, headers: Object.fromEntries(res.headers), body });
    expect(res.status).toBe(200);
    expect(body.data.workspace.name).toBe('demo');
    // The empty lake got a demo world before the server listened; the printed person line works.
    expect(first.output()).toMatch(/demo world loaded/);
    const [, personUrl] = first.output().match(/"(http:\/\/127\.0\.0\.1:[0-9]+\/api\/v1\/person\?username=[^"]+)"/)!;
    const person = await fetch(personUrl, { headers: { Authorization: `Bearer ${key}` } });
    const personBody = (await person.json()) as { data: { username: string; positions: unknown[] } };
    await assertInContract('GET', '/api/v1/person', { status: person.status, headers: Object.fromEntries(person.headers), body: personBody });
    expect(person.status).toBe(200);
    expect(personBody.data.positions.length).toBeGreaterThan(0);
    // The printed dashboard link signs in once (the token is in the fragment, never sent in a URL).
    const [, dashboardUrl, token] = await first.waitFor(/(http:\/\/127\.0\.0\.1:[0-9]+\/dashboard\/)#token=([A-Za-z0-9_-]{43})/);
    expect(dashboardUrl).toBe(`${url}/dashboard/`);
    const signIn = () => fetch(`${url}/api/v1/workspace/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
    const session = await signIn();
    expect(session.status).toBe(201);
    const cookie = session.headers.get('set-cookie')!.split(';')[0];
    // As the dashboard's page sends it (every call with the cookie names its origin: issue 32).
    const viaCookie = await fetch(`${url}/api/v1/account`, { headers: { Cookie: cookie, Referer: dashboardUrl! } });
    expect(((await viaCookie.json()) as { data: { workspace: { name: string } } }).data.workspace.name).toBe('demo');
    expect((await signIn()).status).toBe(401);
    expect(await stop(first.child)).toBe(0);
    expect(first.output()).toContain('stopped');
    expect(fs.existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);

    // Second start: same data, no new key printed, the old key still works.
    const second = start(env);
    await second.waitFor(/already exists/);
    expect(second.output()).not.toMatch(/demo world loaded/);
    const again = await fetch(`${url}/api/v1/account`, { headers: { Authorization: `Bearer ${key}` } });
    expect(again.status).toBe(200);
    expect(second.output()).not.toMatch(/ik_live_[A-Za-z0-9]{32,}/);
    expect(await stop(second.child)).toBe(0);
    // A safety net for a hung process, not a budget: two starts of the embedded PostgreSQL (one with
    // initdb and the demo world) took 113 s of the former 120 s on a machine at load average 15.
  }, 300_000);
});
