/**
 * A re-verified record keeps its stored text: only `fetched_at` and `fetched_at_text` move, and every
 * read puts the new value into the text (model/recordText.ts; its SQL twin lake_record_text,
 * migration 20261207000100_spliced_fetched_at). Checked here: the twins agree
 * on awkward texts; a re-verification writes no new TOAST value (counted by PostgreSQL for the
 * test's own transaction) yet every read path serves the text the whole record would have had; a
 * changed record is stored whole again.
 */
import type { Knex } from 'knex';
import { findPersonJson } from '../../../src/db/repositories/personRecords';
import { spliceFetchedAt } from '../../../src/model/recordText';
import { writeRecords } from '../../../src/domain/lake/write/writer';
import type { PersonRecord } from '../../../src/model/records';
import { onCitus } from '../../helpers/clusterDatabase';
import { companyRecord, personRecord, SERVED_RECORD } from '../../helpers/lakeRecords';
import { useLakeWorld } from '../../helpers/lakeWorld';

const lake = useLakeWorld();

const A = '2026-10-01T08:00:00.000Z';
const B = '2026-11-20T09:30:00.000Z';

/** Skills enough that the record is stored out of line (TOAST), as real profiles are (~4.7 KB). */
const large = (overrides: Partial<PersonRecord> = {}) =>
  personRecord({
    fetched_at: A,
    skills: Array.from({ length: 300 }, (_, i) => ({ name: `Skill number ${i} of a long list`, endorsementsCount: i, passedSkillAssessment: false })),
    ...overrides,
  });

async function sqlSplice(text: string, value: string | null): Promise<string> {
  const { rows } = await lake.h.knex.raw('select lake_record_text(?::json, ?::text) as t', [text, value]);
  return rows[0].t;
}

describe('lake_record_text and its twin spliceFetchedAt', () => {
  const texts = [
    JSON.stringify(personRecord({ fetched_at: A })),
    JSON.stringify({ fetched_at: A, full_name: 'First key' }),
    JSON.stringify({ full_name: 'Quote " and \\"fetched_at\\":\\"x\\" inside a value', fetched_at: A }),
    JSON.stringify({ full_name: 'Ünïcödé 👩🏽‍💻 Ωμέγα 中文', headline: '"fetched_at":"not a key"', fetched_at: A, tail: 'ok' }),
    JSON.stringify({ full_name: '\u0000\u001f\u2028 controls', fetched_at: '2026-10-01T08:00:00Z' }),
  ];
  const values = [B, '2026-11-20T09:30:00Z', '2026-11-20T11:30:00+02:00'];

  it('computes the same text, the record with the new fetched_at, on every text the splice stands for', async () => {
    let compared = 0;
    for (const text of texts) {
      expect(await sqlSplice(text, null)).toBe(text);
      for (const value of values) {
        const spliced = spliceFetchedAt(text, value);
        expect(spliced).toBeDefined();
        expect(JSON.parse(spliced!)).toEqual({ ...JSON.parse(text), fetched_at: value });
        expect(await sqlSplice(text, value)).toBe(spliced);
        compared++;
      }
    }
    expect(compared).toBe(texts.length * values.length);
  });

  it('both serve the stored text where the splice cannot stand for the record: a second key (a nested projects[].fetched_at), a value JSON would escape (issue 32, row 17)', async () => {
    const nested = JSON.stringify(personRecord({ fetched_at: A, projects: { title: 'Lake', fetched_at: A } }));
    const keyFirst = JSON.stringify({ fetched_at: A, projects: [{ title: 'x', fetched_at: A }, { fetched_at: A }], tail: 'ok' });
    const keyLast = JSON.stringify({ projects: [{ fetched_at: A }], fetched_at: A });
    for (const text of [nested, keyFirst, keyLast]) {
      expect(text.split('"fetched_at":"').length).toBeGreaterThan(2);
      for (const value of values) {
        expect(spliceFetchedAt(text, value)).toBeUndefined();
        // What every read serves (servedText): the stored text; the SQL twin the same, whole.
        expect(await sqlSplice(text, value)).toBe(text);
      }
    }
    for (const value of ['a"b', 'a\\b', 'a\nb', 'a\u0001b']) {
      const text = JSON.stringify({ fetched_at: A });
      expect(spliceFetchedAt(text, value)).toBeUndefined();
      expect(await sqlSplice(text, value)).toBe(text);
    }
  });

  it('stands for nothing else: no key, a second key, a value JSON would escape', () => {
    expect(spliceFetchedAt(JSON.stringify({ full_name: 'x' }), B)).toBeUndefined();
    expect(spliceFetchedAt(JSON.stringify({ fetched_at: A, extra: { fetched_at: A } }), B)).toBeUndefined();
    expect(spliceFetchedAt(JSON.stringify({ fetched_at: A }), 'a"b')).toBeUndefined();
    expect(spliceFetchedAt(JSON.stringify({ fetched_at: A }), 'a\\b')).toBeUndefined();
    expect(spliceFetchedAt(JSON.stringify({ fetched_at: A }), 'a\nb')).toBeUndefined();
  });
});

