/**
 * Validates the request against the operation `route` already matched (openapi-backend's Ajv
 * validators, compiled once, at the operation's first request) and calls the handler registered under its operationId.
 *
 * openapi-backend's handleRequest would match the route again and parse the request three times;
 * validating against the known operation parses it once (the conventions' "no repeated parsing").
 */
import type { ErrorObject } from 'ajv';
import type { OpenAPIBackend, Operation } from 'openapi-backend';
import { AppError, validationError } from '../../domain/errors';
import { unstorableText } from '../../domain/text';
import { routedMethod } from './route';
import type { AppContext, Step } from '../state';
import type { HandlerResult, OperationHandler, OperationHandlers, OperationId, ValidatedRequest } from '../handlers/types';
import { validationMessage } from '../validationMessage';
import { requestQuery } from '../query';

/**
 * Operations whose body items are checked one by one by the domain (a bad item answers 400 in its
 * result, the others are served): a NUL in an item must not fail the whole request.
 */
const PER_ITEM_BODIES = new Set(['bulkEnrichPeople', 'bulkGetPeople']);

/** A JSON Schema integer written as text: optional minus, digits, no leading zeros, nothing else. */
const INTEGER_TEXT = /^-?(0|[1-9][0-9]*)$/;

/** Query parameters whose schema type is integer, per operation (computed once). */
const integerParams = new WeakMap<Operation, Set<string>>();
function integerQueryParams(operation: Operation): Set<string> {
  let names = integerParams.get(operation);
  if (!names) {
    names = new Set(
      ((operation.parameters ?? []) as { name: string; in: string; schema?: { type?: unknown } }[])
        .filter((p) => p.in === 'query' && (p.schema?.type === 'integer' || (Array.isArray(p.schema?.type) && p.schema.type.includes('integer'))))
        .map((p) => p.name),
    );
    integerParams.set(operation, names);
  }
  return names;
}

/**
 * What Ajv's type coercion would let through and the contract does not mean: query integers in any
 * other form than plain digits (it reads `0x10`, `1e3`, ` 5`, `5.0` and `+5` as numbers), and the
 * NUL character anywhere (the database cannot hold it; without this check it failed the query and
 * the answer named no parameter).
 */
function precheck(operation: Operation, query: Record<string, string | string[] | undefined>, body: unknown): void {
  const integers = integerQueryParams(operation);
  for (const name in query) {
    const raw = query[name];
    if (raw === undefined) continue;
    if (typeof raw === 'string' ? raw.includes('\u0000') : raw.some((v) => v.includes('\u0000'))) {
      throw validationError(`Invalid query parameter "${name}": must not contain the NUL character (U+0000)`);
    }
    if (integers.has(name) && (typeof raw === 'string' ? !INTEGER_TEXT.test(raw) : raw.some((v) => !INTEGER_TEXT.test(v)))) {
      throw validationError(`Invalid query parameter "${name}": must be an integer written in digits`);
    }
  }
  if (body !== undefined && !PER_ITEM_BODIES.has(operation.operationId ?? '')) {
    const found = unstorableText(body);
    if (found) throw validationError(`Invalid body field "${found.path}": must not contain ${found.character}`);
  }
}

/**
 * Validation of the operations that take only query parameters (no path or header parameters, no
 * body), which are most of the lookups and searches: openapi-backend's validateRequest parses the
 * whole request for them (headers copied and lowercased, cookies parsed, the query serialized once
 * and deep-cloned, the path template compiled to match no parameters, lodash throughout) before it
 * calls the same compiled Ajv validators this calls. Here the parameters object is built directly,
 * with what validateRequest would have put in it for such an operation: a copy of the query (Ajv
 * coerces it in place), single values of array parameters as one-item arrays, and empty path,
 * header and cookie objects (their schemas declare no properties, so the validator does not read
 * them). Every other operation goes through validateRequest unchanged.
 */
interface QueryOnlyPlan {
  validators: ReturnType<OpenAPIBackend['validator']['getRequestValidatorsForOperation']>;
  /** Query parameters whose schema type is array. */
  arrays: Set<string>;
}

type Validation = { errors?: ErrorObject[] | null; coerced?: object };

