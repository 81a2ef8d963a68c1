import type { Knex } from 'knex';

export interface AccountRow {
  id: string;
  workspace_id: string;
  name: string;
  role: 'owner' | 'member';
  rate_limit_allowance: number | null;
  created_at: Date;
}

export async function insertAccount(
  db: Knex,
  values: Pick<AccountRow, 'workspace_id' | 'name' | 'role' | 'rate_limit_allowance'>,
): Promise<AccountRow> {
  const [row] = await db<AccountRow>('accounts').insert(values).returning('*');
  return row;
}

export async function findAccountByName(db: Knex, workspaceId: string, name: string): Promise<AccountRow | undefined> {
  return db<AccountRow>('accounts').where({ workspace_id: workspaceId, name }).first();
}

export async function findOwner(db: Knex, workspaceId: string): Promise<AccountRow | undefined> {
  return db<AccountRow>('accounts').where({ workspace_id: workspaceId, role: 'owner' }).orderBy('created_at').first();
}

export async function setAllowance(db: Knex, id: string, allowance: number | null): Promise<void> {
  await db<AccountRow>('accounts').where({ id }).update({ rate_limit_allowance: allowance });
}

/** The member with the largest allowance of its own in a workspace, if any has one. */
export async function largestAllowance(db: Knex, workspaceId: string): Promise<{ name: string; rate_limit_allowance: number } | undefined> {
  return db<AccountRow>('accounts')
    .where({ workspace_id: workspaceId })
    .whereNotNull('rate_limit_allowance')
    .orderBy('rate_limit_allowance', 'desc')
    .first('name', 'rate_limit_allowance') as Promise<{ name: string; rate_limit_allowance: number } | undefined>;
}
