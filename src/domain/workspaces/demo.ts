import type { Knex } from 'knex';
import { createWorkspace } from './admin';

const DEMO_NAME = 'demo';

/** First start on an empty database: one demo workspace whose owner key is returned (and printed) once. */
export async function ensureDemoWorkspace(db: Knex): Promise<{ workspace_id: string; api_key?: string }> {
  const existing = await db('workspaces').where({ name: DEMO_NAME }).orderBy('created_at').first('id');
  if (existing) return { workspace_id: existing.id };
  const created = await createWorkspace(db, { name: DEMO_NAME, rateLimit: 500, active: true });
  return { workspace_id: created.workspace_id, api_key: created.api_key };
}
