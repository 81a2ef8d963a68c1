/**
 * The integration project (jest.config.js) runs with Prism's validating proxy (`prism proxy --errors`)
 * between the tests and the real server, as an independent second validator of the contract; the
 * harness's own validator checks the same responses.
 *
 *   test (supertest) -> tee (per harness, in the test worker) -> Prism -> upstream router -> app
 *
 * - globalSetup starts one Prism for the run, proxying to an upstream router that forwards each
 *   request to the app named by its `x-enrich-test-upstream` header (every harness has its own app
 *   on a loopback port).
 * - The tee sends requests for contract operations through Prism, and anything else (unknown paths,
 *   wrong methods, /metrics, /docs) straight to the app, since Prism can only judge what the
 *   contract describes.
 * - A response Prism finds outside the contract (`--errors` turns it into a 500 VIOLATIONS
 *   problem, or an `sl-violations` header) fails the test: the tee answers 599 with Prism's
 *   findings, which no test expects and which the harness's contract check reports.
 * - A request Prism refuses (422, 401, ... problem+json, not forwarded) is sent to the app directly,
 *   and the app must refuse it too (a 4xx): both validators agree the request is outside the
 *   contract, and the test sees the server's own answer. If the app accepts it, the test fails.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { matchOperation } from './contractValidator';
import { startPrism, type PrismProcess } from './prism';

export const PROXY_MODE = process.env.ENRICH_TEST_PROXY === '1';
const UPSTREAM_HEADER = 'x-enrich-test-upstream';
/** Names one request/response exchange; the upstream router echoes it on the app's answers. */
const EXCHANGE_HEADER = 'x-enrich-test-exchange';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function readAll(stream: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

function forward(port: number, method: string, url: string, headers: http.IncomingHttpHeaders, body: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const out = { ...headers, host: `127.0.0.1:${port}` };
    delete out['content-length'];
    delete out['transfer-encoding'];
    if (body.length || headers['content-length'] !== undefined) out['content-length'] = String(body.length);
    const req = http.request({ host: '127.0.0.1', port, method, path: url, headers: out, agent: false }, async (res) => {
      try {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: await readAll(res) });
      } catch (err) {
        reject(err);
      }
    });
    req.on('error', reject);
    req.end(body);
  });
}

function listen(server: http.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/** Started once per run by the integration project's global setup (globalSetupProxy.ts). */
export async function startProxyRun(): Promise<{ prismUrl: string; upstreamUrl: string; stop(): Promise<void> }> {
  // The app's answer to each exchange, kept for a minute: when Prism does not relay it (it mocks
  // instead of relaying an upstream 501), the tee fetches the real answer from here.
  const exchanges = new Map<string, Answer>();
  const upstream = http.createServer(async (req, res) => {
    try {
      if (req.url!.startsWith('/__exchange/')) {
        const id = req.url!.slice('/__exchange/'.length);
        const answer = exchanges.get(id);
        exchanges.delete(id);
        res.writeHead(answer ? 200 : 404, { 'content-type': 'application/json' });
        res.end(answer ? JSON.stringify({ ...answer, body: answer.body.toString('base64') }) : '{}');
        return;
      }
      const port = Number(req.headers[UPSTREAM_HEADER]);
      const exchange = String(req.headers[EXCHANGE_HEADER] ?? '');
      const headers = { ...req.headers };
      delete headers[UPSTREAM_HEADER];
      delete headers[EXCHANGE_HEADER];
      const answer = await forward(port, req.method!, req.url!, headers, await readAll(req));
      if (exchange) {
        exchanges.set(exchange, answer);
        setTimeout(() => exchanges.delete(exchange), 60_000).unref();
      }
      res.writeHead(answer.status, { ...answer.headers, [EXCHANGE_HEADER]: exchange });
      res.end(answer.body);
    } catch (err) {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`test upstream router: ${(err as Error).message}`);
    }
  });
  const upstreamPort = await listen(upstream);
  const prism: PrismProcess = await startPrism({ mode: 'proxy', upstream: `http://127.0.0.1:${upstreamPort}`, errors: true });
  return {
    prismUrl: prism.url,
    upstreamUrl: `http://127.0.0.1:${upstreamPort}`,
    stop: async () => {
      await prism.stop();
      await new Promise((r) => upstream.close(r));
    },
  };
}

