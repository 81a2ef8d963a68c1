/**
 * The access log (ACCESS_LOG): one `info` line per answered request with the fields docs/operations.md
 * lists, never a key, a query string or a path the caller typed that matched nothing; off, no line.
 * The app on the run's database with a real pino logger writing into memory.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import supertest from 'supertest';
import { createApp } from '../../../src/app';
import { loadConfig } from '../../../src/config';
import { createKnex } from '../../../src/db/knex';
import { createWorkspace } from '../../../src/domain/workspaces/admin';
import { assertInContract } from '../../helpers/contractValidator';
import { testDatabaseUrl } from '../../helpers/harness';

async function appWithLog(accessLog: boolean) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  const knex = createKnex(testDatabaseUrl(), 3);
  const config = { ...loadConfig({}), accessLog };
  const app = await createApp({ config, knex, logger: pino({ level: 'info' }, sink), databaseUrl: testDatabaseUrl() });
  const http = supertest(app.koa.callback());
  const get = async (path: string, key?: string) => {
    const res = await (key ? http.get(path).set('Authorization', `Bearer ${key}`) : http.get(path));
    await assertInContract('GET', path.split('?')[0]!, { status: res.status, headers: res.headers, body: res.body });
    return res;
  };
  return { lines, get, close: async () => (await app.close(), await knex.destroy()) };
}

describe('ACCESS_LOG on (the default)', () => {
  it('writes one info line per request: method, route, operation, status, duration, request id, workspace; nothing personal', async () => {
    const { lines, get, close } = await appWithLog(true);
    try {
      const knex = createKnex(testDatabaseUrl(), 1);
      const { api_key, workspace_id } = await createWorkspace(knex, { name: 'access-log', rateLimit: 1000, active: true }).finally(() => knex.destroy());
      const secret = 'maria-accesslog-secret-1';
      const found = await get(`/api/v1/person?username=${secret}`, api_key);
      const unknownPath = await get(`/api/v1/person/${secret}`, api_key);
      const anonymous = await get('/api/v1/health');

      const requests = lines.filter((l) => l.msg === 'request');
      expect(requests).toHaveLength(3);
      expect(requests[0]).toMatchObject({
        level: 30,
        request_id: found.headers['x-request-id'],
        method: 'GET',
        route: '/api/v1/person',
        operation: 'getPerson',
        status: found.status,
        workspace_id,
      });
      expect(typeof requests[0]!.duration_ms).toBe('number');
      // A path that matched no operation is not written: it is whatever the caller typed.
      expect(requests[1]).toMatchObject({ request_id: unknownPath.headers['x-request-id'], status: 404 });
      expect(requests[1]!.route).toBeUndefined();
      expect(requests[2]).toMatchObject({ operation: 'getHealth', status: 200, request_id: anonymous.headers['x-request-id'] });
      expect(requests[2]!.workspace_id).toBeUndefined();
      // Tracing is off in this process: no trace id.
      expect(requests.every((l) => l.trace_id === undefined)).toBe(true);
      const text = JSON.stringify(lines);
      expect(text).not.toContain(secret);
      expect(text).not.toContain(api_key);
    } finally {
      await close();
    }
  });
});

describe('ACCESS_LOG=0', () => {
  it('writes no line per request', async () => {
    expect(loadConfig({ ACCESS_LOG: '0' }).accessLog).toBe(false);
    expect(loadConfig({}).accessLog).toBe(true);
    const { lines, get, close } = await appWithLog(false);
    try {
      await get('/api/v1/health');
      await get('/api/v1/health');
      expect(lines.filter((l) => l.msg === 'request')).toEqual([]);
    } finally {
      await close();
    }
  });
});
