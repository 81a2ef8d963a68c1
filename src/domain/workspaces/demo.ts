import type { Knex } from 'knex';
import { findWorkspaceByName } from '../../db/repositories/workspaces';
import { createWorkspace } from './admin';

const DEMO_NAME = 'demo';

/** First start on an empty database: one demo workspace whose owner key is returned (and printed) once. */
export async function ensureDemoWorkspace(db: Knex): Promise<{ workspace_id: string; api_key?: string }> {
  const existing = await findWorkspaceByName(db, DEMO_NAME);
  if (existing) return { workspace_id: existing.id };
  const created = await createWorkspace(db, { name: DEMO_NAME, rateLimit: 500, active: true });
  return { workspace_id: created.workspace_id, api_key: created.api_key };
}
