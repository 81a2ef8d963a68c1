/**
 * The statement spans (src/observability/pgSpans.ts) on a real PostgreSQL, in this process: a trace
 * provider with an in-memory exporter, the wrapper installed on pg.Client, and the three ways the
 * service calls pg (a callback as knex does, a Query object carrying its callback as db/knex.ts
 * `prepared` does, a promise), plus a failing statement and a statement outside any trace.
 * (The spans of a whole request, exported over OTLP by `enrich serve`, are in tracing.test.ts.)
 */
import * as api from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import pg from 'pg';
import { instrumentPg } from '../../../src/observability/pgSpans';
import { testDatabaseUrl } from '../../helpers/harness';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('test');
// The suite's database (this file only reads): its name is in every statement span's name.
let db: { url: string; name: string };
let client: pg.Client;
let uninstall: () => void;

beforeAll(async () => {
  // The SDK's context manager for Node (AsyncLocalStorage), as otel.ts registers it.
  provider.register();
  uninstall = instrumentPg(api, provider.getTracer('enrich/pg'));
  const url = testDatabaseUrl();
  db = { url, name: new URL(url).pathname.slice(1) };
  client = new pg.Client({ connectionString: db.url, statement_timeout: 10_000, connectionTimeoutMillis: 10_000 });
  await client.connect();
}, 60_000);

afterAll(async () => {
  await client?.end();
  uninstall?.();
  await provider.shutdown();
  api.context.disable();
  api.trace.disable();
});

beforeEach(() => exporter.reset());

/** Runs fn inside a recording parent span and returns the parent and the statement spans made. */
async function inTrace(fn: () => Promise<unknown>): Promise<{ parent: ReadableSpan; statements: ReadableSpan[] }> {
  const parent = tracer.startSpan('request');
  await api.context.with(api.trace.setSpan(api.ROOT_CONTEXT, parent), fn).finally(() => parent.end());
  const spans = exporter.getFinishedSpans();
  return { parent: spans.find((s) => s.name === 'request')!, statements: spans.filter((s) => s.instrumentationScope.name === 'enrich/pg') };
}

const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

describe('statement spans (pgSpans.ts)', () => {
  it('a promise query: one client span under the request, its text without the values', async () => {
    const { parent, statements } = await inTrace(() => client.query(`select $1::text as who, 'x' as k`, ['jane-secret-4711']));
    expect(statements).toHaveLength(1);
    const [s] = statements;
    expect(s!.name).toBe(`pg.query:SELECT ${db.name}`);
    expect(s!.kind).toBe(api.SpanKind.CLIENT);
    expect(parentOf(s!)).toBe(parent.spanContext().spanId);
    expect(s!.attributes).toMatchObject({ 'db.system.name': 'postgresql', 'db.namespace': db.name, 'db.operation.name': 'SELECT', 'db.query.text': 'select $1::text as who, ? as k' });
    expect(JSON.stringify(s!.attributes)).not.toContain('jane-secret-4711');
    expect(s!.status.code).toBe(api.SpanStatusCode.UNSET);
  });

  it('a callback query (as knex calls pg): ended when pg answers, the callback gets the rows', async () => {
    let rows: unknown[] = [];
    const { parent, statements } = await inTrace(
      () =>
        new Promise<void>((resolve, reject) =>
          client.query('select 1 as one', (err: Error | null, result: pg.QueryResult) => (err ? reject(err) : ((rows = result.rows), resolve()))),
        ),
    );
    expect(rows).toEqual([{ one: 1 }]);
    expect(statements.map((s) => [s.name, parentOf(s)])).toEqual([[`pg.query:SELECT ${db.name}`, parent.spanContext().spanId]]);
  });

  it('a named Query object carrying its callback (db/knex.ts prepared): named by the statement', async () => {
    const Query = (pg as unknown as { Query: new (text: string, values: unknown[], cb: (err: unknown, r: pg.QueryResult) => void) => { name?: string } }).Query;
    let rows: unknown[] = [];
    const { statements } = await inTrace(
      () =>
        new Promise<void>((resolve, reject) => {
          const q = new Query('select $1::int + 1 as n', [41], (err, r) => (err ? reject(err) : ((rows = r.rows), resolve())));
          q.name = 'pgspans_add_one';
          client.query(q as never);
        }),
    );
    expect(rows).toEqual([{ n: 42 }]);
    expect(statements).toHaveLength(1);
    expect(statements[0]!.name).toBe(`pg.query:pgspans_add_one ${db.name}`);
    expect(statements[0]!.attributes).toMatchObject({ 'db.postgresql.plan': 'pgspans_add_one', 'db.query.text': 'select $1::int + 1 as n' });
  });

  it('a failing statement: status ERROR with its SQLSTATE, no message (it can quote a value)', async () => {
    const { statements } = await inTrace(() => client.query(`select 'jane-secret-4711'::int`).catch(() => undefined));
    expect(statements).toHaveLength(1);
    expect(statements[0]!.status).toEqual({ code: api.SpanStatusCode.ERROR });
    expect(statements[0]!.attributes['error.type']).toBe('22P02');
    const { attributes, events, status, name } = statements[0]!;
    expect(JSON.stringify({ attributes, events, status, name })).not.toContain('jane-secret-4711');
  });

  it('outside a trace: no span at all (the workers poll without making root spans)', async () => {
    await client.query('select 1');
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });
});
