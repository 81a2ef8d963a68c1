import type { Knex } from 'knex';
import type { Config } from '../../config';
import type { LakeReads } from '../../db/replicas';
import type { RateLimitStoreState } from '../../domain/ratelimit/rateLimits';
import type { RealtimeDeps } from '../../domain/live/realtime';
import type { MonitorDeps } from '../../domain/monitors/monitors';
import type { operations } from '../../../generated/types';
import type { AppContext } from '../state';
import type { Limits } from '../middleware/limits';

/** Webhook deliveries are operations the service sends, not serves; openapi-typescript lists them too. */
export type WebhookOperationId =
  | 'personJobChanged'
  | 'personTitleChanged'
  | 'personLocationChanged'
  | 'companyHeadcountChanged'
  | 'companyNameChanged'
  | 'companyHqChanged'
  | 'companyIndustryChanged'
  | 'monitorTest'
  | 'jobCompleted'
  | 'jobFailed';

/** operationIds of the operations the server answers (the contract's `paths`). */
export type OperationId = Exclude<keyof operations, WebhookOperationId>;

type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Responses<Op extends OperationId> = operations[Op]['responses'];

/** A success body as the contract defines it, minus the envelope the edge middleware adds. */
export type ResponseBody<Op extends OperationId, Status extends keyof Responses<Op>> = Omit<
  JsonOf<Responses<Op>[Status]>,
  'quotas' | 'metadata'
>;

export interface HandlerResult {
  status?: number;
  body: object;
  headers?: Record<string, string>;
}

type Parameters<Op extends OperationId> = operations[Op]['parameters'];
type Query<Op extends OperationId> = [NonNullable<Parameters<Op>['query']>] extends [never] ? Record<string, never> : NonNullable<Parameters<Op>['query']>;
type Path<Op extends OperationId> = [NonNullable<Parameters<Op>['path']>] extends [never] ? Record<string, never> : NonNullable<Parameters<Op>['path']>;
type Body<Op extends OperationId> = operations[Op] extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : operations[Op] extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B | undefined
    : undefined;

/**
 * The request after contract validation, typed from the generated `operations[Op]`: query and path
 * parameters coerced to their schema types, the body as the contract describes it. The one place
 * that asserts this is middleware/dispatch.ts, right after openapi-backend validated the request.
 */
export interface ValidatedRequest<Op extends OperationId = OperationId> {
  operationId: Op;
  query: Query<Op>;
  params: Path<Op>;
  body: Body<Op>;
}

export type OperationHandler<Op extends OperationId = OperationId> = (
  req: ValidatedRequest<Op>,
  ctx: AppContext,
) => Promise<HandlerResult> | HandlerResult;

/** Every operation's handler, each typed by its own operationId. */
export type OperationHandlers = { [Op in OperationId]: OperationHandler<Op> };

export interface HandlerDeps {
  /** The primary: writes, metering, locks, sessions, monitors, and every read that is not the lake's. */
  knex: Knex;
  /** The lake's reads (lakeRead.ts): a read replica in use, else the primary. */
  reads: LakeReads;
  config: Config;
  /** The edge's limits (the failed-authentication budget that sign-in with a key counts against). */
  limits: Limits;
  /** Where rate limits are counted right now (readiness reports it). */
  rateLimitStore?: () => RateLimitStoreState;
  /** The live source and what the realtime operations share (coalescing). */
  live: RealtimeDeps;
  /** Monitors: server key of the secrets, the SSRF policy and the resolver it checks names with. */
  monitors: MonitorDeps;
}
