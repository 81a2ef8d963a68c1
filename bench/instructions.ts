/**
 * npm run bench:instructions — the repeatable figure of issue 35 point 2: the instructions each
 * server process executes per answered request, counted by valgrind's callgrind (every instruction
 * of every thread of the process: JavaScript, V8's JIT and garbage collector, libuv, OpenSSL, the
 * kernel calls' user side; not the kernel itself, not PostgreSQL). Unlike req/s, p99 and CPU time,
 * an instruction count does not depend on who else uses the cores: on this shared 2-core machine
 * it is the figure a change can be judged by. (It is not a time: a cache miss or a system call
 * counts as little as an add. The wall-clock benches stay: bench:lookup, bench:overhead.)
 *
 * Each server runs under `valgrind --tool=callgrind` (about 50× slower once instrumented; it
 * starts uninstrumented, `--instr-atstart=no`, and is switched on after the warm-up), gets
 * `--warmup` requests (the JIT settles, pools and caches fill), then its counters are zeroed (`callgrind_control -z`)
 * and dumped (`-d`) around
 *  - an idle spell of `--idle-seconds`: the background loops' instructions per second (timers fire
 *    by the wall clock, so this rate is the same under valgrind as without it), and
 *  - `--requests` answered requests (`--connections` at a time), `--repeats` times;
 * per request: the count over the requests; net of idle: less the idle rate times the spell's
 * wall time (under valgrind a spell lasts ~50× longer than natively, so the loops weigh more in the
 * raw figure than they do at full speed); steady: net of idle and of V8's optimizing compiler
 * (TurboFan), which natively finishes in a warm server's first seconds but under valgrind still
 * runs after thousands of requests. The steady figure is the one to compare; all three are printed.
 * One more distortion: valgrind does not emulate the SHA extensions, so OpenSSL hashes with its
 * AVX2 code here and SHA-256 (the key's digest, the ETag) counts several times what it costs natively.
 *
 * Servers: `GET /api/v1/person?username=` through the full stack and Fastify 5 (the same query and
 * envelope: bench/servers/fastifyPersonLookup.ts), and `GET /api/v1/health` through the full stack
 * and bare node:http (bench/servers/bareHealth.ts). Options: --route=person|health|both (both)
 * --requests=2000 --warmup=3000 --repeats=2 --connections=8 --idle-seconds=5, --persons/--companies
 * (the bench lake, as bench:lookup), --only=full,before,anchor (a subset of the servers: several
 * runs can count in parallel, each server's line is also printed as soon as it is counted),
 * --no-workers (the full stacks without their in-process workers: a smaller idle correction), --base=<another checkout> (its full stack as `before`), --keep
 * (the callgrind dumps are kept: `callgrind_annotate` names the native functions, V8's builtins
 * and runtime, OpenSSL, libuv; JIT-compiled JavaScript shows as `???`).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { createKnex, migrateLatest } from '../src/db/knex';
import { createWorkspace } from '../src/domain/workspaces/admin';
import { benchDatabaseUrl, ensureLake, intArg, median, stringArg } from './lib';

const run = promisify(execFile);

interface Counted {
  child: ReturnType<typeof spawn>;
  url: string;
  outDir: string;
  name: string;
}

/** A bench server under callgrind; resolves with its URL once it listens (slow: minutes at load). */
function startCounted(name: string, script: string, env: NodeJS.ProcessEnv, root: string): Promise<Counted> {
  const outDir = mkdtempSync(path.join(os.tmpdir(), `callgrind-${name}-`));
  const child = spawn(
    'valgrind',
    ['--tool=callgrind', '--quiet', '--instr-atstart=no', `--callgrind-out-file=${path.join(outDir, 'cg.out')}`, process.execPath, '--require', 'tsx/cjs', path.join(root, 'bench', 'servers', script)],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'], cwd: root },
  );
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout! });
    child.once('exit', (code) => reject(new Error(`${script} under callgrind exited with ${code} before listening`)));
    lines.on('line', (line) => {
      if (!line.startsWith('{"url"')) return;
      resolve({ child, url: (JSON.parse(line) as { url: string }).url, outDir, name });
    });
  });
}

