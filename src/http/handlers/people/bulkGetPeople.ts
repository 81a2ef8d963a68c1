import type { operations } from '../../../../generated/types';
import { getPeopleByIds } from '../../../domain/lake/bulk';
import { bulkResponseBody } from '../../bulkResponse';
import type { HandlerDeps, OperationHandler } from '../types';

type Body = operations['bulkGetPeople']['requestBody']['content']['application/json'];

/** The body's shape (1-500 strings, no other field) was checked against the contract before this runs. */
export const bulkGetPeople =
  (deps: HandlerDeps): OperationHandler =>
  async (req) => ({ body: bulkResponseBody(await getPeopleByIds(deps.knex, (req.body as Body).ids)) });
