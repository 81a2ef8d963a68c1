import { suppress } from '../../../src/domain/lake/suppression';
import { contractSchema, missingFields } from '../../helpers/completeness';
import { useHarness } from '../../helpers/harness';
import { personRecord, storePersons } from '../../helpers/lakeRecords';

const h = useHarness({ workspaceRateLimit: 10_000 });
const get = (query: string) => h.get(`/api/v1/person?${query}`, h.key());
const enc = encodeURIComponent;

describe('GET /person', () => {
  const priya = personRecord();
  beforeAll(() => storePersons(h.knex, priya));

  it('finds the record by username, and answers it whole', async () => {
    const res = await get(`username=${priya.username}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(priya);
    // Stored as the record's own text: fields come back in the contract's order, not re-sorted.
    expect(Object.keys(res.body.data)).toEqual(Object.keys(priya));
  });

  it('username is case-insensitive', async () => {
    const res = await get(`username=${priya.username.toUpperCase()}`);
    expect(res.body.data.id).toBe(priya.id);
  });

  it('finds the record by id, in either letter case', async () => {
    expect((await get(`id=${priya.id}`)).body.data.username).toBe(priya.username);
    expect((await get(`id=${priya.id.toUpperCase()}`)).body.data.username).toBe(priya.username);
  });

  it.each([
    (u: string) => `https://www.linkedin.com/in/${u}/`,
    (u: string) => `https://www.linkedin.com/in/${u}`,
    (u: string) => `http://linkedin.com/in/${u}`,
    (u: string) => `www.linkedin.com/in/${u}`,
    (u: string) => `https://www.linkedin.com/in/${u.toUpperCase()}/?trk=people-guest#experience`,
    (u: string) => `HTTPS://UK.LINKEDIN.COM/IN/${u}//`,
  ])('finds the record by network_url form %#', async (form) => {
    const res = await get(`network_url=${enc(form(priya.username))}`);
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(priya.id);
  });

  it('checks network_url, then username, then id: the first present one decides', async () => {
    const other = personRecord();
    await storePersons(h.knex, other);
    expect((await get(`id=${other.id}&username=${priya.username}`)).body.data.id).toBe(priya.id);
    expect((await get(`username=${other.username}&network_url=${enc(priya.network_url)}`)).body.data.id).toBe(priya.id);
    // The first present identifier is used even when it finds nothing: no fallback to the next one.
    expect((await get(`username=nobody-${Date.now()}&id=${priya.id}`)).status).toBe(404);
  });

  it('every field of the schema is present, at every depth, null when empty', async () => {
    const sparse = personRecord({
      languages: null,
      featured: null,
      courses: null,
      projects: null,
      background_image_url: null,
      is_open_to_work: null,
      is_hiring: null,
      seniority: null,
      headline: null,
      summary: null,
      certifications: [],
      honors: [],
      publications: [],
      volunteering: [],
    });
    await storePersons(h.knex, sparse);
    for (const record of [priya, sparse]) {
      const res = await get(`id=${record.id}`);
      expect(missingFields(contractSchema('PersonResult'), res.body.data)).toEqual([]);
      expect(res.body.data).toEqual(record);
    }
    const res = await get(`id=${sparse.id}`);
    for (const field of ['languages', 'featured', 'courses', 'projects', 'is_open_to_work', 'is_hiring', 'seniority']) {
      expect(res.body.data).toHaveProperty(field, null);
    }
  });

  it('serves positions newest first, whatever order they were stored in', async () => {
    const base = personRecord();
    const [current, ...past] = base.positions;
    const shuffled = personRecord({ positions: [...past].reverse().concat(current) });
    await storePersons(h.knex, shuffled);
    const { positions } = (await get(`id=${shuffled.id}`)).body.data as typeof base;
    expect(positions[0].isCurrent).toBe(true);
    const starts = positions.filter((p) => !p.isCurrent).map((p) => p.startYear * 12 + p.startMonth);
    expect(starts).toEqual([...starts].sort((a, b) => b - a));
  });

  describe('400 VALIDATION_ERROR', () => {
    it.each([
      ['no identifier', ''],
      ['a company URL', `network_url=${enc('https://www.linkedin.com/company/northwind-analytics/')}`],
      ['another host', `network_url=${enc('https://example.com/in/priya-raman')}`],
      ['a URL without a slug', `network_url=${enc('https://www.linkedin.com/in/')}`],
      ['a URL that is not one', 'network_url=priya-raman'],
      ['an id that is not a UUID', 'id=42'],
      ['a blank username', 'username=%20'],
      ['an empty username', 'username='],
      ['an unknown parameter', `username=${priya.username}&fields=all`],
      ['a repeated parameter', `username=a&username=b`],
    ])('%s', async (_name, query) => {
      const res = await get(query);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    });

    it('names the offending parameter', async () => {
      expect((await get('network_url=nope')).body.error).toMatch(/network_url/);
      expect((await get('id=nope')).body.error).toMatch(/"id"/);
    });
  });

  it('404 NOT_FOUND for a profile the lake does not hold, by every identifier', async () => {
    const ghost = personRecord();
    for (const query of [`username=${ghost.username}`, `id=${ghost.id}`, `network_url=${enc(ghost.network_url)}`]) {
      const res = await get(query);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
  });

  it('451 DATA_SUBJECT_BLOCKED by every identifier once withdrawn', async () => {
    const gone = personRecord();
    await storePersons(h.knex, gone);
    expect((await get(`id=${gone.id}`)).status).toBe(200);
    await suppress(h.knex, 'person', { by: 'id', value: gone.id });
    for (const query of [
      `username=${gone.username}`,
      `username=${gone.username.toUpperCase()}`,
      `id=${gone.id}`,
      `network_url=${enc(gone.network_url)}`,
      `network_url=${enc(`http://uk.linkedin.com/in/${gone.username}?x=1`)}`,
    ]) {
      const res = await get(query);
      expect(res.status).toBe(451);
      expect(res.body.code).toBe('DATA_SUBJECT_BLOCKED');
    }
  });
});
