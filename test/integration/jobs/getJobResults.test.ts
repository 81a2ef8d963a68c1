/**
 * GET /jobs/{id}/results: the rows done so far while the job runs (a prefix), format by parameter,
 * resume from a row; a withdrawn person is erased from stored results.
 */
import { parse } from 'csv-parse/sync';
import { storeCompanies, storePersons } from '../../helpers/lakeRecords';
import { matchCompany, matchPerson, rareSurname } from '../../helpers/matchRecords';
import { results, startWorker, upload, waitForJob, useJobsHarness } from '../../helpers/listJobs';
import { suppress } from '../../../src/domain/lake/suppression';

const h = useJobsHarness({ chunkRows: 2 });

const acme = matchCompany('Globex Hydraulics GmbH', 'https://globex-hydraulics.de');
const lasts = [rareSurname(), rareSurname()];
const people = lasts.map((l) => matchPerson('Marguerite', l, [{ company: acme.name, companyId: acme.company_id }]));
beforeAll(async () => {
  await storeCompanies(h.knex, acme);
  await storePersons(h.knex, ...people);
});

describe('GET /jobs/{id}/results', () => {
  it('streams only the done prefix while rows wait, then everything; from_row resumes', async () => {
    const { key } = await h.workspace({ rateLimit: 1000 });
    const csv = `name,company\n${people.map((p) => `${p.full_name},Globex Hydraulics`).join('\n')}\nNobody Atall,Globex Hydraulics\n`;
    const id = (await upload(h, key, csv)).body.job.id;
    // Nothing done yet: the header alone.
    const before = await results(h, key, id);
    expect(before.status).toBe(200);
    expect((before.body as string).trim().split('\n')).toHaveLength(1);
    // Rows 3 done first (out of order): still nothing before row 1 is done.
    await h.knex('list_job_rows').where({ job_id: id, row_no: 3 }).update({ outcome: 'unmatched', reason: 'NO_MATCH' });
    expect((await results(h, key, id, 'format=ndjson')).body).toBe('');
    await h.knex('list_job_rows').where({ job_id: id, row_no: 3 }).update({ outcome: null, reason: null });

    const worker = startWorker(h);
    try {
      await waitForJob(h, key, id, (j) => j.status === 'completed');
    } finally {
      await worker.stop();
    }
    const all = parse((await results(h, key, id, 'format=csv')).body as string, { columns: true }) as Record<string, string>[];
    expect(all.map((r) => r._outcome)).toEqual(['matched', 'matched', 'unmatched']);
    const from2 = (await results(h, key, id, 'format=ndjson&from_row=2')).body as string;
    expect(from2.trim().split('\n').map((l) => JSON.parse(l).row)).toEqual([2, 3]);

    // Withdrawal erases the person from the stored results; the counters follow.
    await suppress(h.knex, 'person', { by: 'username', value: people[0]!.username });
    const after = parse((await results(h, key, id)).body as string, { columns: true }) as Record<string, string>[];
    expect(after[0]).toMatchObject({ _outcome: 'unmatched', _record_id: '', _full_name: '', _likelihood: '', _evidence: '' });
    expect(after[1]!._record_id).toBe(people[1]!.id);
    expect((await h.get(`/api/v1/jobs/${id}`, key)).body.job).toMatchObject({ matched: 1, unmatched: 2 });
    const [stored] = await h.knex('list_job_rows').where('record_id', people[0]!.id).count('* as n');
    expect(Number(stored!.n)).toBe(0);
  }, 120_000);

  it('404 NOT_FOUND for another workspace\'s job; 400 for a bad format', async () => {
    const { key } = await h.workspace({ rateLimit: 1000 });
    const other = await h.workspace({ rateLimit: 1000 });
    const id = (await upload(h, key, 'email\na@example.org\n')).body.job.id;
    expect((await results(h, other.key, id)).status).toBe(404);
    expect((await results(h, key, id, 'format=xlsx')).status).toBe(400);
  });
});
