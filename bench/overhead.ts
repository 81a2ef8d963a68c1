/**
 * npm run bench:overhead — GET /api/v1/health through the full stack (Koa, request id, routing,
 * anonymous rate limit, contract validation, envelope, metrics) next to a bare node:http server
 * answering the same JSON (bench/servers/bareHealth.ts). Rounds alternate between the servers, the
 * order reversed every other round; figures are medians of the rounds, the ratios one per round
 * (each from that round's figures) with their median; CPU per answered request is the server
 * process's user + system time over the round. Prints the load average at the start and the end.
 * Options: --rounds=5 --seconds=5 --connections=32, and --base=<another checkout's directory>: its
 * full stack runs in the same rounds as `full before` (before/after in one run).
 */
import { idleCpuMicrosPerSecond, intArg, measure, measureServer, median, startServerProcess, stringArg, type Round, type Server, loadAverageLine, loadAverages } from './lib';

type Measured = Round & { cpuPerRequestMicros: number; netCpuPerRequestMicros: number };

async function main() {
  const rounds = intArg('rounds', 5);
  const seconds = intArg('seconds', 5);
  const connections = intArg('connections', 32);
  const base = stringArg('base');
  const loadAtStart = loadAverages();
  const servers: Record<string, Server> = {
    full: await startServerProcess('fullStack.ts'),
    bare: await startServerProcess('bareHealth.ts'),
    ...(base ? { before: await startServerProcess('fullStack.ts', {}, base) } : {}),
  };
  const names = Object.keys(servers);
  const results: Record<string, Measured[]> = Object.fromEntries(names.map((n) => [n, []]));
  let idleLine = '';
  const opts = (server: Server) => ({ url: `${server.url}/api/v1/health`, seconds, connections });
  try {
    // Warm every server (JIT, pools) before measuring.
    for (const server of Object.values(servers)) await measure(`${server.url}/api/v1/health`, { seconds: 2, connections });
    const idle: Record<string, number> = {};
    for (const name of names) idle[name] = await idleCpuMicrosPerSecond(servers[name]!);
    idleLine = names.map((n) => `${n} ${(idle[n]! / 1000).toFixed(1)} ms/s`).join(', ');
    for (let i = 0; i < rounds; i++) {
      const order = i % 2 ? [...names].reverse() : names;
      for (const name of order) {
        const server = servers[name]!;
        results[name]!.push(await measureServer({ ...server, url: opts(server).url }, { seconds, connections }, idle[name]));
      }
      process.stderr.write(`round ${i + 1}/${rounds} done (${order.join(', ')})\n`);
    }
  } finally {
    for (const server of Object.values(servers)) await server.stop();
  }
  const med = (r: Measured[], f: (x: Measured) => number) => median(r.map(f));
  const row = (name: string, r: Measured[]) =>
    `${name.padEnd(30)} ${med(r, (x) => x.requestsPerSecond).toFixed(0).padStart(8)} req/s   p50 ${med(r, (x) => x.p50).toFixed(1)} ms   p99 ${med(r, (x) => x.p99).toFixed(1)} ms   CPU ${med(r, (x) => x.cpuPerRequestMicros).toFixed(0)} µs/req (net of idle ${med(r, (x) => x.netCpuPerRequestMicros).toFixed(0)})   non-2xx ${r.reduce((s, x) => s + x.non2xx, 0)}`;
  const ratios = (a: Measured[], b: Measured[], f: (x: Measured) => number) => a.map((x, i) => f(x) / Math.max(f(b[i]!), 0.001));
  const ratioLine = (label: string, values: number[], aim: string) =>
    `${label.padEnd(34)} median ${median(values).toFixed(3)}   rounds ${values.map((v) => v.toFixed(3)).join(' ')}   (${aim})`;
  const rps = (x: Measured) => x.requestsPerSecond;
  const cpu = (x: Measured) => x.cpuPerRequestMicros;
  const { full, bare, before } = results as Record<'full' | 'bare', Measured[]> & { before?: Measured[] };
  process.stdout.write(
    [
      `GET /api/v1/health, ${connections} connections, ${rounds} alternating rounds of ${seconds}s (medians)`,
      row('full stack (Koa+openapi)', full),
      ...(before ? [row(`full stack before (${base})`, before)] : []),
      row('bare node:http', bare),
      ratioLine('full/bare requests/s', ratios(full, bare, rps), 'aim >= 0.8 (issue 35)'),
      ratioLine('full/bare CPU per request', ratios(full, bare, cpu), 'the steadier figure on a busy machine'),
      ratioLine('full/bare CPU, net of idle', ratios(full, bare, (x) => x.netCpuPerRequestMicros), 'background loops taken out'),
      ...(before
        ? [
            ratioLine('before/bare requests/s', ratios(before, bare, rps), 'the same, before'),
            ratioLine('before/bare CPU per request', ratios(before, bare, cpu), 'the same, before'),
            ratioLine('full/before CPU per request', ratios(full, before, cpu), 'the change'),
          ]
        : []),
      `CPU while idle (background loops): ${idleLine}`,
      loadAverageLine(loadAtStart),
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