function queryOnlyPlan(api: OpenAPIBackend, operation: Operation): QueryOnlyPlan | undefined {
  const parameters = (operation.parameters ?? []) as { in: string; name: string; required?: boolean; schema?: { type?: unknown }; content?: unknown }[];
  // An optional header parameter that any string satisfies (If-None-Match on the lookups) is read
  // by its handler, not validated here: the header object passed is empty. A header with a rule of
  // its own (Idempotency-Key's pattern) sends the operation down the full validation path.
  const optionalHeader = (p: { in: string; required?: boolean; schema?: object }) =>
    p.in === 'header' && !p.required && JSON.stringify(p.schema) === '{"type":"string"}';
  if (operation.requestBody || /\{/.test(operation.path) || parameters.some((p) => (p.in !== 'query' && !optionalHeader(p)) || p.content)) return undefined;
  const validators = api.validator.getRequestValidatorsForOperation(operation.operationId!);
  if (!validators?.length) return undefined;
  return { validators, arrays: new Set(parameters.filter((p) => p.schema?.type === 'array').map((p) => p.name)) };
}

const EMPTY: Readonly<Record<string, never>> = Object.freeze({});

function validateQueryOnly(plan: QueryOnlyPlan, rawQuery: Record<string, string | string[] | undefined>): Validation {
  const query: Record<string, unknown> = {};
  for (const name in rawQuery) {
    const value = rawQuery[name];
    query[name] = Array.isArray(value) ? value.slice() : typeof value === 'string' && plan.arrays.has(name) ? [value] : value;
  }
  const parameters = { path: {}, query, header: EMPTY, cookie: EMPTY };
  const errors: ErrorObject[] = [];
  const coerced: { query?: Record<string, unknown>; params?: Record<string, unknown> } = {};
  for (const validate of plan.validators) {
    validate(parameters);
    if (validate.errors) errors.push(...validate.errors);
    else {
      coerced.query = parameters.query;
      coerced.params = parameters.path;
    }
  }
  return { errors: errors.length ? errors : null, coerced };
}

/** The operation's query parameter names (computed once), for the "did you mean" of an unknown one. */
const queryNameCache = new WeakMap<Operation, string[]>();
function queryNames(operation: Operation): string[] {
  let names = queryNameCache.get(operation);
  if (!names) {
    names = ((operation.parameters ?? []) as { in: string; name: string }[]).filter((p) => p.in === 'query').map((p) => p.name);
    queryNameCache.set(operation, names);
  }
  return names;
}

/** The last step of the API pipeline: validation, then the operation's handler. */
export function dispatch(api: OpenAPIBackend, handlers: OperationHandlers): Step {
  // Each operation's plan (and so its compiled validators) at its first request (contract.ts says why).
  const plans = new Map<Operation, QueryOnlyPlan | undefined>();
  const planOf = (operation: Operation) => {
    if (!plans.has(operation)) plans.set(operation, queryOnlyPlan(api, operation));
    return plans.get(operation);
  };
  return (ctx) => {
    const operation = ctx.state.operation;
    if (!operation) return;
    const rawQuery = requestQuery(ctx);
    precheck(operation, rawQuery, ctx.state.body);
    const plan = planOf(operation);
    const validation: Validation = plan
      ? validateQueryOnly(plan, rawQuery)
      : api.validator.validateRequest(
          {
            method: routedMethod(ctx.method),
            path: ctx.path,
            // Coercion (query strings to integers, single values to arrays) happens on this copy.
            query: { ...rawQuery } as Record<string, string | string[]>,
            headers: ctx.headers as Record<string, string | string[]>,
            body: ctx.state.body,
          },
          operation,
        );
    if (validation.errors) throw new AppError('VALIDATION_ERROR', validationMessage(validation.errors, { query: queryNames(operation) }));
    const coerced = validation.coerced as { query?: Record<string, unknown>; params?: Record<string, unknown> };
    const operationId = operation.operationId as OperationId;
    // The one place where validated input meets the generated types: openapi-backend has just
    // checked (and coerced) query, path and body against this operation's schemas.
    const request = {
      operationId,
      query: coerced.query ?? {},
      params: coerced.params ?? {},
      body: ctx.state.body,
    } as ValidatedRequest;
    const result = (handlers[operationId] as OperationHandler)(request, ctx);
    if (result instanceof Promise) return result.then((r) => answer(ctx, r));
    answer(ctx, result);
  };
}

function answer(ctx: AppContext, result: HandlerResult): void {
  ctx.status = result.status ?? 200;
  // A JSON body waits for the edge, which writes it in its envelope with its Content-Type and the
  // handler's headers (state.ts `answer`, `headers`); anything else (a stream of a list job's
  // results) is Koa's body, its headers set on the node response directly (Koa's ctx.set would only
  // check and convert string values).
  if (Object.getPrototypeOf(result.body) === Object.prototype) {
    ctx.state.headers = result.headers;
    ctx.state.answer = result.body as Record<string, unknown>;
  } else {
    if (result.headers) for (const name in result.headers) ctx.res.setHeader(name, result.headers[name]!);
    ctx.body = result.body;
  }
}
