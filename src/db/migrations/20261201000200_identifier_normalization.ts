import type { Knex } from 'knex';

/**
 * One identifier normalization (domain/lake/identifiers.ts normalizeIdentifier), applied in
 * JavaScript on write and read, replaces SQL lower() for the stored usernames. Rows written before
 * it hold lower(record.username) as the database's LC_CTYPE computed it (C: ASCII only; C.UTF-8:
 * İ -> i, final sigma kept as written...), which lookups no longer produce for names with
 * non-ASCII letters. This migration recomputes those rows' `username` from the stored record.
 *
 * Only rows whose record username has a non-ASCII character can differ (for ASCII both rules agree),
 * but finding them reads each record once: about a minute for a million persons. When two rows now
 * normalize to the same username, the import rule applies (a record that takes over another's
 * username replaces it): the one fetched most recently stays.
 *
 * Suppression tombstones are one-way hashes and cannot be recomputed: lookups check the digest of
 * both the new and the previous form of an identifier instead (lake/suppression.ts keyDigests).
 *
 * The normalization is copied here, frozen, so this migration does what it did when it shipped
 * even if the domain's rule changes later (that would need a migration of its own).
 */
function normalizeIdentifier(text: string): string {
  let value = text.normalize('NFC');
  for (let i = 0; i < 4; i++) {
    const next = value.toLowerCase().toUpperCase().toLowerCase().replace(/ς/g, 'σ').normalize('NFC');
    if (next === value) break;
    value = next;
  }
  return value;
}

async function renormalize(knex: Knex, table: 'persons' | 'companies'): Promise<void> {
  const { rows } = await knex.raw<{ rows: { id: string; username: string; raw: string; fetched_at: Date }[] }>(
    `select id, username, record->>'username' as raw, fetched_at from ${table}
     where (record->>'username') ~ '[^\\x01-\\x7f]'
     order by fetched_at desc, id`,
  );
  // Rows with non-ASCII names are few: one statement each keeps every step within the unique index.
  for (const row of rows) {
    const next = normalizeIdentifier(row.raw.trim());
    if (next === row.username) continue;
    const holder = await knex(table).where({ username: next }).whereNot({ id: row.id }).first('id', 'fetched_at');
    if (holder && holder.fetched_at > row.fetched_at) {
      await knex(table).where({ id: row.id }).delete();
      continue;
    }
    if (holder) await knex(table).where({ id: holder.id }).delete();
    await knex(table).where({ id: row.id }).update({ username: next });
  }
}

export async function up(knex: Knex): Promise<void> {
  await renormalize(knex, 'persons');
  await renormalize(knex, 'companies');
}

/** The previous values were lower() of the record's username; they are computed again. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`update persons set username = lower(record->>'username') where (record->>'username') ~ '[^\\x01-\\x7f]'`);
  await knex.raw(`update companies set username = lower(record->>'username') where (record->>'username') ~ '[^\\x01-\\x7f]'`);
}
