import { randomUUID } from 'node:crypto';
import { suppress } from '../../../src/domain/lake/suppression';
import { useHarness } from '../../helpers/harness';
import { personRecord, storePersons } from '../../helpers/lakeRecords';
import { queriesDuring } from '../../helpers/queries';

const h = useHarness({ workspaceRateLimit: 10_000 });
const enrich = (body: unknown) => h.post('/api/v1/people/bulk-enrich', body, h.key());
const statuses = (res: { body: { results: { status: number }[] } }) => res.body.results.map((r) => r.status);
const ghostUsername = () => `nobody-${randomUUID()}`;
/** The statements that read the lake or its tombstones (auth and rate limiting are not counted). */
const lakeQueries = (sqls: string[]) => sqls.filter((sql) => /\b(persons|suppressions)\b/.test(sql));

describe('POST /people/bulk-enrich', () => {
  const [priya, marcus, elin] = [personRecord(), personRecord(), personRecord()];
  beforeAll(() => storePersons(h.knex, priya, marcus, elin));

  it('answers mixed identifiers in request order, echoes each input, and counts the outcomes', async () => {
    const profiles = [
      { network_url: `https://www.linkedin.com/in/${priya.username}/` },
      { username: marcus.username.toUpperCase() },
      { id: elin.id.toUpperCase() },
      { username: ghostUsername() },
      { network_url: `HTTPS://UK.LINKEDIN.COM/IN/${elin.username}//?trk=x#top` },
      { network_url: 'https://www.linkedin.com/company/northwind-analytics' },
      { network_url: `www.linkedin.com/in/${marcus.username}` },
    ];
    const res = await enrich({ profiles });
    expect(res.status).toBe(200);
    expect(statuses(res)).toEqual([200, 200, 200, 404, 200, 400, 200]);
    expect(res.body.results.map((r: { input: unknown }) => r.input)).toEqual(profiles);
    expect(res.body.results.map((r: { data: { id: string } | null }) => r.data?.id ?? null)).toEqual([
      priya.id, marcus.id, elin.id, null, elin.id, null, marcus.id,
    ]);
    expect(res.body).toMatchObject({ matched: 5, unmatched: 1, failed: 1 });
    expect(res.body.results[3]).toMatchObject({ code: 'NOT_FOUND', data: null });
    expect(res.body.results[5]).toMatchObject({ code: 'VALIDATION_ERROR', data: null });
    expect(res.body.results[5].error).toMatch(/profiles\[5\]: network_url/);
    for (const i of [0, 1, 2, 4, 6]) expect(res.body.results[i]).toMatchObject({ status: 200, code: null, error: null });
  });

  it('answers each record whole, exactly as GET /person does', async () => {
    const res = await enrich({ profiles: [{ username: priya.username }] });
    const single = await h.get(`/api/v1/person?username=${priya.username}`, h.key());
    expect(res.body.results[0].data).toEqual(single.body.data);
    expect(res.body.results[0].data).toEqual(priya);
    // The stored text is spliced in as is: fields keep the record's order, not a re-serialized one.
    expect(Object.keys(res.body.results[0].data)).toEqual(Object.keys(single.body.data));
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('uses the first present of network_url, username and id, with no fallback to the next', async () => {
    const res = await enrich({
      profiles: [
        { id: marcus.id, username: priya.username },
        { username: marcus.username, network_url: priya.network_url },
        { network_url: priya.network_url, username: marcus.username, id: elin.id },
        { username: ghostUsername(), id: priya.id },
      ],
    });
    expect(res.body.results.map((r: { data: { id: string } | null }) => r.data?.id ?? null)).toEqual([priya.id, priya.id, priya.id, null]);
    expect(statuses(res)).toEqual([200, 200, 200, 404]);
  });

  it('answers duplicates once per occurrence, the same each time', async () => {
    const ghost = { id: randomUUID() };
    const profiles = [{ username: priya.username }, ghost, { username: priya.username }, ghost, { network_url: priya.network_url }];
    const res = await enrich({ profiles });
    expect(statuses(res)).toEqual([200, 404, 200, 404, 200]);
    expect(res.body.results[2]).toEqual(res.body.results[0]);
    expect(res.body.results[3]).toEqual(res.body.results[1]);
    expect(res.body).toMatchObject({ matched: 3, unmatched: 2, failed: 0 });
  });

  describe('400 VALIDATION_ERROR per item, while the other items are answered', () => {
    const url = (slug: string) => `https://www.linkedin.com/in/${slug}`;
    const cases: [string, Record<string, string>][] = [
      ['no identifier', {}],
      ['an empty network_url', { network_url: '' }],
      ['a network_url over 2048 characters', { network_url: `${url(priya.username)}?q=${'x'.repeat(2048)}` }],
      ['a company URL', { network_url: 'https://www.linkedin.com/company/northwind-analytics/' }],
      ['another host', { network_url: 'https://example.com/in/priya-raman' }],
      ['a URL without a slug', { network_url: 'https://www.linkedin.com/in/' }],
      ['a network_url that is not a URL', { network_url: 'priya-raman' }],
      ['an empty username', { username: '' }],
      ['a blank username', { username: '   ' }],
      ['a username over 200 characters', { username: 'a'.repeat(201) }],
      ['an id that is not a UUID', { id: '42' }],
      ['a UUID with extra text', { id: `${priya.id}x` }],
      // As in GET /person, an identifier that is present must be well-formed even when an earlier one is used.
      ['a malformed id next to a good username', { username: priya.username, id: 'nope' }],
    ];

    it.each(cases)('%s', async (_name, item) => {
      const res = await enrich({ profiles: [{ username: priya.username }, item, { id: marcus.id }] });
      expect(res.status).toBe(200);
      expect(statuses(res)).toEqual([200, 400, 200]);
      expect(res.body.results[1]).toMatchObject({ input: item, code: 'VALIDATION_ERROR', data: null });
      expect(res.body.results[1].error).toMatch(/^profiles\[1\]/);
      expect(res.body).toMatchObject({ matched: 2, unmatched: 0, failed: 1 });
    });

    it('all of them in one request: each answered at its place', async () => {
      const items = cases.map(([, item]) => item);
      const res = await enrich({ profiles: [...items, { username: elin.username }] });
      expect(statuses(res)).toEqual([...items.map(() => 400), 200]);
      expect(res.body).toMatchObject({ matched: 1, unmatched: 0, failed: items.length });
    });

    it('the limits themselves are accepted: a 2048-character URL and a 200-character username', async () => {
      const longUrl = `${url(priya.username)}?q=`;
      const res = await enrich({
        profiles: [{ network_url: longUrl + 'x'.repeat(2048 - longUrl.length) }, { username: 'b'.repeat(200) }],
      });
      expect(statuses(res)).toEqual([200, 404]);
    });
  });

  it('404 NOT_FOUND for a profile the lake does not hold, by every identifier', async () => {
    const ghost = personRecord();
    const res = await enrich({ profiles: [{ username: ghost.username }, { id: ghost.id }, { network_url: ghost.network_url }] });
    expect(statuses(res)).toEqual([404, 404, 404]);
    expect(res.body).toMatchObject({ matched: 0, unmatched: 3, failed: 0 });
  });

  it('451 DATA_SUBJECT_BLOCKED per withdrawn item, by every identifier, while the other items answer', async () => {
    const gone = personRecord();
    const kept = personRecord();
    await storePersons(h.knex, gone, kept);
    await suppress(h.knex, 'person', { by: 'id', value: gone.id });
    // A profile blocked before it was ever indexed is withdrawn too.
    const neverIndexed = ghostUsername();
    await suppress(h.knex, 'person', { by: 'username', value: neverIndexed });
    const res = await enrich({
      profiles: [
        { username: gone.username.toUpperCase() },
        { username: kept.username },
        { id: gone.id },
        { network_url: `http://uk.linkedin.com/in/${gone.username}?x=1` },
        { username: ghostUsername() },
        { network_url: `https://www.linkedin.com/in/${neverIndexed}/` },
      ],
    });
    expect(statuses(res)).toEqual([451, 200, 451, 451, 404, 451]);
    for (const i of [0, 2, 3, 5]) expect(res.body.results[i]).toMatchObject({ code: 'DATA_SUBJECT_BLOCKED', data: null });
    expect(res.body.results[1].data).toEqual(kept);
    expect(res.body).toMatchObject({ matched: 1, unmatched: 1, failed: 4 });
  });

  describe('whole-request 400, before any lookup', () => {
    const profiles = (n: number) => Array.from({ length: n }, () => ({ username: priya.username }));

    it('accepts exactly 100 profiles', async () => {
      const res = await enrich({ profiles: profiles(100) });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ matched: 100, unmatched: 0, failed: 0 });
    });

    it.each([
      ['101 profiles', { profiles: profiles(101) }],
      ['no profiles', { profiles: [] }],
      ['profiles missing', {}],
      ['an item that is not an object', { profiles: [priya.username] }],
      ['an unknown field in an item', { profiles: [{ username: priya.username, email: 'p@example.com' }] }],
      ['an unknown field in the body', { profiles: [{ username: priya.username }], fields: 'all' }],
      ['an identifier that is not a string', { profiles: [{ id: 42 }] }],
    ])('%s', async (_name, body) => {
      const sqls = await queriesDuring(h.knex, async () => {
        const res = await enrich(body);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_ERROR');
      });
      expect(lakeQueries(sqls)).toEqual([]);
    });
  });

  it('costs the same queries for 1 item as for 100: one for the records, one for the withdrawn among the misses', async () => {
    const gone = personRecord();
    await storePersons(h.knex, gone);
    await suppress(h.knex, 'person', { by: 'id', value: gone.id });
    const many = Array.from({ length: 100 }, (_, i) =>
      [{ username: priya.username }, { id: marcus.id }, { network_url: elin.network_url }, { id: gone.id }, { username: ghostUsername() }, { id: 'bad' }][i % 6],
    );
    const cases = {
      oneMiss: [{ username: ghostUsername() }],
      manyMixed: many,
      oneHit: [{ username: priya.username }],
      manyHits: many.filter((_, i) => i % 6 < 3),
      onlyInvalid: [{ id: 'bad' }, {}],
    };
    const counts: Record<string, number> = {};
    for (const [name, list] of Object.entries(cases)) {
      const sqls = await queriesDuring(h.knex, async () => expect((await enrich({ profiles: list })).status).toBe(200));
      counts[name] = lakeQueries(sqls).length;
    }
    expect(counts).toEqual({ oneMiss: 2, manyMixed: 2, oneHit: 1, manyHits: 1, onlyInvalid: 0 });
  });
});
