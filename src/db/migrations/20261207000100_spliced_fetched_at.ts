import type { Knex } from 'knex';

/**
 * A re-verification writes two narrow columns, not the record. The stored text (`record`) carries
 * `fetched_at`, so moving it meant compressing and writing the whole 4.7 KB text again (a new TOAST
 * value) even as a HOT update: measured on 1,000 re-verified persons, 76 ms against 24 ms when only
 * the columns move. Now an unchanged record's re-verification (lakeTables.ts touchRecords, realtime's
 * touchUnmovedCopy) sets `fetched_at` and `fetched_at_text`, the exact JSON string value of the new
 * `fetched_at`, and leaves `record` as it was; a write of the whole record sets `fetched_at_text`
 * back to null (the text is current). The served text is the stored one with `fetched_at_text` put
 * in place of the value after its `"fetched_at":"` (model/recordText.ts, where the repositories
 * splice it as they read a row).
 *
 * `lake_record_text(record, fetched_at_text)` is the same splice in SQL, for SQL that reads the lake
 * directly (an operator's query, an export); a test ties it to the TypeScript
 * (test/integration/lake/splicedFetchedAt.test.ts). It works on byte positions (split_part): a
 * character position in UTF-8 text is counted from the start of the text, which made a strpos/substr
 * splice cost about 35 µs a row. PL/pgSQL: opaque to the planner, so a distributed planner never sees
 * a sub-query in it (Citus distributes every `lake_` function, citusLayout.ts).
 *
 * One DDL statement per call (CONVENTIONS: Citus). Adding a nullable column without a default
 * rewrites nothing.
 */
const UP = [
  'alter table persons add column if not exists fetched_at_text text',
  'alter table companies add column if not exists fetched_at_text text',
  `create or replace function lake_record_text(record json, fetched_at_text text) returns text
   language plpgsql immutable parallel safe as $$
   declare
     t text := record::text;
     rest text;
   begin
     if fetched_at_text is null then return t; end if;
     rest := split_part(t, '"fetched_at":"', 2);
     if rest = '' then return t; end if;  -- no such key
     return split_part(t, '"fetched_at":"', 1) || '"fetched_at":"' || fetched_at_text || substr(rest, strpos(rest, '"'));
   end $$`,
];

const DOWN = [
  // The texts first, so no row loses its fetched_at.
  'update persons set record = lake_record_text(record, fetched_at_text)::json, fetched_at_text = null where fetched_at_text is not null',
  'update companies set record = lake_record_text(record, fetched_at_text)::json, fetched_at_text = null where fetched_at_text is not null',
  'drop function if exists lake_record_text(json, text)',
  'alter table companies drop column if exists fetched_at_text',
  'alter table persons drop column if exists fetched_at_text',
];

export async function up(knex: Knex): Promise<void> {
  for (const statement of UP) await knex.raw(statement);
}

export async function down(knex: Knex): Promise<void> {
  for (const statement of DOWN) await knex.raw(statement);
}
