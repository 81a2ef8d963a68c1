/**
 * The shared security cases, run for every protected operation so a new operation cannot forget
 * them: no key, malformed key, unknown key, revoked key -> 401 API_KEY_INVALID with one identical
 * message; inactive and expired licenses -> 402 LICENSE_INACTIVE; none of them consumes rate limit;
 * the dashboard's session cookie sent from another origin -> 403 ORIGIN_NOT_ALLOWED, whatever the
 * method (issue 32: GETs were let through, realtime among them).
 */
import type supertest from 'supertest';
import { generateApiKey } from '../../src/domain/auth/apiKey';
import { revokeKey, setLicense } from '../../src/domain/workspaces/admin';
import { sessionCookie } from './workspace';
import type { ContractOperation } from './operations';
import type { Harness } from './harness';

export function runSecurityCases(getHarness: () => Harness, operations: ContractOperation[]): void {
  const call = (h: Harness, op: ContractOperation, key?: string) => {
    let t: supertest.Test = (h.http as unknown as Record<string, (p: string) => supertest.Test>)[op.method.toLowerCase()](op.path);
    if (key !== undefined) t = t.set('Authorization', key);
    if (op.hasBody) t = t.send({});
    return h.send(t);
  };

  describe.each(operations.filter((o) => o.secured).map((o) => [o.operationId, o] as const))('%s', (_id, op) => {
    it('answers 401 API_KEY_INVALID, identically, for missing, malformed, unknown and revoked keys', async () => {
      const h = getHarness();
      const { workspaceId, key } = await h.workspace({ rateLimit: 50 });
      const revoked = await h.memberKey(workspaceId, 'leaver');
      await revokeKey(h.knex, revoked);
      const answers = await Promise.all([
        call(h, op),
        call(h, op, 'Bearer not-a-key'),
        call(h, op, `Basic ${key}`),
        call(h, op, `Bearer ${generateApiKey().key}`),
        call(h, op, `Bearer ${revoked}`),
      ]);
      for (const res of answers) {
        expect(res.status).toBe(401);
        expect(res.body.code).toBe('API_KEY_INVALID');
        expect(res.body.error).toBe(answers[0].body.error);
      }
      // None of those consumed the workspace's window.
      const ok = await h.get('/api/v1/account', key);
      expect(ok.body.quotas.rate_limit.workspace.remaining).toBe(49);
    });

    it('answers 403 ORIGIN_NOT_ALLOWED to a dashboard session used from another origin, without consuming quota', async () => {
      const h = getHarness();
      const { key } = await h.workspace({ rateLimit: 30 });
      // Signed in as a script would (no browser header: allowed for sign-in only).
      const cookie = sessionCookie(await h.send(h.http.post('/api/v1/workspace/sessions').send({ api_key: key })));
      let t: supertest.Test = (h.http as unknown as Record<string, (p: string) => supertest.Test>)[op.method.toLowerCase()](op.path);
      t = t.set('Cookie', cookie).set('Origin', 'https://evil.example');
      if (op.hasBody) t = t.send({});
      const res = await h.send(t);
      expect([res.status, res.body.code]).toEqual([403, 'ORIGIN_NOT_ALLOWED']);
      // Nothing of the workspace's window was used (this call is the first to count).
      const ok = await h.get('/api/v1/account', key);
      expect(ok.body.quotas.rate_limit.workspace).toMatchObject({ limit: 30, remaining: 29 });
    });

    if (!op.licensed) {
      it('answers without 402 for inactive and expired licenses (the contract documents no 402 for it)', async () => {
        const h = getHarness();
        const inactive = await h.workspace({ active: false, rateLimit: 40 });
        const r1 = await call(h, op, `Bearer ${inactive.key}`);
        expect(r1.status).not.toBe(402);
        expect(r1.status).toBeLessThan(500);
        const expired = await h.workspace();
        await setLicense(h.knex, { workspaceId: expired.workspaceId, status: 'active', expiresAt: new Date(Date.now() - 1000) });
        const r2 = await call(h, op, `Bearer ${expired.key}`);
        expect(r2.status).not.toBe(402);
        expect(r2.status).toBeLessThan(500);
      });
      return;
    }

    it('answers 402 LICENSE_INACTIVE for inactive and expired licenses, without consuming quota', async () => {
      const h = getHarness();
      const inactive = await h.workspace({ active: false, rateLimit: 40 });
      const r1 = await call(h, op, `Bearer ${inactive.key}`);
      expect(r1.status).toBe(402);
      expect(r1.body.code).toBe('LICENSE_INACTIVE');
      expect(r1.body.quotas.rate_limit.workspace).toMatchObject({ limit: 40, remaining: 40 });

      const expired = await h.workspace();
      await setLicense(h.knex, { workspaceId: expired.workspaceId, status: 'active', expiresAt: new Date(Date.now() - 1000) });
      const r2 = await call(h, op, `Bearer ${expired.key}`);
      expect(r2.status).toBe(402);
      expect(r2.body.code).toBe('LICENSE_INACTIVE');
    });
  });
}
