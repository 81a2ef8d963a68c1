/**
 * npm run bench:tracing — what tracing costs (issue 36): GET /api/v1/person?username= through the
 * full stack, side by side,
 *   previous  the code before tracing and the access log existed (a `git archive` of --previous,
 *             default the commit before this work, sharing this checkout's node_modules), on a
 *             database of its own that this code prepares (bench/previousLake.ts: its migrations,
 *             the same seeded lake; the usernames asked are those both lakes hold, and a non-2xx
 *             count shows if any answer differs),
 *   off       this code without OTEL_* variables (no OpenTelemetry module loaded),
 *   on        this code with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a local OTLP/HTTP receiver
 *             (http/protobuf, the default; every request sampled: the worst case),
 *   sampled   the same with OTEL_TRACES_SAMPLER=parentbased_traceidratio, OTEL_TRACES_SAMPLER_ARG=0.1
 *             (one trace in ten recorded: what a busy production instance would run),
 *   unsampled OTEL_TRACES_SAMPLER=always_off: the SDK and instrumentations loaded, no span recorded
 *             (the fixed cost: the wrappers, without spans or export),
 * in alternating rounds (each round runs every server once, in an order that alternates, so a swing
 * of the machine's load falls on all of them alike), and compares them round by round: a ratio is
 * taken between two servers measured in the same round, seconds apart, and the figure is the median
 * of the rounds' ratios with a distribution-free confidence interval for that median (order
 * statistics of the rounds: no assumption about how the noise is spread). The aims: off/previous
 * >= 0.98 (tracing off costs nothing measurable), on/off >= 0.85 (at most 15 % of req/s). Each aim
 * gets a verdict: met (the whole interval is at or above it), missed (the whole interval is below),
 * or not resolved at this noise (the interval straddles it; more rounds narrow it).
 * Two measures per server and round: requests per second (what the issue names; under a shared
 * machine's load it swings between rounds) and CPU time per request (user + system, all threads,
 * from /proc: the work each request costs the server, which the load disturbs far less); a ratio of
 * CPU per request is turned into the req/s it implies for a CPU-bound server (previous CPU / off CPU).
 * The lake is a small one of its own (--persons=20000 by default, database enrich_bench_tracing), so a run
 * is short; all servers log at `warn` (as bench:lookup's), so the access log is not in the figures.
 * Options: --persons=20000 --companies=2000 --rounds=9 --seconds=4 --connections=16 --previous=<commit>
 *   --only=previous,off,on,sampled,unsampled (a subset, e.g. --only=previous,off for the "off costs
 *   nothing" question alone, so more rounds fit in the same time).
 * --measure=instructions: instead of req/s and CPU time, counts the machine instructions each
 *   request costs each server with valgrind's callgrind (`valgrind --tool=callgrind`, needs valgrind
 *   installed). Every server starts once under callgrind with counting off and V8 flags that keep
 *   threads and timing out of the count (lib.ts DETERMINISTIC_V8_FLAGS: no concurrent JIT or GC
 *   threads, a fixed young generation, the GC's predictable schedule), answers --warmup=3000
 *   requests, then the servers take turns in counted windows of --requests=2000 requests (4 in
 *   flight) in ABBA order over --rounds=4; each window's counters are zeroed before it
 *   (`callgrind_control -z`) and dumped after it, and the same server's count over an idle spell as
 *   long as the window is subtracted (its timers). An instruction count does not depend on how busy
 *   the machine is, so it resolves differences of a percent or two that req/s and CPU time cannot on
 *   a shared machine; the rounds show what variation remains. It counts work, not time: a cache
 *   miss or a system call's kernel time costs no instruction here. Slow: under callgrind a request
 *   takes ~50 times as long (at load 20, a window of 1,000 requests took 260 s). Ratios as above,
 *   the instruction count standing for CPU time (previous/off, off/on).
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import type autocannon from 'autocannon';
import { createKnex } from '../src/db/knex';
import { benchDatabaseUrl, DETERMINISTIC_V8_FLAGS, prepareLookupLake, intArg, measure, measureServer, median, startServerProcess, stringArg, type Round, type Server } from './lib';

/** The commit before issue 36's tracing work: the "previous release" code path. */
const PREVIOUS = 'ddd6261';

