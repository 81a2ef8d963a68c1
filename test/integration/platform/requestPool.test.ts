/**
 * The request pool's warm stack (db/knex.ts): connections released while nobody waits are kept for
 * the next acquire, but never at the expense of someone waiting in the pool, and never past destroy().
 */
import { createKnex, migrateLatest, preparedQuery, warmConnections, type Knex } from '../../../src/db/knex';
import { testDatabaseUrl } from '../../helpers/harness';

const TIMEOUTS = { statementTimeoutMs: 5000, acquireTimeoutMs: 5000 };
const pid = async (db: Knex) => (await db.raw<{ rows: { pid: number }[] }>('select pg_backend_pid() as pid')).rows[0].pid;

describe('request pool (warm stack in front of the pool)', () => {
  let db: Knex;
  afterEach(async () => {
    await db?.destroy();
  });

  it('the next query after one finished runs on the same connection, a prepared lookup too', async () => {
    db = createKnex(testDatabaseUrl(), 4, TIMEOUTS);
    const first = await pid(db);
    expect(await pid(db)).toBe(first);
    const rows = await preparedQuery<{ pid: number }>(db, 'pool_test_pid', 'select pg_backend_pid() as pid where $1::int = 1', [1]);
    expect(rows).toEqual([{ pid: first }]);
  });

  it('a connection released while others wait in the pool goes to them: a full pool of held transactions never starves', async () => {
    db = createKnex(testDatabaseUrl(), 2, TIMEOUTS);
    // Twenty queries of 20 ms on two connections, plus transactions that hold one each for a while.
    const work = [
      ...Array.from({ length: 20 }, () => db.raw('select pg_sleep(0.02)')),
      db.transaction(async (trx) => trx.raw('select pg_sleep(0.05)')),
      db.transaction(async (trx) => trx.raw('select pg_sleep(0.05)')),
    ];
    await expect(Promise.all(work)).resolves.toHaveLength(22);
  });

  it('destroy() ends even when a query finishes during it, and every connection is closed', async () => {
    db = createKnex(testDatabaseUrl(), 3, TIMEOUTS);
    const other = createKnex(testDatabaseUrl(), 1);
    try {
      const pids = await Promise.all([pid(db), pid(db), pid(db)]);
      const running = db.raw('select pg_sleep(0.2)').then(() => undefined); // started now (a builder runs when awaited)
      await new Promise((r) => setTimeout(r, 50));
      const destroyed = db.destroy();
      await running;
      await destroyed;
      // A backend exits just after its client says goodbye: look again for a while.
      let open = -1;
      for (let i = 0; i < 100 && open !== 0; i++) {
        if (i) await new Promise((r) => setTimeout(r, 50));
        open = (await other.raw<{ rows: { n: number }[] }>('select count(*)::int as n from pg_stat_activity where pid = any(?)', [pids])).rows[0].n;
      }
      expect(open).toBe(0);
    } finally {
      await other.destroy();
    }
  });

  it('a clone of the client (knex.withUserParams, which the migrator uses) shares the warm stack: destroy() hands back every connection at once', async () => {
    // The CLI's path: migrate, query, destroy. A stack per client object kept the migrator's
    // connection out of destroy()'s reach, and tarn's destroy waited for the clone's idle timer.
    db = createKnex(testDatabaseUrl());
    await migrateLatest(db);
    const clone = db.withUserParams({ purpose: 'test' });
    await clone.raw('select 1');
    await db.raw('select 1');
    expect(warmConnections(clone)).toBe(warmConnections(db));
    const pool = (db.client as { pool: { numUsed(): number } }).pool;
    const destroyed = db.destroy();
    // destroy() hands the stack back synchronously: nothing is left lent, nothing waits on a timer.
    expect(pool.numUsed()).toBe(0);
    await destroyed;
  });
});
