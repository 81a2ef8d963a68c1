/**
 * `enrich import --initial-load`: into an empty lake (a database of its own, so "empty" is true),
 * the same validation, reports, withdrawals and change log as any import, the secondary indexes set
 * aside during the load and built again, identical, before it commits; refused into a lake that
 * already holds records, with nothing written and nothing dropped.
 */
import { suppress } from '../../../src/domain/lake/suppression';
import { enrichWith } from '../../helpers/cli';
import { useLakeWorld } from '../../helpers/lakeWorld';
import { useNdjsonFiles } from '../../helpers/ndjson';
import { personRecord } from '../../helpers/lakeRecords';

const lw = useLakeWorld();
const { file } = useNdjsonFiles('enrich-initial-load');

const cli = (...args: string[]) => enrichWith({ DATABASE_URL: lw.url }, 'import', ...args);

/** Every index of the person tables with its definition, as the catalog has it. */
async function personIndexes(): Promise<string[]> {
  const { rows } = await lw.h.knex.raw<{ rows: { def: string }[] }>(
    `select indexdef as def from pg_indexes
     where tablename in ('persons', 'person_positions', 'person_educations', 'person_refresh') order by indexname`,
  );
  return rows.map((r) => r.def);
}

const count = async (sql: string, bindings: string[] = []) =>
  Number((await lw.h.knex.raw<{ rows: { n: string }[] }>(sql, bindings)).rows[0].n);

describe('enrich import --initial-load', () => {
  it('into an empty lake: lines validated and reported as usual, withdrawals refused, replacements logged, indexes rebuilt', async () => {
    const indexes = await personIndexes();
    expect(indexes.length).toBeGreaterThan(20);
    const records = Array.from({ length: 130 }, () => personRecord());
    const withdrawn = personRecord();
    await suppress(lw.h.knex, 'person', { by: 'username', value: withdrawn.username });
    // The same person again in a later batch, with a new title: replaced, and the change logged.
    const promoted = { ...records[0], current_title: `${records[0].current_title} (promoted)` };
    const lines: unknown[] = [...records.slice(0, 60), '{"not": "a person"}', withdrawn, ...records.slice(60), promoted];
    const res = await cli('persons', file(lines), '--initial-load', '--batch-size', '50', '--json');
    expect(res.code).toBe(2); // one line skipped
    expect(JSON.parse(res.stdout)).toMatchObject({
      lines: lines.length,
      written: 131,
      invalid: 1,
      withdrawn: 1,
      complete: true,
      errors: [{ line: 61 }],
    });

    expect(await count('select count(*) as n from persons')).toBe(130);
    const served = await lw.h.get(`/api/v1/person?id=${records[0].id}`, lw.key);
    expect(served.body.data).toEqual(promoted);
    expect((await lw.h.get(`/api/v1/person?id=${records[129].id}`, lw.key)).body.data).toEqual(records[129]);
    expect((await lw.h.get(`/api/v1/person?username=${withdrawn.username}`, lw.key)).status).toBe(451);
    expect(await count("select count(*) as n from change_log where subject_id = ? and event = 'person.title_changed'", [records[0].id])).toBe(1);
    // Positions were written for every person (the index tables are filled by the same upsert).
    expect(await count('select count(distinct person_id) as n from person_positions')).toBe(130);
    expect(await personIndexes()).toEqual(indexes);
    // The lists that walk the rebuilt indexes answer: the search by title finds the promoted title.
    const search = await lw.h.post('/api/v1/people/search', { title: 'promoted' }, lw.key);
    expect(search.status).toBe(200);
    expect((search.body.results as { id: string }[]).map((hit) => hit.id)).toEqual([records[0].id]);
  });

  it('into a lake that holds records: refused (exit 1), nothing written, no index dropped', async () => {
    const indexes = await personIndexes();
    const before = await count('select count(*) as n from persons');
    expect(before).toBeGreaterThan(0);
    const res = await cli('persons', file([personRecord()]), '--initial-load', '--json');
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/--initial-load: the lake already holds person records/);
    expect(await count('select count(*) as n from persons')).toBe(before);
    expect(await personIndexes()).toEqual(indexes);
  });
});
