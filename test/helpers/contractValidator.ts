/**
 * Checks any HTTP response against the bundled contract, independently of the server's own
 * validator: JSON Schema 2020-12 (Ajv2020, the dialect of OpenAPI 3.1) instead of the server's
 * draft-07 Ajv. A response is inside the contract when its status is documented for the operation,
 * its body validates, the documented required headers are present, and the envelope is consistent.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Operation } from 'openapi-backend';
import { API_ROOT, Contract31Backend, loadDefinition, loadServerDefinition } from '../../src/http/contract';
import { expandRefsIn } from '../../src/http/expandRefs';

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

interface ResponseObject {
  content?: Record<string, { schema?: object }>;
  headers?: Record<string, { required?: boolean; schema?: object }>;
}

let backend: Promise<OpenAPIBackend> | undefined;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const validators = new Map<string, ValidateFunction>();

function router(): Promise<OpenAPIBackend> {
  backend ??= (async () => {
    // Routing needs the paths only (the server's own definition); each operation's responses are
    // expanded from the bundled document when that operation is first checked (responsesOf).
    const api = new Contract31Backend({ definition: loadServerDefinition(), apiRoot: API_ROOT, quick: false, validate: false, strict: true });
    await api.init();
    return api;
  })();
  return backend;
}

/** The contract operation a request addresses (undefined for unknown paths and wrong methods). */
export async function matchOperation(method: string, path: string): Promise<Operation | undefined> {
  return (await router()).router.matchOperation({ method, path, headers: {}, query: {} });
}

function compile(key: string, schema: object): ValidateFunction {
  let v = validators.get(key);
  if (!v) {
    v = ajv.compile(schema);
    validators.set(key, v);
  }
  return v;
}

type Bundled = { paths: Record<string, Record<string, { responses?: Record<string, ResponseObject> }>>; components: { schemas: Record<string, object> } };
const bundled = () => loadDefinition() as unknown as Bundled;

function errorResponseSchema(): object {
  return expandRefsIn(bundled().components.schemas.ErrorResponse, bundled());
}

const expandedResponses = new Map<string, Record<string, ResponseObject>>();

/** The operation's documented responses, every reference expanded in place, as the contract states them. */
function responsesOf(operation: Operation): Record<string, ResponseObject> {
  let responses = expandedResponses.get(operation.operationId!);
  if (!responses) {
    responses = expandRefsIn(bundled().paths[operation.path]![operation.method]!.responses ?? {}, bundled());
    expandedResponses.set(operation.operationId!, responses);
  }
  return responses;
}

/** Statuses only the HTTP server's parser answers (http/clientError.ts), documented once in the contract's "Errors". */
const PARSER_STATUSES = [408, 431];

/** Returns a list of problems; empty means the response is inside the contract. */
export async function contractProblems(method: string, path: string, res: HttpResponse): Promise<string[]> {
  const api = await router();
  const problems: string[] = [];
  // HEAD is answered wherever GET is, with the GET's headers and no body (RFC 9110).
  const head = method.toUpperCase() === 'HEAD';
  // A 304 Not Modified has no body either (RFC 9110 §15.4.5): its documented headers are checked.
  const bodyless = head || res.status === 304;
  const operation: Operation | undefined = api.router.matchOperation({ method: head ? 'GET' : method, path, headers: {}, query: {} });
  const header = (name: string) => {
    const v = res.headers[name.toLowerCase()];
    return Array.isArray(v) ? v[0] : v;
  };

  let schema: object | undefined;
  let streamed: string | undefined;
  let documented: ResponseObject | undefined;
  let key: string;
  if (PARSER_STATUSES.includes(res.status) && !(operation && responsesOf(operation)[String(res.status)])) {
    // The HTTP server's own answers to a request its parser refused (the contract's "Errors": 408,
    // 431), before any operation is matched: the shared error shape, whatever the path.
    schema = errorResponseSchema();
    key = 'ErrorResponse';
  } else if (!operation) {
    // Unknown paths and wrong methods are answered outside any operation, in the shared error shape.
    if (![404, 405].includes(res.status)) problems.push(`unmatched route answered ${res.status}, expected 404 or 405`);
    schema = errorResponseSchema();
    key = 'ErrorResponse';
  } else {
    const responses = responsesOf(operation);
    documented = responses[String(res.status)] ?? responses[`${String(res.status)[0]}XX`] ?? responses.default;
    key = `${operation.operationId}:${res.status}`;
    if (!documented) {
      problems.push(`${operation.operationId} answered ${res.status}, which the contract does not document`);
    } else {
      schema = documented.content?.['application/json']?.schema;
      // A streamed answer of another documented media type (a list job's CSV or NDJSON results).
      const mediaType = (header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (mediaType !== 'application/json' && documented.content?.[mediaType]) streamed = mediaType;
      else if (!schema && res.status !== 304) problems.push(`${operation.operationId} ${res.status} has no application/json schema`);
      if (schema && res.status === 304) problems.push(`${operation.operationId} documents a body for 304`);
      for (const [name, h] of Object.entries(documented.headers ?? {})) {
        if (h.required && header(name) === undefined) problems.push(`missing required header ${name}`);
        if (h.schema && header(name) !== undefined) {
          const hv = compile(`${key}:header:${name}`, h.schema);
          const raw = header(name)!;
          const value = (h.schema as { type?: string }).type === 'integer' ? Number(raw) : raw;
          if (!hv(value)) problems.push(`header ${name}=${raw} invalid: ${ajv.errorsText(hv.errors)}`);
        }
      }
    }
  }

  if (bodyless) {
    if (res.body !== undefined && res.body !== '' && !(typeof res.body === 'object' && res.body !== null && Object.keys(res.body).length === 0)) {
      problems.push(`${head ? 'HEAD' : '304'} answered with a body`);
    }
  } else if (schema) {
    const validate = compile(key, schema);
    if (!validate(res.body)) problems.push(`body invalid for ${key}: ${ajv.errorsText(validate.errors, { separator: '; ' })}`);
  }

  const body = res.body as { metadata?: { request_id?: string }; quotas?: unknown } | undefined;
  const requestId = header('x-request-id');
  if (!requestId || !/^req_[0-9a-f]+$/.test(requestId)) problems.push(`bad x-request-id header: ${requestId}`);
  if (bodyless || streamed) {
    // no JSON body to compare with the headers
  } else if (!body || typeof body !== 'object') problems.push('body is not a JSON object');
  else {
    if (body.metadata?.request_id !== requestId) problems.push('metadata.request_id differs from x-request-id');
    if (!body.quotas) problems.push('quotas missing');
  }
  if (!header('ratelimit') || !header('ratelimit-policy')) problems.push('RateLimit / RateLimit-Policy headers missing');
  if (res.status === 429 && !/^[0-9]+$/.test(header('retry-after') ?? '')) problems.push('429 without integer Retry-After');
  return problems;
}

export async function assertInContract(method: string, path: string, res: HttpResponse): Promise<void> {
  const problems = await contractProblems(method, path, res);
  if (problems.length) {
    throw new Error(
      `Response to ${method} ${path} (${res.status}) breaks the contract:\n- ${problems.join('\n- ')}\nbody: ${JSON.stringify(res.body).slice(0, 2000)}`,
    );
  }
}
