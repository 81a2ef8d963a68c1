/** Request ids, unknown paths, wrong methods, malformed bodies: always the contract's JSON envelope. */
import { useHarness } from '../../helpers/harness';

const h = useHarness({ workspaceRateLimit: 10_000 });

const bearer = () => `Bearer ${h.key()}`;

describe('request ids', () => {
  it('are req_ + hex, unique, and equal in header and metadata', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => h.get('/api/v1/account', h.key())));
    const ids = answers.map((r) => r.headers['x-request-id']);
    expect(new Set(ids).size).toBe(20);
    for (const r of answers) {
      expect(r.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
      expect(r.body.metadata.request_id).toBe(r.headers['x-request-id']);
      expect(Number.isInteger(r.body.metadata.execution_ms)).toBe(true);
    }
  });
});

describe('caching', () => {
  it('every answer of the API, records and errors alike, says no-store, private', async () => {
    const answers = await Promise.all([
      h.get('/api/v1/account', h.key()),
      h.get('/api/v1/person?username=nobody-at-all', h.key()),
      h.get('/api/v1/account'),
      h.get('/api/v1/health'),
      h.post('/api/v1/people/search', { title: 'cto' }, h.key()),
      h.post('/api/v1/people/bulk', { ids: ['3f2c1a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f'] }, h.key()),
    ]);
    for (const res of answers) expect({ status: res.status, cache: res.headers['cache-control'] }).toEqual({ status: res.status, cache: 'no-store, private' });
  });
});

describe('unknown paths and methods', () => {
  it.each(['/api/v1/nope', '/api/v1', '/api/v2/person', '/', '/favicon.ico', '/api/v1/person/extra/segments'])(
    '%s -> 404 NOT_FOUND in the envelope',
    async (path) => {
      const res = await h.send(h.http.get(path).set('Authorization', bearer()));
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
      expect(res.headers['content-type']).toMatch(/application\/json/);
    },
  );

  it('a known path with the wrong method -> 405 METHOD_NOT_ALLOWED with Allow', async () => {
    const res = await h.send(h.http.put('/api/v1/person').set('Authorization', bearer()));
    expect(res.status).toBe(405);
    expect(res.body.code).toBe('METHOD_NOT_ALLOWED');
    expect(res.headers.allow).toBe('GET, HEAD');
    const monitors = await h.send(h.http.patch('/api/v1/monitors').set('Authorization', bearer()));
    expect(monitors.headers.allow?.split(', ').sort()).toEqual(['DELETE', 'GET', 'HEAD', 'POST']);
    const one = await h.send(h.http.post('/api/v1/monitors/3f2c1a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f').set('Authorization', bearer()));
    expect(one.status).toBe(405);
    expect(one.headers.allow?.split(', ').sort()).toEqual(['DELETE', 'GET', 'HEAD']);
  });
});

describe('bodies', () => {
  const search = () => h.http.post('/api/v1/people/search').set('Authorization', bearer());

  it('malformed JSON -> 400 VALIDATION_ERROR', async () => {
    const res = await h.send(search().set('Content-Type', 'application/json').send('{"title": '));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.error).toMatch(/JSON/);
  });

  it('a JSON scalar instead of an object -> 400', async () => {
    const res = await h.send(search().set('Content-Type', 'application/json').send('"title"'));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });

  it('missing body -> 400 naming the body', async () => {
    const res = await h.send(search());
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/body is required/i);
  });

  it('wrong content type -> 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await h.send(search().set('Content-Type', 'text/plain').send('title=engineer'));
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('oversized body -> 413 PAYLOAD_TOO_LARGE', async () => {
    const huge = JSON.stringify({ query: 'x'.repeat(2 * 1024 * 1024) });
    const res = await h.send(search().set('Content-Type', 'application/json').send(huge));
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('unknown body field -> 400 naming it', async () => {
    const res = await h.send(search().send({ title: 'cto', favourite_colour: 'blue' }));
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('favourite_colour');
  });

  it('a value of the wrong type -> 400 naming the field', async () => {
    const res = await h.send(search().send({ per_page: 'many' }));
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('per_page');
  });
});

describe('query parameters', () => {
  it('out of range -> 400 naming the parameter', async () => {
    const res = await h.get('/api/v1/company/current-employees?company_id=1234&per_page=100000', h.key());
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.error).toContain('per_page');
  });

  it('malformed id -> 400 naming the parameter', async () => {
    const res = await h.get('/api/v1/person?id=not-a-uuid', h.key());
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('"id"');
  });

  it('unknown query parameter -> 400 naming it (a misspelt filter must not widen a result)', async () => {
    const res = await h.get('/api/v1/company/current-employees?company_id=1234&per_pag=10', h.key());
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('per_pag');
  });

  it('missing required parameter -> 400 naming it', async () => {
    const res = await h.get('/api/v1/institution/alumni', h.key());
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('school');
  });
});
