/**
 * Which identifiers of a batch the lake already ties together: stored rows that carry identifiers
 * of two different records of the batch, each as the identifier texts of suppression.ts (`id:…`,
 * `username:…`, `company_id:…`). The importer's lanes (domain/lake/lanes.ts) use them to keep two
 * records apart only when no stored row links them. Identifier columns only, no record text, one
 * indexed query. For persons the rows with one of the usernames are enough: a row that carries the
 * id of one record and the username of another is one of them, and a row that carries no username
 * of the batch ties at most its id to the batch, which links nothing.
 */
import type { Knex } from 'knex';
import type { LakeKind } from '../../model/records';
import { hasIdentifierTable } from './lakeIdentifiers';

export async function storedIdentities(
  db: Knex,
  kind: LakeKind,
  keys: { ids: readonly string[]; usernames: readonly string[]; companyIds?: readonly string[] },
): Promise<string[][]> {
  if (!keys.ids.length && !keys.usernames.length && !keys.companyIds?.length) return [];
  if (kind === 'person') {
    const { rows } = await db.raw<{ rows: { id: string; username: string }[] }>(
      // Distributed layout: the identifier table answers from the usernames' shards only.
      (await hasIdentifierTable(db))
        ? "select subject_id as id, value as username from lake_identifiers where value = any(?::text[]) and kind = 'person:username'"
        : 'select id, username from persons where username = any(?::text[])',
      [keys.usernames as string[]],
    );
    return rows.map((r) => [`id:${r.id.toLowerCase()}`, `username:${r.username}`]);
  }
  const { rows } = await db.raw<{ rows: { id: string; username: string; company_id: string }[] }>(
    'select id, username, company_id::text as company_id from companies where id = any(?::uuid[]) or username = any(?::text[]) or company_id = any(?::bigint[])',
    [keys.ids as string[], keys.usernames as string[], (keys.companyIds ?? []) as string[]],
  );
  return rows.map((r) => [`id:${r.id.toLowerCase()}`, `username:${r.username}`, `company_id:${r.company_id}`]);
}
