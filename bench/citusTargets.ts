/**
 * The two topologies a Citus bench compares (bench/citus.ts, bench/citusMatch.ts): the service
 * (createApp) in this process over a loopback HTTP server on one database, a workspace with a rate
 * limit no bench reaches, and one request helper that fails on anything but a 2xx.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { createKnex, type Knex } from '../src/db/knex';
import { createWorkspace } from '../src/domain/workspaces/admin';
import { createLogger } from '../src/logger';

export interface Target {
  name: string;
  knex: Knex;
  base: string;
  key: string;
  close(): Promise<void>;
}

export async function serve(name: string, url: string): Promise<Target> {
  const knex = createKnex(url, 10);
  const app = await createApp({ config: { ...loadConfig({}), logLevel: 'silent' }, knex, logger: createLogger('silent') });
  const server = http.createServer(app.koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const key = (await createWorkspace(knex, { name: `bench-${name}`, rateLimit: 1_000_000_000, active: true })).api_key;
  return {
    name,
    knex,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    key,
    close: async () => {
      await new Promise((r) => server.close(r));
      await app.close?.();
      await knex.destroy();
    },
  };
}

export type Op = { name: string; run: (t: Target, i: number) => Promise<void> };

export async function call(t: Target, method: 'GET' | 'POST', path: string, body?: unknown): Promise<void> {
  const res = await fetch(`${t.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${t.key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(30_000),
  });
  await res.arrayBuffer();
  if (res.status >= 300) throw new Error(`${t.name} ${method} ${path}: ${res.status}`);
}

