/**
 * The EXPLAIN gate of `npm run bench:read`, in CI: every request of the read mix (bench/readMix.ts,
 * the same list the bench measures) is sent once to the app on a small seeded world, every
 * statement the app issues on a lake table is explained with its own bindings, and a sequential
 * scan of persons anywhere in a plan fails the test. Sequential scans are disabled on the
 * explaining connection, as in indexes.test.ts: on a small table the planner would rightly prefer
 * one, but with them disabled it still falls back to a Seq Scan only when no index fits, so a
 * missing or unusable index shows up here whatever the table's size.
 */
import pg from 'pg';
import { explainMix, explainStatement, pickParameters, readMix, type Checked } from '../../../bench/readMix';
import { STAFF_WORLD } from '../../helpers/companyStaff';
import { useLakeWorld } from '../../helpers/lakeWorld';
import { onCitus } from '../../helpers/clusterDatabase';

let explainer: pg.Client;
// Declared before the lake, so it runs before the lake's database is dropped.
afterAll(() => explainer?.end());
const lw = useLakeWorld({ world: STAFF_WORLD });
beforeAll(async () => {
  explainer = new pg.Client({ connectionString: lw.url, application_name: 'explain-gate' });
  explainer.on('error', () => undefined);
  await explainer.connect();
  await explainer.query('set enable_seqscan = off');
});

// The plans judged here are one PostgreSQL's. On the distributed layout (npm run test:citus:suite)
// the coordinator's plan is a Citus Custom Scan and each shard plans its own part, so these cannot
// pass there as written; the routing has its own EXPLAIN gate (test/citus/distributed.test.ts,
// docs/scale-out.md).
(onCitus() ? describe.skip : describe)('EXPLAIN gate of the read mix', () => {
  let checked: Checked[] = [];

  it('no statement of the read mix scans persons sequentially', async () => {
    const entries = readMix(await pickParameters(lw.h.knex));
    checked = await explainMix({
      knex: lw.h.knex,
      explainer,
      entries,
      send: async (entry) => {
        const test = entry.method === 'GET' ? lw.h.http.get(entry.path) : lw.h.http.post(entry.path).send(entry.body as object);
        const res = await lw.h.send(test.set('Authorization', `Bearer ${lw.key}`));
        return { status: res.status, body: res.body };
      },
    });
    expect(checked.map((c) => c.entry.name)).toEqual(entries.map((e) => e.name));
    const failures = checked.flatMap((c) => c.seqScans.map((s) => `${c.entry.name}: ${s.statement.sql.trim()}\n${s.plan}`));
    expect(failures).toEqual([]);
  });

  it('judged every request of the mix: each answered 200 and had its lake statements explained', () => {
    expect(checked.length).toBeGreaterThan(0);
    for (const c of checked) {
      expect([c.entry.name, c.status, c.unexplained]).toEqual([c.entry.name, 200, []]);
      expect([c.entry.name, c.explained > 0]).toEqual([c.entry.name, true]);
    }
  });

  it('fails a statement that can only scan persons (the gate can fail)', async () => {
    const verdict = await explainStatement(explainer, { sql: "select id from persons where record->>'headline' = $1", bindings: ['x'], via: 'test' });
    expect(verdict.verdict).toBe('FAIL');
    expect(verdict.nodes).toMatch(/Seq Scan on persons/);
  });
});
