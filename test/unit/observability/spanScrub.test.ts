/** The rule of what a span may carry out of the process (src/observability/spanScrub.ts). */
import { scrubSpan, stripQuery, stripSqlLiterals } from '../../../src/observability/spanScrub';
import { tracingRequested } from '../../../src/observability/tracing';

describe('stripQuery', () => {
  it('cuts the query string and fragment, keeps the rest', () => {
    expect(stripQuery('http://127.0.0.1:4100/v1/person?username=jane-doe')).toBe('http://127.0.0.1:4100/v1/person');
    expect(stripQuery('/api/v1/people/search?name=Jane%20Doe#x')).toBe('/api/v1/people/search');
    expect(stripQuery('/api/v1/account')).toBe('/api/v1/account');
  });
});

describe('stripSqlLiterals', () => {
  it('replaces quoted values, escaped quotes and dollar-quoted text; keeps parameters and quoted identifiers', () => {
    expect(stripSqlLiterals(`select * from persons where username = 'o''brien' and x = $1`)).toBe('select * from persons where username = ? and x = $1');
    expect(stripSqlLiterals(`select convert_from(E'\\x6a616e65', 'UTF8')`)).toBe('select convert_from(?, ?)');
    expect(stripSqlLiterals('select $tag$jane doe$tag$, $$x$$ from "persons"')).toBe('select ?, ? from "persons"');
    expect(stripSqlLiterals('insert into t values ($1, $2)')).toBe('insert into t values ($1, $2)');
  });

  it('answers the same when it has seen the text before (memoised), and leaves its own result as it is', () => {
    const text = `select * from persons where username = 'jane-doe' and id = $1 -- memo`;
    const first = stripSqlLiterals(text);
    expect(first).toBe('select * from persons where username = ? and id = $1 -- memo');
    expect(stripSqlLiterals(text)).toBe(first);
    expect(stripSqlLiterals(first)).toBe(first);
    // Many distinct texts (a bulk insert's literals) do not change any answer when the cache cycles.
    for (let i = 0; i < 5000; i++) expect(stripSqlLiterals(`insert into t values ('v${i}', $1)`)).toBe('insert into t values (?, $1)');
    expect(stripSqlLiterals(text)).toBe(first);
  });
});

describe('scrubSpan', () => {
  it('scrubs URL and SQL attributes, drops query attributes, error messages and stacks', () => {
    const span = {
      attributes: {
        'url.full': 'https://hooks.example/h?token=abc',
        'http.target': '/api/v1/person?email=jane@example.com',
        'url.query': 'email=jane@example.com',
        'db.statement': "select 1 where u = 'jane'",
        'enrich.workspace_id': 'ws_1',
      } as Record<string, unknown>,
      events: [{ attributes: { 'exception.type': 'error', 'exception.message': 'duplicate key (username)=(jane)', 'exception.stacktrace': 'at ...' } as Record<string, unknown> }],
      status: { message: 'duplicate key (username)=(jane)' } as { message?: string },
    };
    scrubSpan(span);
    expect(span.attributes).toEqual({
      'url.full': 'https://hooks.example/h',
      'http.target': '/api/v1/person',
      'db.statement': 'select 1 where u = ?',
      'enrich.workspace_id': 'ws_1',
    });
    expect(span.events[0]!.attributes).toEqual({ 'exception.type': 'error' });
    expect(span.status.message).toBeUndefined();
  });
});

describe('tracingRequested (the standard variables)', () => {
  it('is on with an OTLP endpoint or a named exporter, off otherwise or when disabled', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
    expect(tracingRequested({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
  });
});
