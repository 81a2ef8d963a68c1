/** `enrich match` as an operator runs it: one query with the evidence, exit codes, a file of queries. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { enrich, enrichJson } from '../../helpers/cli';
import { useHarness } from '../../helpers/harness';
import { storeCompanies, storePersons } from '../../helpers/lakeRecords';
import { matchCompany, matchPerson, rareSurname } from '../../helpers/matchRecords';

const h = useHarness({ workspaceRateLimit: 10_000 });

describe('enrich match', () => {
  const company = matchCompany('Vandelay Industries Inc.', 'https://www.vandelay-industries.com');
  const last = rareSurname();
  const person = matchPerson('Arthur', last, [{ company: company.name, companyId: company.company_id, title: 'Importer' }]);
  beforeAll(async () => {
    await storeCompanies(h.knex, company);
    await storePersons(h.knex, person);
  });

  it('matches a person by name and company and prints the likelihood and the evidence', async () => {
    const res = await enrich('match', 'person', '--name', `Art ${last}`, '--company', 'Vandelay Industries');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(`Arthur ${last} (${person.id})`);
    expect(res.stdout).toMatch(/likelihood 0\.\d+/);
    expect(res.stdout).toMatch(/name\s+nickname/);
    expect(res.stdout).toMatch(/company\s+exact/);
  });

  it('answers --json with the record and the verdict, as the API does', async () => {
    const out = await enrichJson<{ data: { id: string }; match: { likelihood: number } }>('match', 'company', '--domain', 'vandelay-industries.com');
    expect(out.data.id).toBe(company.id);
    expect(out.match.likelihood).toBeGreaterThan(0.7);
  });

  it('exits 1 on no match and 2 on too little input, with the code on stderr', async () => {
    const none = await enrich('match', 'person', '--name', `Arthur ${rareSurname()}`, '--company', 'Vandelay Industries');
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^NO_MATCH: /);
    const little = await enrich('match', 'person', '--first-name', 'Arthur');
    expect(little.code).toBe(2);
    expect(little.stderr).toMatch(/^MATCH_INPUT_INSUFFICIENT: /);
    expect((await enrich('match', 'person', '--name', 'A B', '--min-likelihood', '2')).code).not.toBe(0);
  });

  it('answers a file of queries one NDJSON line each, in order', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-match-')), 'rows.ndjson');
    fs.writeFileSync(file, `${JSON.stringify({ name: `Arthur ${last}`, company: 'Vandelay' })}\n${JSON.stringify({ first_name: 'Arthur' })}\n`);
    const res = await enrich('match', 'person', '--file', file);
    expect(res.code).toBe(0);
    const lines = res.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.status)).toEqual(['matched', 'failed']);
    expect(lines[0].data.id).toBe(person.id);
    fs.rmSync(path.dirname(file), { recursive: true });
  });
});
