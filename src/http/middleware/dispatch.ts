/**
 * Validates the request against the operation `route` already matched (openapi-backend's Ajv
 * validators, compiled once at start) and calls the handler registered under its operationId.
 *
 * openapi-backend's handleRequest would match the route again and parse the request three times;
 * validating against the known operation parses it once (the conventions' "no repeated parsing").
 */
import type { Middleware } from 'koa';
import type { OpenAPIBackend } from 'openapi-backend';
import { AppError } from '../../domain/errors';
import type { RequestState } from '../state';
import type { OperationHandler, OperationHandlers, OperationId, ValidatedRequest } from '../handlers/types';
import { validationMessage } from '../validationMessage';

export function dispatch(api: OpenAPIBackend, handlers: OperationHandlers): Middleware<RequestState> {
  return async (ctx, next) => {
    const operation = ctx.state.operation;
    if (!operation) return next();
    const validation = api.validator.validateRequest(
      {
        method: ctx.method,
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
