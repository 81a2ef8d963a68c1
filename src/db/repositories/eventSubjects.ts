/** The identifiers of a lake record that an event payload names (domain/webhooks/subject.ts). */
import type { Knex } from 'knex';

export interface SubjectRow {
  id: string;
  username: string;
  network_url: string | null;
}

const LAKE = { person: 'persons', company: 'companies' } as const;

/** By the unique username (the lake's `username` index). */
export async function findSubjectByUsername(db: Knex, kind: 'person' | 'company', username: string): Promise<SubjectRow | undefined> {
  const { rows } = await db.raw<{ rows: SubjectRow[] }>(
    `select id, username, record->>'network_url' as network_url from ${LAKE[kind]} where username = ?`,
    [username],
  );
  return rows[0];
}
