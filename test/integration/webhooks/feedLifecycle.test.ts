/**
 * The event feed across a monitor's life (issue 32, rows 1, 2 and 6), through the real paths: the
 * lake writer records changes, a real HTTPS receiver answers, the delivery worker deactivates, the
 * API deletes, `suppress` withdraws, and the feed's sequencer numbers what committed.
 *
 * - A monitor deactivated by failing deliveries keeps producing feed events; its webhook gets
 *   nothing more.
 * - Deleting a monitor takes its events out of the feed, yet `after=<one of them>` still continues
 *   (and is still refused to another workspace).
 * - A withdrawal takes the subject's events out of the feed, its monitors' `monitor.test` events
 *   too; every item left is inside the contract (the harness validates every answer).
 */
import { randomUUID } from 'node:crypto';
import { insertFeedEvents } from '../../../src/db/repositories/eventFeed';
import { lockMonitorSubject } from '../../../src/db/repositories/monitors';
import { writeRecords } from '../../../src/domain/lake/write/writer';
import { suppress } from '../../../src/domain/lake/suppression';
import { eventually } from '../../helpers/live';
import { personRecord } from '../../helpers/lakeRecords';
import { monitorBody } from '../../helpers/monitors';
import { deliveryRow, useDeliveryRig } from '../../helpers/webhooks';
import type { PersonRecord } from '../../../src/model/records';

const { h, receiver, startWorker, stopWorker } = useDeliveryRig({ feed: true });

type FeedItem = { id: string; event: string; monitor_id: string; diff: unknown; subject: unknown };
const feed = async (query: string, key: string) => {
  const res = await h.get(`/api/v1/events?per_page=100&${query}`, key);
  expect(res.status).toBe(200);
  return res.body.results as FeedItem[];
};
/** Waits until every event recorded for the workspace so far has been numbered by the sequencer. */
const sequenced = (workspaceId: string) =>
  eventually(async () => Number((await h.knex('event_feed').where({ workspace_id: workspaceId }).whereNull('position').count('* as n'))[0]!.n) === 0);

let n = 0;
/** A real change through the lake writer: the person moves to another city (person.location_changed). */
async function move(p: PersonRecord): Promise<PersonRecord> {
  const next = { ...p, geo_city: `City ${++n}` };
  await writeRecords(h.knex, 'person', [next], { origin: 'refresh' });
  return next;
}

async function watched(key: string, path: string) {
  let p = personRecord();
  await writeRecords(h.knex, 'person', [p]);
  const res = await h.post('/api/v1/monitors', monitorBody({ subject_url: p.network_url, webhook_url: receiver.url(path) }), key);
  expect(res.status).toBe(201);
  return { person: p, monitor: res.body.monitor as { id: string }, move: async () => (p = await move(p)) };
}

