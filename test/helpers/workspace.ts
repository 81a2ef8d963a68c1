/** Workspace (dashboard) tests: sessions by link or key through the real sign-in operation. */
import type supertest from 'supertest';
import { createSignInLink } from '../../src/domain/workspaces/sessions';
import type { Harness } from './harness';

/** The origin the test apps are configured with (PUBLIC_URL): state-changing cookie calls carry it. */
export const ORIGIN = 'http://dashboard.test';
export const dashboardConfig = { publicOrigin: ORIGIN };

export function sessionCookie(res: supertest.Response): string {
  const raw = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  const found = raw.find((c) => c.startsWith('enrich_session='));
  if (!found) throw new Error(`no session cookie in ${JSON.stringify(res.headers)}`);
  return found.split(';')[0];
}

export async function signInWithKey(h: Harness, apiKey: string): Promise<string> {
  const res = await h.send(h.http.post('/api/v1/workspace/sessions').set('Origin', ORIGIN).send({ api_key: apiKey }));
  if (res.status !== 201) throw new Error(`sign-in failed: ${res.status} ${JSON.stringify(res.body)}`);
  return sessionCookie(res);
}

export async function signInWithLink(h: Harness, workspaceId: string, member?: string): Promise<string> {
  const link = await createSignInLink(h.knex, { workspaceId, member });
  const res = await h.send(h.http.post('/api/v1/workspace/sessions').set('Origin', ORIGIN).send({ token: link.token }));
  if (res.status !== 201) throw new Error(`sign-in failed: ${res.status} ${JSON.stringify(res.body)}`);
  return sessionCookie(res);
}

/** A request with the session cookie (and this server's Origin unless told otherwise). */
export function withCookie(t: supertest.Test, cookie: string, origin: string | null = ORIGIN): supertest.Test {
  const req = t.set('Cookie', cookie);
  return origin === null ? req : req.set('Origin', origin);
}