async function stopCounted(server: Counted): Promise<void> {
  await new Promise<void>((done) => {
    server.child.removeAllListeners('exit');
    server.child.once('exit', () => done());
    server.child.kill('SIGTERM');
    setTimeout(() => server.child.kill('SIGKILL'), 60_000).unref();
  });
  if (KEEP) process.stderr.write(`${server.name}: callgrind dumps kept in ${server.outDir} (callgrind_annotate <file>)\n`);
  else rmSync(server.outDir, { recursive: true, force: true });
}

/** --keep: the dumps stay (callgrind_annotate shows where the instructions went, by native function). */
const KEEP = process.argv.includes('--keep');

/**
 * Instructions since the last zeroing: dumps the counters and reads the newest dump's total, and
 * how many of them V8's optimizing compiler (TurboFan, `v8::internal::compiler::`) spent: JIT work
 * that a server answering thousands of requests a second finishes in its first seconds, but that
 * under valgrind's slowdown still runs long after a warm-up of a few thousand requests.
 */
async function dumpInstructions(server: Counted): Promise<{ total: number; compile: number }> {
  const before = new Set(readdirSync(server.outDir));
  await run('callgrind_control', ['-d', String(server.child.pid)], { timeout: 120_000 });
  const fresh = readdirSync(server.outDir).filter((f) => !before.has(f));
  if (!fresh.length) throw new Error(`callgrind wrote no dump for ${server.name}`);
  const file = path.join(server.outDir, fresh.sort().at(-1)!);
  const total = /^(?:summary|totals): (\d+)/m.exec(readFileSync(file, 'utf8'));
  if (!total) throw new Error(`no total in ${server.name}'s dump`);
  const { stdout } = await run('callgrind_annotate', ['--threshold=100', file], { maxBuffer: 256 * 1024 * 1024, timeout: 300_000 });
  let compile = 0;
  for (const line of stdout.split('\n')) {
    const m = /^\s*([\d,]+) .*v8::internal::compiler::/.exec(line);
    if (m) compile += Number(m[1]!.replaceAll(',', ''));
  }
  return { total: Number(total[1]), compile };
}

const zero = (server: Counted) => run('callgrind_control', ['-z', String(server.child.pid)], { timeout: 120_000 });

function load(url: string, amount: number, connections: number, headers: Record<string, string>, requests?: autocannon.Request[]) {
  return new Promise<{ ok: number; other: number }>((resolve, reject) => {
    let ok = 0;
    let other = 0;
    const instance = autocannon({ url, amount, connections, headers, requests, timeout: 120 }, (err) => (err ? reject(err) : resolve({ ok, other })));
    instance.on('response', (_client, status) => (status < 300 ? ok++ : other++));
  });
}

interface Figures {
  idlePerSecond: number;
  perRequest: number[];
  netPerRequest: number[];
  /** Net of idle and of the optimizing compiler's work: the steady state of a warm server. */
  steadyPerRequest: number[];
  answered: number;
  other: number;
}

