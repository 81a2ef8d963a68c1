/**
 * ETag and If-None-Match on GET /person, /person/check, /company and /company/check: 304 exactly
 * when the answer's `data` is byte-identical to the one the tag came from, with the request id and
 * the rate-limit headers, counted against the rate limit; 200 with a new tag once the record changed.
 * Every response goes through the harness's contract validator (the 304 included).
 */
import { useHarness } from '../../helpers/harness';
import { companyRecord, personRecord, storeCompanies, storePersons } from '../../helpers/lakeRecords';

const h = useHarness({ workspaceRateLimit: 10_000 });

const read = (path: string, tag?: string) => {
  const req = h.http.get(`/api/v1${path}`).set('Authorization', `Bearer ${h.key()}`);
  return h.send(tag === undefined ? req : req.set('If-None-Match', tag));
};
const remaining = (res: { headers: Record<string, string> }) => Number(/r=(\d+)/.exec(res.headers['ratelimit'] ?? '')?.[1]);

describe('conditional lookups', () => {
  const cases = [
    { name: 'GET /person', path: (u: string) => `/person?username=${u}`, kind: 'person' },
    { name: 'GET /person/check', path: (u: string) => `/person/check?username=${u}`, kind: 'person' },
    { name: 'GET /company', path: (u: string) => `/company?username=${u}`, kind: 'company' },
    { name: 'GET /company/check', path: (u: string) => `/company/check?username=${u}`, kind: 'company' },
  ] as const;

  it.each(cases)('$name: 304 while the data is byte-identical, 200 with a new tag after it changed', async ({ path, kind }) => {
    const fetchedAt = '2026-11-01T10:00:00.000Z';
    const person = personRecord({ fetched_at: fetchedAt });
    const company = companyRecord({ fetched_at: fetchedAt });
    const store = (changes: Record<string, unknown>) =>
      kind === 'person' ? storePersons(h.knex, { ...person, ...changes }) : storeCompanies(h.knex, { ...company, ...changes });
    await store({});
    const url = path(kind === 'person' ? person.username : company.username);

    const first = await read(url);
    expect(first.status).toBe(200);
    const tag = first.headers['etag'];
    expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);

    const notModified = await read(url, tag);
    expect(notModified.status).toBe(304);
    expect(notModified.text ?? '').toBe('');
    expect(notModified.headers['etag']).toBe(tag);
    expect(notModified.headers['x-request-id']).toMatch(/^req_[0-9a-f]+$/);
    expect(notModified.headers['ratelimit-policy']).toBeDefined();
    // Counted like a 200 (the contract says why): the window's remaining count went down.
    expect(remaining(notModified)).toBe(remaining(first) - 1);
    // A list holding it, a weak form of it, and `*` match too; another tag does not.
    expect((await read(url, `"nope", W/${tag}`)).status).toBe(304);
    expect((await read(url, '*')).status).toBe(304);
    expect((await read(url, '"nope"')).status).toBe(200);

    // The same record written again unchanged (same bytes): still 304.
    await store({});
    expect((await read(url, tag)).status).toBe(304);

    // Changed: the check's data changes with fetched_at, the record's with any field.
    await store(kind === 'person' ? { headline: 'Changed headline', fetched_at: '2026-11-02T10:00:00.000Z' } : { tagline: 'Changed', fetched_at: '2026-11-02T10:00:00.000Z' });
    const changed = await read(url, tag);
    expect(changed.status).toBe(200);
    expect(changed.headers['etag']).not.toBe(tag);
    expect(changed.body.data.fetched_at).toBe('2026-11-02T10:00:00.000Z');
    expect((await read(url, changed.headers['etag'])).status).toBe(304);
  });

  it('the tag is the digest of the data bytes: equal records in two lookups share it', async () => {
    const person = personRecord();
    await storePersons(h.knex, person);
    const byName = await read(`/person?username=${person.username}`);
    const byId = await read(`/person?id=${person.id}`);
    expect(byName.headers['etag']).toBe(byId.headers['etag']);
  });

  it('errors carry no ETag and If-None-Match does not turn them into 304', async () => {
    const res = await read('/person?username=nobody-at-all-here', '*');
    expect(res.status).toBe(404);
    expect(res.headers['etag']).toBeUndefined();
  });
});
