/**
 * Privacy withdrawal across every endpoint that serves lake records so far, by every identifier,
 * and against re-import.
 */
import { keyFromOperatorInput } from '../../../src/domain/lake/identifiers';
import { identifierDigest, suppress } from '../../../src/domain/lake/suppression';
import { writeRecords } from '../../../src/domain/lake/write/writer';
import { useHarness } from '../../helpers/harness';
import { companyRecord, personRecord, storeCompanies, storePersons } from '../../helpers/lakeRecords';
import type { CompanyRecord, PersonRecord } from '../../../src/model/records';

const h = useHarness({ workspaceRateLimit: 10_000 });
const enc = encodeURIComponent;

const personQueries = (p: PersonRecord) => [
  `id=${p.id}`,
  `username=${p.username}`,
  `network_url=${enc(p.network_url)}`,
  `network_url=${enc(`http://de.linkedin.com/in/${p.username.toUpperCase()}/?trk=1#x`)}`,
];
const personEndpoints = ['/api/v1/person', '/api/v1/person/check'];
const companyQueries = (c: CompanyRecord) => [
  `id=${c.id}`,
  `username=${c.username}`,
  `company_id=${c.company_id}`,
  `network_url=${enc(c.network_url)}`,
];
const companyEndpoints = ['/api/v1/company', '/api/v1/company/check'];

async function expectBlocked(endpoints: string[], queries: string[]) {
  for (const endpoint of endpoints) {
    for (const query of queries) {
      const res = await h.get(`${endpoint}?${query}`, h.key());
      expect({ endpoint, query, status: res.status, code: res.body.code }).toEqual({
        endpoint,
        query,
        status: 451,
        code: 'DATA_SUBJECT_BLOCKED',
      });
    }
  }
}

async function personRows(id: string) {
  const [persons, positions, educations] = await Promise.all(
    ['persons', 'person_positions', 'person_educations'].map(async (table) =>
      Number((await h.knex(table).where(table === 'persons' ? 'id' : 'person_id', id).count({ n: '*' }).first())!.n),
    ),
  );
  return { persons, positions, educations };
}

describe('privacy withdrawal (451)', () => {
  it.each([
    ['profile URL', (p: PersonRecord) => `https://www.linkedin.com/in/${p.username}/`],
    ['username', (p: PersonRecord) => p.username],
    ['id', (p: PersonRecord) => p.id],
    ['network_id', (p: PersonRecord) => p.network_id!],
    ['network_urn', (p: PersonRecord) => p.network_urn!],
  ])('a person withdrawn by %s is deleted and 451 by every identifier on every endpoint', async (_by, identifier) => {
    const person = personRecord();
    await storePersons(h.knex, person);
    expect(await personRows(person.id)).toEqual({ persons: 1, positions: person.positions.length, educations: person.educations.length });
    const outcome = await suppress(h.knex, 'person', keyFromOperatorInput('person', identifier(person)));
    expect(outcome).toMatchObject({ found: true, deleted_id: person.id });
    expect(await personRows(person.id)).toEqual({ persons: 0, positions: 0, educations: 0 });
    await expectBlocked(personEndpoints, personQueries(person));
  });

  it('the tombstone holds only one-way hashes, none of them the identifiers themselves', async () => {
    const person = personRecord();
    await storePersons(h.knex, person);
    await suppress(h.knex, 'person', { by: 'id', value: person.id });
    const digest = identifierDigest('person', { by: 'username', value: person.username });
    const row = await h.knex('suppressions').where({ digest }).first();
    expect(row).toBeDefined();
    expect(Object.keys(row).sort()).toEqual(['digest', 'kind', 'suppressed_at']);
    const dump = JSON.stringify(await h.knex('suppressions').select('*'));
    for (const value of [person.id, person.username, person.network_id!, person.network_urn!, person.full_name]) {
      expect(dump).not.toContain(value);
    }
  });

  it('a re-import of a withdrawn person is refused, also with a new id under the old username', async () => {
    const person = personRecord();
    await storePersons(h.knex, person);
    await suppress(h.knex, 'person', { by: 'username', value: person.username });
    const again = await writeRecords(h.knex, 'person', [person]);
    expect(again).toMatchObject({ written: 0, withdrawn: 1 });
    const renamed = personRecord({ username: person.username });
    expect(await writeRecords(h.knex, 'person', [renamed])).toMatchObject({ written: 0, withdrawn: 1 });
    expect(await personRows(person.id)).toEqual({ persons: 0, positions: 0, educations: 0 });
    await expectBlocked(personEndpoints, [...personQueries(person), `id=${renamed.id}`]);
  });

  it('withdrawing an identifier before the record is indexed refuses the record when it arrives, by all its identifiers', async () => {
    const person = personRecord();
    const outcome = await suppress(h.knex, 'person', keyFromOperatorInput('person', person.network_url));
    expect(outcome).toMatchObject({ found: false, deleted_id: null });
    await expectBlocked(personEndpoints, [`username=${person.username}`]);
    expect(await writeRecords(h.knex, 'person', [person])).toMatchObject({ written: 0, withdrawn: 1 });
    await expectBlocked(personEndpoints, personQueries(person));
  });

  it('other records are untouched', async () => {
    const [keep, drop] = [personRecord(), personRecord()];
    await storePersons(h.knex, keep, drop);
    await suppress(h.knex, 'person', { by: 'id', value: drop.id });
    expect((await h.get(`/api/v1/person?id=${keep.id}`, h.key())).status).toBe(200);
  });

  it.each([
    ['company URL', (c: CompanyRecord) => `linkedin.com/company/${c.username}`],
    ['username', (c: CompanyRecord) => c.username],
    ['company_id', (c: CompanyRecord) => c.company_id],
    ['id', (c: CompanyRecord) => c.id],
  ])('a company withdrawn by %s is deleted and 451 by every identifier on every endpoint', async (_by, identifier) => {
    const company = companyRecord();
    await storeCompanies(h.knex, company);
    await suppress(h.knex, 'company', keyFromOperatorInput('company', identifier(company)));
    expect(await h.knex('companies').where({ id: company.id }).first()).toBeUndefined();
    await expectBlocked(companyEndpoints, companyQueries(company));
    expect(await writeRecords(h.knex, 'company', [company])).toMatchObject({ written: 0, withdrawn: 1 });
    await expectBlocked(companyEndpoints, companyQueries(company));
  });
});
