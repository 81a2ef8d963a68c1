/**
 * The live half in tests: the simulator on loopback (in this process, or as a real `enrich
 * live-sim` process that a test can pause with SIGSTOP or kill), sources pointed at it through the
 * real http adapter and resilience policy, and a lake loaded with part of the simulator's world.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';
import { ENRICH_BIN } from './cli';
import type { CompanyRecord, PersonRecord } from '../../src/model/records';
import { HttpLiveSource } from '../../src/domain/live/httpSource';
import { ResilientSource, type ResilienceOptions } from '../../src/domain/live/resilience';
import type { CompanyRef, LiveSource } from '../../src/domain/live/source';
import { writeRecords } from '../../src/domain/lake/write/writer';
import { recordValidator } from '../../src/http/recordSchemas';
import type { World } from '../../src/world';

/**
 * Generous deadlines, so a busy machine never turns a slow answer into a 503: the tests that are
 * about deadlines set a short one against a source that never answers in time. The breaker opens
 * after 3 consecutive failures.
 */
export const TEST_POLICY: ResilienceOptions = {
  timeoutMs: 15_000,
  batchTimeoutMs: 30_000,
  concurrency: 32,
  queue: 1000,
  breakerThreshold: 3,
  breakerCooldownMs: 300,
};

const opened = new Set<ResilientSource>();

/** Closes every source httpSource opened (their keep-alive connections), for afterAll. */
export async function closeSources(): Promise<void> {
  await Promise.all([...opened].map((s) => s.close()));
  opened.clear();
}

export function httpSource(url: string, policy: Partial<ResilienceOptions> = {}): ResilientSource {
  const opts = { ...TEST_POLICY, ...policy };
  const source = new ResilientSource(
    new HttpLiveSource({
      url,
      connections: opts.concurrency,
      timeoutMs: Math.max(opts.timeoutMs, opts.batchTimeoutMs),
      validatePerson: recordValidator('PersonResult'),
      validateCompany: recordValidator('CompanyResult'),
    }),
    opts,
  );
  opened.add(source);
  return source;
}

/** A source whose target a test can swap (one app, several upstreams). */
export class SwitchableSource implements LiveSource {
  readonly name = 'switchable';
  constructor(public target: LiveSource) {}
  person(username: string) {
    return this.target.person(username);
  }
  company(ref: CompanyRef) {
    return this.target.company(ref);
  }
  persons(usernames: readonly string[]) {
    return this.target.persons(usernames);
  }
  companies(usernames: readonly string[]) {
    return this.target.companies(usernames);
  }
  async close() {
    await this.target.close();
  }
}

