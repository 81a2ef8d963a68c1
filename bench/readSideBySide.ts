/**
 * npx tsx bench/readSideBySide.ts --db=<lake url> --roots=<checkout>,<checkout> [--only=a,b] [--rounds=3] [--seconds=3]
 *
 * Entries of the read mix (bench/readMix.ts) against two (or more) checkouts of the server on ONE
 * lake, alternating within every round, so a busy spell of a shared machine hits every side: the
 * before/after of a change, measured side by side (the first root is the anchor; ratios are
 * later / first). One connection; medians over the rounds of each round's p50 and p95, and the
 * server's CPU time per request (the figure a loaded machine moves least). A checkout made with
 * `git archive <commit> | tar -x -C <dir>` needs node_modules linked in (`ln -s`). Prints the load
 * average at start and end. Every answer must be a 2xx: anything else is reported on stderr.
 */
import os from 'node:os';
import { createKnex } from '../src/db/knex';
import { createWorkspace } from '../src/domain/workspaces/admin';
import { intArg, measureServer, median, startServerProcess, stringArg, type Server } from './lib';
import { attachCursor, pickParameters, readMix, type Entry } from './readMix';

async function main() {
  const url = stringArg('db');
  const roots = stringArg('roots')?.split(',').filter(Boolean);
  if (!url || !roots?.length) throw new Error('usage: --db=<lake url> --roots=<checkout>[,<checkout>...]');
  const only = stringArg('only')?.split(',').filter(Boolean);
  const rounds = intArg('rounds', 3);
  const seconds = intArg('seconds', 3);
  const knex = createKnex(url);
  let entries: Entry[];
  let key: string;
  try {
    entries = readMix(await pickParameters(knex)).filter((e) => !only || only.some((o) => e.name.includes(o)));
    key = (await createWorkspace(knex, { name: `bench-side-${Date.now()}`, rateLimit: 1_000_000_000, active: true })).api_key;
  } finally {
    await knex.destroy();
  }
  const headers = (e: Entry): Record<string, string> => ({ authorization: `Bearer ${key}`, ...(e.body ? { 'content-type': 'application/json' } : {}) });
  const servers: Server[] = [];
  const results = new Map<string, { p50: number; p95: number; cpu: number; n: number }[][]>();
  const loadAtStart = os.loadavg();
  try {
    for (const root of roots) servers.push(await startServerProcess('fullStack.ts', { DATABASE_URL: url }, root));
    const send = async (e: Entry) => {
      const res = await fetch(`${servers[0]!.url}${e.path}`, { method: e.method, headers: headers(e), body: e.body ? JSON.stringify(e.body) : undefined });
      return { status: res.status, body: (await res.json()) as unknown };
    };
    for (const e of entries) if (e.followCursor) await attachCursor(e, send);
    for (let round = 0; round < rounds; round++) {
      for (const e of entries) {
        if (!results.has(e.name)) results.set(e.name, servers.map(() => []));
        for (const [i, server] of servers.entries()) {
          const r = await measureServer(server, { seconds, connections: 1, requests: [{ method: e.method, path: e.path, headers: headers(e), body: e.body ? JSON.stringify(e.body) : undefined }] });
          if (r.non2xx || r.errors) process.stderr.write(`${e.name} (${roots[i]}): ${r.non2xx} non-2xx, ${r.errors} errors\n`);
          results.get(e.name)![i]!.push({ p50: r.p50, p95: r.p95, cpu: r.cpuPerRequestMicros / 1000, n: r.total });
        }
      }
      process.stderr.write(`round ${round + 1}/${rounds} done\n`);
    }
  } finally {
    for (const server of servers) await server.stop();
  }
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
  const lines = [
    `readSideBySide: ${rounds} round(s) of ${seconds} s per entry and root, alternating, 1 connection (medians; ms; cpu = server CPU ms per request)`,
    `roots: ${roots.map((r, i) => `[${i}] ${r}`).join('  ')}; ratios [last]/[0]`,
    `Load average at the start: ${load(loadAtStart)}; at the end: ${load(os.loadavg())} (${os.cpus().length} cores); ${new Date().toISOString()}`,
    '',
  ];
  const m = (rs: { p50: number; p95: number; cpu: number }[], f: 'p50' | 'p95' | 'cpu') => median(rs.map((x) => x[f]));
  for (const [name, per] of results) {
    const cells = per.map((rs) => `${m(rs, 'p50').toFixed(1)} / ${m(rs, 'p95').toFixed(1)} cpu ${m(rs, 'cpu').toFixed(1)} (${rs.reduce((s, x) => s + x.n, 0)})`);
    const a = per[0]!;
    const b = per[per.length - 1]!;
    const ratio = per.length > 1 ? `  ratio p50 ${(m(b, 'p50') / m(a, 'p50')).toFixed(2)} p95 ${(m(b, 'p95') / m(a, 'p95')).toFixed(2)} cpu ${(m(b, 'cpu') / m(a, 'cpu')).toFixed(2)}` : '';
    lines.push(`${name.slice(0, 35).padEnd(36)}${cells.join('  |  ')}${ratio}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