async function count(
  server: Counted,
  opts: { path: string; warmup: number; requests: number; repeats: number; connections: number; idleSeconds: number; headers: Record<string, string>; requests_?: autocannon.Request[] },
): Promise<Figures> {
  const url = server.url + opts.path;
  await load(url, opts.warmup, opts.connections, opts.headers, opts.requests_);
  // Started without instrumentation (the start-up under full instrumentation takes many minutes on
  // a loaded machine): it is turned on here, and a short second warm-up lets the JIT's code be
  // instrumented before anything is counted.
  await run('callgrind_control', ['-i', 'on', String(server.child.pid)], { timeout: 120_000 });
  await load(url, Math.ceil(opts.warmup / 5), opts.connections, opts.headers, opts.requests_);
  await zero(server);
  const idleStarted = performance.now();
  await new Promise((r) => setTimeout(r, opts.idleSeconds * 1000));
  const idle = await dumpInstructions(server);
  const idleSeconds = (performance.now() - idleStarted) / 1000;
  const idlePerSecond = idle.total / idleSeconds;
  // The loops' own rate, without the compiler's work that happened to run meanwhile.
  const idleRunPerSecond = (idle.total - idle.compile) / idleSeconds;
  const figures: Figures = { idlePerSecond, perRequest: [], netPerRequest: [], steadyPerRequest: [], answered: 0, other: 0 };
  for (let i = 0; i < opts.repeats; i++) {
    await zero(server);
    const started = performance.now();
    const answered = await load(url, opts.requests, opts.connections, opts.headers, opts.requests_);
    const counted = await dumpInstructions(server);
    const instructions = counted.total;
    const seconds = (performance.now() - started) / 1000;
    const n = answered.ok + answered.other;
    figures.answered += answered.ok;
    figures.other += answered.other;
    figures.perRequest.push(instructions / n);
    figures.netPerRequest.push(Math.max(0, instructions - idlePerSecond * seconds) / n);
    figures.steadyPerRequest.push(Math.max(0, instructions - counted.compile - idleRunPerSecond * seconds) / n);
    process.stderr.write(
      `${server.name}: ${(instructions / n / 1000).toFixed(0)}k instructions per request, ${(counted.compile / n / 1000).toFixed(0)}k of them JIT compilation (${n} in ${seconds.toFixed(1)} s)\n`,
    );
  }
  return figures;
}

