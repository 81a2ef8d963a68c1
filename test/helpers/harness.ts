/**
 * One app per test file on the run's database, driven through app.callback() with supertest.
 * Every response passes through assertInContract, so a test cannot see a response the contract
 * does not allow.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Redis from 'ioredis';
import supertest from 'supertest';
import { createApp, type App } from '../../src/app';
import type { LiveSource } from '../../src/domain/live/source';
import type { ResolveHost } from '../../src/domain/webhooks/ssrf';
import { loadConfig, type Config } from '../../src/config';
import { createKnex, type Knex } from '../../src/db/knex';
import { createKey, createWorkspace, revokeKey } from '../../src/domain/workspaces/admin';
import { FeedSequencer } from '../../src/jobs/feedSequencer';
import { createLogger } from '../../src/logger';
import { closeQueue, type BeforeClose } from './beforeClose';
import { assertInContract } from './contractValidator';
import { PROXY_MODE, startTee } from './prismProxy';

export interface Harness {
  app: App;
  knex: Knex;
  config: Config;
  http: ReturnType<typeof supertest>;
  /** Sends a request built on h.http and validates its response against the contract. */
  send(test: supertest.Test): Promise<supertest.Response>;
  get(path: string, key?: string): Promise<supertest.Response>;
  post(path: string, body: unknown, key?: string): Promise<supertest.Response>;
  workspace(opts?: { rateLimit?: number; active?: boolean }): Promise<{ workspaceId: string; key: string }>;
  memberKey(workspaceId: string, member: string, allowance?: number): Promise<string>;
  /**
   * Resolves once the app has applied every operator change notified so far. Changes reach running
   * servers through PostgreSQL NOTIFY, asynchronously; instead of sleeping, this makes one change
   * of its own (it revokes a throwaway key the app has cached) and polls that key until the app
   * refuses it. Notifications arrive in commit order on one connection, so every earlier change has
   * been applied by then. The deadline is a safety net, well under the 30 s cache TTL, so only the
   * notification can make the key fail in time.
   */
  authChangesApplied(): Promise<void>;
  close(): Promise<void>;
}

const NOTIFY_DEADLINE_MS = 10_000;

export function testDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set: run tests through jest (globalSetup creates the database)');
  return url;
}

export async function createHarness(
  opts: {
    config?: Partial<Config>;
    redis?: Redis;
    databaseUrl?: string;
    liveSource?: LiveSource;
    resolveHost?: ResolveHost;
    /** Run the event feed's sequencer on the harness's database, as `enrich serve` does (GET /events needs it). */
    feed?: boolean;
  } = {},
): Promise<Harness> {
  // Test files send many deliberately bad keys from one address; the failed-authentication budget
  // has its own test (platform/keyGuessing.test.ts).
  const config: Config = { ...loadConfig({}), logLevel: 'silent', authFailureLimit: 1_000_000, ...opts.config };
  const dbUrl = opts.databaseUrl ?? testDatabaseUrl();
  const knex = createKnex(dbUrl, 5);
  const app = await createApp({
    config,
    knex,
    logger: createLogger('silent'),
    redis: opts.redis,
    databaseUrl: dbUrl,
    liveSource: opts.liveSource,
    resolveHost: opts.resolveHost,
  });
  const sequencer = opts.feed ? new FeedSequencer({ db: knex, logger: createLogger('silent') }) : undefined;
  sequencer?.start();
  // In proxy mode (the integration project) requests go through Prism's validating proxy to the app
  // listening on loopback (see prismProxy.ts); otherwise straight to app.callback().
  let stopProxy = async () => {};
  let target: string | ReturnType<App['koa']['callback']> = app.koa.callback();
  if (PROXY_MODE) {
    const server = http.createServer(app.koa.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const tee = await startTee((server.address() as AddressInfo).port);
    target = tee.url;
    stopProxy = async () => {
      await tee.close();
      await new Promise((r) => server.close(r));
    };
  }
  const agent = supertest(target);
  const send = async (test: supertest.Test) => {
    const res = await test;
    const { method, url } = test as unknown as { method: string; url: string };
    await assertInContract(method, new URL(url).pathname, { status: res.status, headers: res.headers, body: res.body });
    return res;
  };
  const auth = (t: supertest.Test, key?: string) => (key ? t.set('Authorization', `Bearer ${key}`) : t);
  return {
    app,
    knex,
    config,
    http: agent,
    send,
    get: (path, key) => send(auth(agent.get(path), key)),
    post: (path, body, key) => send(auth(agent.post(path), key).send(body as object)),
    workspace: async (o = {}) => {
      const created = await createWorkspace(knex, {
        name: `test-${Math.random().toString(36).slice(2)}`,
        rateLimit: o.rateLimit ?? 500,
        active: o.active ?? true,
      });
      return { workspaceId: created.workspace_id, key: created.api_key };
    },
    memberKey: async (workspaceId, member, allowance) =>
      (await createKey(knex, { workspaceId, member, allowance })).api_key,
    authChangesApplied: async () => {
      const { api_key: probe } = await createWorkspace(knex, { name: 'notify-probe', rateLimit: 100_000, active: true });
      const status = async () => (await send(auth(agent.get('/api/v1/account'), probe))).status;
      if ((await status()) !== 200) throw new Error('authChangesApplied: the probe key was refused before it was revoked');
      await revokeKey(knex, probe);
      const deadline = Date.now() + NOTIFY_DEADLINE_MS;
      while ((await status()) !== 401) {
        if (Date.now() > deadline) throw new Error(`authChangesApplied: no notification applied within ${NOTIFY_DEADLINE_MS} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: async () => {
      await sequencer?.stop();
      await stopProxy();
      await app.close();
      await knex.destroy();
    },
  };
}

export type SharedHarness = Harness & {
  /** Owner key of the workspace created for the file (only with `workspaceRateLimit`). */
  key(): string;
  /** Runs `fn` after the file's tests and before the harness closes (beforeClose.ts). */
  beforeClose: BeforeClose;
};

/**
 * The per-file setup in one call: a harness created before the file's tests and closed after,
 * optionally with one workspace of the given rate limit. The returned object forwards to the
 * harness once beforeAll has run.
 */
export function useHarness(
  opts: { config?: Partial<Config>; redis?: Redis; workspaceRateLimit?: number; resolveHost?: ResolveHost; feed?: boolean } = {},
): SharedHarness {
  let harness: Harness | undefined;
  let key: string | undefined;
  const closing = closeQueue();
  beforeAll(async () => {
    harness = await createHarness({ config: opts.config, redis: opts.redis, resolveHost: opts.resolveHost, feed: opts.feed });
    if (opts.workspaceRateLimit !== undefined) key = (await harness.workspace({ rateLimit: opts.workspaceRateLimit })).key;
  });
  afterAll(async () => {
    await closing.run();
    await harness?.close();
  });
  const keyOf = () => {
    if (!key) throw new Error('useHarness: no workspace was requested (pass workspaceRateLimit)');
    return key;
  };
  return new Proxy({} as SharedHarness, {
    get: (_target, prop) => {
      if (prop === 'key') return keyOf;
      if (prop === 'beforeClose') return closing.beforeClose;
      if (!harness) throw new Error('useHarness: the harness is only available inside tests');
      return harness[prop as keyof Harness];
    },
  });
}
