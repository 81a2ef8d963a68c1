/** `enrich dashboard link`: a single-use sign-in link, valid 15 minutes, stored only as a hash. */
import { enrich, enrichJson } from '../../helpers/cli';
import { useHarness } from '../../helpers/harness';

const h = useHarness();

describe('enrich dashboard link', () => {
  it('prints a link for the owner or a member whose token signs in once; the database holds only its hash', async () => {
    const { workspaceId } = await h.workspace();
    await h.memberKey(workspaceId, 'analyst');
    const link = await enrichJson<{ url: string; expires_at: string; account: { name: string; role: string } }>(
      'dashboard', 'link', '--workspace', workspaceId, '--url', 'https://enrich.example.com/',
    );
    expect(link.account).toMatchObject({ name: 'owner', role: 'owner' });
    const [, token] = link.url.match(/^https:\/\/enrich\.example\.com\/dashboard\/#token=([A-Za-z0-9_-]{43})$/)!;
    const minutes = (Date.parse(link.expires_at) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(14);
    expect(minutes).toBeLessThanOrEqual(15);
    expect(JSON.stringify(await h.knex('dashboard_links').select('*'))).not.toContain(token);

    const signIn = () => h.post('/api/v1/workspace/sessions', { token });
    expect((await signIn()).status).toBe(201);
    expect((await signIn()).status).toBe(401);

    const member = await enrichJson<{ url: string; account: { name: string } }>('dashboard', 'link', '--workspace', workspaceId, '--member', 'analyst');
    expect(member.account.name).toBe('analyst');
    expect(member.url).toMatch(/^http:\/\/127\.0\.0\.1:3000\/dashboard\/#token=/);
    const human = await enrich('dashboard', 'link', '--workspace', workspaceId);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/Sign-in link for owner \(single use, valid until .*\):\n  http:\/\/127\.0\.0\.1:3000\/dashboard\/#token=/);

    const unknown = await enrich('dashboard', 'link', '--workspace', workspaceId, '--member', 'nobody');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/no member "nobody"/);
    expect((await enrich('dashboard', 'link', '--workspace', 'not-a-workspace')).code).not.toBe(0);
  });
});
