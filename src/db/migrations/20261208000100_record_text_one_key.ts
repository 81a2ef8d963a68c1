import type { Knex } from 'knex';

/**
 * `lake_record_text` (migration 20261207000100_spliced_fetched_at, never edited) agrees with its
 * TypeScript twin, `spliceFetchedAt` in model/recordText.ts, on every text (issue 32, row 17). The
 * first version spliced at the first `"fetched_at":"` and cut the text short when the key appears
 * twice (a nested `projects[].fetched_at`), where the twin refuses to splice and serves the stored
 * text; and it spliced a value JSON would escape, which the twin refuses too. Now both answer the
 * stored text in these cases. `split_part(t, key, 3)` is the text after a second key: empty when
 * there is none (after a key in JSON text come a value and a closing brace, so never empty when
 * there is one). Byte positions only, as before (split_part): no character counting.
 * A test ties the twins on such records (test/integration/lake/splicedFetchedAt.test.ts).
 * One DDL statement per call (CONVENTIONS: Citus).
 */
const UP = `create or replace function lake_record_text(record json, fetched_at_text text) returns text
   language plpgsql immutable parallel safe as $$
   declare
     t text := record::text;
     rest text;
   begin
     if fetched_at_text is null then return t; end if;
     -- A value JSON.stringify would escape: the twin does not splice it (NEEDS_ESCAPE).
     if fetched_at_text ~ '["\\\\\\x01-\\x1f]' then return t; end if;
     rest := split_part(t, '"fetched_at":"', 2);
     if rest = '' then return t; end if;  -- no such key
     if split_part(t, '"fetched_at":"', 3) <> '' then return t; end if;  -- more than one
     return split_part(t, '"fetched_at":"', 1) || '"fetched_at":"' || fetched_at_text || substr(rest, strpos(rest, '"'));
   end $$`;

/** The first version, as migration 20261207000100 created it. */
const DOWN = `create or replace function lake_record_text(record json, fetched_at_text text) returns text
   language plpgsql immutable parallel safe as $$
   declare
     t text := record::text;
     rest text;
   begin
     if fetched_at_text is null then return t; end if;
     rest := split_part(t, '"fetched_at":"', 2);
     if rest = '' then return t; end if;  -- no such key
     return split_part(t, '"fetched_at":"', 1) || '"fetched_at":"' || fetched_at_text || substr(rest, strpos(rest, '"'));
   end $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(UP);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(DOWN);
}
