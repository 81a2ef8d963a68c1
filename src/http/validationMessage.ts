/**
 * Turns Ajv errors (as openapi-backend reports them) into one sentence that names the offending
 * parameter the way the caller sent it: `query parameter "per_page"`, `body field "location[2]"`.
 */
import type { ErrorObject } from 'ajv';
import { closestName } from './closestName';

const LOCATIONS: Record<string, string> = {
  query: 'query parameter',
  path: 'path parameter',
  header: 'header',
  requestBody: 'body field',
};

/** `accepted`: the names a location accepts (the operation's query parameters), for "did you mean". */
export function validationMessage(errors: ErrorObject[], accepted: Partial<Record<string, readonly string[]>> = {}): string {
  const error = pickMostUseful(errors);
  const [location, ...rest] = error.instancePath.split('/').filter(Boolean).map(unescapePointer);
  const params = error.params as Record<string, unknown>;
  const segments = [...rest];
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') segments.push(params.missingProperty);
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    segments.push(params.additionalProperty);
  }
  const name = segments.reduce((acc, s) => (/^[0-9]+$/.test(s) ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '');
  if (location === 'requestBody' && !name) return `Request body ${describe(error)}`;
  const where = LOCATIONS[location] ?? 'parameter';
  if (error.keyword === 'required') return `Missing required ${where} "${name}"`;
  if (error.keyword === 'additionalProperties') {
    const suggestion = closestName(name, accepted[location] ?? []);
    return `Unknown ${where} "${name}"${suggestion ? `; did you mean \`${suggestion}\`?` : ''}`;
  }
  return `Invalid ${where} "${name}": ${describe(error)}`;
}

function describe(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    return `must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  if (error.keyword === 'parse') return `is not valid JSON`;
  return error.message ?? 'is invalid';
}

/** anyOf/oneOf produce one error per branch plus a summary; the summary alone reads best. */
function pickMostUseful(errors: ErrorObject[]): ErrorObject {
  const summary = errors.find((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  if (summary) {
    return { ...summary, message: 'does not match any of the accepted forms' };
  }
  return errors[0];
}

function unescapePointer(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}
