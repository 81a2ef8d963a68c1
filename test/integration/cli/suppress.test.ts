/** `enrich suppress` as an operator runs it for a data subject's request. */
import { enrich, enrichJson } from '../../helpers/cli';
import { useHarness } from '../../helpers/harness';
import { companyRecord, personRecord, storeCompanies, storePersons } from '../../helpers/lakeRecords';

const h = useHarness({ workspaceRateLimit: 10_000 });

describe('enrich suppress', () => {
  it('withdraws a person named by profile URL: deleted, and 451 by every identifier', async () => {
    const person = personRecord();
    await storePersons(h.knex, person);
    const outcome = await enrichJson<{ found: boolean; deleted_id: string; identifiers_blocked: number }>(
      'suppress', 'person', `https://www.linkedin.com/in/${person.username.toUpperCase()}/?trk=x`,
    );
    expect(outcome).toMatchObject({ kind: 'person', found: true, deleted_id: person.id });
    expect(outcome.identifiers_blocked).toBeGreaterThanOrEqual(4);
    for (const query of [`id=${person.id}`, `username=${person.username}`, `network_url=${encodeURIComponent(person.network_url)}`]) {
      expect((await h.get(`/api/v1/person?${query}`, h.key())).status).toBe(451);
      expect((await h.get(`/api/v1/person/check?${query}`, h.key())).status).toBe(451);
    }
  });

  it('withdraws a company named by company_id', async () => {
    const company = companyRecord();
    await storeCompanies(h.knex, company);
    const human = await enrich('suppress', 'company', company.company_id);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/Withdrawn: company .* deleted/);
    expect((await h.get(`/api/v1/company?username=${company.username}`, h.key())).status).toBe(451);
  });

  it('an identifier not in the lake is blocked in advance, and says so', async () => {
    const res = await enrich('suppress', 'person', `not-indexed-${Date.now()}`);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/blocked/);
  });

  it('rejects an unknown kind and a URL of the wrong kind', async () => {
    expect((await enrich('suppress', 'school', 'x')).code).not.toBe(0);
    const wrong = await enrich('suppress', 'person', 'https://www.linkedin.com/company/acme/');
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/not a person URL/);
  });
});
