import type { Knex } from 'knex';
import { MATCH_ABBREVIATIONS, MATCH_LEGAL_WORDS } from './20261208000100_match';

/**
 * The company key knows more of the forms real lists write (issue 33: the company match's
 * calibration at 1M). Measured on the bench's query sets, three kinds of names were answered with a
 * confident likelihood by the wrong company:
 * - a dotted legal form was kept as letters ("Deck College S.L." keyed "deck college s l"), so a
 *   query without it met only the one company whose name had no form, alone and so at 0.99, while
 *   two more companies wear the same name: now a run of one-letter words is one word ("sl"), which
 *   the legal forms then drop;
 * - legal forms missing from the list: Ltda (Brazil), Pvt and "Private Limited" (India);
 * - abbreviations missing from the list: Cons., Comms, Ins., Inv., Fin., Sol., HC ("Walker Cons."
 *   met "Walker & Co." as a close name, at 0.94).
 * `lake_company_key` is replaced with these rules (its TypeScript twin, `companyKey` in
 * domain/match/normalize.ts, changes with it; test/integration/match/foldTwin.test.ts ties them),
 * and the three indexes on it are built again (their stored keys were computed by the old body).
 * One DDL statement per call.
 */
const LEGAL = [...MATCH_LEGAL_WORDS, 'ltda', 'pvt'];
const ABBREVIATIONS: Record<string, string> = {
  ...MATCH_ABBREVIATIONS,
  sol: 'solutions', fin: 'financial', ins: 'insurance', comms: 'communications', hc: 'healthcare', inv: 'investments',
  cons: 'consulting',
};
export const COMPANY_KEY_LEGAL_WORDS = LEGAL;
export const COMPANY_KEY_ABBREVIATIONS = ABBREVIATIONS;

const list = (words: readonly string[]) => `array[${words.map((w) => `'${w}'`).join(', ')}]::text[]`;
const abbreviationCase = (w: string) =>
  `case ${w} ${Object.entries(ABBREVIATIONS)
    .map(([a, f]) => `when '${a}' then '${f}'`)
    .join(' ')} else ${w} end`;

const INDEXES = [
  ['companies_match_key', 'create index companies_match_key on companies (lake_company_key(name))'],
  ['companies_match_key_trgm', 'create index companies_match_key_trgm on companies using gin (lake_company_key(name) gin_trgm_ops)'],
  [
    'change_log_former_company_names',
    `create index change_log_former_company_names on change_log (lake_company_key(diff->>'old_name'))
      where kind = 'company' and event = 'company.name_changed' and subject_id is not null`,
  ],
] as const;

export async function up(knex: Knex): Promise<void> {
  const own = ((await knex.raw('select current_schema() as s')).rows[0] as { s: string }).s.replace(/"/g, '""');
  const fold = `"${own}".lake_fold`;
  await knex.raw(`create or replace function lake_company_key(name text) returns text
    language plpgsql immutable parallel safe strict as $$
    declare
      w text;
      m text;
      single boolean := false;
      merged text[] := '{}';
      kept text[] := '{}';
      n integer;
    begin
      foreach w in array string_to_array(${fold}(replace(name, '&', ' and ')), ' ') loop
        if w = '' then continue; end if;
        if length(w) = 1 and single then
          merged[cardinality(merged)] := merged[cardinality(merged)] || w;
        else
          merged := merged || w;
        end if;
        single := length(w) = 1;
      end loop;
      n := cardinality(merged);
      for i in 1 .. n loop
        m := ${abbreviationCase('merged[i]')};
        if m = 'private' and i < n and merged[i + 1] in ('limited', 'ltd') then continue; end if;
        if not (m = any(${list(LEGAL)})) then kept := kept || m; end if;
      end loop;
      if cardinality(kept) = 0 then return ${fold}(name); end if;
      return array_to_string(kept, ' ');
    end $$`);
  for (const [name, create] of INDEXES) {
    await knex.raw(`drop index if exists ${name}`);
    await knex.raw(create);
  }
}

export async function down(): Promise<void> {
  // Not reversed: the previous key would need its three indexes built again too; the keys it
  // drops (forms, abbreviations) only ever join names that already meant the same company.
}
