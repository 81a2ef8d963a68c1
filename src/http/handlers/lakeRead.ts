import type { Knex } from 'knex';
import type { AppContext } from '../state';
import type { HandlerDeps } from './types';

/**
 * A lake read (lookup, check, search, list, bulk, history): on a read replica in use, else the primary
 * (db/replicas.ts). The caller's workspace decides whether its reads are pinned to the primary after
 * a realtime write-back. Only reads that write nothing, lock nothing and listen to nothing come here.
 */
export function lakeRead<T>(deps: HandlerDeps, ctx: AppContext, read: (db: Knex) => Promise<T>): Promise<T> {
  return deps.reads.run(ctx.state.principal?.workspaceId, read);
}
