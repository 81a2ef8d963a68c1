/** `enrich seed`: a deterministic world, written as NDJSON or loaded into the lake and served. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createWorld } from '../../../src/world';
import { recordValidator } from '../../../src/http/recordSchemas';
import { enrich, enrichJson } from '../../helpers/cli';
import { useHarness } from '../../helpers/harness';

const h = useHarness({ workspaceRateLimit: 10_000 });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-seed-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const read = (d: string, f: string) => fs.readFileSync(path.join(d, f));

describe('enrich seed', () => {
  it('--out writes byte-identical files for the same seed and different ones for another', async () => {
    const args = ['--persons', '300', '--companies', '30', '--as-of', '2026-11-01'];
    const [a, b, c] = ['a', 'b', 'c'].map((n) => path.join(dir, n));
    await enrichJson('seed', ...args, '--seed', '5', '--out', a);
    await enrichJson('seed', ...args, '--seed', '5', '--out', b);
    await enrichJson('seed', ...args, '--seed', '6', '--out', c);
    for (const f of ['persons.ndjson', 'companies.ndjson']) {
      expect(read(a, f).equals(read(b, f))).toBe(true);
      expect(read(a, f).equals(read(c, f))).toBe(false);
    }
    const persons = read(a, 'persons.ndjson').toString().trim().split('\n');
    const companies = read(a, 'companies.ndjson').toString().trim().split('\n');
    expect([persons.length, companies.length]).toEqual([300, 30]);
    // The files are what the generator produces, and valid input for `enrich import`.
    const world = createWorld({ persons: 300, companies: 30, seed: 5, asOf: new Date('2026-11-01T00:00:00Z') });
    expect(JSON.parse(persons[123])).toEqual(world.person(123));
    const validPerson = recordValidator('PersonResult');
    const validCompany = recordValidator('CompanyResult');
    expect(persons.map((l) => validPerson(JSON.parse(l))).filter(Boolean)).toEqual([]);
    expect(companies.map((l) => validCompany(JSON.parse(l))).filter(Boolean)).toEqual([]);
  });

  it('loads the world into the lake, where every record is served as generated and coherent', async () => {
    const options = { persons: 200, companies: 20, seed: 4242, asOf: new Date('2026-11-01T00:00:00Z') };
    const report = await enrichJson<{ persons: number; companies: number }>(
      'seed', '--persons', '200', '--companies', '20', '--seed', '4242', '--as-of', '2026-11-01',
    );
    expect(report).toMatchObject({ persons: 200, companies: 20 });
    const world = createWorld(options);
    for (const i of [0, 57, 199]) {
      const person = world.person(i);
      const res = await h.get(`/api/v1/person?username=${person.username}`, h.key());
      expect(res.body.data).toEqual(person);
      // The current employer is a company of the same world, served by its id.
      const company = await h.get(`/api/v1/company?company_id=${person.current_company_id}`, h.key());
      expect(company.status).toBe(200);
      expect(company.body.data.name).toBe(person.current_company);
    }
    // A renamed company was loaded under its former name first: the lake's change log holds the rename.
    const renamed = [...Array(world.companies).keys()].filter((i) => world.formerCompany(i) !== undefined);
    expect(renamed.length).toBeGreaterThan(0);
    // This world's companies only: the suite's files share one lake, and others log renames meanwhile.
    const worldCompanyIds = Array.from({ length: 20 }, (_, i) => world.company(i).id);
    const renames = async () => (await h.knex('change_log').where('event', 'company.name_changed').whereIn('subject_id', worldCompanyIds).orderBy('subject_id').select('subject_id', 'diff'))
      .map((r: { subject_id: string; diff: unknown }) => ({ id: r.subject_id, diff: r.diff }));
    const logged = await renames();
    for (const i of renamed) {
      const company = world.company(i);
      expect(logged).toContainEqual({ id: company.id, diff: { old_name: world.formerCompany(i)!.name, new_name: company.name } });
      const served = await h.get(`/api/v1/company?company_id=${company.company_id}`, h.key());
      expect(served.body.data.name).toBe(company.name);
    }
    // Loading the same world again changes nothing and duplicates nothing.
    await enrichJson('seed', '--persons', '200', '--companies', '20', '--seed', '4242', '--as-of', '2026-11-01');
    expect(await renames()).toEqual(logged);
    const usernames = [...world.personRecords()].map((p) => p.username);
    const { n } = (await h.knex('persons').whereIn('username', usernames).count({ n: '*' }).first())!;
    expect(Number(n)).toBe(200);
  });

  it('rejects persons without companies', async () => {
    const res = await enrich('seed', '--persons', '5', '--companies', '0', '--out', path.join(dir, 'x'));
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/--companies/);
  });
});
