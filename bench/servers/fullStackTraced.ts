/**
 * fullStack.ts with tracing started first, as `enrich serve` does with OTEL_* set (the SDK must be
 * in place before http, pg and undici load): the bench passes the OTEL_* variables.
 */
import { startTracing } from '../../src/observability/tracing';

if (!startTracing(process.env)) throw new Error('fullStackTraced.ts needs OTEL_EXPORTER_OTLP_ENDPOINT');
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('./fullStack');