function prismProblem(answer: Answer): { type: string; detail: string } | undefined {
  if (!String(answer.headers['content-type']).startsWith('application/problem+json')) return undefined;
  try {
    const body = JSON.parse(answer.body.toString()) as { type?: string; detail?: string; validation?: unknown };
    if (!body.type?.includes('stoplight.io/prism/errors#')) return undefined;
    return { type: body.type.split('#')[1], detail: `${body.detail ?? ''} ${JSON.stringify(body.validation ?? [])}` };
  } catch {
    return undefined;
  }
}

/**
 * The tee for one harness: an HTTP server on loopback in front of `appPort`. Returns its URL (what
 * supertest talks to) and a close function.
 */
/** RFC 9110 (11.1): the scheme name is case-insensitive; Prism compares it case-sensitively. */
const bearerInOtherCase = (auth: string | undefined) => /^bearer /i.test(auth ?? '') && !auth!.startsWith('Bearer ');

/**
 * The tee for one harness: an HTTP server on loopback in front of `appPort`. Returns its URL (what
 * supertest talks to) and a close function.
 */
export async function startTee(appPort: number): Promise<{ url: string; close(): Promise<void> }> {
  const prismPort = Number(new URL(process.env.ENRICH_TEST_PRISM_URL ?? 'http://x:0').port);
  const upstreamPort = Number(new URL(process.env.ENRICH_TEST_UPSTREAM_URL ?? 'http://x:0').port);
  if (!prismPort || !upstreamPort) throw new Error('proxy mode: ENRICH_TEST_PRISM_URL is not set (globalSetupProxy.ts starts Prism for the integration project)');
  const server = http.createServer(async (req, res) => {
    const reply = (a: Answer) => {
      const headers = { ...a.headers };
      delete headers[EXCHANGE_HEADER];
      // Prism adds CORS headers of its own; the app's headers are the ones under test.
      for (const h of Object.keys(headers)) if (h.startsWith('access-control-')) delete headers[h];
      res.writeHead(a.status, headers);
      res.end(a.body);
    };
    const fail = (message: string) => {
      res.writeHead(599, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `Prism proxy: ${message}`, code: 'PRISM_VIOLATION' }));
    };
    try {
      const body = await readAll(req);
      const method = req.method!;
      const url = req.url!;
      const direct = () => forward(appPort, method, url, req.headers, body);
      if (!(await matchOperation(method, new URL(url, 'http://x').pathname))) return reply(await direct());
      const exchange = randomUUID();
      const viaPrism = await forward(prismPort, method, url, { ...req.headers, [UPSTREAM_HEADER]: String(appPort), [EXCHANGE_HEADER]: exchange }, body);
      const problem = prismProblem(viaPrism);
      if (viaPrism.headers[EXCHANGE_HEADER] === exchange) {
        // Prism relayed the app's answer: it is inside the contract unless Prism says otherwise.
        const violations = viaPrism.headers['sl-violations'];
        if (violations) return fail(`response outside the contract: ${String(violations)}`);
        return reply(viaPrism);
      }
      const seen = await forward(upstreamPort, 'GET', `/__exchange/${exchange}`, {}, Buffer.alloc(0));
      if (seen.status === 200) {
        // The app answered, but Prism answered something else.
        const app = JSON.parse(seen.body.toString()) as Answer & { body: string };
        if (problem?.type === 'VIOLATIONS') return fail(`response outside the contract: ${problem.detail}`);
        // Prism mocks instead of relaying an upstream 501 (its forwarder's UPSTREAM_NOT_IMPLEMENTED
        // fallback), so a 501 NOT_IMPLEMENTED is checked by the harness's own validator only.
        if (app.status === 501) return reply({ ...app, body: Buffer.from(app.body, 'base64') });
        return fail(`Prism replaced the server's ${app.status} with ${viaPrism.status}: ${viaPrism.body.toString().slice(0, 500)}`);
      }
      // Prism refused the request without forwarding it: the app must refuse it too.
      const real = await direct();
      if (real.status >= 400 && real.status < 500) return reply(real);
      if (problem?.type === 'UNAUTHORIZED' && bearerInOtherCase(req.headers.authorization)) return reply(real);
      return fail(`Prism refused the request (${problem ? `${problem.type}: ${problem.detail}` : `${viaPrism.status} ${viaPrism.body.toString().slice(0, 300)}`}) but the server answered ${real.status}`);
    } catch (err) {
      fail(`tee error: ${(err as Error).stack}`);
    }
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}
