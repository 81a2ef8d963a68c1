/**
 * `enrich live-sim`: the simulator over HTTP on loopback, speaking the live-source protocol
 * (openapi/live-source/live-source.yaml) under `/v1`, plus control endpoints for tests and demos:
 *
 *   GET  /control/state                      simulated time, world, rates, faults, call counts
 *   POST /control/advance  {"seconds"|"hours"|"days": n}   move simulated time forward
 *   PUT  /control/faults   {"latency_ms", "jitter_ms", "error_rate", "timeout_rate", "outage"}
 *   PUT  /control/speed    {"speed": n}      simulated seconds per wall-clock second
 *
 * With a token, every request must carry `Authorization: Bearer <token>`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_LOOKUP_BATCH } from '../../domain/live/source';
import type { Faults, Simulator, SimulatorAnswer } from './simulator';

export interface SimulatorServer {
  url: string;
  /** Base URL of the protocol, for LIVE_SOURCE_URL. */
  protocolUrl: string;
  port: number;
  close(): Promise<void>;
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: http.IncomingMessage, limit = 1 << 20): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : {};
}

export function answerHttp<T>(res: http.ServerResponse, answer: SimulatorAnswer<T>, wrap: (body: T) => unknown): void {
  switch (answer.kind) {
    case 'ok':
      return send(res, 200, wrap(answer.body));
    case 'not_found':
      return send(res, 404, { error: 'not found' });
    case 'error':
      return send(res, answer.status, { error: answer.message });
    case 'hang':
      // Never answered: the socket stays open until the client gives up or the server closes.
      return;
  }
}

const usernamesOf = (body: unknown): string[] | undefined => {
  const list = (body as { usernames?: unknown })?.usernames;
  if (!Array.isArray(list) || list.length < 1 || list.length > MAX_LOOKUP_BATCH) return undefined;
  return list.every((u) => typeof u === 'string' && u.length > 0 && u.length <= 200) ? (list as string[]) : undefined;
};

const FAULT_FIELDS: Record<string, keyof Faults> = {
  latency_ms: 'latencyMs',
  jitter_ms: 'jitterMs',
  error_rate: 'errorRate',
  timeout_rate: 'timeoutRate',
  outage: 'outage',
};

export function simulatorHandler(sim: Simulator, token?: string): http.RequestListener {
  return async (req, res) => {
    try {
      if (token && req.headers.authorization !== `Bearer ${token}`) return send(res, 401, { error: 'bad token' });
      const url = new URL(req.url ?? '/', 'http://simulator');
      const route = `${req.method} ${url.pathname}`;
      switch (route) {
        case 'GET /v1/person': {
          const username = url.searchParams.get('username');
          if (!username) return send(res, 400, { error: 'username is required' });
          return answerHttp(res, await sim.answer('person', 1, () => sim.person(username)), (data) => ({ data }));
        }
        case 'GET /v1/company': {
          const username = url.searchParams.get('username');
          const companyId = url.searchParams.get('company_id');
          if (!username === !companyId) return send(res, 400, { error: 'provide username or company_id' });
          const ref = username ? { username } : { companyId: companyId as string };
          return answerHttp(res, await sim.answer('company', 1, () => sim.company(ref)), (data) => ({ data }));
        }
        case 'POST /v1/persons/lookup':
        case 'POST /v1/companies/lookup': {
          const usernames = usernamesOf(await readJson(req));
          if (!usernames) return send(res, 400, { error: `usernames: 1 to ${MAX_LOOKUP_BATCH} slugs` });
          const persons = url.pathname === '/v1/persons/lookup';
          const answer = await sim.answer(persons ? 'persons' : 'companies', usernames.length, () =>
            usernames.map((username) => ({
              username,
              data: persons ? sim.person(username) : sim.company({ username }),
            })),
          );
          return answerHttp(res, answer, (results) => ({ results }));
        }
        case 'GET /control/state':
          return send(res, 200, sim.state());
        case 'POST /control/advance': {
          const body = (await readJson(req)) as Record<string, unknown>;
          const seconds = Number(body.seconds ?? 0) + Number(body.hours ?? 0) * 3600 + Number(body.days ?? 0) * 86400;
          if (!Number.isFinite(seconds) || seconds < 0) return send(res, 400, { error: 'seconds, hours or days: a non-negative number' });
          sim.advance(seconds);
          return send(res, 200, sim.state());
        }
        case 'PUT /control/faults': {
          const body = (await readJson(req)) as Record<string, unknown>;
          const update: Partial<Faults> = {};
          for (const [field, key] of Object.entries(FAULT_FIELDS)) {
            if (body[field] === undefined) continue;
            (update as Record<string, unknown>)[key] = key === 'outage' ? Boolean(body[field]) : Math.max(0, Number(body[field]) || 0);
          }
          sim.setFaults(update);
          return send(res, 200, sim.state());
        }
        case 'PUT /control/speed': {
          const body = (await readJson(req)) as Record<string, unknown>;
          const speed = Number(body.speed);
          if (!Number.isFinite(speed) || speed < 0) return send(res, 400, { error: 'speed: a non-negative number' });
          sim.setSpeed(speed);
          return send(res, 200, sim.state());
        }
        default:
          return send(res, 404, { error: `no route ${route}` });
      }
    } catch (err) {
      if (!res.headersSent) send(res, 400, { error: (err as Error).message });
    }
  };
}

/** Listens on `host:port` (port 0 = any free port). */
export async function startSimulatorServer(sim: Simulator, opts: { port?: number; host?: string; token?: string } = {}): Promise<SimulatorServer> {
  const host = opts.host ?? '127.0.0.1';
  const server = http.createServer(simulatorHandler(sim, opts.token));
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host}:${port}`;
  return {
    url,
    protocolUrl: `${url}/v1`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
