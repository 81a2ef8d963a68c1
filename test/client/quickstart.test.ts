/**
 * The typed client (clients/typescript/) against a live server: the app listening on loopback, a
 * fresh workspace key, and the client's example script run as a partner would run it (its own
 * process, tsx). Every call must get an answer the contract documents for that operation; today
 * some operations answer 501 NOT_IMPLEMENTED, later they answer with data, and the test holds for both.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { API_ROOT, loadDefinition } from '../../src/http/contract';
import { createHarness, type Harness } from '../helpers/harness';

const ROOT = path.resolve(__dirname, '../..');
const CLIENT = path.join(ROOT, 'clients', 'typescript');

const doc = loadDefinition() as unknown as { paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>> };
const documented = new Map(Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => [op.operationId, Object.keys(op.responses)] as const)));

let h: Harness;
let server: http.Server;
let baseUrl: string;

beforeAll(async () => {
  h = await createHarness();
  server = http.createServer(h.app.koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}${API_ROOT}`;
});
afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await h?.close();
});

function runExample(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), path.join(CLIENT, 'examples', 'quickstart.ts')],
      { cwd: CLIENT, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('typed client example (clients/typescript/examples/quickstart.ts)', () => {
  it('looks up, searches, bulk-enriches and creates a monitor against a live server', async () => {
    const { key } = await h.workspace();
    const run = await runExample({ ENRICH_BASE_URL: baseUrl, ENRICH_API_KEY: key });
    expect(run.stderr).toBe('');
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { operation: string; status: number; code: string | null; request_id: string });
    expect(lines.map((l) => l.operation)).toEqual(['searchPeople', 'getPerson', 'bulkEnrichPeople', 'createMonitor']);
    for (const line of lines) {
      expect(documented.get(line.operation)).toContain(String(line.status));
      expect(line.status).not.toBe(500);
      expect(line.request_id).toMatch(/^req_[0-9a-f]+$/);
      if (line.status >= 400) expect(line.code).toEqual(expect.any(String));
    }
    expect(run.code).toBe(0);
  }, 90_000);

  it('exits 1 when the key is refused, reporting 401 API_KEY_INVALID', async () => {
    const run = await runExample({ ENRICH_BASE_URL: baseUrl, ENRICH_API_KEY: 'ik_live_not_a_real_key' });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout.split('\n')[0])).toMatchObject({ operation: 'searchPeople', status: 401, code: 'API_KEY_INVALID' });
  }, 90_000);

  it('is a package of its own: imports nothing from the server, types generated from the bundle', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(CLIENT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(pkg.dependencies)).toEqual(['openapi-fetch']);
    for (const dir of ['src', 'examples']) {
      for (const file of fs.readdirSync(path.join(CLIENT, dir))) {
        const source = fs.readFileSync(path.join(CLIENT, dir, file), 'utf8');
        const imports = [...source.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
        expect(imports.filter((i) => i.startsWith('.') && !i.startsWith('./') && !i.startsWith('../src/'))).toEqual([]);
      }
    }
    // contract:check fails when these differ from what the bundle generates; here: same as the server's.
    expect(fs.readFileSync(path.join(CLIENT, 'src', 'types.ts'), 'utf8')).toBe(fs.readFileSync(path.join(ROOT, 'generated', 'types.ts'), 'utf8'));
  });
});
