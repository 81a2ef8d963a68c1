/**
 * Schema-driven fuzzing of every operation of the bundled contract (`npm run test:fuzz`; a bounded
 * budget runs inside `npm test`). For each operation, fast-check generates valid requests from the
 * parameter and body schemas (identifiers drawn from a seeded world, see helpers/identifierPool.ts)
 * and invalid ones (one mutation of a valid request each, see requests.ts). Every response must:
 * not be a 500, have a status the operation documents, a body and headers valid against the
 * contract, the envelope and `x-request-id`, and an error `code` the contract gives for that
 * status. Invalid requests must be refused with 400, 413 or 415.
 *
 *   FUZZ_SEED=123 npm run test:fuzz          reproduce a run (the seed is printed at the start)
 *   FUZZ_RUNS=500 npm run test:fuzz          more cases per operation and kind (default 50)
 *   FUZZ_SEED=123 npm run test:fuzz -- -t getPerson    one operation
 */
import fc from 'fast-check';
import type supertest from 'supertest';
import { contractProblems } from '../helpers/contractValidator';
import { createHarness, type Harness } from '../helpers/harness';
import { identifierPool, isolatedDatabase, type IdentifierPool } from '../helpers/identifierPool';
import { fuzzOperations, invalidRequest, validRequest, type FuzzOperation, type FuzzRequest } from './requests';

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const RUNS = Number(process.env.FUZZ_RUNS ?? 50);
process.stdout.write(`fuzz: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} (set them to reproduce or scale this run)\n`);

let h: Harness;
let db: { url: string; drop(): Promise<void> };
let pool: IdentifierPool = {};
let key = '';
const started = Date.now();
const stats = new Map<string, Map<string, number>>();
let cases = 0;

beforeAll(async () => {
  // A database of its own: the seeded world must not change what other test files see.
  db = await isolatedDatabase('fuzz');
  // Windows far above the budget: the fuzzer tests the contract, not the rate limiter.
  h = await createHarness({ databaseUrl: db.url, config: { anonymousRateLimit: 100_000_000 } });
  key = (await h.workspace({ rateLimit: 100_000_000 })).key;
  const world = await identifierPool(h.knex, SEED);
  pool = world.values;
  const sizes = Object.entries(pool).map(([k, v]) => `${k}=${v.length}`).join(' ');
  process.stdout.write(`fuzz: identifier pool ${world.seededLake ? '(lake seeded) ' : '(no lake loader yet) '}${sizes || 'empty'}\n`);
});

afterAll(async () => {
  await h?.close();
  await db?.drop();
  const seconds = (Date.now() - started) / 1000;
  const lines = [...stats].map(([op, byStatus]) => `  ${op}: ${[...byStatus].map(([s, n]) => `${s}×${n}`).join(' ')}`);
  process.stdout.write(`fuzz: ${cases} cases over ${stats.size} operations in ${seconds.toFixed(1)} s (FUZZ_SEED=${SEED}, FUZZ_RUNS=${RUNS})\n${lines.join('\n')}\n`);
});

/** The error codes the contract's examples give for each documented status of an operation. */
function documentedCodes(op: FuzzOperation, status: number): Set<string> | undefined {
  const response = op.responses[String(status)];
  const examples = response?.content?.['application/json']?.examples;
  if (!examples) return undefined;
  const codes = Object.values(examples).map((e) => e.value?.code).filter((c): c is string => typeof c === 'string');
  return codes.length ? new Set(codes) : undefined;
}

async function exchange(op: FuzzOperation, req: FuzzRequest): Promise<string[]> {
  const url = req.path + (req.query.length ? `?${new URLSearchParams(req.query)}` : '');
  const http = h.http as unknown as Record<string, (u: string) => supertest.Test>;
  let t = http[req.method.toLowerCase()](url).set('Authorization', `Bearer ${key}`);
  if (req.contentType) t = t.set('Content-Type', req.contentType);
  if (req.body !== undefined) t = t.send(req.body);
  const res = await t;
  cases++;
  const byStatus = stats.get(op.operationId) ?? new Map<string, number>();
  stats.set(op.operationId, byStatus);
  const label = `${res.status}${req.invalid ? '!' : ''}`;
  byStatus.set(label, (byStatus.get(label) ?? 0) + 1);

  const problems = await contractProblems(req.method, req.path, { status: res.status, headers: res.headers, body: res.body });
  if (!/^application\/json/.test(String(res.headers['content-type']))) problems.push(`content-type ${res.headers['content-type']} is not JSON`);
  if (res.status === 500) problems.push('500: the server failed on this input');
  const code = (res.body as { code?: string }).code;
  const codes = documentedCodes(op, res.status);
  if (res.status >= 400 && codes && !codes.has(String(code))) problems.push(`code ${code} is not the one documented for ${res.status} (${[...codes].join(', ')})`);
  if (req.invalid && ![400, 413, 415].includes(res.status)) problems.push(`invalid request (${req.kind}) answered ${res.status}, expected 400, 413 or 415`);
  if (!problems.length) return [];
  const body = req.body === undefined ? '' : `\n  body: ${req.body.length > 500 ? `${req.body.slice(0, 500)}… (${req.body.length} chars)` : req.body}`;
  return [
    `${req.method} ${url.length > 500 ? `${url.slice(0, 500)}…` : url} [${req.kind}] content-type: ${req.contentType ?? '-'}${body}`,
    `  answered ${res.status}: ${JSON.stringify(res.body).slice(0, 600)}`,
    ...problems.map((p) => `  - ${p}`),
  ];
}

const property = (op: FuzzOperation, arb: (op: FuzzOperation, pool: IdentifierPool) => fc.Arbitrary<FuzzRequest>) =>
  fc.assert(
    fc.asyncProperty(arb(op, pool), async (req) => {
      const problems = await exchange(op, req);
      if (problems.length) throw new Error(problems.join('\n'));
    }),
    { seed: SEED, numRuns: RUNS },
  );

describe.each(fuzzOperations().map((op) => [op.operationId, op] as const))('%s', (_id, op) => {
  it('valid requests stay inside the contract', () => property(op, validRequest), 300_000);
  it('invalid requests are refused inside the contract', () => property(op, invalidRequest), 300_000);
});
