/**
 * The mainstream-framework anchor of bench:lookup: Fastify 5 answering GET /api/v1/person?username=
 * with a JSON-schema querystring (Fastify's own Ajv), the same named prepared statement as the
 * full stack's lookup, and the same envelope: {data, quotas, metadata} with x-request-id,
 * Cache-Control and the RateLimit headers. No API keys, no rate-limit bookkeeping, no database-side
 * metering: it is the cost of "a well-made framework and the query", the bar the full stack is
 * held to (issue 14). Reads DATABASE_URL; prints {"url"}.
 */
import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
pool.on('error', () => undefined);
const LIMIT = 1_000_000_000;
const WINDOW = 60;

const app = Fastify({ logger: false });
app.get(
  '/api/v1/person',
  {
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          username: { type: 'string', minLength: 1, maxLength: 200 },
          id: { type: 'string', format: 'uuid' },
          network_url: { type: 'string', maxLength: 500 },
        },
      },
    },
  },
  async (req, reply) => {
    const started = performance.now();
    const { username = '' } = req.query as { username?: string };
    const { rows } = await pool.query({
      name: 'person_by_username',
      text: 'select record::text as record from persons where username = $1',
      values: [username.toLowerCase()],
    });
    const requestId = `req_${randomBytes(16).toString('hex')}`;
    const reset = WINDOW - (Math.floor(Date.now() / 1000) % WINDOW);
    const quotas = JSON.stringify({
      rate_limit: { workspace: { limit: LIMIT, remaining: LIMIT - 1, reset_at: new Date(Date.now() + reset * 1000).toISOString() } },
    });
    const metadata = JSON.stringify({ request_id: requestId, execution_ms: Math.round(performance.now() - started) });
    reply
      .code(rows.length ? 200 : 404)
      .header('content-type', 'application/json; charset=utf-8')
      .header('cache-control', 'no-store, private')
      .header('x-request-id', requestId)
      .header('ratelimit-policy', `"workspace";q=${LIMIT};w=${WINDOW}`)
      .header('ratelimit', `"workspace";r=${LIMIT - 1};t=${reset}`);
    // The record is stored JSON text: spliced in, as the full stack does, not parsed and re-serialized.
    return rows.length
      ? `{"data":${rows[0].record},"quotas":${quotas},"metadata":${metadata}}`
      : `{"error":"not found","code":"NOT_FOUND","quotas":${quotas},"metadata":${metadata}}`;
  },
);

app.listen({ port: 0, host: '127.0.0.1' }).then(() => {
  const addr = app.server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${addr.port}` })}\n`);
});
process.once('SIGTERM', () => void app.close().then(() => pool.end()).then(() => process.exit(0)));
