/**
 * Hostile HTTP input: answers inside the contract, naming what is wrong, and never a 500.
 * Each case here answered otherwise before: a corrupt Content-Encoding was a 500, a NUL in one
 * bulk item failed the whole request, a NUL in a query parameter named no parameter, HEAD was a
 * 405, and `per_page=0x10` was read as 16.
 */
import zlib from 'node:zlib';
import supertest from 'supertest';
import { useHarness } from '../../helpers/harness';
import { personRecord, storePersons } from '../../helpers/lakeRecords';
import { monitorBody } from '../../helpers/monitors';

const h = useHarness({ workspaceRateLimit: 100_000 });
const auth = () => `Bearer ${h.key()}`;
const search = () => h.http.post('/api/v1/people/search').set('Authorization', auth()).set('Content-Type', 'application/json');
/**
 * Bytes sent as they are (superagent would serialize a Buffer as JSON under a JSON content type),
 * straight to the app: Prism's validating proxy (npm run test:proxy) does not decode a
 * Content-Encoding, so it cannot judge these requests.
 */
const raw = (bytes: Buffer | string) =>
  supertest(h.app.koa.callback())
    .post('/api/v1/people/search')
    .set('Authorization', auth())
    .set('Content-Type', 'application/json')
    .serialize((b: unknown) => b as string)
    .send(bytes as never);

describe('request bodies and Content-Encoding', () => {
  it('a body that does not match its Content-Encoding is a 400, not a 500', async () => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const res = await h.send(raw('{"title": "cto"} but not compressed').set('Content-Encoding', encoding));
      expect({ encoding, status: res.status, code: res.body.code }).toEqual({ encoding, status: 400, code: 'VALIDATION_ERROR' });
      expect(res.body.error).toMatch(/Content-Encoding/);
    }
    const gz = zlib.gzipSync(Buffer.from(JSON.stringify({ title: 'cto' })));
    const truncated = await h.send(raw(gz.subarray(0, gz.length - 6)).set('Content-Encoding', 'gzip'));
    expect(truncated.status).toBe(400);
  });

  it('a valid gzip body is accepted, an unknown encoding is a 415, a gzip bomb a 413', async () => {
    const ok = await h.send(raw(zlib.gzipSync(Buffer.from(JSON.stringify({ title: 'cto' })))).set('Content-Encoding', 'gzip'));
    expect(ok.body.error).toBeUndefined();
    expect(ok.status).toBe(200);
    const unknown = await h.send(raw('xx').set('Content-Encoding', 'compress'));
    expect(unknown.status).toBe(415);
    const bomb = zlib.gzipSync(Buffer.from(JSON.stringify({ title: 'x'.repeat(8 * 1024 * 1024) })));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const res = await h.send(raw(bomb).set('Content-Encoding', 'gzip'));
    expect(res.status).toBe(413);
  });
});

