/**
 * `npm run mock` for client teams: Prism's mock of the bundled contract. Every operation is called
 * through the mock once per documented status, asking for each of its named examples
 * (`Prefer: code=..., example=...`); every answer must be exactly the named example and inside the
 * contract (envelope, `x-request-id`, rate-limit headers). A mock cannot tie `x-request-id` to
 * `metadata.request_id` (both come from separate examples), so that one check is left out here.
 */
import { loadDefinition, API_ROOT } from '../../src/http/contract';
import { contractProblems } from '../helpers/contractValidator';
import { startPrism, type PrismProcess } from '../helpers/prism';

interface Param { name: string; in: string; required?: boolean; example?: unknown; $ref?: string }
interface Media { examples?: Record<string, { value?: unknown; $ref?: string }> }
interface Op {
  operationId: string;
  parameters?: Param[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { $ref?: string; content?: Record<string, Media> }>;
}
type Doc = { paths: Record<string, Record<string, Op>>; components: Record<string, Record<string, unknown>> };

const doc = loadDefinition() as unknown as Doc;
const deref = <T>(v: T & { $ref?: string }): T => {
  if (!v.$ref) return v;
  const [, , kind, name] = v.$ref.split('/');
  return deref(doc.components[kind][name] as T & { $ref?: string });
};

interface Case { operationId: string; method: string; url: string; body?: unknown; bodyType?: string; status: string; example?: string; expected?: unknown }

function cases(): Case[] {
  const out: Case[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const params = (op.parameters ?? []).map((p) => deref(p));
      let path = template;
      const query = new URLSearchParams();
      for (const p of params) {
        if (p.example === undefined) continue;
        if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(String(p.example)));
        else if (p.in === 'query') query.set(p.name, String(p.example));
      }
      // A JSON body, or the first example of another media type (a list job's CSV upload).
      const bodyType = op.requestBody ? (op.requestBody.content['application/json'] ? 'application/json' : Object.keys(op.requestBody.content)[0]) : undefined;
      const bodyExamples = bodyType ? op.requestBody!.content[bodyType]!.examples : undefined;
      const body = bodyExamples ? deref(Object.values(bodyExamples)[0]).value : undefined;
      const url = API_ROOT + path + (query.size ? `?${query}` : '');
      for (const [status, rawResponse] of Object.entries(op.responses)) {
        const examples = deref(rawResponse).content?.['application/json']?.examples ?? {};
        const names = Object.keys(examples);
        if (!names.length) out.push({ operationId: op.operationId, method: method.toUpperCase(), url, body, bodyType, status });
        for (const name of names) {
          out.push({ operationId: op.operationId, method: method.toUpperCase(), url, body, bodyType, status, example: name, expected: deref(examples[name]).value });
        }
      }
    }
  }
  return out;
}

let prism: PrismProcess;
beforeAll(async () => {
  prism = await startPrism({ mode: 'mock' });
}, 90_000);
afterAll(() => prism?.stop());

const all = cases();

describe('Prism mock of the bundled contract', () => {
  it('covers every operation with at least one named example', () => {
    const ops = new Set(Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId)));
    const withExamples = new Set(all.filter((c) => c.example).map((c) => c.operationId));
    expect([...ops].filter((id) => !withExamples.has(id))).toEqual([]);
  });

  it.each(all.map((c) => [`${c.operationId} ${c.status} ${c.example ?? '(generated)'}`, c] as const))('%s', async (_name, c) => {
    const headers: Record<string, string> = {
      Authorization: 'Bearer ik_live_3kT9qZr4mW8xYb2NcV7pLs0dHf6JgA1e',
      Prefer: c.example ? `code=${c.status}, example=${c.example}` : `code=${c.status}`,
    };
    if (c.body !== undefined) headers['Content-Type'] = c.bodyType!;
    const sent = c.body === undefined ? undefined : typeof c.body === 'string' && c.bodyType !== 'application/json' ? c.body : JSON.stringify(c.body);
    const res = await fetch(prism.url + c.url, { method: c.method, headers, body: sent });
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    expect({ status: res.status, body: res.status === Number(c.status) ? 'ok' : body }).toEqual({ status: Number(c.status), body: 'ok' });
    if (c.example) expect(body).toEqual(c.expected);
    const problems = (
      await contractProblems(c.method, new URL(c.url, 'http://x').pathname, { status: res.status, headers: Object.fromEntries(res.headers), body })
    ).filter((p) => p !== 'metadata.request_id differs from x-request-id');
    expect(problems).toEqual([]);
  });
});