async function main() {
  const persons = intArg('persons', 20_000);
  const companies = intArg('companies', 2_000);
  const rounds = intArg('rounds', 9);
  const seconds = intArg('seconds', 4);
  const connections = intArg('connections', 16);
  const previous = stringArg('previous') ?? PREVIOUS;
  const root = path.join(__dirname, '..');

  const db = await benchDatabaseUrl('enrich_bench_tracing');
  const lake = await prepareLookupLake(db.url, persons, companies, 'select username from persons order by random() limit 5000');
  const { key } = lake;
  let { usernames } = lake;

  // The previous code, as it was, beside this checkout (its own src/, this node_modules).
  const previousDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-previous-'));
  execFileSync('sh', ['-c', `git -C "${root}" archive ${previous} | tar -x -C "${previousDir}"`]);
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(previousDir, 'node_modules'));
  // Its own database (same server, same seed and sizes), migrated and filled by that code: an older
  // version refuses a database migrated by a newer one (knex: "the migration directory is corrupt").
  const noOtel = Object.fromEntries(Object.keys(process.env).filter((k) => k.startsWith('OTEL_')).map((k) => [k, undefined]));
  const previousLake = JSON.parse(
    execFileSync(
      process.execPath,
      ['--require', 'tsx/cjs', path.join(__dirname, 'previousLake.ts'), previousDir, 'enrich_bench_tracing_previous', String(persons), String(companies)],
      { cwd: previousDir, env: { ...process.env, ...noOtel, DATABASE_URL: db.url }, stdio: ['ignore', 'pipe', 'inherit'] },
    )
      .toString()
      .trim()
      .split('\n')
      .pop()!,
  ) as { url: string; key: string };
  // Only usernames both lakes hold: the seeded world's generator changed since the previous commit
  // for some persons, and a 404 is not the work a found record is (the servers must be asked alike).
  const previousKnex = createKnex(previousLake.url);
  try {
    const { rows } = await previousKnex.raw<{ rows: { username: string }[] }>('select username from persons where username = any(?)', [usernames]);
    const both = new Set(rows.map((r) => r.username));
    process.stderr.write(`${both.size} of the ${usernames.length} sampled usernames are in both lakes; asking those only\n`);
    usernames = usernames.filter((u) => both.has(u));
  } finally {
    await previousKnex.destroy();
  }

  // A local OTLP/HTTP receiver: reads each export whole and answers 200, as a collector does.
  let exports = 0;
  let exportedBytes = 0;
  const receiver = http.createServer((req, res) => {
    req.on('data', (c: Buffer) => (exportedBytes += c.length));
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const otlp = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  const env = { ...noOtel, DATABASE_URL: db.url };
  const onEnv = { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp };
  const all = {
    previous: () => startServerProcess('fullStack.ts', { ...env, DATABASE_URL: previousLake.url }, previousDir),
    off: () => startServerProcess('fullStack.ts', env),
    on: () => startServerProcess('fullStackTraced.ts', onEnv),
    sampled: () => startServerProcess('fullStackTraced.ts', { ...onEnv, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }),
    unsampled: () => startServerProcess('fullStackTraced.ts', { ...onEnv, OTEL_TRACES_SAMPLER: 'always_off' }),
  };
  // --variants=name=ENV=VALUE;ENV=VALUE,...: more servers, for ablations (a name starting with `on`
  // is traced, any other is not), each compared with `off` by CPU per request; e.g.
  // --variants=offals=NODE_OPTIONS=--require=/tmp/als.js (off with AsyncLocalStorage enabled).
  const variantLabels: Record<string, string> = {};
  for (const spec of stringArg('variants')?.split(',').filter(Boolean) ?? []) {
    const [variant, ...settings] = spec.split('=');
    const extra = Object.fromEntries((settings.join('=') || '').split(';').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
    const traced = variant!.startsWith('on');
    (all as Record<string, () => Promise<Server>>)[variant!] = () => startServerProcess(traced ? 'fullStackTraced.ts' : 'fullStack.ts', { ...(traced ? onEnv : env), ...extra });
    variantLabels[variant!] = variant!;
  }
  type Name = keyof typeof all;
  const names = (stringArg('only')?.split(',').map((n) => n.trim()) ?? Object.keys(all)) as Name[];
  for (const name of names) if (!(name in all)) throw new Error(`--only: no server named ${name} (${Object.keys(all).join(', ')})`);
  if (stringArg('measure') === 'instructions') {
    // No background loop in the servers: under callgrind a request takes ~50 times as long, and a
    // loop that polls on a timer would add instructions in proportion to wall time, not to requests.
    const quiet = { REFRESH_IN_PROCESS: '0', WEBHOOK_DELIVERY_IN_PROCESS: '0', JOB_WORKER_IN_PROCESS: '0' };
    Object.assign(env, quiet);
    Object.assign(onEnv, quiet);
    const starters: Record<Name, () => Promise<Server & { pid: number; outFile: string }>> = {
      previous: () => startUnderCallgrind('fullStack.ts', { ...env, DATABASE_URL: previousLake.url }, previousDir),
      off: () => startUnderCallgrind('fullStack.ts', env),
      on: () => startUnderCallgrind('fullStackTraced.ts', onEnv),
      sampled: () => startUnderCallgrind('fullStackTraced.ts', { ...onEnv, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }),
      unsampled: () => startUnderCallgrind('fullStackTraced.ts', { ...onEnv, OTEL_TRACES_SAMPLER: 'always_off' }),
    };
    try {
      await countInstructions(names, starters, {
        rounds: intArg('rounds', 4),
        warmup: intArg('warmup', 3000),
        requests: intArg('requests', 2000),
        pathOf: (i) => `/api/v1/person?username=${encodeURIComponent(usernames[i % usernames.length]!)}`,
        headersOf: (name) => ({ authorization: `Bearer ${name === 'previous' ? previousLake.key : key}` }),
        previous,
      });
      process.stdout.write(`OTLP exports received: ${exports} (${(exportedBytes / 1e6).toFixed(1)} MB)\n`);
    } finally {
      receiver.close();
      await db.stop();
      fs.rmSync(previousDir, { recursive: true, force: true });
    }
    return;
  }
  const servers = {} as Record<Name, Server>;
  let next = 0;
  const requests: autocannon.Request[] = [
    { setupRequest: (req) => ({ ...req, path: `/api/v1/person?username=${encodeURIComponent(usernames[next++ % usernames.length]!)}` }) },
  ];
  const headersOf = (name: Name) => ({ authorization: `Bearer ${name === 'previous' ? previousLake.key : key}` });
  type Measured = Round & { cpuPerRequestMicros: number };
  const results = Object.fromEntries(names.map((n) => [n, [] as Measured[]])) as Record<Name, Measured[]>;
  const loads: number[] = [];
  try {
    for (const name of names) servers[name] = await all[name]();
    for (const name of names) await measure(servers[name].url, { seconds: 2, connections, headers: headersOf(name), requests });
    for (let i = 0; i < rounds; i++) {
      // Rotated and, every other round, reversed: each server runs first, last and between the others.
      const rotated = names.map((_, j) => names[(i + j) % names.length]!);
      const order = i % 2 ? rotated.reverse() : rotated;
      for (const name of order) results[name].push(await measureServer(servers[name], { seconds, connections, headers: headersOf(name), requests }));
      loads.push(os.loadavg()[0]!);
      process.stderr.write(`round ${i + 1}/${rounds} done (${order.join(', ')}), load ${os.loadavg()[0]!.toFixed(1)}\n`);
    }
  } finally {
    for (const server of Object.values(servers)) await server.stop();
    receiver.close();
    await db.stop();
    fs.rmSync(previousDir, { recursive: true, force: true });
  }
  const labels: Record<Name, string> = {
    previous: `previous (${previous})`,
    off: 'tracing off',
    on: 'tracing on (OTLP http/protobuf)',
    sampled: 'tracing on, 10 % of traces sampled',
    unsampled: 'tracing on, none sampled',
    ...variantLabels,
  } as Record<Name, string>;
  const med = (r: Measured[], f: (x: Measured) => number) => median(r.map(f));
  const row = (name: Name) => {
    const r = results[name];
    return `${labels[name].padEnd(36)} ${med(r, (x) => x.requestsPerSecond).toFixed(0).padStart(6)} req/s   p50 ${med(r, (x) => x.p50).toFixed(1)} ms   p99 ${med(r, (x) => x.p99).toFixed(1)} ms   CPU ${med(r, (x) => x.cpuPerRequestMicros).toFixed(0)} µs/req   non-2xx ${r.reduce((s, x) => s + x.non2xx, 0)}`;
  };
  const rps = (x: Measured) => x.requestsPerSecond;
  const cpu = (x: Measured) => x.cpuPerRequestMicros;
  /** a's figure over b's, round by round (both measured in the same round). */
  const ratios = (a: Name, b: Name, f: (x: Measured) => number) => results[a].map((x, i) => f(x) / Math.max(f(results[b][i]!), 0.001));
  const lines: string[] = [];
  const compare = (label: string, values: number[], aim?: number) => {
    const ci = medianInterval(values);
    const verdict = aim === undefined ? '' : ci.low >= aim ? `aim >= ${aim}: met` : ci.high < aim ? `aim >= ${aim}: missed` : `aim >= ${aim}: not resolved at this noise`;
    lines.push(
      `${label.padEnd(44)} median ${median(values).toFixed(3)}   ${Math.round(ci.coverage * 100)} % interval ${ci.low.toFixed(3)}–${ci.high.toFixed(3)}   ${verdict}`,
      `${''.padEnd(44)} rounds ${values.map((v) => v.toFixed(3)).join(' ')}`,
    );
  };
  const has = (n: Name) => names.includes(n);
  if (has('off') && has('previous')) {
    compare('off/previous requests/s', ratios('off', 'previous', rps), 0.98);
    // CPU per request the other way up: previous's CPU over off's is the req/s a CPU-bound off would reach.
    compare('off/previous by CPU per request (prev/off)', ratios('previous', 'off', cpu), 0.98);
  }
  if (has('on') && has('off')) {
    compare('on/off requests/s', ratios('on', 'off', rps), 0.85);
    compare('on/off by CPU per request (off/on)', ratios('off', 'on', cpu), 0.85);
  }
  if (has('sampled') && has('off')) {
    compare('on 10 %/off requests/s', ratios('sampled', 'off', rps), 0.85);
    compare('on 10 %/off by CPU per request (off/10 %)', ratios('off', 'sampled', cpu), 0.85);
  }
  if (has('unsampled') && has('off')) compare('none sampled/off by CPU per request (off/none)', ratios('off', 'unsampled', cpu));
  for (const variant of Object.keys(variantLabels) as Name[]) {
    if (!has(variant) || !has('off')) continue;
    compare(`${variant}/off requests/s`, ratios(variant, 'off', rps));
    compare(`${variant}/off by CPU per request (off/${variant})`, ratios('off', variant, cpu));
  }
  process.stdout.write(
    [
      `GET /api/v1/person?username= over ${persons} persons / ${companies} companies, ${connections} connections, ${rounds} alternating rounds of ${seconds}s (medians)`,
      ...names.map(row),
      ...lines,
      `OTLP exports received: ${exports} (${(exportedBytes / 1e6).toFixed(1)} MB)`,
      `Load average (1 min) over the rounds: ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}; at the end ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (${os.cpus().length} cores, shared with other work); ${new Date().toISOString()}`,
      '',
    ].join('\n'),
  );
}

/**
 * A confidence interval for the median of `values` that assumes nothing about their spread: the
 * k-th smallest and k-th largest value, with k the largest for which the interval still covers
 * the median with at least 90 % probability (binomial order statistics). Few rounds give a wide
 * interval; with fewer than 5 there is none better than the extremes (then coverage says how much).
 */
export function medianInterval(values: number[]): { low: number; high: number; coverage: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  // P(Binomial(n, 1/2) <= j), summed exactly.
  const below = (j: number) => {
    let sum = 0;
    let c = 1;
    for (let i = 0; i <= j; i++) {
      sum += c;
      c = (c * (n - i)) / (i + 1);
    }
    return sum / 2 ** n;
  };
  let k = 1;
  while (k + 1 <= Math.floor(n / 2) && 1 - 2 * below(k) >= 0.9) k++;
  return { low: sorted[k - 1]!, high: sorted[n - k]!, coverage: 1 - 2 * below(k - 1) };
}

/** A bench server (bench/servers/<script>) under callgrind, counting off until countInstructions turns it on. */
function startUnderCallgrind(script: string, env: NodeJS.ProcessEnv, root = path.join(__dirname, '..')): Promise<Server & { pid: number; outFile: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-callgrind-'));
  const outFile = path.join(dir, 'callgrind.out');
  const child = spawn(
    'valgrind',
    ['--tool=callgrind', '--quiet', '--instr-atstart=no', `--callgrind-out-file=${outFile}`, process.execPath, ...DETERMINISTIC_V8_FLAGS, '--require', 'tsx/cjs', path.join(root, 'bench', 'servers', script)],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} under callgrind did not listen within 10 minutes`)), 600_000);
    const lines = readline.createInterface({ input: child.stdout! });
    child.once('exit', (code) => reject(new Error(`${script} under callgrind exited with ${code} before listening`)));
    lines.on('line', (line) => {
      if (!line.startsWith('{"url"')) return;
      clearTimeout(timer);
      const { url } = JSON.parse(line) as { url: string };
      resolve({
        url,
        child,
        pid: child.pid!,
        outFile,
        stop: () =>
          new Promise((done) => {
            child.removeAllListeners('exit');
            const kill = setTimeout(() => child.kill('SIGKILL'), 120_000);
            child.once('exit', () => {
              clearTimeout(kill);
              fs.rmSync(dir, { recursive: true, force: true });
              done();
            });
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/** `count` GET requests, `inFlight` at a time, on keep-alive connections; each with a 10-minute timeout (under callgrind at load 20 the first instrumented requests took over a minute). Returns the non-2xx count. */
async function sendRequests(url: string, count: number, pathOf: (i: number) => string, headers: Record<string, string>, inFlight = 4): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: inFlight });
  let next = 0;
  let non2xx = 0;
  let retries = 0;
  const one = (p: string) =>
    new Promise<void>((resolve, reject) => {
      const req = http.get(`${url}${p}`, { agent, headers, timeout: 600_000 }, (res) => {
        if ((res.statusCode ?? 0) >= 300) non2xx++;
        res.resume();
        res.once('end', resolve);
      });
      req.once('timeout', () => req.destroy(new Error('request timed out')));
      req.once('error', reject);
    });
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < count) {
      const p = pathOf(next++);
      // A keep-alive socket the server closed just as it was reused (ECONNRESET): asked again, at
      // most twice (a GET; the retry's work is then in the count, a few requests in a thousand).
      for (let attempt = 1; ; attempt++) {
        try {
          await one(p);
          break;
        } catch (err) {
          if (attempt >= 3 || (err as NodeJS.ErrnoException).code !== 'ECONNRESET') throw err;
          retries++;
        }
      }
    }
  }));
  if (retries) process.stderr.write(`${retries} requests asked again after ECONNRESET\n`);
  agent.destroy();
  return non2xx;
}

/**
 * Instructions counted by callgrind since its counters were last zeroed: dumps them (which zeroes
 * them again) and reads the `totals:` line of the dump file(s) this dump wrote.
 */
function dumpedInstructions(pid: number, outFile: string): number {
  const dir = path.dirname(outFile);
  const mine = () => new Set(fs.readdirSync(dir).filter((f) => f.startsWith(path.basename(outFile))));
  const before = mine();
  execFileSync('callgrind_control', ['-d', String(pid)], { stdio: 'ignore', timeout: 120_000 });
  let total = 0;
  for (const f of mine()) {
    if (before.has(f)) continue;
    const m = /^(?:totals|summary): (\d+)/m.exec(fs.readFileSync(path.join(dir, f), 'utf8'));
    if (m) total += Number(m[1]);
    fs.rmSync(path.join(dir, f), { force: true });
  }
  return total;
}

const zeroCounters = (pid: number) => execFileSync('callgrind_control', ['-z', String(pid)], { stdio: 'ignore', timeout: 120_000 });

/**
 * Every server is started once under callgrind and warmed up (counting off), then counting is
 * turned on in all of them and the servers take turns in windows of --requests requests, in ABBA
 * order (A B B A A B B A …: each server as often first as second of a pair, so a drift over the run,
 * such as a JIT tier still settling, falls on both alike): before a window the server's counters are
 * zeroed (`callgrind_control -z`: what the server did while the other one was counted is not in
 * its figure), after it they are dumped. Right after each window the same server is counted idle
 * for as long as the window took (its timers: the pool's reaper, the key cache, the event feed's
 * sequencer), and that idle count is subtracted, so a server asked more slowly in one window is
 * not charged for the longer wall time. Instructions per request = (window − idle) / requests.
 */
async function countInstructions<Name extends string>(
  names: Name[],
  starters: Record<Name, () => Promise<Server & { pid: number; outFile: string }>>,
  opts: { rounds: number; warmup: number; requests: number; pathOf: (i: number) => string; headersOf: (name: Name) => Record<string, string>; previous: string },
) {
  const perRequest = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Name, number[]>;
  const idleShare = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Name, number[]>;
  const non2xx = Object.fromEntries(names.map((n) => [n, 0])) as Record<Name, number>;
  const loads: number[] = [];
  const servers = {} as Record<Name, Server & { pid: number; outFile: string }>;
  try {
    for (const name of names) {
      servers[name] = await starters[name]();
      // The same warm-up requests for every server.
      await sendRequests(servers[name].url, opts.warmup, (i) => opts.pathOf(i), opts.headersOf(name));
      process.stderr.write(`${name}: started under callgrind and warmed up (${opts.warmup} requests)\n`);
    }
    for (const name of names) execFileSync('callgrind_control', ['-i', 'on', String(servers[name].pid)], { stdio: 'ignore', timeout: 120_000 });
    // One more warm-up window each with counting on (callgrind re-translates the code once when instrumentation starts).
    for (const name of names) await sendRequests(servers[name].url, Math.min(opts.warmup, 200), (i) => opts.pathOf(i), opts.headersOf(name));
    let window = 0;
    for (let r = 0; r < opts.rounds; r++) {
      // ABBA: rounds 0 and 3 forwards, 1 and 2 backwards, and so on.
      const order = r % 4 === 1 || r % 4 === 2 ? [...names].reverse() : names;
      for (const name of order) {
        const server = servers[name];
        // The same requests for every server within a round, a different slice of the usernames in each round.
        const base = opts.warmup + r * opts.requests;
        zeroCounters(server.pid);
        const started = performance.now();
        non2xx[name] += await sendRequests(server.url, opts.requests, (i) => opts.pathOf(base + i), opts.headersOf(name));
        const busy = dumpedInstructions(server.pid, server.outFile);
        const wallMs = performance.now() - started;
        zeroCounters(server.pid);
        const idleStarted = performance.now();
        await new Promise((resolve) => setTimeout(resolve, wallMs));
        const idle = dumpedInstructions(server.pid, server.outFile);
        const idleForWindow = idle * (wallMs / (performance.now() - idleStarted));
        perRequest[name].push((busy - idleForWindow) / opts.requests);
        idleShare[name].push(idleForWindow / busy);
        window++;
        loads.push(os.loadavg()[0]!);
        process.stderr.write(
          `round ${r + 1}/${opts.rounds}, window ${window}: ${name} ${(perRequest[name].at(-1)! / 1e6).toFixed(4)} M instructions/request (idle ${((idleForWindow / busy) * 100).toFixed(2)} % of the window subtracted, ${(wallMs / 1000).toFixed(0)} s), load ${os.loadavg()[0]!.toFixed(1)}\n`,
        );
      }
    }
  } finally {
    for (const server of Object.values(servers) as Server[]) await server.stop();
  }
  const lines = [
    `Instructions per request (callgrind; V8 ${DETERMINISTIC_V8_FLAGS.join(' ')}), GET /api/v1/person?username=, windows of ${opts.requests} requests after ${opts.warmup} of warm-up, 4 in flight, ${opts.rounds} rounds in ABBA order on long-lived servers, idle instructions of an equal spell subtracted (medians)`,
  ];
  for (const name of names) {
    const v = perRequest[name];
    lines.push(
      `${(name === 'previous' ? `previous (${opts.previous})` : name).padEnd(14)} ${(median(v) / 1e6).toFixed(4)} M/request   rounds ${v.map((x) => (x / 1e6).toFixed(4)).join(' ')}   spread ${(((Math.max(...v) - Math.min(...v)) / median(v)) * 100).toFixed(2)} %   idle subtracted ${(median(idleShare[name]) * 100).toFixed(2)} %   non-2xx ${non2xx[name]}`,
    );
  }
  const ratio = (a: string, b: string, label: string, aim: number) => {
    if (!names.includes(a as Name) || !names.includes(b as Name)) return;
    // Round by round (the two servers of a round asked the same requests), then the median and the range.
    const values = perRequest[a as Name].map((x, i) => x / perRequest[b as Name][i]!);
    const verdict = Math.min(...values) >= aim ? `aim >= ${aim}: met in every round` : Math.max(...values) < aim ? `aim >= ${aim}: missed in every round` : `aim >= ${aim}: met in some rounds only`;
    lines.push(`${label.padEnd(42)} median ${median(values).toFixed(4)}   range ${Math.min(...values).toFixed(4)}–${Math.max(...values).toFixed(4)}   ${verdict}`);
    lines.push(`${''.padEnd(42)} rounds ${values.map((v) => v.toFixed(4)).join(' ')}`);
  };
  ratio('previous', 'off', 'off/previous by instructions (prev/off)', 0.98);
  ratio('off', 'on', 'on/off by instructions (off/on)', 0.85);
  ratio('off', 'sampled', 'on 10 %/off by instructions (off/10 %)', 0.85);
  lines.push(`Load average (1 min) during the windows: ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} (instruction counts do not depend on it); ${new Date().toISOString()}`, '');
  process.stdout.write(lines.join('\n'));
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
