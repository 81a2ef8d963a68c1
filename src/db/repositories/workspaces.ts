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

/** `enrich workspace list`: every workspace, oldest first, with its active key count. */
export async function listWorkspaces(db: Knex): Promise<(WorkspaceRow & { active_keys: number })[]> {
  const { rows } = await db.raw<{ rows: (WorkspaceRow & { active_keys: string })[] }>(
    `select w.id, w.name, w.rate_limit_per_minute, w.license_status, w.license_expires_at, w.created_at,
            (select count(*) from api_keys k join accounts a on a.id = k.account_id
             where a.workspace_id = w.id and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())) as active_keys
     from workspaces w order by w.created_at, w.id`,
  );
  return rows.map((r) => ({ ...r, active_keys: Number(r.active_keys) }));
}
