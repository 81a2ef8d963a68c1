/**
 * The PostgreSQL driver (`pg`), loaded once here; every module of ours that needs it imports it
 * from this file, and knex's own `require('pg')` then finds it loaded.
 *
 * Why a module of its own: when `pg` loads, it asks whether it runs inside a Cloudflare Worker
 * (pg/lib/stream.js, isCloudflareRuntime). Where `navigator` is missing (Node 20; Node 21+ has it)
 * the question is asked by constructing a `Response`, and touching the global `Response` makes Node
 * load its whole bundled fetch implementation (undici): 30–40 ms of CPU in every process that opens
 * the database, a tenth of `enrich key list` (docs/benchmarks.md, the CLI's start-up). The answer is
 * known here (this is Node), so while `pg` loads, a `navigator` that says so stands in, and goes
 * again right after: nothing else ever sees it. Where Node has its own `navigator`, nothing is done.
 */
type Navigator = { userAgent: string };
const scope = globalThis as { navigator?: Navigator };
const stands = typeof scope.navigator === 'undefined';
if (stands) Object.defineProperty(scope, 'navigator', { value: { userAgent: 'Node.js' }, configurable: true, writable: true });
// eslint-disable-next-line @typescript-eslint/no-require-imports
let driver: typeof import('pg');
try {
  driver = require('pg') as typeof import('pg');
} finally {
  if (stands) delete scope.navigator;
}

export default driver!;
export type { Client, Pool, PoolClient, QueryResult } from 'pg';
