/**
 * What the tracing part benches (bench:tracing-split, bench:tracing-spans) trace: a lookup's
 * statement and the server span's closing attributes as the edge sets them for GET /person.
 */
import type { Span } from '@opentelemetry/api';

export const STATEMENT = 'select p.id, p.username, p.full_name, p.headline from persons p where p.username = $1 and p.suppressed_at is null';

/** Names and ends a lookup's server span, as the edge does after the handler; `n` makes the request id. */
export function endLookupServerSpan(span: Span, n: number): void {
  span.updateName('getPerson');
  span.setAttribute('http.response.status_code', 200);
  span.setAttribute('enrich.request_id', `req_${n.toString(16).padStart(20, '0')}`);
  span.setAttribute('enrich.operation_id', 'getPerson');
  span.setAttribute('http.route', '/api/v1/person');
  span.setAttribute('enrich.workspace_id', '8f2c9a4e-1b2d-4c3e-9f8a-0123456789ab');
  span.end();
}
