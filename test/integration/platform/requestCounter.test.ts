/**
 * The usage timeline's counter (src/http/requestCounter.ts) on its own: batches add up, a batch with
 * a workspace deleted meanwhile still writes the others, and a database that cannot be reached (a
 * closed port, for real) keeps the batch for the next flush instead of losing it.
 */
import { freePort } from '../../../src/db/embedded';
import { createKnex } from '../../../src/db/knex';
import { RequestCounter } from '../../../src/http/requestCounter';
import { useHarness } from '../../helpers/harness';

const h = useHarness();
const counts = (workspaceId: string) =>
  h.knex('workspace_request_counts').where({ workspace_id: workspaceId }).orderBy('status_class').select('status_class', h.knex.raw('count::int as count'));

describe('RequestCounter', () => {
  it('adds batches up by day and class, skips a workspace deleted since, and writes last use', async () => {
    const { workspaceId, key } = await h.workspace();
    const keyRow = await h.knex('api_keys as k').join('accounts as a', 'a.id', 'k.account_id').where('a.workspace_id', workspaceId).first('k.id');
    const counter = new RequestCounter(h.knex, { flushMs: 0 });
    const at = new Date();
    for (const status of [200, 201, 404, 429, 503, 304]) counter.record(workspaceId, keyRow.id, status, at);
    counter.record('3f2c1a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f', '', 200, at); // no such workspace (deleted)
    await counter.flush();
    counter.record(workspaceId, keyRow.id, 200, at);
    await counter.close();
    expect(await counts(workspaceId)).toEqual([
      { status_class: '2xx', count: 3 },
      { status_class: '3xx', count: 1 },
      { status_class: '429', count: 1 },
      { status_class: '4xx', count: 1 },
      { status_class: '5xx', count: 1 },
    ]);
    expect(counter.pendingEntries()).toBe(0);
    const used = await h.knex('api_keys').where({ id: keyRow.id }).first('last_used_at');
    expect(used.last_used_at.getTime()).toBe(Math.floor(at.getTime()));
    expect(key).toMatch(/^ik_live_/);
  });

  it('keeps a batch whose write failed (database unreachable) for the next flush', async () => {
    const port = await freePort(); // nothing listens there
    const down = createKnex(`postgres://postgres@127.0.0.1:${port}/nothing`, 1);
    const warnings: string[] = [];
    const logger = { warn: (_o: object, msg: string) => void warnings.push(msg) } as never;
    const counter = new RequestCounter(down, { flushMs: 0, logger });
    try {
      counter.record('3f2c1a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f', '', 200);
      counter.record('3f2c1a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f', '', 200);
      await counter.flush();
      expect(counter.pendingEntries()).toBe(1);
      expect(warnings).toEqual(['request counts: write failed; kept for the next batch']);
    } finally {
      await down.destroy();
    }
  }, 60_000);
});