describe('the event feed across a monitor\'s life', () => {
  it('a monitor deactivated by failing deliveries keeps its feed; its webhook gets nothing more', async () => {
    const { key, workspaceId } = await h.workspace({ rateLimit: 100_000 });
    receiver.answer = (req) => (req.path === '/down' ? { status: 503 } : { status: 204 });
    const w = await watched(key, '/down');
    await w.move();
    const before = (await h.knex('event_feed').where({ monitor_id: w.monitor.id }).first('id')).id as string;
    const worker = startWorker({ config: { schedule: [0.5, 0.5, 0.5, 0.5, 0.5, 0.5], deactivateAfterSeconds: 1 } });
    try {
      await eventually(async () => (await h.get(`/api/v1/monitors/${w.monitor.id}`, key)).body.monitor.active === false);
    } finally {
      await stopWorker(worker);
    }
    expect(receiver.of(before).length).toBeGreaterThan(0);
    // A change after the deactivation: in the feed, not queued for the webhook.
    await w.move();
    await sequenced(workspaceId);
    const events = await feed(`monitor_id=${w.monitor.id}`, key);
    expect(events.map((e) => e.event)).toEqual(['person.location_changed', 'person.location_changed']);
    expect(events[0]!.id).toBe(before);
    const after = events[1]!.id;
    expect(await deliveryRow(h.knex, after)).toBeUndefined();
    // A worker running now sends nothing of it.
    const again = startWorker({ config: { schedule: [0.2] } });
    try {
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      await stopWorker(again);
    }
    expect(receiver.of(after)).toEqual([]);
  });

  it('deleting a monitor takes its events out of the feed; `after=` one of them still continues, for its workspace only', async () => {
    const { key, workspaceId } = await h.workspace({ rateLimit: 100_000 });
    const other = await h.workspace({ rateLimit: 100_000 });
    receiver.answer = () => ({ status: 204 });
    const gone = await watched(key, '/gone');
    const kept = await watched(key, '/kept');
    await gone.move();
    await sequenced(workspaceId);
    const [seen] = await feed('', key);
    expect(seen!.monitor_id).toBe(gone.monitor.id);
    expect((await h.send(h.http.delete(`/api/v1/monitors/${gone.monitor.id}`).set('Authorization', `Bearer ${key}`))).status).toBe(200);
    await kept.move();
    await sequenced(workspaceId);
    // The deleted monitor's event is no longer listed, but the subscriber's place is kept.
    const continued = await feed(`after=${seen!.id}`, key);
    expect(continued.map((e) => e.monitor_id)).toEqual([kept.monitor.id]);
    expect((await feed('', key)).map((e) => e.monitor_id)).toEqual([kept.monitor.id]);
    // Another workspace cannot use it.
    const foreign = await h.get(`/api/v1/events?after=${seen!.id}`, other.key);
    expect(foreign.status).toBe(400);
    expect(foreign.body.code).toBe('VALIDATION_ERROR');
  });

  it('a withdrawal takes the subject\'s events out of the feed, monitor.test ones too; `after=` them still continues', async () => {
    const { key, workspaceId } = await h.workspace({ rateLimit: 100_000 });
    receiver.answer = () => ({ status: 204 });
    const subject = await watched(key, '/withdrawn');
    const bystander = await watched(key, '/bystander');
    await subject.move();
    const test = await h.post(`/api/v1/monitors/${subject.monitor.id}/test`, undefined, key);
    expect(test.status).toBe(202);
    await bystander.move();
    await sequenced(workspaceId);
    const all = await feed('', key);
    expect(all.map((e) => [e.monitor_id, e.event])).toEqual([
      [subject.monitor.id, 'person.location_changed'],
      [subject.monitor.id, 'monitor.test'],
      [bystander.monitor.id, 'person.location_changed'],
    ]);

    await suppress(h.knex, 'person', { by: 'id', value: subject.person.id });
    const left = await feed('', key);
    expect(left.map((e) => e.id)).toEqual([all[2]!.id]);
    for (const e of left) {
      expect(e.diff).not.toBeNull();
      expect(e.subject).not.toBeNull();
    }
    // Nothing about the subject is kept in the feed's table.
    const rows = await h.knex('event_feed').whereIn('id', [all[0]!.id, all[1]!.id]).select('body', 'subject_id');
    expect(rows).toEqual([
      { body: null, subject_id: null },
      { body: null, subject_id: null },
    ]);
    // A subscriber whose last event was the subject's continues.
    expect((await feed(`after=${all[1]!.id}`, key)).map((e) => e.id)).toEqual([all[2]!.id]);
    expect(await feed(`event=monitor.test`, key)).toEqual([]);
  });

  it('a test event being enqueued while its subject is withdrawn: the withdrawal waits for it and takes it out of the feed', async () => {
    const { key, workspaceId } = await h.workspace({ rateLimit: 100_000 });
    const w = await watched(key, '/racing');
    const id = randomUUID();
    // enqueueTest's steps, held open: the monitor's row locked, the feed's event written.
    const trx = await h.knex.transaction();
    let withdrawn: Promise<unknown> | undefined;
    try {
      expect((await lockMonitorSubject(trx, w.monitor.id))?.subject_slug).not.toBeNull();
      await insertFeedEvents(trx, [{ id, workspace_id: workspaceId, monitor_id: w.monitor.id, event: 'monitor.test', subject_id: null, body: JSON.stringify({ id, event: 'monitor.test' }) }]);
      withdrawn = suppress(h.knex, 'person', { by: 'id', value: w.person.id });
      // The withdrawal waits on the monitor's row.
      await eventually(async () =>
        Number(
          (
            await h.knex.raw(
              `select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%update monitors set active = false%'`,
            )
          ).rows[0].n,
        ) > 0,
      );
    } finally {
      await trx.commit();
    }
    await withdrawn;
    expect(await h.knex('event_feed').where({ id }).first('body')).toEqual({ body: null });
    await sequenced(workspaceId);
    expect(await feed('', key)).toEqual([]);
  });
});
