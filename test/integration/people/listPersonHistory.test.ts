/**
 * GET /person/history and GET /company/history against a real change log: changes made by a
 * realtime lookup (simulated time moved on, GET /person/realtime with max_age=0 against the
 * simulator on loopback), by a refresh round, and by an import (the lake writer with a changed
 * copy). Every subject's history, walked page by page with the cursor, must equal its change-log
 * entries newest first (event, diff, origin, time); `since` filters; a withdrawn subject is 451 and
 * its history is gone from the log. Every response goes through the harness's contract validator.
 */
import pino from 'pino';
import { loadConfig } from '../../../src/config';
import type { PersonRecord } from '../../../src/model/records';
import { fieldChanges } from '../../../src/domain/history/history';
import { suppress } from '../../../src/domain/lake/suppression';
import { writeRecords } from '../../../src/domain/lake/write/writer';
import { RefreshWorker } from '../../../src/jobs/refreshWorker';
import { createWorld, defaultAsOf } from '../../../src/world';
import { startSimulatorServer, type SimulatorServer } from '../../../src/world/simulator/server';
import { Simulator } from '../../../src/world/simulator/simulator';
import { createHarness, type Harness } from '../../helpers/harness';
import { useLakeWorld } from '../../helpers/lakeWorld';
import { closeSources, httpSource, loadWorld } from '../../helpers/live';
import { SERVED_RECORD } from '../../helpers/lakeRecords';

const WORLD = { persons: 40, companies: 8, seed: 5150, asOf: defaultAsOf() };
const RATES = { job: 0.01, title: 0.01, location: 0.01, headcount: 0.05, name: 0.02, hq: 0.02, industry: 0.02 };
const DAY = 86_400;
const world = createWorld(WORLD);

const lake = useLakeWorld();
let sim: Simulator;
let server: SimulatorServer;
let h: Harness;
let key: string;

beforeAll(async () => {
  await loadWorld(lake.h.knex, world, WORLD.persons);
  sim = new Simulator({ world: WORLD, speed: 0, rates: RATES });
  server = await startSimulatorServer(sim);
  h = await createHarness({ databaseUrl: lake.url, liveSource: httpSource(server.protocolUrl) });
  ({ key } = await h.workspace({ rateLimit: 100_000 }));
}, 120_000);

lake.beforeClose(async () => {
  await closeSources();
  await h?.close();
  await server?.close();
});

const history = (path: string) => h.get(`/api/v1${path}`, key);

/** Every page of a history, following next_cursor. */
async function walk(path: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  let res = await history(`${path}&per_page=2`);
  for (;;) {
    expect(res.status).toBe(200);
    out.push(...res.body.results);
    if (!res.body.next_cursor) return out;
    res = await history(`${path}&per_page=2&cursor=${res.body.next_cursor}`);
  }
}

describe('record history', () => {
  it('matches the change log for changes made by realtime, refresh and import; since filters; withdrawal erases it', async () => {
    const persons = await h.knex('persons').select('id', 'username');
    const companies = await h.knex('companies').select('id', 'username');

    // Realtime: every person looked up live after simulated time moved on.
    sim.advance(200 * DAY);
    for (const p of persons) {
      const res = await h.send(h.http.get(`/api/v1/person/realtime?username=${p.username}&max_age=0`).set('Authorization', `Bearer ${key}`));
      expect(res.status).toBe(200);
    }
    // Refresh: one round over everything, after more simulated time.
    sim.advance(200 * DAY);
    const refresh = new RefreshWorker({
      db: h.knex,
      source: httpSource(server.protocolUrl),
      config: { ...loadConfig({}).refresh, batchSize: 100, minAgeSeconds: 0, watchedMinAgeSeconds: 0 },
      logger: pino({ level: 'silent' }),
    });
    await refresh.runRound({ dueBefore: (await h.knex.raw('select now() as now')).rows[0].now });
    // Import: a changed copy of the first person through the lake writer (its default origin).
    const first = JSON.parse((await h.knex.raw(`select ${SERVED_RECORD} as r from persons where id = ?`, [persons[0]!.id])).rows[0].r) as PersonRecord;
    await writeRecords(h.knex, 'person', [{ ...first, current_title: `${first.current_title ?? 'Engineer'} (imported)`, fetched_at: new Date().toISOString() }]);

    const log = await h.knex('change_log').whereNotNull('subject_id').orderBy('id', 'desc');
    expect(new Set(log.map((e) => e.origin))).toEqual(new Set(['realtime', 'refresh', 'import']));

    const subjects = [
      ...persons.map((p) => ({ ...p, path: `/person/history?username=${p.username}` })),
      ...companies.map((c) => ({ ...c, path: `/company/history?username=${c.username}` })),
    ];
    let compared = 0;
    for (const s of subjects) {
      const expected = log
        .filter((e) => e.subject_id === s.id)
        .map((e) => ({
          id: String(e.id),
          event: e.event,
          changes: fieldChanges(e.diff),
          diff: e.diff,
          detected_at: new Date(e.detected_at).toISOString(),
          detected_by: e.origin,
        }));
      expect(await walk(s.path)).toEqual(expected);
      for (const entry of expected) expect(entry.changes.length).toBeGreaterThan(0);
      compared += expected.length;
    }
    expect(compared).toBe(log.length);

    // since: only the entries detected at or after it.
    const busiest = subjects.find((s) => log.filter((e) => e.subject_id === s.id).length >= 2)!;
    const ofBusiest = log.filter((e) => e.subject_id === busiest.id);
    const since = new Date(ofBusiest[0].detected_at).toISOString();
    const filtered = await walk(`${busiest.path}&since=${encodeURIComponent(since)}`);
    expect(filtered.map((e) => e.id)).toEqual(ofBusiest.filter((e) => new Date(e.detected_at) >= new Date(since)).map((e) => String(e.id)));
    expect(filtered.length).toBeLessThan(ofBusiest.length + 1);

    // A cursor is bound to its record: another record's query refuses it.
    const paged = await history(`${busiest.path}&per_page=1`);
    const other = subjects.find((s) => s.id !== busiest.id && s.path.startsWith(busiest.path.slice(0, 8)))!;
    const foreign = await history(`${other.path}&per_page=1&cursor=${paged.body.next_cursor}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body.code).toBe('INVALID_CURSOR');

    // Withdrawal: 451, and the log keeps nothing that points at the subject.
    const withdrawn = persons.find((p) => log.some((e) => e.subject_id === p.id))!;
    await suppress(h.knex, 'person', { by: 'id', value: withdrawn.id });
    const gone = await history(`/person/history?username=${withdrawn.username}`);
    expect(gone.status).toBe(451);
    expect(gone.body.code).toBe('DATA_SUBJECT_BLOCKED');
    expect(await h.knex('change_log').where('subject_id', withdrawn.id)).toEqual([]);
  }, 240_000);

  it('404 for a record that is not indexed, 400 without an identifier', async () => {
    expect((await history('/person/history?username=nobody-indexed-here')).status).toBe(404);
    expect((await history('/company/history?company_id=999999999')).status).toBe(404);
    const none = await history('/person/history?since=2026-01-01T00:00:00Z');
    expect(none.status).toBe(400);
    expect(none.body.code).toBe('VALIDATION_ERROR');
  });
});