async function main() {
  const route = stringArg('route') ?? 'both';
  const requests = intArg('requests', 2000);
  const warmup = intArg('warmup', 3000);
  const repeats = intArg('repeats', 2);
  const connections = intArg('connections', 8);
  const idleSeconds = intArg('idle-seconds', 5);
  const persons = intArg('persons', 1_000_000);
  const companies = intArg('companies', 100_000);
  const base = stringArg('base');
  const here = path.join(__dirname, '..');
  const loadAtStart = os.loadavg().map((l) => l.toFixed(2)).join(' ');

  const db = await benchDatabaseUrl();
  const knex = createKnex(db.url);
  let key: string;
  let usernames: string[];
  try {
    await migrateLatest(knex);
    await ensureLake(knex, persons, companies);
    const workspace = await createWorkspace(knex, { name: `bench-${Date.now()}`, rateLimit: 1_000_000_000, active: true });
    key = workspace.api_key;
    const { rows } = await knex.raw<{ rows: { username: string }[] }>('select username from persons tablesample system (2) repeatable (7) limit 20000');
    usernames = rows.map((r) => r.username);
  } finally {
    await knex.destroy();
  }
  let next = 0;
  const personRequests: autocannon.Request[] = [
    { setupRequest: (req) => ({ ...req, path: `/api/v1/person?username=${encodeURIComponent(usernames[next++ % usernames.length]!)}` }) },
  ];
  // --no-workers: the full stacks without the in-process refresh, delivery and list job workers,
  // so the idle correction (the loops' rate times valgrind's stretched wall time) is small next to
  // the requests' own count (the feed sequencer and the metrics' timers still run).
  const env: NodeJS.ProcessEnv = { DATABASE_URL: db.url };
  if (process.argv.includes('--no-workers')) Object.assign(env, { REFRESH_IN_PROCESS: '0', WEBHOOK_DELIVERY_IN_PROCESS: '0', JOB_WORKER_IN_PROCESS: '0' });
  const common = { warmup, requests, repeats, connections, idleSeconds };
  const plans: { name: string; script: string; root: string; path: string; person: boolean }[] = [];
  if (route !== 'health') {
    plans.push({ name: 'full /person', script: 'fullStack.ts', root: here, path: '/api/v1/person', person: true });
    if (base) plans.push({ name: 'before /person', script: 'fullStack.ts', root: base, path: '/api/v1/person', person: true });
    plans.push({ name: 'Fastify /person', script: 'fastifyPersonLookup.ts', root: here, path: '/api/v1/person', person: true });
  }
  if (route !== 'person') {
    plans.push({ name: 'full /health', script: 'fullStack.ts', root: here, path: '/api/v1/health', person: false });
    if (base) plans.push({ name: 'before /health', script: 'fullStack.ts', root: base, path: '/api/v1/health', person: false });
    plans.push({ name: 'bare /health', script: 'bareHealth.ts', root: here, path: '/api/v1/health', person: false });
  }
  const k = (n: number) => `${(n / 1000).toFixed(1)}k`;
  const row = (name: string) => {
    const r = results[name];
    if (!r) return `${name.padEnd(18)} (not run)`;
    return `${name.padEnd(16)} ${k(median(r.perRequest)).padStart(8)} instructions/request (repeats ${r.perRequest.map(k).join(' ')})   net of idle ${k(median(r.netPerRequest))} (${r.netPerRequest.map(k).join(' ')})   steady ${k(median(r.steadyPerRequest))} (${r.steadyPerRequest.map(k).join(' ')})   idle ${(r.idlePerSecond / 1e6).toFixed(1)}M/s   answered ${r.answered} (other statuses ${r.other})`;
  };
  // --only=full,before,anchor: run just those of the servers (several runs can then count in parallel).
  const only = stringArg('only')?.split(',');
  const kindOf = (name: string) => (name.startsWith('full') ? 'full' : name.startsWith('before') ? 'before' : 'anchor');
  const chosen = only ? plans.filter((p) => only.includes(kindOf(p.name))) : plans;
  const results: Record<string, Figures> = {};
  try {
    for (const plan of chosen) {
      const server = await startCounted(plan.name.replace(/\W+/g, '-'), plan.script, env, plan.root);
      try {
        results[plan.name] = await count(server, {
          ...common,
          path: plan.path,
          headers: plan.person ? { authorization: `Bearer ${key}` } : {},
          requests_: plan.person ? personRequests : undefined,
        });
        process.stderr.write(`${row(plan.name)}\n`);
      } finally {
        await stopCounted(server);
      }
    }
  } finally {
    await db.stop();
  }
  const ratio = (a: string, b: string, f: (r: Figures) => number[]) =>
    results[a] && results[b] ? (median(f(results[a]!)) / median(f(results[b]!))).toFixed(3) : '-';
  const lines = [
    `Instructions per answered request under callgrind: ${requests} requests x ${repeats} after ${warmup} warm-up, ${connections} connections, idle spell ${idleSeconds} s`,
    ...chosen.map((p) => row(p.name)),
  ];
  const pairs: [string, string, string][] = [
    ['full /person', 'Fastify /person', 'aim <= 1.0 (issue 35: CPU per request)'],
    ['before /person', 'Fastify /person', 'before'],
    ['full /person', 'before /person', 'the change'],
    ['full /health', 'bare /health', '/health against bare node:http'],
    ['before /health', 'bare /health', 'before'],
    ['full /health', 'before /health', 'the change'],
  ];
  for (const [a, b, aim] of pairs) {
    if (!results[a] || !results[b]) continue;
    lines.push(`${`${a} / ${b}`.padEnd(34)} ${ratio(a, b, (r) => r.perRequest)}   net of idle ${ratio(a, b, (r) => r.netPerRequest)}   steady ${ratio(a, b, (r) => r.steadyPerRequest)}   (${aim})`);
  }
  lines.push(`Load average at the start: ${loadAtStart}; at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (${os.cpus().length} cores; instruction counts do not depend on it); ${new Date().toISOString()}`, '');
  process.stdout.write(lines.join('\n'));
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
