import type { Knex } from 'knex';
import type { Config } from '../../config';
import type { operations } from '../../../generated/types';
import type { AppContext } from '../state';

/** Webhook deliveries are operations the service sends, not serves; openapi-typescript lists them too. */
export type WebhookOperationId =
  | 'personJobChanged'
  | 'personTitleChanged'
  | 'personLocationChanged'
  | 'companyHeadcountChanged'
  | 'companyNameChanged'
  | 'companyHqChanged'
  | 'companyIndustryChanged';

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
}

/** The request after contract validation: query and path parameters coerced to their schema types. */
export interface ValidatedRequest {
  operationId: string;
  query: Record<string, unknown>;
  params: Record<string, unknown>;
  body: unknown;
}

export type OperationHandler = (req: ValidatedRequest, ctx: AppContext) => Promise<HandlerResult> | HandlerResult;

export interface HandlerDeps {
  knex: Knex;
  config: Config;
}