/** What `write` inserted into the persons table's TOAST table, counted for this transaction only. */
async function toastInserts(db: Knex, write: (trx: Knex.Transaction) => Promise<unknown>): Promise<number> {
  const count = async (trx: Knex.Transaction) =>
    Number(
      (await trx.raw("select pg_stat_get_xact_tuples_inserted(reltoastrelid)::int as n from pg_class where oid = 'persons'::regclass")).rows[0].n,
    );
  return db.transaction(async (trx) => {
    const before = await count(trx);
    await write(trx);
    return (await count(trx)) - before;
  });
}

const raw = async (id: string) =>
  (await lake.h.knex('persons').where({ id }).first(lake.h.knex.raw('record::text as record'), 'fetched_at_text', 'fetched_at')) as {
    record: string;
    fetched_at_text: string | null;
    fetched_at: Date;
  };

// The TOAST counters are the coordinator's; on the distributed layout the rows live in the workers' shards.
(onCitus() ? describe.skip : describe)('a re-verification of an unchanged record', () => {
  it('writes no new record text, and every read serves the text with the new fetched_at', async () => {
    const person = large();
    await lake.addPersons(person);
    const stored = await raw(person.id);
    const changed = { ...person, headline: 'A changed headline' };
    // The anchor: a changed record's text is written out of line (so the counter sees it).
    expect(await toastInserts(lake.h.knex, (trx) => writeRecords(trx, 'person', [changed]))).toBeGreaterThan(0);
    const reverified = { ...changed, fetched_at: B };
    expect(await toastInserts(lake.h.knex, (trx) => writeRecords(trx, 'person', [reverified]))).toBe(0);

    const row = await raw(person.id);
    expect(row.fetched_at.toISOString()).toBe(B);
    expect(row.fetched_at_text).toBe(B);
    expect(row.record).not.toBe(stored.record);
    expect(JSON.parse(row.record).fetched_at).toBe(A);

    const expected = JSON.stringify(reverified);
    expect(await findPersonJson(lake.h.knex, 'id', person.id)).toBe(expected);
    const one = await lake.h.get(`/api/v1/person?username=${person.username}`, lake.key);
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual(reverified);
    const bulk = await lake.h.post('/api/v1/people/bulk', { ids: [person.id] }, lake.key);
    expect(bulk.status).toBe(200);
    expect(JSON.stringify(bulk.body)).toContain(expected);
    const check = await lake.h.get(`/api/v1/person/check?username=${person.username}`, lake.key);
    expect(check.body.data.fetched_at).toBe(B);
    const search = await lake.h.post('/api/v1/people/search', { company_id: person.current_company_id, per_page: 100 }, lake.key);
    expect(search.status).toBe(200);
    expect(search.body.results.find((hit: { id: string }) => hit.id === person.id)?.fetched_at).toBe(B);
    // SQL that reads the lake directly gets the same text through the twin.
    const { rows } = await lake.h.knex.raw(`select ${SERVED_RECORD} as t from persons where id = ?`, [person.id]);
    expect(rows[0].t).toBe(expected);
  });

  it('a second re-verification splices again; a change stores the whole text and clears the splice', async () => {
    const person = large();
    await lake.addPersons(person);
    await writeRecords(lake.h.knex, 'person', [{ ...person, fetched_at: B }]);
    const C = '2026-11-21T10:00:00.000Z';
    expect(await toastInserts(lake.h.knex, (trx) => writeRecords(trx, 'person', [{ ...person, fetched_at: C }]))).toBe(0);
    expect((await raw(person.id)).fetched_at_text).toBe(C);
    expect(await findPersonJson(lake.h.knex, 'id', person.id)).toBe(JSON.stringify({ ...person, fetched_at: C }));

    const D = '2026-11-22T10:00:00.000Z';
    const outcome = await writeRecords(lake.h.knex, 'person', [{ ...person, headline: 'A new headline', fetched_at: D }]);
    expect(outcome).toMatchObject({ written: 1, unchanged: 0 });
    const row = await raw(person.id);
    expect(row.fetched_at_text).toBeNull();
    expect(row.record).toBe(JSON.stringify({ ...person, headline: 'A new headline', fetched_at: D }));
  });

  it('the change log compares against the served text: a re-verified record re-verified again logs nothing', async () => {
    const person = large();
    await lake.addPersons(person);
    await writeRecords(lake.h.knex, 'person', [{ ...person, fetched_at: B }]);
    const again = await writeRecords(lake.h.knex, 'person', [{ ...person, fetched_at: B }]);
    expect(again).toMatchObject({ written: 1, unchanged: 1, changes: [] });
  });

  it('a company too: the lookup serves the new fetched_at', async () => {
    const company = companyRecord({ fetched_at: A });
    await lake.addCompanies(company);
    await writeRecords(lake.h.knex, 'company', [{ ...company, fetched_at: B }]);
    const row = await lake.h.knex('companies').where({ id: company.id }).first('fetched_at_text');
    expect(row.fetched_at_text).toBe(B);
    const res = await lake.h.get(`/api/v1/company?company_id=${company.company_id}`, lake.key);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ ...company, fetched_at: B });
    const search = await lake.h.post('/api/v1/companies/search', { name: company.name, per_page: 100 }, lake.key);
    expect(search.status).toBe(200);
    expect(search.body.results.find((hit: { id: string }) => hit.id === company.id)?.fetched_at).toBe(B);
  });
});
