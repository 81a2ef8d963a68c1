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

/** Called inside the transaction of the metered answer's effect. */
export async function insertUsage(db: Knex | Knex.Transaction, row: UsageRow): Promise<void> {
  await db('realtime_usage').insert({
    workspace_id: row.workspaceId,
    account_id: row.accountId,
    operation_id: row.operationId,
    cost_usd: row.costUsd,
  });
}
