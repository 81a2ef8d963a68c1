/**
 * Validates the request against the operation `route` already matched (openapi-backend's Ajv
 * validators, compiled once at start) and calls the handler registered under its operationId.
 *
 * openapi-backend's handleRequest would match the route again and parse the request three times;
 * validating against the known operation parses it once (the conventions' "no repeated parsing").
 */
import type { Middleware } from 'koa';
import type { OpenAPIBackend, Operation } from 'openapi-backend';
import { AppError, validationError } from '../../domain/errors';
import { nulPath } from '../../domain/text';
import { routedMethod } from './route';
import type { RequestState } from '../state';
import type { OperationHandler, OperationHandlers, OperationId, ValidatedRequest } from '../handlers/types';
import { validationMessage } from '../validationMessage';

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
  for (const [name, raw] of Object.entries(query)) {
    const values = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    if (values.some((v) => v.includes('\u0000'))) {
      throw validationError(`Invalid query parameter "${name}": must not contain the NUL character (U+0000)`);
    }
    if (integers.has(name) && values.some((v) => !INTEGER_TEXT.test(v))) {
      throw validationError(`Invalid query parameter "${name}": must be an integer written in digits`);
    }
  }
  if (body !== undefined && !PER_ITEM_BODIES.has(operation.operationId ?? '')) {
    const path = nulPath(body);
    if (path) throw validationError(`Invalid body field "${path}": must not contain the NUL character (U+0000)`);
  }
}

export function dispatch(api: OpenAPIBackend, handlers: OperationHandlers): Middleware<RequestState> {
  return async (ctx, next) => {
    const operation = ctx.state.operation;
    if (!operation) return next();
    precheck(operation, ctx.query, ctx.state.body);
    const validation = api.validator.validateRequest(
      {
        method: routedMethod(ctx.method),
        path: ctx.path,
        // Coercion (query strings to integers, single values to arrays) happens on this copy.
        query: { ...ctx.query } as Record<string, string | string[]>,
        headers: ctx.headers as Record<string, string | string[]>,
        body: ctx.state.body,
      },
      operation,
    );
    if (validation.errors) throw new AppError('VALIDATION_ERROR', validationMessage(validation.errors));
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
    const result = await (handlers[operationId] as OperationHandler)(request, ctx);
    ctx.status = result.status ?? 200;
    for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
    ctx.body = result.body;
  };
}
