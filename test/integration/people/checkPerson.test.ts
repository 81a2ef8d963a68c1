import { suppress } from '../../../src/domain/lake/suppression';
import { useHarness } from '../../helpers/harness';
import { personRecord, storePersons } from '../../helpers/lakeRecords';

const h = useHarness({ workspaceRateLimit: 10_000 });
const check = (query: string) => h.get(`/api/v1/person/check?${query}`, h.key());

describe('GET /person/check', () => {
  const person = personRecord({ fetched_at: '2026-10-02T08:15:00Z' });
  beforeAll(() => storePersons(h.knex, person));

  it.each([
    ['username', () => `username=${person.username}`],
    ['id', () => `id=${person.id}`],
    ['network_url', () => `network_url=${encodeURIComponent(`${person.network_url}/?trk=x`)}`],
  ])('an indexed record by %s: exists, its id and fetched_at, and nothing else', async (_by, query) => {
    const res = await check(query());
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ exists: true, id: person.id, fetched_at: '2026-10-02T08:15:00.000Z' });
  });

  it('an unknown record is not an error: exists false, id and fetched_at null', async () => {
    const res = await check(`username=never-indexed-${Date.now()}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ exists: false, id: null, fetched_at: null });
  });

  it('fetched_at follows a re-import of the record', async () => {
    const moving = personRecord({ fetched_at: '2026-01-01T00:00:00Z' });
    await storePersons(h.knex, moving);
    await storePersons(h.knex, { ...moving, fetched_at: '2026-11-20T12:00:00Z' });
    expect((await check(`id=${moving.id}`)).body.data.fetched_at).toBe('2026-11-20T12:00:00.000Z');
  });

  it.each([
    ['no identifier', ''],
    ['a company URL', `network_url=${encodeURIComponent('https://www.linkedin.com/company/acme')}`],
    ['an id that is not a UUID', 'id=abc'],
  ])('400 for %s', async (_name, query) => {
    const res = await check(query);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });

  it('a withdrawn record is 451, not exists: false', async () => {
    const gone = personRecord();
    await storePersons(h.knex, gone);
    await suppress(h.knex, 'person', { by: 'username', value: gone.username });
    for (const query of [`id=${gone.id}`, `username=${gone.username}`, `network_url=${encodeURIComponent(gone.network_url)}`]) {
      const res = await check(query);
      expect(res.status).toBe(451);
      expect(res.body.code).toBe('DATA_SUBJECT_BLOCKED');
    }
  });
});
