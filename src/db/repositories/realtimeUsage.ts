import type { Knex } from 'knex';

export interface UsageTotals {
  calls: number;
  cost_usd: number;
}

export async function usageSince(db: Knex, workspaceId: string, since: Date, until: Date): Promise<UsageTotals> {
  const row = await db('realtime_usage')
    .where('workspace_id', workspaceId)
    .andWhere('created_at', '>=', since)
    .andWhere('created_at', '<', until)
    .first(db.raw('count(*)::int as calls'), db.raw('coalesce(sum(cost_usd), 0) as cost_usd'));
  return { calls: Number(row?.calls ?? 0), cost_usd: Number(row?.cost_usd ?? 0) };
}
