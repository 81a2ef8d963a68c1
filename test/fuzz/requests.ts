/**
 * Request generators for every operation of the bundled contract: valid requests built from the
 * parameter and body schemas, and invalid ones (wrong types, missing required parameters,
 * out-of-range numbers, oversized arrays, unknown fields, malformed JSON, wrong content types,
 * huge strings). Everything is derived from the document; nothing here names an operation.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { API_ROOT, loadExpandedDefinition } from '../../src/http/contract';
import type { IdentifierPool } from '../helpers/identifierPool';
import { codePoints, schemaArbitrary, type Schema } from './schemaArbitrary';

export interface Param {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required?: boolean;
  schema: Schema;
}

export interface FuzzOperation {
  operationId: string;
  method: string;
  template: string;
  tag: string;
  params: Param[];
  body?: { schema: Schema; required: boolean };
  responses: Record<string, { content?: Record<string, { schema?: Schema; examples?: Record<string, { value?: { code?: string } }> }> }>;
}

export interface FuzzRequest {
  /** `valid`, or the name of the mutation that makes the request invalid. */
  kind: string;
  /** True when the contract says the request must be refused (a 4xx from the checks). */
  invalid: boolean;
  method: string;
  path: string;
  query: [string, string][];
  contentType?: string;
  /** Raw body text as sent. */
  body?: string;
}

export function fuzzOperations(): FuzzOperation[] {
  const doc = loadExpandedDefinition() as unknown as {
    paths: Record<string, Record<string, { operationId: string; tags?: string[]; parameters?: Param[]; requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> }; responses: FuzzOperation['responses'] }>>;
  };
  const ops: FuzzOperation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!op.operationId) continue;
      const json = op.requestBody?.content['application/json'];
      ops.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        template,
        tag: op.tags?.[0] ?? '',
        params: (op.parameters ?? []).filter((p) => p.in === 'query' || p.in === 'path'),
        body: json ? { schema: json.schema, required: Boolean(op.requestBody?.required) } : undefined,
        responses: op.responses,
      });
    }
  }
  return ops;
}

const ajv = new Ajv2020({ strict: false, allErrors: false, coerceTypes: true });
addFormats(ajv);
const validates = (schema: Schema, value: unknown): boolean => ajv.validate(schema, value) as boolean;
/** Bodies are JSON and never coerced: checks of body values use a validator without coercion. */
const strict = new Ajv2020({ strict: false, allErrors: false });
addFormats(strict);

/**
 * Which pool key feeds a parameter or body field of an operation: company operations read company
 * identifiers, monitor operations monitor ids (and subject URLs of people and companies), anything
 * else person identifiers. Employer and previous/past company filters always name companies.
 */
function poolKeys(op: FuzzOperation, name: string): string[] {
  const company = /compan/i.test(op.operationId) || op.tag === 'Companies';
  const monitor = /monitor/i.test(op.operationId);
  if (name === 'school') return ['school'];
  if (/(^|_)company_id$/.test(name)) return ['company.company_id'];
  if (/company$/.test(name)) return ['company.name'];
  if (name === 'ids') return ['person.id'];
  if (monitor && name === 'id') return ['monitor.id'];
  if (monitor && name === 'subject_url') return ['person.network_url', 'company.network_url'];
  if (['id', 'username', 'network_url'].includes(name)) return [`${company ? 'company' : 'person'}.${name}`];
  if (name === 'name' && company) return ['company.name'];
  return [];
}

function hinter(op: FuzzOperation, pool: IdentifierPool) {
  return (name: string, schema: Schema): fc.Arbitrary<unknown> | undefined => {
    const itemSchema = schema.type === 'array' && schema.items ? schema.items : schema;
    const values = poolKeys(op, name)
      .flatMap((k) => pool[k] ?? [])
      .filter((v) => validates(itemSchema, v));
    if (!values.length) return undefined;
    const one = fc.constantFrom(...values);
    if (itemSchema === schema) return one;
    return fc.uniqueArray(one, { minLength: Math.max(1, schema.minItems ?? 0), maxLength: Math.min(schema.maxItems ?? 5, 5) });
  };
}

const asQueryValue = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

interface Parts {
  pathParams: Record<string, string>;
  query: [string, string][];
  body: unknown;
  hasBody: boolean;
}

function buildPath(op: FuzzOperation, pathParams: Record<string, string>): string {
  return API_ROOT + op.template.replace(/\{([^}]+)\}/g, (_m, n: string) => encodeURIComponent(pathParams[n] ?? ''));
}

