/**
 * npm run bench:overhead — requests/s of GET /api/v1/health through the full stack (Koa, request id,
 * routing, anonymous rate limit, openapi-backend validation, envelope) next to a bare node:http
 * server answering the same JSON. Rounds alternate between the two so machine noise hits both;
 * figures are medians of the rounds. Options: --rounds=5 --seconds=5 --connections=32
 */
import { intArg, measure, median, startServerProcess, type Round } from './lib';

async function main() {
  const rounds = intArg('rounds', 5);
  const seconds = intArg('seconds', 5);
  const connections = intArg('connections', 32);
  const full = await startServerProcess('fullStack.ts');
  const bare = await startServerProcess('bareHealth.ts');
  const results: Record<'full' | 'bare', Round[]> = { full: [], bare: [] };
  try {
    // Warm both (JIT, connection pools) before measuring.
    await measure(`${full.url}/api/v1/health`, { seconds: 2, connections });
    await measure(`${bare.url}/api/v1/health`, { seconds: 2, connections });
    for (let i = 0; i < rounds; i++) {
      results.full.push(await measure(`${full.url}/api/v1/health`, { seconds, connections }));
      results.bare.push(await measure(`${bare.url}/api/v1/health`, { seconds, connections }));
      process.stderr.write(`round ${i + 1}/${rounds} done\n`);
    }
  } finally {
    await full.stop();
    await bare.stop();
  }
  const row = (name: string, r: Round[]) =>
    `${name.padEnd(28)} ${median(r.map((x) => x.requestsPerSecond)).toFixed(0).padStart(8)} req/s   p50 ${median(r.map((x) => x.p50)).toFixed(1)} ms   p99 ${median(r.map((x) => x.p99)).toFixed(1)} ms   non-2xx ${r.reduce((s, x) => s + x.non2xx, 0)}`;
  const ratio = median(results.full.map((x) => x.requestsPerSecond)) / median(results.bare.map((x) => x.requestsPerSecond));
  process.stdout.write(
    [
      `GET /api/v1/health, ${connections} connections, ${rounds} alternating rounds of ${seconds}s (medians)`,
      row('full stack (Koa+openapi)', results.full),
      row('bare node:http', results.bare),
      `ratio full/bare: ${ratio.toFixed(3)}`,
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
