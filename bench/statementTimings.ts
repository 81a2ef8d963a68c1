/**
 * Where a bench process's database time goes: with BENCH_STATEMENT_TIMINGS=1, every query sent by
 * `pg` (knex's included) is timed from sent to answered, as the process sees it (the round trip and
 * the server's work), summed by statement text (its first 90 characters, with the values written
 * into it, numbers and quoted strings, replaced by `N` and `'…'`, so one statement is one line).
 * `print()` writes the largest to stderr. Bench code only: it wraps pg.Client.prototype.query in this process.
 */
import pg from 'pg';

export interface StatementTimings {
  print(top?: number): void;
}

export function statementTimingsFromEnv(): StatementTimings | undefined {
  if (process.env.BENCH_STATEMENT_TIMINGS !== '1') return undefined;
  const totals = new Map<string, { ms: number; n: number }>();
  const add = (text: string, started: bigint) => {
    const t = totals.get(text) ?? { ms: 0, n: 0 };
    t.ms += Number(process.hrtime.bigint() - started) / 1e6;
    t.n++;
    totals.set(text, t);
  };
  const original = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  (pg.Client.prototype as { query: unknown }).query = function timedQuery(this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string } | undefined;
    const text = (typeof first === 'string' ? first : (first?.text ?? '?'))
      .replace(/'[^']*'/g, "'…'")
      .replace(/-?\b\d+\b/g, 'N')
      .replace(/\s+/g, ' ')
      .slice(0, 90);
    const started = process.hrtime.bigint();
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      args[args.length - 1] = (...cb: unknown[]) => {
        add(text, started);
        return (last as (...a: unknown[]) => unknown)(...cb);
      };
      return original.apply(this, args);
    }
    const result = original.apply(this, args) as Promise<unknown> | undefined;
    if (result && typeof result.then === 'function') {
      result.then(
        () => add(text, started),
        () => add(text, started),
      );
    }
    return result;
  };
  return {
    print(top = 25) {
      const rows = [...totals].sort((a, b) => b[1].ms - a[1].ms);
      process.stderr.write('statement timings (sent to answered): total ms, calls, ms per call, statement\n');
      for (const [sql, t] of rows.slice(0, top)) {
        process.stderr.write(`${t.ms.toFixed(0).padStart(8)} ms ${String(t.n).padStart(7)}x ${(t.ms / t.n).toFixed(3).padStart(8)} ms  ${sql}\n`);
      }
    },
  };
}
