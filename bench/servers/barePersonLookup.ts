/**
 * The ceiling for GET /person?username=: bare node:http + pg running the one indexed query that
 * returns the record, answered as {data} with the same headers. No auth, limits, validation or
 * envelope. Reads DATABASE_URL; with BARE_PREPARED=1 the query is a named prepared statement, as
 * the full stack's lookups are. Prints {"url"}.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
pool.on('error', () => undefined);
const PREPARED = process.env.BARE_PREPARED === '1';

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  const username = url.searchParams.get('username') ?? '';
  const query = { text: 'select record::text as record from persons where username = $1', values: [username.toLowerCase()] };
  pool.query(PREPARED ? { ...query, name: 'person_by_username' } : query).then(
    ({ rows }) => {
      const requestId = `req_${randomBytes(16).toString('hex')}`;
      const body = rows.length ? `{"data":${rows[0].record}}` : '{"error":"not found","code":"NOT_FOUND"}';
      res.writeHead(rows.length ? 200 : 404, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        'x-request-id': requestId,
      });
      res.end(body);
    },
    () => {
      res.writeHead(500);
      res.end();
    },
  );
});
server.listen(0, '127.0.0.1', () => {
  const addr = server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${addr.port}` })}\n`);
});
process.once('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
