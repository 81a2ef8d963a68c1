/**
 * `enrich jobs submit FILE --wait`, `results`, `list`, `show`, `cancel` against a real server on
 * loopback (the harness's app) with a real worker: the upload streams from disk, the results come
 * out on stdout in order.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { parse } from 'csv-parse/sync';
import { enrich } from '../../helpers/cli';
import { storeCompanies, storePersons } from '../../helpers/lakeRecords';
import { matchCompany, matchPerson, rareSurname } from '../../helpers/matchRecords';
import { startWorker, useJobsHarness } from '../../helpers/listJobs';
import type { ListJobWorker } from '../../../src/jobs/listJobWorker';

const h = useJobsHarness();
let server: http.Server;
let apiUrl: string;
let worker: ListJobWorker;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-jobs-cli-'));
const acme = matchCompany('Vandelay Industries Inc', 'https://vandelay-industries.com');
const lasts = [rareSurname(), rareSurname()];
const people = lasts.map((l) => matchPerson('Cosmo', l, [{ company: acme.name, companyId: acme.company_id }]));

beforeAll(async () => {
  await storeCompanies(h.knex, acme);
  await storePersons(h.knex, ...people);
  server = http.createServer(h.app.koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  worker = startWorker(h);
});
h.beforeClose(async () => {
  await worker?.stop();
  await new Promise((r) => server?.close(r));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('enrich jobs', () => {
  it('submits a file, waits for it, streams the results, lists and shows it', async () => {
    const file = path.join(dir, 'contacts.csv');
    fs.writeFileSync(file, `name,company\n${people.map((p) => `${p.full_name},Vandelay Industries`).join('\n')}\nNo One Here,Vandelay Industries\n`);
    const key = h.key();
    const submitted = await enrich('jobs', 'submit', file, '--wait', '--json', '--api-url', apiUrl, '--api-key', key, '--interval', '100');
    expect(submitted.stderr).toBe('');
    expect(submitted.code).toBe(0);
    const job = JSON.parse(submitted.stdout).job;
    expect(job).toMatchObject({ status: 'completed', rows_read: 3, matched: 2, unmatched: 1 });

    const results = await enrich('jobs', 'results', job.id, '--api-url', apiUrl, '--api-key', key);
    expect(results.code).toBe(0);
    const rows = parse(results.stdout, { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r._row, r._outcome, r._record_id])).toEqual([
      ['1', 'matched', people[0]!.id],
      ['2', 'matched', people[1]!.id],
      ['3', 'unmatched', ''],
    ]);

    const listed = await enrich('jobs', 'list', '--api-url', apiUrl, '--api-key', key);
    expect(listed.stdout).toContain(`${job.id}  completed  3/3 rows`);
    const shown = await enrich('jobs', 'show', job.id, '--api-url', apiUrl, '--api-key', key);
    expect(shown.stdout).toContain('matched 2  unmatched 1  failed 0');
    const cancelled = await enrich('jobs', 'cancel', job.id, '--api-url', apiUrl, '--api-key', key);
    expect(cancelled.stdout).toContain('completed');
  }, 120_000);

  it('says why when the server refuses: a file no column of which can match anyone', async () => {
    const file = path.join(dir, 'owners.csv');
    fs.writeFileSync(file, 'owner,notes\njules,x\n');
    const res = await enrich('jobs', 'submit', file, '--api-url', apiUrl, '--api-key', h.key());
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/POST \/jobs answered 400 JOB_UPLOAD_UNUSABLE: No column can identify or match anyone. Columns seen: "owner", "notes"/);
  });
});
