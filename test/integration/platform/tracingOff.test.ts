/**
 * Tracing off costs no import: without OTEL_* variables, starting tracing and loading the whole
 * server (app, database driver, undici) loads no OpenTelemetry SDK, exporter or instrumentation.
 * (`@opentelemetry/api` itself is loaded either way, by prom-client, for its exemplars: a no-op
 * API without an SDK.) A process of its own, since jest's module registry is not Node's require cache.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

function loadedOtelModules(env: NodeJS.ProcessEnv): string[] {
  const script = [
    "const t = require('./src/observability/tracing');",
    't.startTracing(process.env);',
    "require('./src/main'); require('./src/domain/undici').loadUndici(); require('pg');",
    "process.stdout.write(JSON.stringify(Object.keys(require.cache).filter((k) => k.includes('@opentelemetry') && !k.includes('@opentelemetry/api/'))));",
  ].join('\n');
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
  const out = execFileSync(process.execPath, ['--require', 'tsx/cjs', '-e', script], { cwd: ROOT, env: { ...clean, ...env }, encoding: 'utf8' });
  return JSON.parse(out) as string[];
}

describe('tracing off', () => {
  it('loads no @opentelemetry module', () => {
    expect(loadedOtelModules({})).toEqual([]);
  }, 60_000);

  it('(and the same check sees them when tracing is on)', () => {
    const loaded = loadedOtelModules({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(loaded.some((k) => k.includes('sdk-trace'))).toBe(true);
    expect(loaded.some((k) => k.includes('instrumentation-undici'))).toBe(true);
  }, 60_000);
});
