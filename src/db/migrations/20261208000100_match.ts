import type { Knex } from 'knex';

/**
 * Matching (issue 33): the keys candidate search blocks on, each served by an index, so a match
 * never scans the lake. `pg_trgm` and `unaccent` ship with PostgreSQL (Debian's postgresql-15 and
 * the embedded server alike) and are trusted extensions: the database owner may create them.
 *
 * The SQL rules here have TypeScript twins in domain/match/normalize.ts (`fold`, `nameKey`,
 * `companyKey`, `webHost`), tied by test/integration/match/foldTwin.test.ts:
 * - `lake_fold(t)`: unaccent, lower case, every run of non-alphanumerics one space, trimmed.
 * - `lake_name_key(full_name)`: the last word of the folded name that is not a suffix (Jr, PhD).
 * - `lake_company_key(name)`: folded, `&` as `and`, abbreviations spelt out, legal forms and
 *   fillers removed (Acme Corp. = ACME Corporation = acme).
 * - `lake_web_host(website)`: the website's host without `www.`.
 * PL/pgSQL where a body has a sub-query: opaque to a distributed planner (citusLayout.ts
 * distributes every `lake_` function). One statement per call (migrations/statements.ts).
 */
const LEGAL = [
  'inc', 'incorporated', 'corp', 'corporation', 'co', 'company', 'llc', 'ltd', 'limited', 'plc', 'gmbh', 'ag', 'kg', 'sa', 'sas',
  'sarl', 'srl', 'spa', 'bv', 'nv', 'oy', 'oyj', 'ab', 'as', 'asa', 'aps', 'kk', 'pty', 'pte', 'lp', 'llp', 'pc', 'se', 'sl',
  'the', 'and',
];
const ABBREVIATIONS: Record<string, string> = {
  intl: 'international', tech: 'technologies', technology: 'technologies', sys: 'systems', svcs: 'services', mfg: 'manufacturing',
  assoc: 'associates', bros: 'brothers', natl: 'national', grp: 'group', hldgs: 'holdings', labs: 'laboratories', lab: 'laboratories',
  ctr: 'center', centre: 'center', univ: 'university', mgmt: 'management',
};
const NAME_SUFFIXES = ['jr', 'sr', 'ii', 'iii', 'iv', 'phd', 'md', 'mba', 'cpa', 'pmp', 'esq', 'dds', 'msc', 'bsc'];

const list = (words: readonly string[]) => `array[${words.map((w) => `'${w}'`).join(', ')}]::text[]`;
const abbreviationCase = (w: string) =>
  `case ${w} ${Object.entries(ABBREVIATIONS)
    .map(([a, f]) => `when '${a}' then '${f}'`)
    .join(' ')} else ${w} end`;

export const MATCH_LEGAL_WORDS = LEGAL;
export const MATCH_ABBREVIATIONS = ABBREVIATIONS;
export const MATCH_NAME_SUFFIXES = NAME_SUFFIXES;

async function unaccentSchema(knex: Knex): Promise<string> {
  const row = (await knex.raw(`select n.nspname from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'unaccent'`))
    .rows[0] as { nspname: string } | undefined;
  return row?.nspname ?? 'public';
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw('create extension if not exists pg_trgm');
  await knex.raw('create extension if not exists unaccent');
  const schema = (await unaccentSchema(knex)).replace(/"/g, '""');
  // Where these functions are created: the bodies that call lake_fold name it with its schema,
  // because PostgreSQL 17 and later evaluate index expressions under a search_path of pg_catalog
  // only during CREATE INDEX, REINDEX, VACUUM and ANALYZE (an unqualified call fails there, as an
  // initial load's index rebuild on the embedded PostgreSQL 18 showed).
  const own = ((await knex.raw('select current_schema() as s')).rows[0] as { s: string }).s.replace(/"/g, '""');
  const fold = `"${own}".lake_fold`;
  // The dictionary named explicitly: the one-argument unaccent() depends on search_path and is
  // only stable, which an index expression may not use.
  await knex.raw(`create or replace function lake_fold(t text) returns text language sql immutable parallel safe strict as $$
    select btrim(regexp_replace(lower("${schema}".unaccent('"${schema}".unaccent'::regdictionary, t)), '[^a-z0-9]+', ' ', 'g'))
  $$`);
  await knex.raw(`create or replace function lake_name_key(full_name text) returns text
    language plpgsql immutable parallel safe strict as $$
    declare w text[] := string_to_array(${fold}(full_name), ' ');
    begin
      for i in reverse coalesce(array_length(w, 1), 0) .. 1 loop
        if w[i] <> '' and not (w[i] = any(${list(NAME_SUFFIXES)})) then return w[i]; end if;
      end loop;
      return null;
    end $$`);
  await knex.raw(`create or replace function lake_company_key(name text) returns text
    language plpgsql immutable parallel safe strict as $$
    declare
      w text;
      m text;
      kept text[] := '{}';
    begin
      foreach w in array string_to_array(${fold}(replace(name, '&', ' and ')), ' ') loop
        m := ${abbreviationCase('w')};
        if m <> '' and not (m = any(${list(LEGAL)})) then kept := kept || m; end if;
      end loop;
      if cardinality(kept) = 0 then return ${fold}(name); end if;
      return array_to_string(kept, ' ');
    end $$`);
  // `\\?` is knex's escape of a question mark (it would read `?` as a binding).
  await knex.raw(`create or replace function lake_web_host(website text) returns text language sql immutable parallel safe strict as $$
    select nullif(rtrim(regexp_replace(lower(substring(website from '^(\\?:[A-Za-z][A-Za-z0-9+.-]*://)\\?([^/\\?#:]+)')), '^www\\.', ''), '.'), '')
  $$`);
  // Person candidates by name key, alone or at one employer (the email and company arms).
  await knex.raw('create index if not exists persons_match_name_key on persons (lake_name_key(full_name), current_company_id)');
  // Person candidates by trigram similarity of the folded name (typos in the last name).
  await knex.raw('create index if not exists persons_match_name_trgm on persons using gin (lake_fold(full_name) gin_trgm_ops)');
  // Company candidates: by name key, by its trigrams (similar names), by website host.
  await knex.raw('create index if not exists companies_match_key on companies (lake_company_key(name))');
  await knex.raw('create index if not exists companies_match_key_trgm on companies using gin (lake_company_key(name) gin_trgm_ops)');
  await knex.raw(`create index if not exists companies_match_host on companies (lake_web_host(record->>'website'))`);
  // A company's former names: the renames the change log recorded (a withdrawn subject's entries
  // lose their subject_id, so they drop out of this index's rows).
  await knex.raw(`create index if not exists change_log_former_company_names on change_log (lake_company_key(diff->>'old_name'))
    where kind = 'company' and event = 'company.name_changed' and subject_id is not null`);
}

export async function down(knex: Knex): Promise<void> {
  for (const index of [
    'change_log_former_company_names', 'companies_match_host', 'companies_match_key_trgm', 'companies_match_key',
    'persons_match_name_trgm', 'persons_match_name_key',
  ]) {
    await knex.raw(`drop index if exists ${index}`);
  }
  for (const fn of ['lake_web_host(text)', 'lake_company_key(text)', 'lake_name_key(text)', 'lake_fold(text)']) {
    await knex.raw(`drop function if exists ${fn}`);
  }
}
