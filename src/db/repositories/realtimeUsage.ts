/** The realtime usage ledger: one row per metered answer (0.001 USD each), an exact decimal. */
import type { Knex } from 'knex';

export interface UsageTotals {
  calls: number;
  /** Sum of the period's costs in micro-dollars (an integer: no float ever adds them up). */
  cost_micro_usd: number;
}

export async function usageSince(db: Knex, workspaceId: string, since: Date, until: Date): Promise<UsageTotals> {
  const row = await db('realtime_usage')
    .where('workspace_id', workspaceId)
    .andWhere('created_at', '>=', since)
    .andWhere('created_at', '<', until)
    .first(db.raw('count(*)::int as calls'), db.raw('coalesce(sum(cost_usd * 1000000), 0)::bigint as cost_micro_usd'));
  return { calls: Number(row?.calls ?? 0), cost_micro_usd: Number(row?.cost_micro_usd ?? 0) };
}

export interface UsageRow {
  workspaceId: string;
  accountId: string;
  operationId: string;
  /** Exact decimal text, for example '0.001'. */
  costUsd: string;
}

/** One usage row (one statement: it commits on its own). */
export async function insertUsage(db: Knex | Knex.Transaction, row: UsageRow): Promise<void> {
  await db('realtime_usage').insert({
    workspace_id: row.workspaceId,
    account_id: row.accountId,
    operation_id: row.operationId,
    cost_usd: row.costUsd,
  });
}

/**
 * Meters one answer and, for a call with an Idempotency-Key, stores the answer under its key: one
 * statement, so both are written or neither (the key's row was claimed by the call as pending).
 * `subjectId` is the lake id of the answered record (a withdrawal erases the stored answer by it).
 */
export async function insertUsageWithAnswer(
  db: Knex | Knex.Transaction,
  row: UsageRow,
  answer: { key: string; response: string; subjectId: string },
): Promise<void> {
  await db.raw(
    `with usage as (
       insert into realtime_usage (workspace_id, account_id, operation_id, cost_usd) values (?, ?, ?, ?)
     )
     update idempotency_keys set state = 'done', response = ?, subject_id = ?
      where workspace_id = ? and key = ?`,
    [row.workspaceId, row.accountId, row.operationId, row.costUsd, answer.response, answer.subjectId, row.workspaceId, answer.key],
  );
}
