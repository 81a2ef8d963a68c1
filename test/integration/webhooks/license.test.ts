/**
 * An inactive license (issue 20 row 5). Every call of such a workspace is 402 (the specification's
 * rule), so it used to be unable to delete its monitors while it still received their deliveries.
 * Now its deliveries pause while the license is inactive (kept, not attempted) and go out, nothing
 * lost, once it is active again; meanwhile the operator lists and deletes its monitors with the
 * CLI. Against a real HTTPS receiver on loopback and the real delivery worker; the license is
 * changed with the operator CLI, as in production.
 */
import { databaseUrl } from '../../../src/db/embedded';
import { Metrics } from '../../../src/observability/metrics';
import { enrichWith } from '../../helpers/cli';
import { eventually } from '../../helpers/live';
import { monitorBody } from '../../helpers/monitors';
import { deliveryRow, useDeliveryRig } from '../../helpers/webhooks';

const { h, receiver, startWorker, stopWorker } = useDeliveryRig();

/** `enrich ...` on this file's database (the rig's own, not the run's). */
async function cli(...args: string[]) {
  const name = (await h.knex.raw<{ rows: { name: string }[] }>('select current_database() as name')).rows[0]!.name;
  return enrichWith({ DATABASE_URL: databaseUrl(process.env.TEST_ADMIN_DATABASE_URL!, name) }, ...args);
}

const createMonitor = async (key: string, path: string) =>
  (await h.post('/api/v1/monitors', monitorBody({ webhook_url: receiver.url(path) }), key)).body.monitor as { id: string };
/** The worker's backlog gauge, by state. */
const backlogOf = async (metrics: Metrics) =>
  Object.fromEntries((await metrics.webhookBacklog.get()).values.map((v) => [String(v.labels.state), v.value]));

/** Waits until the gauge shows exactly `expected` (a generous deadline), then asserts it (the last sample on failure). */
async function gaugeReads(metrics: Metrics, expected: Record<string, number>): Promise<void> {
  let last: Record<string, number> = {};
  const same = () => JSON.stringify(Object.entries(last).sort()) === JSON.stringify(Object.entries(expected).sort());
  await eventually(async () => {
    last = await backlogOf(metrics);
    return same();
  }, 60_000).catch(() => undefined);
  expect(last).toEqual(expected);
}

const sendTest = async (key: string, monitorId: string) =>
  (await h.post(`/api/v1/monitors/${monitorId}/test`, undefined, key)).body.delivery.id as string;

describe('a workspace whose license is inactive', () => {
  it('its deliveries pause (kept, not sent) and go out once the license is active again; the operator CLI lists and deletes its monitors', async () => {
    receiver.answer = () => ({ status: 204 });
    const lapsed = await h.workspace();
    const other = await h.workspace();
    const kept = await createMonitor(lapsed.key, '/lapsed');
    const unwanted = await createMonitor(lapsed.key, '/unwanted');
    // Queued while the license was active: one event per monitor.
    const paused = await sendTest(lapsed.key, kept.id);
    const dropped = await sendTest(lapsed.key, unwanted.id);

    const off = await cli('license', 'set', '--workspace', lapsed.workspaceId, '--status', 'inactive');
    expect(off.code).toBe(0);
    await h.authChangesApplied();
    // The API refuses the workspace everything, monitor deletion included (402 is the spec's rule).
    const del = await h.send(h.http.delete(`/api/v1/monitors/${unwanted.id}`).set('Authorization', `Bearer ${lapsed.key}`));
    expect([del.status, del.body.code]).toEqual([402, 'LICENSE_INACTIVE']);

    const metrics = new Metrics();
    const worker = startWorker({ config: { pollMs: 20 }, metrics });
    try {
      // Another workspace's event, queued after the paused ones, is delivered: the worker has
      // claimed past them, so they are held by the rule, not by chance.
      const probe = await sendTest(other.key, await createMonitor(other.key, '/other').then((m) => m.id));
      await eventually(async () => (await deliveryRow(h.knex, probe))?.state === 'succeeded', 60_000);
      for (const id of [paused, dropped]) expect(await deliveryRow(h.knex, id)).toMatchObject({ state: 'pending', attempts: [], lease_token: null });
      expect(receiver.of(paused)).toEqual([]);
      expect(receiver.of(dropped)).toEqual([]);
      // The backlog gauge tells an operator they are paused, not due (this file's database holds
      // no other pending delivery). The worker re-reads the gauge about once a second, so a sample
      // taken while the probe was still leased may be current for a while: wait for the whole state.
      await gaugeReads(metrics, { due: 0, scheduled: 0, leased: 0, paused: 2 });

      // The operator sees the workspace's monitors and deletes one; its queued event goes with it.
      const listed = await cli('monitor', 'list', '--workspace', lapsed.workspaceId, '--json');
      expect(listed.code).toBe(0);
      expect((JSON.parse(listed.stdout) as { monitors: { id: string }[] }).monitors.map((m) => m.id).sort()).toEqual([kept.id, unwanted.id].sort());
      const deleted = await cli('monitor', 'delete', unwanted.id, '--json');
      expect(deleted.code).toBe(0);
      expect(JSON.parse(deleted.stdout)).toMatchObject({ deleted: true, monitor: { id: unwanted.id } });
      expect(await deliveryRow(h.knex, dropped)).toBeUndefined();
      expect((await cli('monitor', 'delete', unwanted.id)).code).not.toBe(0);

      // Active again: the paused event goes out, once.
      const on = await cli('license', 'set', '--workspace', lapsed.workspaceId, '--status', 'active');
      expect(on.code).toBe(0);
      await eventually(async () => (await deliveryRow(h.knex, paused))?.state === 'succeeded', 60_000);
      await gaugeReads(metrics, { due: 0, scheduled: 0, leased: 0, paused: 0 });
    } finally {
      await stopWorker(worker);
    }
    expect(receiver.of(paused)).toHaveLength(1);
    expect(receiver.of(dropped)).toEqual([]);
    expect((await h.get(`/api/v1/monitors/${unwanted.id}`, lapsed.key)).status).toBe(404);
  }, 180_000);

  it('an expired license pauses deliveries the same way', async () => {
    receiver.answer = () => ({ status: 204 });
    const lapsed = await h.workspace();
    const other = await h.workspace();
    const monitor = await createMonitor(lapsed.key, '/expired');
    const paused = await sendTest(lapsed.key, monitor.id);
    // Past its end date: what licenseState calls expired (a status still 'active').
    await h.knex('workspaces').where({ id: lapsed.workspaceId }).update({ license_expires_at: h.knex.raw("now() - interval '1 second'") });
    const worker = startWorker({ config: { pollMs: 20 } });
    try {
      const probe = await sendTest(other.key, await createMonitor(other.key, '/other-2').then((m) => m.id));
      await eventually(async () => (await deliveryRow(h.knex, probe))?.state === 'succeeded', 60_000);
      expect(await deliveryRow(h.knex, paused)).toMatchObject({ state: 'pending', attempts: [] });
      expect(receiver.of(paused)).toEqual([]);
      await h.knex('workspaces').where({ id: lapsed.workspaceId }).update({ license_expires_at: null });
      await eventually(async () => (await deliveryRow(h.knex, paused))?.state === 'succeeded', 60_000);
    } finally {
      await stopWorker(worker);
    }
    expect(receiver.of(paused)).toHaveLength(1);
  }, 180_000);
});
