import type { Knex } from 'knex';

export interface WorkspaceRow {
  id: string;
  name: string;
  rate_limit_per_minute: number;
  license_status: 'active' | 'inactive';
  license_expires_at: Date | null;
  created_at: Date;
}

export async function insertWorkspace(
  db: Knex,
  values: { name: string; rate_limit_per_minute: number; license_status: 'active' | 'inactive' },
): Promise<WorkspaceRow> {
  const [row] = await db<WorkspaceRow>('workspaces').insert(values).returning('*');
  return row;
}

export async function findWorkspaceById(db: Knex, id: string): Promise<WorkspaceRow | undefined> {
  return db<WorkspaceRow>('workspaces').where({ id }).first();
}

export async function updateWorkspace(
  db: Knex,
  id: string,
  values: Partial<Pick<WorkspaceRow, 'license_status' | 'license_expires_at' | 'rate_limit_per_minute' | 'name'>>,
): Promise<WorkspaceRow | undefined> {
  const [row] = await db<WorkspaceRow>('workspaces').where({ id }).update(values).returning('*');
  return row;
}

/** The oldest workspace of that name (names are not unique). */
export async function findWorkspaceByName(db: Knex, name: string): Promise<{ id: string } | undefined> {
  return db('workspaces').where({ name }).orderBy('created_at').first('id');
}