describe('the NUL character', () => {
  it('in one bulk-enrich item: that item answers 400 naming it, the others are served', async () => {
    const person = personRecord();
    await storePersons(h.knex, person);
    const res = await h.post(
      '/api/v1/people/bulk-enrich',
      { profiles: [{ username: person.username }, { username: 'bad\u0000name' }, { network_url: 'https://www.linkedin.com/in/x\u0000y' }, { id: person.id }] },
      h.key(),
    );
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { status: number }) => r.status)).toEqual([200, 400, 400, 200]);
    expect(res.body.results[1].error).toMatch(/profiles\[1\].*username.*NUL/);
    expect(res.body).toMatchObject({ matched: 2, failed: 2, unmatched: 0 });
  });

  it('in a query parameter: 400 naming the parameter', async () => {
    for (const [path, name] of [
      ['/api/v1/person?username=a%00b', 'username'],
      ['/api/v1/company?network_url=https%3A%2F%2Fwww.linkedin.com%2Fcompany%2Fa%00', 'network_url'],
      ['/api/v1/institution/alumni?school=MIT%00', 'school'],
      ['/api/v1/person/job-changes?previous_company=%00', 'previous_company'],
    ]) {
      const res = await h.get(path, h.key());
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect(res.body.error).toContain(`"${name}"`);
    }
  });

  // A `%00` in a profile URL's path is no NUL in the parameter itself: it became one when the slug
  // was decoded, reached PostgreSQL, and failed the whole bulk request / named no parameter (issue 20).
  const encodedNul = (section: string) => `https://www.linkedin.com/${section}/ab%00cd`;

  it('a %00 in a network_url slug, in one bulk-enrich item: that item answers 400 naming it, the others are served', async () => {
    const person = personRecord();
    await storePersons(h.knex, person);
    const res = await h.post('/api/v1/people/bulk-enrich', { profiles: [{ username: person.username }, { network_url: encodedNul('in') }] }, h.key());
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { status: number }) => r.status)).toEqual([200, 400]);
    expect(res.body.results[1]).toMatchObject({ code: 'VALIDATION_ERROR', data: null });
    expect(res.body.results[1].error).toMatch(/profiles\[1\]: network_url/);
    expect(res.body).toMatchObject({ matched: 1, failed: 1, unmatched: 0 });
  });

  it('a %00 in a network_url slug: 400 naming the parameter on every lookup, realtime and monitor creation', async () => {
    const q = (section: string) => `network_url=${encodeURIComponent(encodedNul(section))}`;
    for (const path of [
      `/api/v1/person?${q('in')}`,
      `/api/v1/person/check?${q('in')}`,
      `/api/v1/person/similar?${q('in')}`,
      `/api/v1/person/realtime?${q('in')}`,
      `/api/v1/company?${q('company')}`,
      `/api/v1/company/check?${q('company')}`,
      `/api/v1/company/realtime?${q('company')}`,
    ]) {
      const res = await h.get(path, h.key());
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 400, code: 'VALIDATION_ERROR' });
      expect({ path, error: res.body.error }).toEqual({ path, error: expect.stringMatching(/^network_url: /) });
    }
    const monitor = await h.post('/api/v1/monitors', monitorBody({ subject_url: encodedNul('in') }), h.key());
    expect([monitor.status, monitor.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(monitor.body.error).toMatch(/^subject_url: /);
  });

  it('in a body field: 400 naming the field', async () => {
    const res = await h.send(search().send({ title: 'cto', company: 'Acme\u0000' }));
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('"company"');
    const nested = await h.send(search().send({ location: ['US', 'I\u0000E'] }));
    expect(nested.status).toBe(400);
    expect(nested.body.error).toContain('location[1]');
  });
});

describe('HEAD', () => {
  it('is answered wherever GET is: same status and headers, no body', async () => {
    const person = personRecord();
    await storePersons(h.knex, person);
    const get = await h.get(`/api/v1/person?username=${person.username}`, h.key());
    const head = await h.send(h.http.head(`/api/v1/person?username=${person.username}`).set('Authorization', auth()));
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    // The length the GET body would have (execution_ms and quotas differ by a digit between two calls).
    expect(Math.abs(Number(head.headers['content-length']) - Number(get.headers['content-length']))).toBeLessThan(8);
    expect(head.headers['x-request-id']).toMatch(/^req_/);
    expect((await h.send(h.http.head('/api/v1/health'))).status).toBe(200);
    expect((await h.send(h.http.head('/api/v1/person?username=nobody-here-at-all').set('Authorization', auth()))).status).toBe(404);
    expect((await h.send(h.http.head('/api/v1/account'))).status).toBe(401);
  });

  it('is not allowed where GET is not, and Allow lists it where GET is', async () => {
    const res = await h.send(h.http.head('/api/v1/people/search').set('Authorization', auth()));
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
    const put = await h.send(h.http.put('/api/v1/person').set('Authorization', auth()));
    expect(put.headers.allow).toBe('GET, HEAD');
  });
});

describe('integer query parameters', () => {
  it.each(['0x10', '1e1', '%205', '5%20', '5.0', '+5', '007', '1_0', '10abc'])('per_page=%s is a 400 naming it', async (value) => {
    const res = await h.get(`/api/v1/company/current-employees?company_id=1&per_page=${value}`, h.key());
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('"per_page"');
  });

  it('plain digits are accepted', async () => {
    const res = await h.get('/api/v1/person/job-changes?within_months=3&per_page=10&page=2', h.key());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 2, per_page: 10 });
  });
});
