/**
 * A chunk's results are written in one statement (db/repositories/listJobs.ts writeResults): the
 * records as one text parameter, a record a line, or as an array when a record holds a line end.
 * Both ways store every row's outcome and record exactly, a missing record as null, in row order.
 */
import * as repo from '../../../src/db/repositories/listJobs';
import { upload, useJobsHarness } from '../../helpers/listJobs';

const h = useJobsHarness({ chunkRows: 10 });

async function claimedChunkOf(body: string) {
  const res = await upload(h, h.key(), body);
  expect(res.status).toBe(202);
  const token = '00000000-0000-4000-8000-0000000000aa';
  const chunks = await repo.claimChunks(h.knex, { token, limit: 10, leaseSeconds: 60, perWorkspace: 100 });
  const chunk = chunks.find((c) => c.job_id === res.body.job.id)!;
  return { jobId: res.body.job.id as string, chunk, token };
}

const result = (row_no: number, record: string | null): repo.RowResult => ({
  row_no,
  outcome: record === null ? 'unmatched' : 'matched',
  likelihood: record === null ? null : 0.9,
  evidence: record === null ? null : 'name exact',
  record_id: record === null ? null : `00000000-0000-4000-8000-00000000000${row_no}`,
  record,
  reason: record === null ? 'NO_MATCH' : null,
});

describe('writing a chunk\'s results', () => {
  it.each([
    ['one record a line', ['{"id":"a","x":"one"}', null, '{"id":"c","x":"three, \\"quoted\\""}', null]],
    ['a record holding a line end (the array way)', ['{"id":"a","x":"one\ntwo"}', null, '{"id":"c"}', '{"id":"d","x":"\\\\n"}']],
    ['no record at all', [null, null, null, null]],
    ['a single row, without a record', [null]],
  ])('%s: every row exactly, in order', async (_name, records) => {
    const { jobId, chunk, token } = await claimedChunkOf('username\na\nb\nc\nd\n');
    const results = records.map((r, i) => result(i + 1, r));
    await repo.commitChunk(h.knex, { job_id: jobId, chunk_no: chunk.chunk_no, token }, results, async () => undefined);
    const stored = await repo.readResults(h.knex, jobId, 1, results.length);
    expect(stored.map((r) => ({ row_no: r.row_no, outcome: r.outcome, record: r.record, record_id: r.record_id, reason: r.reason }))).toEqual(
      results.map((r) => ({ row_no: r.row_no, outcome: r.outcome, record: r.record, record_id: r.record_id, reason: r.reason })),
    );
  });
});