function validParts(op: FuzzOperation, pool: IdentifierPool): fc.Arbitrary<Parts> {
  const hint = hinter(op, pool);
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const pathArb = fc.record(Object.fromEntries(pathParams.map((p) => [p.name, schemaArbitrary(p.schema, { hint }, p.name).map(asQueryValue)])));
  const queryArb = fc.record(
    Object.fromEntries(queryParams.map((p) => [p.name, schemaArbitrary(p.schema, { hint }, p.name).map(asQueryValue)])),
    { requiredKeys: queryParams.filter((p) => p.required).map((p) => p.name) },
  );
  const bodyArb: fc.Arbitrary<{ body: unknown; hasBody: boolean }> = op.body
    ? schemaArbitrary(op.body.schema, { hint }).map((body) => ({ body, hasBody: true }))
    : fc.constant({ body: undefined, hasBody: false });
  return fc.record({ pathParams: pathArb, query: queryArb, b: bodyArb }).map(({ pathParams: pp, query, b }) => ({
    pathParams: pp as Record<string, string>,
    query: Object.entries(query as Record<string, string>),
    body: b.body,
    hasBody: b.hasBody,
  }));
}

/** How fast-check prints a request in a failure report: short, whatever the size of the request. */
function describe(this: FuzzRequest): string {
  const clip = (s: string) => (s.length > 300 ? `${s.slice(0, 300)}… (${s.length} chars)` : s);
  const query = this.query.length ? `?${clip(new URLSearchParams(this.query).toString())}` : '';
  return `${this.method} ${this.path}${query} [${this.kind}]${this.body === undefined ? '' : ` ${this.contentType}: ${clip(this.body)}`}`;
}

function withDescription(req: FuzzRequest): FuzzRequest {
  return Object.defineProperty(req, fc.toStringMethod, { value: describe, enumerable: false });
}

function toRequest(op: FuzzOperation, parts: Parts, kind = 'valid', invalid = false): FuzzRequest {
  return withDescription({
    kind,
    invalid,
    method: op.method,
    path: buildPath(op, parts.pathParams),
    query: parts.query,
    contentType: parts.hasBody ? 'application/json' : undefined,
    body: parts.hasBody ? JSON.stringify(parts.body) : undefined,
  });
}

export function validRequest(op: FuzzOperation, pool: IdentifierPool): fc.Arbitrary<FuzzRequest> {
  return validParts(op, pool).map((parts) => toRequest(op, parts));
}

/** A string that breaks the schema of a parameter value, when one can be named. */
function invalidValue(schema: Schema): fc.Arbitrary<{ why: string; value: string }> | undefined {
  const options: fc.Arbitrary<{ why: string; value: string }>[] = [];
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('integer') || types.includes('number')) {
    options.push(fc.constantFrom('abc', '1.5e', 'NaN', '', '0x10', '[]').map((value) => ({ why: 'wrong-type', value })));
    if (types.includes('integer')) options.push(fc.constantFrom('1.5', '2.25').map((value) => ({ why: 'wrong-type', value })));
    if (schema.maximum !== undefined) options.push(fc.integer({ min: schema.maximum + 1, max: schema.maximum + 1_000_000 }).map((n) => ({ why: 'out-of-range', value: String(n) })));
    if (schema.minimum !== undefined) options.push(fc.integer({ min: schema.minimum - 1_000_000, max: schema.minimum - 1 }).map((n) => ({ why: 'out-of-range', value: String(n) })));
  }
  if (types.includes('string') && !types.includes('null')) {
    if (schema.format === 'uuid') options.push(fc.constantFrom('not-a-uuid', '3f6c2a9e-8b1d-4c7a-9e52', '3f6c2a9e8b1d4c7a9e521d0b7a4c6e21x').map((value) => ({ why: 'wrong-format', value })));
    if (schema.pattern) options.push(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map((value) => ({ why: 'pattern', value })));
    if (schema.enum) options.push(fc.string({ minLength: 1, maxLength: 12 }).map((value) => ({ why: 'not-in-enum', value })));
    if ((schema.minLength ?? 0) >= 1) options.push(fc.constant({ why: 'empty-string', value: '' }));
    if (schema.maxLength !== undefined) {
      // Huge strings: past maxLength, and up to 8,000 characters (a URL far longer than that is cut by
      // Node's own 16 KiB header limit before the application sees it).
      // Multi-byte characters only where the encoded URL stays under that limit (9 bytes, 27 URL
      // characters, per three code points).
      const max = schema.maxLength;
      options.push(fc.integer({ min: max + 1, max: Math.max(max + 1, 8000) }).map((n) => ({ why: 'huge-string', value: 'x'.repeat(n) })));
      if ((max + 1) * 9 < 12_000) {
        options.push(fc.integer({ min: max + 1, max: Math.floor(12_000 / 9) }).map((n) => ({ why: 'huge-string', value: 'ж€😀'.repeat(Math.ceil(n / 3)) })));
      }
    }
  }
  if (!options.length) return undefined;
  return fc.oneof(...options).filter(({ value }) => !validates(schema, value));
}

