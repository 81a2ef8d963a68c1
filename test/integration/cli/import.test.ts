/** `enrich import` as an operator runs it: NDJSON files, plain and gzip, valid and not. */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { suppress } from '../../../src/domain/lake/suppression';
import { enrich, enrichJson } from '../../helpers/cli';
import { useHarness } from '../../helpers/harness';
import { companyRecord, personRecord } from '../../helpers/lakeRecords';
import { useNdjsonFiles } from '../../helpers/ndjson';

const h = useHarness({ workspaceRateLimit: 10_000 });
const { dir, file } = useNdjsonFiles('enrich-import');
let n = 0;

interface Report {
  complete: boolean;
  error: string | null;
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
    expect(res.code).toBe(2); // some lines skipped
    const report = JSON.parse(res.stdout) as Report;
    expect(report).toMatchObject({ lines: 8, written: 2, invalid: 5 });
    expect(report.errors.map((e) => e.line)).toEqual([2, 3, 5, 6, 7]);
    expect(report.errors[0].reason).toMatch(/JSON/);
    expect(report.errors[1].reason).toMatch(/full_name/);
    expect(report.errors[2].reason).toMatch(/skills_count/);
    expect(report.errors[3].reason).toMatch(/favourite_colour/);
    for (const r of good) expect((await person(r.id)).status).toBe(200);

    const human = await enrich('import', 'persons', file(lines));
    expect(human.code).toBe(2);
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
    const wrongKind = await enrich('import', 'companies', file([personRecord()]), '--json');
    expect(wrongKind.code).toBe(3); // nothing imported
    expect(JSON.parse(wrongKind.stdout)).toMatchObject({ written: 0, invalid: 1 });
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

describe('enrich import, hostile input', () => {
  it('a NUL character in any string: that line is reported and skipped, the rest imported (exit 2)', async () => {
    const records = Array.from({ length: 5 }, () => personRecord());
    const withNul = { ...personRecord(), headline: 'before\u0000after' };
    const nested = personRecord();
    nested.skills = [{ ...nested.skills[0], name: 'C\u0000C++' }];
    const res = await enrich('import', 'persons', file([records[0], records[1], withNul, records[2], nested, records[3], records[4]]), '--json');
    expect(res.code).toBe(2);
    const report = JSON.parse(res.stdout) as Report;
    expect(report).toMatchObject({ lines: 7, written: 5, invalid: 2, complete: true });
    expect(report.errors.map((e) => e.line)).toEqual([3, 5]);
    expect(report.errors[0].reason).toMatch(/headline.*NUL/);
    expect(report.errors[1].reason).toMatch(/skills\[0\]\.name.*NUL/);
    expect(res.stderr).not.toMatch(/insert into/i);
    for (const r of records) expect((await person(r.id)).status).toBe(200);
  });

  it('a record the database cannot store for another reason is isolated from its batch, reported and skipped', async () => {
    const companies = Array.from({ length: 6 }, () => companyRecord());
    const huge = { ...companyRecord(), staff_count: 10 ** 12 }; // valid for the schema, too large for the column
    const res = await enrich('import', 'companies', file([...companies.slice(0, 3), huge, ...companies.slice(3)]), '--json', '--batch-size', '4');
    expect(res.code).toBe(2);
    const report = JSON.parse(res.stdout) as Report;
    expect(report).toMatchObject({ written: 6, invalid: 1 });
    expect(report.errors).toEqual([{ line: 4, reason: expect.stringMatching(/database cannot store/) }]);
    for (const c of companies) expect((await h.get(`/api/v1/company?id=${c.id}`, h.key())).status).toBe(200);
  });

  it('a truncated gzip file: what was read is imported, the JSON report says it is incomplete, exit 4', async () => {
    const records = Array.from({ length: 50 }, () => personRecord());
    const name = file(records, true);
    const whole = fs.readFileSync(name);
    fs.writeFileSync(name, whole.subarray(0, Math.floor(whole.length * 0.6)));
    const res = await enrich('import', 'persons', name, '--json', '--batch-size', '5');
    expect(res.code).toBe(4);
    const report = JSON.parse(res.stdout) as Report;
    expect(report.complete).toBe(false);
    expect(report.error).toMatch(/ended early/);
    expect(report.written).toBeGreaterThan(0);
    expect(report.written).toBeLessThan(50);
    const first = await person(records[0].id);
    expect(first.status).toBe(200);
    const human = await enrich('import', 'persons', name);
    expect(human.code).toBe(4);
    expect(human.stdout).toMatch(/INCOMPLETE/);
  });

  it('a line over the maximum length is refused without being read whole: a gzip bomb of one 64 MB line', async () => {
    const after = personRecord();
    const bomb = Buffer.concat([Buffer.alloc(64 * 1024 * 1024, 0x61), Buffer.from('\n' + JSON.stringify(after) + '\n')]);
    const name = path.join(dir, `bomb-${++n}.ndjson.gz`);
    fs.writeFileSync(name, zlib.gzipSync(bomb));
    expect(fs.statSync(name).size).toBeLessThan(1024 * 1024);
    const res = await enrich('import', 'persons', name, '--json', '--max-line-bytes', '1048576');
    expect(res.code).toBe(2);
    const report = JSON.parse(res.stdout) as Report;
    expect(report).toMatchObject({ lines: 2, written: 1, invalid: 1 });
    expect(report.errors[0]).toEqual({ line: 1, reason: expect.stringMatching(/longer than the maximum of 1048576 bytes/) });
    expect((await person(after.id)).status).toBe(200);
  });

  it('a UTF-8 byte-order mark is ignored, and CRLF line ends too', async () => {
    const records = [personRecord(), personRecord()];
    const name = path.join(dir, `bom-${++n}.ndjson`);
    fs.writeFileSync(name, '\ufeff' + records.map((r) => JSON.stringify(r)).join('\r\n') + '\r\n');
    const res = await enrich('import', 'persons', name, '--json');
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ lines: 2, written: 2, invalid: 0 });
  });

  it('a file of garbage imports nothing and says so (exit 3), whatever its bytes', async () => {
    const name = path.join(dir, `garbage-${++n}.bin`);
    const bytes = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7919 + 13) % 256));
    bytes[0] = 0x00; // not the gzip magic
    fs.writeFileSync(name, bytes);
    const res = await enrich('import', 'persons', name, '--json');
    expect(res.code).toBe(3);
    const report = JSON.parse(res.stdout) as Report;
    expect(report.written).toBe(0);
    expect(report.invalid).toBeGreaterThan(0);
  });

  it('exit 0 when every record line is imported', async () => {
    const res = await enrich('import', 'persons', file([personRecord(), '', personRecord()]), '--json');
    expect(res.code).toBe(0);
  });
});
});
