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
import type { OperationHandler, ValidatedRequest } from '../handlers/types';
import { validationMessage } from '../validationMessage';

export function dispatch(api: OpenAPIBackend, handlers: Record<string, OperationHandler>): Middleware<RequestState> {
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
    const request: ValidatedRequest = {
      operationId: operation.operationId!,
      query: coerced.query ?? {},
      params: coerced.params ?? {},
      body: ctx.state.body,
    };
    const result = await handlers[request.operationId](request, ctx);
    ctx.status = result.status ?? 200;
    ctx.body = result.body;
  };
}
