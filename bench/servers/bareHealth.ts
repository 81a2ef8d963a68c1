/** A bare node:http server answering the same JSON as GET /api/v1/health; prints {"url"}. */
import http from 'node:http';
import { randomBytes } from 'node:crypto';

const server = http.createServer((_req, res) => {
  const started = process.hrtime.bigint();
  const requestId = `req_${randomBytes(16).toString('hex')}`;
  const resetAt = new Date(Date.now() + 60_000).toISOString();
  const body = JSON.stringify({
    ok: true,
    quotas: { rate_limit: { workspace: { limit: 600, remaining: 599, reset_at: resetAt } } },
    metadata: { request_id: requestId, execution_ms: Number((process.hrtime.bigint() - started) / 1_000_000n) },
  });
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
    'ratelimit-policy': '"workspace";q=600;w=60',
    ratelimit: '"workspace";r=599;t=60',
  });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const addr = server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${addr.port}` })}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
