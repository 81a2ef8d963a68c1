import pino, { type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs; every request line carries request_id (see http/middleware/edge.ts). */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'enrich' }, timestamp: pino.stdTimeFunctions.isoTime });
}
