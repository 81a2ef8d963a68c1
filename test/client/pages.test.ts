/**
 * The typed client's page iterator (clients/typescript/src/index.ts `pages`), run as a partner
 * runs it: the client's export example in its own process (tsx) against the app listening on
 * loopback, over a lake of hand-made persons, walking a search with `next_cursor` to its end.
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { API_ROOT } from '../../src/http/contract';
import { personRecord } from '../helpers/lakeRecords';
import { useLakeWorld } from '../helpers/lakeWorld';

const ROOT = path.resolve(__dirname, '../..');
const CLIENT = path.join(ROOT, 'clients', 'typescript');

function runExport(env: Record<string, string>): Promise<{ code: number; lines: Record<string, unknown>[]; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), path.join(CLIENT, 'examples', 'export.ts')],
      { cwd: CLIENT, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({
          code: err ? ((err as { code?: number }).code ?? 1) : 0,
          lines: stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>),
          stderr,
        }),
    );
  });
}

describe('typed client: pages() walks a list with next_cursor', () => {
  const lw = useLakeWorld();
  let server: http.Server;
  let baseUrl: string;
  beforeAll(async () => {
    server = http.createServer(lw.h.app.koa.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}${API_ROOT}`;
  });
  afterAll(async () => {
    await new Promise((r) => server?.close(r));
  });

  it('every matching person once, in the list order, over every page', async () => {
    const iceland = Array.from({ length: 57 }, (_, i) =>
      personRecord({ geo_country_code: 'IS', fetched_at: new Date(Date.UTC(2026, 0, 1 + (i % 20))).toISOString() }),
    );
    await lw.addPersons(...iceland, personRecord({ geo_country_code: 'NO' }));
    const run = await runExport({ ENRICH_BASE_URL: baseUrl, ENRICH_API_KEY: lw.key, ENRICH_EXPORT_FILTERS: '{"location":["IS"]}', ENRICH_EXPORT_PER_PAGE: '10' });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const summary = run.lines.pop();
    expect(summary).toEqual({ pages: 6, results: 57, total: 57, total_relation: 'eq' });
    const want = [...iceland]
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((p) => p.id);
    expect(run.lines.map((l) => l.id)).toEqual(want);
  }, 90_000);

  it('an error answer ends the walk with EnrichApiError (status and stable code)', async () => {
    const run = await runExport({ ENRICH_BASE_URL: baseUrl, ENRICH_API_KEY: lw.key, ENRICH_EXPORT_PER_PAGE: '0' });
    expect(run.code).toBe(1);
    expect(run.lines.at(-1)).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
  }, 90_000);
});
