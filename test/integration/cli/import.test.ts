/** `enrich import` as an operator runs it: NDJSON files, plain and gzip, valid and not. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { suppress } from '../../../src/domain/lake/suppression';
import { enrich, enrichJson } from '../../helpers/cli';
import { useHarness } from '../../helpers/harness';
import { companyRecord, personRecord } from '../../helpers/lakeRecords';

const h = useHarness({ workspaceRateLimit: 10_000 });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-import-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let n = 0;
function file(lines: unknown[], gzip = false): string {
  const text = lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';
  const name = path.join(dir, `input-${++n}.ndjson${gzip ? '.gz' : ''}`);
  fs.writeFileSync(name, gzip ? zlib.gzipSync(text) : text);
  return name;
}

interface Report {
  lines: number;
  written: number;
  invalid: number;
  withdrawn: number;
  duplicates: number;
  records_per_second: number;
  errors: { line: number; reason: string }[];
}

const person = (id: string) => h.get(`/api/v1/person?id=${id}`, h.key());

describe('enrich import', () => {
  it('imports valid persons, which are then served whole', async () => {
    const records = [personRecord(), personRecord(), personRecord()];
    const report = await enrichJson<Report>('import', 'persons', file(records));
    expect(report).toMatchObject({ lines: 3, written: 3, invalid: 0, withdrawn: 0, duplicates: 0 });
    for (const r of records) expect((await person(r.id)).body.data).toEqual(r);
  });

  it('reports invalid lines with their number and reason, skips them and imports the rest', async () => {
    const good = [personRecord(), personRecord()];
    const { full_name: _dropped, ...missingName } = personRecord();
    const lines = [
      good[0],
      '{"id": "not json',
      missingName,
      '',
      { ...personRecord(), skills_count: 'many' },
      { ...personRecord(), favourite_colour: 'teal' },
      '[1, 2, 3]',
      good[1],
    ];
    const res = await enrich('import', 'persons', file(lines), '--json');
    expect(res.code).toBe(0);
    const report = JSON.parse(res.stdout) as Report;
    expect(report).toMatchObject({ lines: 8, written: 2, invalid: 5 });
    expect(report.errors.map((e) => e.line)).toEqual([2, 3, 5, 6, 7]);
    expect(report.errors[0].reason).toMatch(/JSON/);
    expect(report.errors[1].reason).toMatch(/full_name/);
    expect(report.errors[2].reason).toMatch(/skills_count/);
    expect(report.errors[3].reason).toMatch(/favourite_colour/);
    for (const r of good) expect((await person(r.id)).status).toBe(200);

    const human = await enrich('import', 'persons', file(lines));
    expect(human.code).toBe(0);
    expect(human.stderr).toMatch(/^line 2: .*JSON/m);
    expect(human.stderr).toMatch(/^line 3: .*full_name/m);
    expect(human.stdout).toMatch(/Imported 2 persons/);
  });

  it('--strict aborts on an invalid line with nothing written', async () => {
    const before = personRecord();
    const after = personRecord();
    const res = await enrich('import', 'persons', file([before, { broken: true }, after]), '--strict');
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/line 2/);
    expect((await person(before.id)).status).toBe(404);
    expect((await person(after.id)).status).toBe(404);
  });

  it('re-importing upserts by identifier: no duplicates, the newer copy wins', async () => {
    const record = personRecord({ headline: 'Old headline' });
    await enrichJson('import', 'persons', file([record]));
    const changed = { ...record, headline: 'New headline' };
    const report = await enrichJson<Report>('import', 'persons', file([changed]));
    expect(report.written).toBe(1);
    expect((await person(record.id)).body.data.headline).toBe('New headline');
    expect(await h.knex('persons').where({ username: record.username }).count({ n: '*' }).first()).toEqual({ n: 1 });
    // Twice in one file: the later line wins.
    const twice = await enrichJson<Report>('import', 'persons', file([{ ...record, headline: 'A' }, { ...record, headline: 'B' }]));
    expect(twice).toMatchObject({ written: 1, duplicates: 1 });
    expect((await person(record.id)).body.data.headline).toBe('B');
  });

  it('reads gzip files', async () => {
    const records = [personRecord(), personRecord()];
    const report = await enrichJson<Report>('import', 'persons', file(records, true));
    expect(report.written).toBe(2);
    expect((await person(records[1].id)).status).toBe(200);
  });

  it('imports companies', async () => {
    const companies = [companyRecord(), companyRecord()];
    const report = await enrichJson<Report>('import', 'companies', file(companies));
    expect(report.written).toBe(2);
    const res = await h.get(`/api/v1/company?company_id=${companies[0].company_id}`, h.key());
    expect(res.body.data).toEqual(companies[0]);
    const wrongKind = await enrichJson<Report>('import', 'companies', file([personRecord()]));
    expect(wrongKind).toMatchObject({ written: 0, invalid: 1 });
  });

  it('refuses records withdrawn under a privacy request, and says so', async () => {
    const withdrawn = personRecord();
    await suppress(h.knex, 'person', { by: 'username', value: withdrawn.username });
    const report = await enrichJson<Report>('import', 'persons', file([withdrawn, personRecord()]));
    expect(report).toMatchObject({ written: 1, withdrawn: 1 });
    expect((await person(withdrawn.id)).status).toBe(451);
  });

  it('a missing file is an error with a clear message', async () => {
    const res = await enrich('import', 'persons', path.join(dir, 'nope.ndjson'));
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/nope\.ndjson: no such file/);
  });
});
