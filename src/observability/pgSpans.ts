/**
 * A client span for each SQL statement run inside a trace: the service's own, lean replacement for
 * @opentelemetry/instrumentation-pg (loaded only by otel.ts, so never without tracing).
 *
 * Why not the instrumentation: in bench:tracing-pipeline it was the largest single share of what a
 * traced lookup costs (about 30 % of it: without it the traced request cost 38 µs less, of 125 µs,
 * under that run's load). Per statement it copies the query object, builds three attribute objects,
 * parses the command, wraps and context-binds the callback, and records a duration histogram (into
 * a no-op meter here: the service's metrics are Prometheus). What a trace needs of a statement is
 * one span with its text, which this is: the same span name (`pg.query:<COMMAND> <database>`, or
 * the prepared statement's name), kind and standard attributes, the statement text with its `$1`
 * parameters (never its values), and an error's SQLSTATE (never its message), ended when pg
 * answers. Only inside a recording trace (as `requireParentSpan`): the workers' polling makes no
 * root spans, and an unsampled request pays one comparison.
 *
 * It wraps `pg.Client.prototype.query` once; every connection of the service (knex's pool and the
 * listeners) is a pg.Client. The three shapes pg accepts are covered: a callback as last argument
 * (knex), a Query object carrying its callback (db/knex.ts `prepared`), and a returned promise.
 */
import type { Attributes, Span, Tracer } from '@opentelemetry/api';
import { stripSqlLiterals } from './spanScrub';

type Api = typeof import('@opentelemetry/api');
type Callback = (err: unknown, result: unknown) => void;
interface PgClientLike {
  database?: string;
  connectionParameters?: { host?: string; port?: number; database?: string };
}

export const PG_SCOPE = 'enrich/pg';

export function instrumentPg(api: Api, tracer: Tracer = api.trace.getTracer(PG_SCOPE)): () => void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pg = require('pg') as { Client: { prototype: { query: (...args: unknown[]) => unknown } } };
  const proto = pg.Client.prototype;
  const original = proto.query;
  const { SpanKind, SpanStatusCode, context, trace } = api;

  function end(span: Span, err: unknown): void {
    if (err) {
      // The SQLSTATE (or the error's type), never the message: it can quote a duplicate key's value.
      const code = typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : err instanceof Error ? err.name : 'error';
      span.setAttribute('error.type', code);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  }

  proto.query = function tracedQuery(this: PgClientLike, ...args: unknown[]): unknown {
    const parent = trace.getSpan(context.active());
    if (!parent || !parent.isRecording()) return original.apply(this, args);
    const config = args[0] as { text?: unknown; name?: unknown; callback?: Callback } | string | undefined;
    const text = typeof config === 'string' ? config : config?.text;
    if (typeof text !== 'string') return original.apply(this, args);
    const planName = typeof config === 'object' && typeof config.name === 'string' && config.name ? config.name : undefined;
    const params = this.connectionParameters ?? {};
    const database = params.database ?? this.database;
    const command = operationOf(text);
    // Set one by one in the order the exporter sends them (no spread of a temporary object per
    // optional attribute: a statement span is the most numerous span).
    const attributes: Attributes = { 'db.system.name': 'postgresql' };
    if (database) attributes['db.namespace'] = database;
    if (params.host) attributes['server.address'] = params.host;
    if (typeof params.port === 'number') attributes['server.port'] = params.port;
    attributes['db.operation.name'] = command;
    // Scrubbed here once per distinct text (spanScrub.ts memoises it); the scrubbing processor
    // then finds it already clean.
    attributes['db.query.text'] = stripSqlLiterals(text);
    if (planName) attributes['db.postgresql.plan'] = planName;
    const span = tracer.startSpan(`pg.query:${planName ?? command}${database ? ` ${database}` : ''}`, { kind: SpanKind.CLIENT, attributes });
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      args[args.length - 1] = function (this: unknown, err: unknown, result: unknown) {
        end(span, err);
        return (last as Callback).call(this, err, result);
      };
      return original.apply(this, args);
    }
    if (typeof config === 'object' && config !== null && typeof config.callback === 'function') {
      const callback = config.callback;
      config.callback = function (this: unknown, err: unknown, result: unknown) {
        end(span, err);
        return callback.call(this, err, result);
      };
      return original.apply(this, args);
    }
    let result: unknown;
    try {
      result = original.apply(this, args);
    } catch (err) {
      end(span, err);
      throw err;
    }
    if (result instanceof Promise) {
      return result.then(
        (value) => {
          end(span, undefined);
          return value;
        },
        (err) => {
          end(span, err);
          throw err;
        },
      );
    }
    // A submittable without a callback (a cursor, a COPY stream): ended when it ends or fails.
    const emitter = result as { once?: (event: string, listener: (err?: unknown) => void) => void } | undefined;
    if (emitter && typeof emitter.once === 'function') {
      let done = false;
      const finish = (err?: unknown) => {
        if (done) return;
        done = true;
        end(span, err);
      };
      emitter.once('end', () => finish());
      emitter.once('finish', () => finish());
      emitter.once('error', (err) => finish(err ?? new Error('query failed')));
    } else {
      end(span, undefined);
    }
    return result;
  };
  return () => {
    proto.query = original;
  };
}

/** `SELECT`, `INSERT`, `WITH`…: the statement's first word, upper-cased (what the instrumentation named spans by). */
export function operationOf(text: string): string {
  const match = /^\s*([A-Za-z]+)/.exec(text);
  return match ? match[1]!.toUpperCase() : 'QUERY';
}
