/**
 * Migration 20261208003200_event_feed_positions on a database with the old feed in it: the old
 * feed's events are copied in their old order (feed_xid, feed_seq) with positions, those that had
 * left the feed (a withdrawn subject's change events, a withdrawn monitor's tests) as tombstones,
 * and the sequencer carries on after the largest position.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createKnex, dropDatabase, ensureDatabase } from '../../../src/db/knex';
import { databaseUrl } from '../../../src/db/embedded';
import { insertFeedEvents, sequencePending } from '../../../src/db/repositories/eventFeed';

const server = { adminUrl: process.env.TEST_ADMIN_DATABASE_URL!, name: process.env.TEST_DATABASE_NAME! };
const MIGRATION = '20261208003200_event_feed_positions';

it('copies the old feed in its order, tombstones what had left it, and the sequencer continues after it', async () => {
  const name = `${server.name}_feedmig_${randomBytes(2).toString('hex')}`;
  await ensureDatabase(server.adminUrl, name);
  const knex = createKnex(databaseUrl(server.adminUrl, name), 2);
  try {
    // Up to the migration before this one.
    for (;;) {
      const [, pending] = (await knex.migrate.list()) as [unknown[], ({ file: string } | string)[]];
      const next = pending[0];
      if (!next || (typeof next === 'string' ? next : next.file) === MIGRATION) break;
      await knex.migrate.up();
    }
    const workspace = (await knex.raw(`insert into workspaces (name) values ('old') returning id`)).rows[0].id;
    const monitor = async (slug: string | null) =>
      (
        await knex.raw(
          `insert into monitors (workspace_id, type, subject_slug, webhook_url, events, secret_ciphertext) values (?, 'person', ?, 'https://hooks.example.test/x', '{person.title_changed}', 'x') returning id`,
          [workspace, slug],
        )
      ).rows[0].id as string;
    const kept = await monitor('kept');
    const withdrawnMonitor = await monitor(null);
    const subject = randomUUID();
    // Each in its own transaction: feed_xid grows in this order.
    const delivery = async (monitorId: string, changeId: number | null, subjectId: string | null) => {
      const id = randomUUID();
      await knex.raw(
        `insert into monitor_deliveries (id, monitor_id, event, change_id, subject_id, destination, body) values (?, ?, ?, ?, ?, 'hooks.example.test', ?)`,
        [id, monitorId, changeId === null ? 'monitor.test' : 'person.title_changed', changeId, subjectId, JSON.stringify({ id })],
      );
      return id;
    };
    const first = await delivery(kept, 1, subject);
    const withdrawnChange = await delivery(kept, 2, null);
    const withdrawnTest = await delivery(withdrawnMonitor, null, null);
    const last = await delivery(kept, null, null);

    await knex.migrate.up();
    const rows = await knex('event_feed').orderBy('position').select('id', 'position', 'body', 'workspace_id');
    expect(rows.map((r) => r.id)).toEqual([first, withdrawnChange, withdrawnTest, last]);
    expect(rows.map((r) => Number(r.position))).toEqual([1, 2, 3, 4]);
    expect(rows.map((r) => r.body === null)).toEqual([false, true, true, false]);
    expect(new Set(rows.map((r) => r.workspace_id))).toEqual(new Set([workspace]));
    const columns = (await knex.raw(`select column_name from information_schema.columns where table_name = 'monitor_deliveries'`)).rows.map((r: { column_name: string }) => r.column_name);
    expect(columns).not.toContain('feed_xid');

    // The migrations after this one (the feed's job events among them), as a server would run them,
    // before today's repository code writes into the feed.
    await knex.migrate.latest();
    const next = randomUUID();
    await insertFeedEvents(knex, [{ id: next, workspace_id: workspace, monitor_id: kept, event: 'monitor.test', subject_id: null, body: '{}' }]);
    expect(await sequencePending(knex, 100, 5_000)).toBe(1);
    expect(Number((await knex('event_feed').where({ id: next }).first('position')).position)).toBe(5);
  } finally {
    await knex.destroy();
    await dropDatabase(server.adminUrl, name);
  }
}, 120_000);