/** Applies one mutation to a valid request; the mutation is chosen among those that apply. */
export function invalidRequest(op: FuzzOperation, pool: IdentifierPool): fc.Arbitrary<FuzzRequest> {
  const mutations: fc.Arbitrary<(p: Parts) => FuzzRequest>[] = [];
  const queryParams = op.params.filter((p) => p.in === 'query');

  // Unknown query parameters are refused (400), so a misspelt filter never widens a result.
  mutations.push(
    fc.constantFrom('unknown_param', 'pgae', 'perpage', 'x').map((name) => (p: Parts) => toRequest(op, { ...p, query: [...p.query, [name, '1']] }, 'unknown-query-param', true)),
  );
  for (const param of queryParams) {
    if (param.required) {
      mutations.push(fc.constant((p: Parts) => toRequest(op, { ...p, query: p.query.filter(([k]) => k !== param.name) }, `missing-required:${param.name}`, true)));
    }
    const bad = invalidValue(param.schema);
    if (bad) {
      mutations.push(
        bad.map(({ why, value }) => (p: Parts) => toRequest(op, { ...p, query: [...p.query.filter(([k]) => k !== param.name), [param.name, value]] }, `${why}:${param.name}`, true)),
      );
    }
  }
  for (const param of op.params.filter((p) => p.in === 'path')) {
    const bad = invalidValue(param.schema);
    if (bad) {
      mutations.push(bad.filter(({ value }) => value !== '' && codePoints(value) < 2000).map(({ why, value }) => (p: Parts) => toRequest(op, { ...p, pathParams: { ...p.pathParams, [param.name]: value } }, `${why}:${param.name}`, true)));
    }
  }

  if (op.body) {
    const schema = op.body.schema;
    const withBody = (p: Parts, kind: string, body: string, contentType = 'application/json'): FuzzRequest =>
      withDescription({ ...toRequest(op, p, kind, true), body, contentType });
    mutations.push(
      fc.constantFrom('{', '{"a":', '[1,2', 'nul', '{"x":1}}', "{'single':1}", '{"a":1,}', '\u0000').map((text) => (p: Parts) => withBody(p, 'malformed-json', text)),
      fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x').map(
        (type) => (p: Parts) => withBody(p, `wrong-content-type:${type}`, JSON.stringify(p.body), type),
      ),
      fc.constantFrom('[]', '"text"', '42', 'null', 'true').map((text) => (p: Parts) => withBody(p, 'wrong-type:body', text)),
    );
    if (op.body.required) mutations.push(fc.constant((p: Parts) => withBody(p, 'empty-body', '')));
    if (schema.additionalProperties === false) {
      mutations.push(fc.constantFrom('unknown_field', 'Query', 'perPage', '__proto__').map((name) => (p: Parts) => withBody(p, 'unknown-field', JSON.stringify({ ...(p.body as object), [name]: 1 }))));
    }
    for (const name of schema.required ?? []) {
      mutations.push(fc.constant((p: Parts) => {
        const { [name]: _dropped, ...rest } = p.body as Record<string, unknown>;
        return withBody(p, `missing-required:${name}`, JSON.stringify(rest));
      }));
    }
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      const arrays = [prop, ...(prop.oneOf ?? []), ...(prop.anyOf ?? [])].filter((s) => s.type === 'array' && s.maxItems !== undefined);
      for (const arr of arrays) {
        // Oversized arrays: maxItems + 1 (the boundary) up to a few thousand items.
        mutations.push(
          fc.integer({ min: arr.maxItems! + 1, max: Math.max(arr.maxItems! + 1, 5000) }).map((n) => (p: Parts) => {
            const items = fc.sample(schemaArbitrary(arr.items ?? {}, {}), { numRuns: 1, seed: n })[0];
            return withBody(p, `oversized-array:${name}`, JSON.stringify({ ...(p.body as object), [name]: Array.from({ length: n }, () => items) }));
          }),
        );
      }
      const bad = invalidValue(prop.type === 'integer' || prop.type === 'number' || prop.type === 'string' ? prop : {});
      if (bad) {
        mutations.push(bad.map(({ why, value }) => (p: Parts) => {
          // Numbers past a bound are sent as JSON numbers; every other bad value as the string it is.
          const typed = why === 'out-of-range' ? Number(value) : value;
          return withBody(p, `${why}:${name}`, JSON.stringify({ ...(p.body as object), [name]: typed }));
        }));
      }
      // Type confusion: JSON bodies are not coerced, so "5" is no integer and 5 no string.
      const wrong = [{ nested: true }, [[1]], true, 5, 2.5, '5', null].filter((v) => !strict.validate(prop, v));
      if (wrong.length) {
        mutations.push(fc.constantFrom<unknown>(...wrong).map((value) => (p: Parts) => withBody(p, `wrong-type:${name}`, JSON.stringify({ ...(p.body as object), [name]: value }))));
      }
    }
    // Over the 1 MiB body limit: 413.
    mutations.push(fc.constant((p: Parts) => withBody(p, 'too-large', JSON.stringify({ ...(p.body as object), padding: 'x'.repeat(1_100_000) }))));
  }

  return fc.tuple(validParts(op, pool), fc.oneof(...mutations)).map(([parts, mutate]) => mutate(parts));
}
