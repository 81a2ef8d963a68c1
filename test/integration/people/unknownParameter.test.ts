/**
 * An unknown query parameter is refused (400 VALIDATION_ERROR) and the message names the closest
 * accepted one when it looks like a typo; a name far from every accepted one gets no suggestion.
 */
import { useHarness } from '../../helpers/harness';

const h = useHarness({ workspaceRateLimit: 10_000 });

describe('unknown query parameters', () => {
  it.each([
    ['/person?network_ur=https://www.linkedin.com/in/x', 'network_url'],
    ['/person?usernme=x', 'username'],
    ['/person/history?username=x&sinse=2026-01-01T00:00:00Z', 'since'],
    ['/events?monitorid=6c1e9f0a-2b7d-4c3e-9a8f-0d1e2f3a4b5c', 'monitor_id'],
  ])('%s: did you mean `%s`?', async (path, suggestion) => {
    const res = await h.get(`/api/v1${path}`, h.key());
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.error).toContain(`did you mean \`${suggestion}\`?`);
  });

  it('no suggestion for a name unlike any accepted one', async () => {
    const res = await h.get('/api/v1/person?username=x&colour=blue', h.key());
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Unknown query parameter "colour"');
  });
});