/** The simulator's control endpoints. */
export function control(url: string) {
  const call = async (method: string, path: string, body?: object) => {
    const res = await fetch(`${url}${path}`, { method, body: body ? JSON.stringify(body) : undefined });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status}`);
    return (await res.json()) as { sim_time: string; stats: { calls: Record<string, number>; records: number } };
  };
  return {
    state: () => call('GET', '/control/state'),
    advance: (body: { seconds?: number; days?: number }) => call('POST', '/control/advance', body),
    faults: (body: Record<string, number | boolean>) => call('PUT', '/control/faults', body),
    calls: async () => {
      const s = await call('GET', '/control/state');
      return Object.values(s.stats.calls).reduce((a, b) => a + b, 0);
    },
  };
}

export interface SimulatorProcess {
  url: string;
  protocolUrl: string;
  child: ChildProcess;
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

/** `enrich live-sim` as a real process on a free port; resolves once it listens. */
export async function startSimulatorProcess(args: string[]): Promise<SimulatorProcess> {
  const child = spawn(process.execPath, [ENRICH_BIN, 'live-sim', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const info = await new Promise<{ url: string; protocol_url: string }>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line && out.includes('\n')) resolve(JSON.parse(line));
    });
    child.stderr!.on('data', (d) => (out += d));
    child.once('exit', (code) => reject(new Error(`live-sim exited with ${code}: ${out}`)));
  });
  return {
    url: info.url,
    protocolUrl: info.protocol_url,
    child,
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGCONT');
        child.kill('SIGKILL');
      }),
  };
}

/** Loads companies and the first `persons` persons of `world` into the lake at `db`. */
export async function loadWorld(db: Knex, world: World, persons: number): Promise<{ persons: PersonRecord[]; companies: CompanyRecord[] }> {
  const companies = [...world.companyRecords()] as CompanyRecord[];
  const people = Array.from({ length: persons }, (_, i) => world.person(i) as PersonRecord);
  for (let i = 0; i < companies.length; i += 500) await writeRecords(db, 'company', companies.slice(i, i + 500));
  for (let i = 0; i < people.length; i += 500) await writeRecords(db, 'person', people.slice(i, i + 500));
  return { persons: people, companies };
}

/** Polls `check` until it returns a value (not undefined/false) or `ms` pass. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, ms = 30_000, every = 100): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, every));
  }
}

export interface Gate {
  /** Base URL of the gate: the target's URL with the gate's origin. */
  url: string;
  /** Requests that reached the gate so far (answered or held). */
  readonly arrived: number;
  /** Their headers, in order of arrival (what the service sent: `traceparent`, say). */
  readonly headers: http.IncomingHttpHeaders[];
  /** Forwards every held request, and every later one at once. */
  open(): void;
  close(): Promise<void>;
}

/**
 * A slow live source without any timing: a loopback HTTP proxy in front of `target` (the
 * simulator's protocol URL) that holds every request until the test opens it. "The source has not
 * answered yet" is then a state the test controls, not a duration the machine's load could change.
 */
export async function startGate(target: string): Promise<Gate> {
  const upstream = new URL(target);
  let isOpen = false;
  let arrived = 0;
  const headers: http.IncomingHttpHeaders[] = [];
  const held: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    arrived++;
    headers.push(req.headers);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const forward = () => {
        const out = http.request(
          { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        out.on('error', () => res.destroy());
        out.end(Buffer.concat(chunks));
      };
      if (isOpen) forward();
      else held.push(forward);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    get arrived() {
      return arrived;
    },
    headers,
    open() {
      isOpen = true;
      for (const forward of held.splice(0)) forward();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface Rewriter {
  /** Base URL of the rewriter: the target's URL with the rewriter's origin. */
  url: string;
  /** Requests forwarded so far. */
  readonly forwarded: number;
  close(): Promise<void>;
}

/**
 * A live source that serves what the simulator serves, with some records altered: a loopback HTTP
 * proxy in front of `target` (the simulator's protocol URL) that passes each record of a 200 answer
 * (`data`, or each `results[].data` of a batch) through `alter` and sends the answer again as JSON.
 * A record the test wants bad (a lone surrogate, a NUL, a value beyond a column) then reaches the
 * service over real HTTP, through the real adapter and its schema check.
 */
export async function startRewriter(target: string, alter: (record: Record<string, unknown>) => Record<string, unknown>): Promise<Rewriter> {
  const upstream = new URL(target);
  let forwarded = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      forwarded++;
      const out = http.request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
        (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (c: Buffer) => body.push(c));
          answer.on('end', () => {
            let text = Buffer.concat(body).toString('utf8');
            if (answer.statusCode === 200) {
              const json = JSON.parse(text) as { data?: Record<string, unknown>; results?: { data?: Record<string, unknown> | null }[] };
              if (json.data) json.data = alter(json.data);
              for (const r of json.results ?? []) if (r?.data) r.data = alter(r.data);
              // JSON.stringify writes a lone surrogate as its \ud800 escape: valid JSON text.
              text = JSON.stringify(json);
            }
            res.writeHead(answer.statusCode ?? 502, { 'content-type': 'application/json' }).end(text);
          });
        },
      );
      out.on('error', () => res.destroy());
      out.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    get forwarded() {
      return forwarded;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
