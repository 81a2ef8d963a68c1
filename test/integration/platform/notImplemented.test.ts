/**
 * The operations the contract describes that this release does not serve yet. This list may only
 * shrink: each issue that implements an operation removes it here and from the handler registry.
 */
import { NOT_IMPLEMENTED_OPERATIONS } from '../../../src/http/handlers';
import { useHarness } from '../../helpers/harness';
import { contractOperations } from '../../helpers/operations';

const EXPECTED_501: string[] = [];

const UUID = '3f2c1a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f';
/** A valid request for every operation, so the answer comes from the handler, not the validator. */
const VALID_REQUESTS: Record<string, { query?: string; body?: object | string; type?: string; path?: string }> = {
  getHealth: {},
  getReadiness: {},
  getAccount: {},
  getPerson: { query: 'username=priya-raman' },
  checkPerson: { query: 'network_url=https://www.linkedin.com/in/priya-raman/' },
  listSimilarPeople: { query: `id=${UUID}` },
  listColleagues: { query: 'username=priya-raman&per_page=10' },
  listJobChanges: { query: 'within_months=6' },
  searchPeople: { body: { title: 'engineering director', location: ['US', 'IE'] } },
  bulkEnrichPeople: { body: { profiles: [{ username: 'priya-raman' }, { id: UUID }] } },
  bulkGetPeople: { body: { ids: [UUID] } },
  matchPerson: { body: { name: 'Priya Raman', company: 'Northwind Analytics' } },
  matchCompany: { body: { domain: 'northwind-analytics.com' } },
  bulkMatchPeople: { body: { queries: [{ name: 'Priya Raman', company: 'Northwind Analytics' }] } },
  listAlumni: { query: 'school=University%20of%20Texas%20at%20Austin' },
  getCompany: { query: 'company_id=18234567' },
  checkCompany: { query: 'username=northwind-analytics' },
  listPersonHistory: { query: 'username=priya-raman' },
  listCompanyHistory: { query: 'username=northwind-analytics' },
  searchCompanies: { body: { industry: ['Computer Software'], headcount_min: 50 } },
  listCurrentEmployees: { query: 'company_id=18234567' },
  listPastEmployees: { query: 'company_id=18234567&page=2' },
  getHeadcountBySeniority: { query: 'company_id=18234567' },
  listHiringSignals: { query: 'company_id=18234567' },
  listDecisionMakers: { query: 'company_id=18234567' },
  enrichPersonRealtime: { query: 'username=priya-raman&max_age=3600' },
  enrichCompanyRealtime: { query: 'username=northwind-analytics' },
  createMonitor: {
    body: { type: 'person', subject_url: 'https://www.linkedin.com/in/priya-raman', webhook_url: 'https://93.184.215.14/enrich' },
  },
  listMonitors: {},
  listEvents: { query: 'per_page=10' },
  deleteMonitor: { query: `id=${UUID}` },
  getMonitor: { path: `/api/v1/monitors/${UUID}` },
  deleteMonitorById: { path: `/api/v1/monitors/${UUID}` },
  createSession: { body: { token: 'an-unknown-link-token' } },
  getSession: {},
  deleteSession: {},
  listWorkspaceKeys: { query: 'per_page=5' },
  createWorkspaceKey: { body: {} },
  revokeWorkspaceKey: { path: `/api/v1/workspace/keys/${UUID}` },
  listWorkspaceMembers: {},
  setMemberAllowance: { path: `/api/v1/workspace/members/${UUID}/allowance`, body: { allowance: 10 } },
  getWorkspaceUsage: { query: 'days=7' },
  revealMonitorSecret: { path: `/api/v1/workspace/monitors/${UUID}/secret` },
  rotateMonitorSecret: { path: `/api/v1/workspace/monitors/${UUID}/secret/rotate` },
  listMonitorDeliveries: { path: `/api/v1/monitors/${UUID}/deliveries`, query: 'per_page=10' },
  testMonitor: { path: `/api/v1/monitors/${UUID}/test` },
  redeliverMonitorDelivery: { path: `/api/v1/monitors/${UUID}/deliveries/${UUID}/redeliver` },
  createJob: { body: 'email\npriya.raman@northwind-analytics.com\n', type: 'text/csv' },
  listJobs: { query: 'per_page=5' },
  getJob: { path: `/api/v1/jobs/${UUID}` },
  cancelJob: { path: `/api/v1/jobs/${UUID}/cancel` },
  deleteJob: { path: `/api/v1/jobs/${UUID}` },
  getJobResults: { path: `/api/v1/jobs/${UUID}/results` },
  listJobDeliveries: { path: `/api/v1/jobs/${UUID}/deliveries` },
};

const h = useHarness({ workspaceRateLimit: 10_000 });

describe('501 NOT_IMPLEMENTED', () => {
  it('the registry and this list agree', () => {
    expect([...NOT_IMPLEMENTED_OPERATIONS].sort()).toEqual([...EXPECTED_501].sort());
  });

  it('has a valid request for every operation', () => {
    expect(Object.keys(VALID_REQUESTS).sort()).toEqual(contractOperations().map((o) => o.operationId).sort());
  });

  it.each(contractOperations().map((o) => [o.operationId, o] as const))('%s', async (id, op) => {
    const spec = VALID_REQUESTS[id];
    const url = (spec.path ?? op.path) + (spec.query ? `?${spec.query}` : '');
    let t = (h.http as unknown as Record<string, (p: string) => import('supertest').Test>)[op.method.toLowerCase()](url);
    t = t.set('Authorization', `Bearer ${h.key()}`);
    if (spec.type) t = t.set('Content-Type', spec.type);
    if (spec.body) t = t.send(spec.body);
    const res = await h.send(t);
    if (EXPECTED_501.includes(id)) {
      expect(res.status).toBe(501);
      expect(res.body.code).toBe('NOT_IMPLEMENTED');
    } else {
      // Served by a handler: any documented answer (h.send checks it is documented), but not 501.
      expect(res.status).not.toBe(501);
    }
  });
});
