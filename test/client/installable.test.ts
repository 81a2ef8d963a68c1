/**
 * The typed client as a partner installs it: `npm pack` in clients/typescript (its prepack build:
 * ESM JavaScript and .d.ts), the tarball installed into an empty temporary project with no link to
 * this repository (`--offline` from npm's cache first, else the registry), a small program there
 * type-checked and compiled by tsc against the installed package's types, and run with node
 * against the app listening on loopback. The program uses the helpers for the feed (`eventsAfter`,
 * catching up from an event id) and the history (`personHistory`).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { API_ROOT } from '../../src/http/contract';
import { createHarness, type Harness } from '../helpers/harness';
import { fakeResolver } from '../helpers/monitors';

const ROOT = path.resolve(__dirname, '../..');
const CLIENT = path.join(ROOT, 'clients', 'typescript');
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.homedir(), ...env }, timeout: 240_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const npm = (args: string[], cwd: string) => run('npm', args, cwd);

// No @types/node in the partner's project: the little of Node the program uses, declared.
const PROGRAM = `
import { createEnrichClient, eventsAfter, personHistory, EnrichApiError, type FeedEvent } from '@enrich/client';
declare const process: { env: Record<string, string | undefined>; stdout: { write(s: string): void } };

const enrich = createEnrichClient({ apiKey: process.env.ENRICH_API_KEY!, baseUrl: process.env.ENRICH_BASE_URL! });
const out = (o: unknown) => process.stdout.write(JSON.stringify(o) + '\\n');

const created = await enrich.POST('/monitors', {
  body: { type: 'person', subject_url: 'https://www.linkedin.com/in/installable-client', webhook_url: 'https://hooks.example.test/enrich' },
});
if (!created.data) throw new Error('create monitor: HTTP ' + created.response.status);
const monitorId: string = created.data.monitor.id;
for (let i = 0; i < 3; i++) {
  const t = await enrich.POST('/monitors/{id}/test', { params: { path: { id: monitorId } } });
  if (t.response.status >= 300) throw new Error('test event: HTTP ' + t.response.status);
}

// The feed lists an event once every transaction older than it has ended (listEvents: "a short
// delay"); another process's open transaction can hold the third back a moment, so a subscriber
// asks again, as the contract says, rather than expecting it at once.
for (let tries = 0; ; tries++) {
  const seen = await enrich.GET('/events', { params: { query: { monitor_id: monitorId, per_page: 1 } } });
  if (!seen.data) throw new Error('feed: HTTP ' + seen.response.status);
  if (seen.data.total >= 3) break;
  if (tries === 600) throw new Error('feed: ' + seen.data.total + ' of 3 events after 60 s');
  await new Promise((r) => setTimeout(r, 100));
}

const all: FeedEvent[] = [];
for await (const e of eventsAfter(enrich, undefined, { monitor_id: monitorId, per_page: 2 })) all.push(e);
out({ feed: all.map((e) => [e.id, e.event]) });
const rest: string[] = [];
for await (const e of eventsAfter(enrich, all[0]!.id, { monitor_id: monitorId, per_page: 1 })) rest.push(e.id);
out({ after_first: rest });

try {
  for await (const page of personHistory(enrich, { username: 'nobody-here-at-all' })) out({ history: page.results.length });
} catch (e) {
  if (!(e instanceof EnrichApiError)) throw e;
  out({ history_error: { status: e.status, code: e.code } });
}
`;

let h: Harness;
let server: http.Server;
let baseUrl: string;
let key: string;
let tmp: string;

beforeAll(async () => {
  h = await createHarness({ resolveHost: fakeResolver, feed: true });
  key = (await h.workspace({ rateLimit: 100_000 })).key;
  server = http.createServer(h.app.koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}${API_ROOT}`;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-client-'));
});
afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await h?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('the typed client, packed and installed like a partner does', () => {
  it('npm pack holds built ESM and .d.ts; installed elsewhere it type-checks and runs against a live server', async () => {
    const packed = await npm(['pack', '--json', '--pack-destination', tmp], CLIENT);
    expect(packed.stderr).not.toMatch(/error/i);
    expect(packed.code).toBe(0);
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
    const files = info!.files.map((f) => f.path).sort();
    expect(files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/types.d.ts', 'package.json', 'README.md']));
    const tarball = path.join(tmp, path.basename(info!.filename));

    // An empty project outside the repository: nothing to resolve upwards but the tarball.
    const project = path.join(tmp, 'partner');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'partner', private: true, type: 'module' }));
    const install = ['install', tarball, '--no-audit', '--no-fund', '--ignore-scripts'];
    let installed = await npm([...install, '--offline'], project);
    if (installed.code !== 0) installed = await npm(install, project);
    expect(installed.stderr).not.toMatch(/npm error/);
    expect(installed.code).toBe(0);
    expect(fs.lstatSync(path.join(project, 'node_modules', '@enrich', 'client')).isSymbolicLink()).toBe(false);

    fs.writeFileSync(path.join(project, 'main.ts'), PROGRAM);
    fs.writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, lib: ['ES2023', 'DOM'], types: [], outDir: 'out' }, files: ['main.ts'] }),
    );
    const tsc = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], project);
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.code).toBe(0);

    const ran = await run(process.execPath, [path.join(project, 'out', 'main.js')], project, { ENRICH_BASE_URL: baseUrl, ENRICH_API_KEY: key });
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    const lines = ran.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const feed = lines[0]!.feed as [string, string][];
    expect(feed.map(([, event]) => event)).toEqual(['monitor.test', 'monitor.test', 'monitor.test']);
    expect(new Set(feed.map(([id]) => id)).size).toBe(3);
    expect(lines[1]).toEqual({ after_first: feed.slice(1).map(([id]) => id) });
    expect(lines[2]).toEqual({ history_error: { status: 404, code: expect.any(String) } });

    // The package is ESM only; a CommonJS program (the README says so) can still require() it on the
    // Node.js versions this project supports (require of an ES module: Node 20.19+, 22.12+), and import() it anywhere.
    fs.writeFileSync(
      path.join(project, 'legacy.cjs'),
      `const { createEnrichClient } = require('@enrich/client');
const enrich = createEnrichClient({ apiKey: process.env.ENRICH_API_KEY, baseUrl: process.env.ENRICH_BASE_URL });
import('@enrich/client').then(async (esm) => {
  const { response } = await enrich.GET('/account');
  process.stdout.write(JSON.stringify({ required: typeof createEnrichClient, imported: esm.createEnrichClient === createEnrichClient, status: response.status }) + '\\n');
});
`,
    );
    const legacy = await run(process.execPath, [path.join(project, 'legacy.cjs')], project, { ENRICH_BASE_URL: baseUrl, ENRICH_API_KEY: key });
    expect(legacy.stderr).toBe('');
    expect(JSON.parse(legacy.stdout)).toEqual({ required: 'function', imported: true, status: 200 });
  }, 300_000);
});
