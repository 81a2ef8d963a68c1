/** Self time of a V8 .cpuprofile summed by package (or project file) and by function, in percent of samples. */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  children?: number[];
  callFrame: { functionName: string; url: string; lineNumber: number };
}

/** `skipMs`: samples of the first milliseconds (start-up, compilation) are left out. */
export function summarizeCpuProfile(file: string, top = 40, skipMs = 0): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parents = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parents.set(c, n.id);
  // Inclusive time by project file: a sample counts once for every file of ours on its stack.
  const inclusive = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const byPlace = new Map<string, number>();
  const byComponent = new Map<string, number>();
  const add = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  let at = 0;
  let total = 0;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] / 1000;
    if (at < skipMs) return;
    total++;
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
      const u = nodes.get(at)!.callFrame.url.replace(/^file:\/\/.*?\/(src|bench)\//, '$1/');
      if (u.startsWith('src/') && !seen.has(u)) {
        seen.add(u);
        add(inclusive, u);
      }
    }
    const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
    const where = url.replace(/^.*node_modules\//, 'npm:').replace(/^file:\/\/.*?\/(src|bench)\//, '$1/');
    add(byFunction, `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`);
    const pkg = where.startsWith('npm:') ? where.split('/').slice(0, where.startsWith('npm:@') ? 2 : 1).join('/') : where || functionName;
    add(byPlace, pkg);
    add(byComponent, componentOf(functionName, where));
  });
  const list = (m: Map<string, number>) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, n]) => `${((100 * n) / total).toFixed(1).padStart(5)}%  ${k}`).join('\n');
  // The same samples by component, in percent of the busy ones (idle left out): the shares to put
  // next to another server's profile of the same request (bench:profile --server=...).
  const busy = total - (byComponent.get('(idle)') ?? 0);
  const components = [...byComponent]
    .filter(([k]) => k !== '(idle)')
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${((100 * n) / Math.max(busy, 1)).toFixed(1).padStart(5)}%  ${k}`)
    .join('\n');
  return `${total} samples (${busy} busy)\n-- self time by component, in % of the busy samples --\n${components}\n-- self time by package / file --\n${list(byPlace)}\n-- self time by function --\n${list(byFunction)}\n-- total time (self and callees) by project file --\n${list(inclusive)}\n`;
}

/** The component a frame belongs to, for comparing two servers' profiles of the same request. */
function componentOf(functionName: string, where: string): string {
  if (functionName === '(idle)') return '(idle)';
  if (functionName === 'writev' || functionName === 'writeBuffer') return 'socket writes (writev/writeBuffer)';
  if (functionName === '(garbage collector)') return 'garbage collector';
  if (/^npm:(pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+|packet-reader|buffer-writer)\//.test(where)) return 'pg driver';
  if (/^npm:(knex|tarn)\//.test(where) || where.startsWith('src/db/')) return 'knex/tarn + src/db';
  if (/^npm:(koa|koa-compose|delegates|parseurl|statuses|on-finished|ee-first|only|accepts|content-type|type-is|mime-types|vary|encodeurl|escape-html|http-errors|depd|cookies|keygrip|destroy|fresh)\//.test(where)) return 'Koa';
  if (/^npm:(fastify|@fastify\/[^/]+|find-my-way|avvio|fast-querystring|fast-json-stringify|light-my-request|abstract-logging|toad-cache|rfdc|safe-regex2|ret|process-warning)\//.test(where)) return 'Fastify';
  if (/^npm:(ajv|ajv-formats|openapi-backend)\//.test(where) || /^validate\d*$/.test(functionName)) return 'contract validation (Ajv)';
  if (where.startsWith('npm:prom-client/') || where.startsWith('src/observability/')) return 'metrics, tracing';
  if (where.startsWith('node:internal/crypto/')) return 'crypto (digests, random)';
  if (where.startsWith('src/http/')) return 'src/http (edge, pipeline, handlers)';
  if (where.startsWith('src/domain/')) return 'src/domain (auth, rate limits, lookup)';
  if (where.startsWith('src/jobs/')) return 'src/jobs (background loops)';
  if (where.startsWith('src/') || where.startsWith('bench/')) return 'other service or bench code';
  if (where.startsWith('node:') || functionName === 'runMicrotasks' || functionName === '(program)') return 'Node core (http, streams, events, timers, microtasks)';
  return 'other';
}
