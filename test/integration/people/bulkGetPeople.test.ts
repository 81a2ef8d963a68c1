import { randomUUID } from 'node:crypto';
import { suppress } from '../../../src/domain/lake/suppression';
import { useHarness } from '../../helpers/harness';
import { personRecord, storePersons } from '../../helpers/lakeRecords';
import { queriesDuring } from '../../helpers/queries';

const h = useHarness({ workspaceRateLimit: 10_000 });
const bulk = (body: unknown) => h.post('/api/v1/people/bulk', body, h.key());
const statuses = (res: { body: { results: { status: number }[] } }) => res.body.results.map((r) => r.status);
const dataIds = (res: { body: { results: { data: { id: string } | null }[] } }) => res.body.results.map((r) => r.data?.id ?? null);
/** The statements that read the lake or its tombstones (auth and rate limiting are not counted). */
const lakeQueries = (sqls: string[]) => sqls.filter((sql) => /\b(persons|suppressions)\b/.test(sql));

describe('POST /people/bulk', () => {
  const [priya, marcus] = [personRecord(), personRecord()];
  beforeAll(() => storePersons(h.knex, priya, marcus));

  it('answers in request order, in either letter case, with input {id: <as sent>} and the counts', async () => {
    const ghost = randomUUID();
    const ids = [marcus.id.toUpperCase(), ghost, priya.id, 'not-a-uuid'];
    const res = await bulk({ ids });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { input: unknown }) => r.input)).toEqual(ids.map((id) => ({ id })));
    expect(statuses(res)).toEqual([200, 404, 200, 400]);
    expect(dataIds(res)).toEqual([marcus.id, null, priya.id, null]);
    expect(res.body.results[1]).toMatchObject({ code: 'NOT_FOUND', data: null });
    expect(res.body.results[1].error).toContain(ghost);
    expect(res.body.results[3]).toMatchObject({ code: 'VALIDATION_ERROR', data: null });
    expect(res.body.results[3].error).toMatch(/^ids\[3\]/);
    expect(res.body).toMatchObject({ matched: 2, unmatched: 1, failed: 1 });
  });

  it('answers each record whole, exactly as GET /person does', async () => {
    const res = await bulk({ ids: [priya.id] });
    const single = await h.get(`/api/v1/person?id=${priya.id}`, h.key());
    expect(res.body.results[0]).toMatchObject({ status: 200, code: null, error: null });
    expect(res.body.results[0].data).toEqual(single.body.data);
    expect(Object.keys(res.body.results[0].data)).toEqual(Object.keys(priya));
  });

  it('answers duplicates once per occurrence, the same each time', async () => {
    const ghost = randomUUID();
    const res = await bulk({ ids: [priya.id, ghost, priya.id.toUpperCase(), ghost, 'x', 'x'] });
    expect(statuses(res)).toEqual([200, 404, 200, 404, 400, 400]);
    expect(res.body.results[2].data).toEqual(res.body.results[0].data);
    expect(res.body.results[3]).toEqual(res.body.results[1]);
    // Same outcome; only the error text differs, as it names the position (ids[4], ids[5]).
    for (const i of [4, 5]) expect(res.body.results[i]).toMatchObject({ input: { id: 'x' }, status: 400, code: 'VALIDATION_ERROR', data: null });
    expect(res.body).toMatchObject({ matched: 2, unmatched: 2, failed: 2 });
  });

  it.each([
    ['an empty string', ''],
    ['a number as text', '42'],
    ['a username', priya.username],
    ['a UUID in braces', `{${priya.id}}`],
    ['a UUID without dashes', priya.id.replace(/-/g, '')],
    ['a URN', `urn:uuid:${priya.id}`],
    ['a UUID with spaces around', ` ${priya.id} `],
  ])('400 VALIDATION_ERROR for %s, echoed as sent, while the other IDs answer', async (_name, id) => {
    const res = await bulk({ ids: [marcus.id, id] });
    expect(statuses(res)).toEqual([200, 400]);
    expect(res.body.results[1]).toMatchObject({ input: { id }, code: 'VALIDATION_ERROR', data: null });
    expect(res.body).toMatchObject({ matched: 1, unmatched: 0, failed: 1 });
  });

  it('451 DATA_SUBJECT_BLOCKED per withdrawn ID, while the other IDs answer', async () => {
    const gone = personRecord();
    await storePersons(h.knex, gone);
    expect(statuses(await bulk({ ids: [gone.id] }))).toEqual([200]);
    await suppress(h.knex, 'person', { by: 'username', value: gone.username });
    const ghost = randomUUID();
    const res = await bulk({ ids: [priya.id, gone.id, ghost, gone.id.toUpperCase()] });
    expect(statuses(res)).toEqual([200, 451, 404, 451]);
    expect(res.body.results[1]).toMatchObject({ code: 'DATA_SUBJECT_BLOCKED', data: null });
    expect(res.body).toMatchObject({ matched: 1, unmatched: 1, failed: 2 });
  });

  it('accepts exactly 500 IDs and answers 500 full records, in order, with one lake query', async () => {
    const records = Array.from({ length: 500 }, () => personRecord());
    await storePersons(h.knex, ...records);
    let res!: Awaited<ReturnType<typeof bulk>>;
    const sqls = await queriesDuring(h.knex, async () => {
      res = await bulk({ ids: records.map((r) => r.id) });
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ matched: 500, unmatched: 0, failed: 0 });
    expect(dataIds(res)).toEqual(records.map((r) => r.id));
    expect(res.body.results[499].data).toEqual(records[499]);
    expect(lakeQueries(sqls)).toHaveLength(1);
  });

  it.each([
    ['501 IDs', () => ({ ids: Array.from({ length: 501 }, () => randomUUID()) })],
    ['no IDs', () => ({ ids: [] })],
    ['ids missing', () => ({})],
    ['a non-string ID', () => ({ ids: [priya.id, 42] })],
    ['a null ID', () => ({ ids: [null] })],
    ['an unknown field', () => ({ ids: [priya.id], fields: 'all' })],
    ['ids that is not an array', () => ({ ids: priya.id })],
  ])('whole-request 400 for %s, before any lookup', async (_name, body) => {
    const sqls = await queriesDuring(h.knex, async () => {
      const res = await bulk(body());
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    });
    expect(lakeQueries(sqls)).toEqual([]);
  });

  it('costs the same queries for 1 ID as for 500: one for the records, one for the withdrawn among the misses', async () => {
    const gone = personRecord();
    await storePersons(h.knex, gone);
    await suppress(h.knex, 'person', { by: 'id', value: gone.id });
    const mixed = Array.from({ length: 500 }, (_, i) => [priya.id, marcus.id, gone.id, randomUUID(), 'bad'][i % 5]);
    const cases = {
      oneMiss: [randomUUID()],
      manyMixed: mixed,
      oneHit: [priya.id],
      manyHits: mixed.filter((_, i) => i % 5 < 2),
      onlyInvalid: ['bad', ''],
    };
    const counts: Record<string, number> = {};
    for (const [name, ids] of Object.entries(cases)) {
      const sqls = await queriesDuring(h.knex, async () => expect((await bulk({ ids })).status).toBe(200));
      counts[name] = lakeQueries(sqls).length;
    }
    expect(counts).toEqual({ oneMiss: 2, manyMixed: 2, oneHit: 1, manyHits: 1, onlyInvalid: 0 });
  });
});
