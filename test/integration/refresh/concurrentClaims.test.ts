/**
 * Claims side by side on one PostgreSQL (refreshQueue.ts claimDue): a claim whose transaction is
 * still open does not make a second claim wait (its candidates are locked `FOR UPDATE SKIP LOCKED`,
 * no claim-wide lock), and no row is ever held by two workers. Real database; each claim is a
 * worker's, with its own token.
 */
import { claimDue, type ClaimOptions } from '../../../src/db/repositories/refreshQueue';
import { createWorld, defaultAsOf } from '../../../src/world';
import { loadWorld } from '../../helpers/live';
import { useLakeWorld } from '../../helpers/lakeWorld';

const WORLD = { persons: 60, companies: 4, seed: 3636, asOf: defaultAsOf() };
const lake = useLakeWorld();

beforeAll(async () => {
  await loadWorld(lake.h.knex, createWorld(WORLD), WORLD.persons);
}, 120_000);

const token = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const dbNow = async () => (await lake.h.knex.raw<{ rows: { now: Date }[] }>('select now()')).rows[0]!.now;
const options = async (n: number, limit: number): Promise<ClaimOptions> => {
  const now = await dbNow();
  return { token: token(n), limit, leaseSeconds: 60, dueBefore: now, watchedDueBefore: now };
};
const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

afterEach(async () => {
  await lake.h.knex('person_refresh').update({ lease_token: null, lease_until: null });
});

it('a second claim returns while the first claim is uncommitted, with other rows', async () => {
  const db = lake.h.knex;
  const first = await db.transaction();
  try {
    const held = await claimDue(first, 'person', await options(1, 10));
    expect(held).toHaveLength(10);
    // The first claim's transaction stays open: its rows are locked, its leases not yet visible.
    // The second claim must not wait for it; a lock wait (the advisory lock the distributed path
    // takes, or a row lock) fails it with lock_not_available instead of hanging the test.
    const second = await db.transaction(async (trx) => {
      await trx.raw("set local lock_timeout = '5s'");
      return claimDue(trx, 'person', await options(2, 10));
    });
    expect(second).toHaveLength(10);
    expect(ids(second).filter((id) => ids(held).includes(id))).toEqual([]);
    // Committed, the second claim's leases are there; the first's are not yet.
    expect(await db('person_refresh').where('lease_token', token(2)).count<{ count: number }[]>({ count: '*' })).toEqual([{ count: 10 }]);
    expect(await db('person_refresh').where('lease_token', token(1)).count<{ count: number }[]>({ count: '*' })).toEqual([{ count: 0 }]);
    await first.commit();
  } finally {
    if (!first.isCompleted()) await first.rollback();
  }
  // After the first commits, a third claim takes neither's rows.
  const leased = await db('person_refresh').whereNotNull('lease_token').select('person_id', 'lease_token');
  expect(leased).toHaveLength(20);
  const third = await claimDue(db, 'person', await options(3, 10));
  expect(third).toHaveLength(10);
  expect(ids(third).filter((id) => leased.some((l) => l.person_id === id))).toEqual([]);
});

it('many claims at once hold every due row once, and no row twice', async () => {
  const db = lake.h.knex;
  // Eight workers of 10 on 60 due persons: every row claimed once, two claims come back short.
  const claims = await Promise.all(Array.from({ length: 8 }, async (_, i) => claimDue(db, 'person', await options(10 + i, 10))));
  const all = claims.flatMap(ids);
  expect(new Set(all).size).toBe(all.length);
  expect(all).toHaveLength(WORLD.persons);
  const rows = await db('person_refresh').select('person_id', 'lease_token');
  for (const [i, claim] of claims.entries()) {
    for (const id of ids(claim)) expect(rows.find((r) => r.person_id === id)?.lease_token).toBe(token(10 + i));
  }
  // Nothing left to claim while the leases live.
  expect(await claimDue(db, 'person', await options(30, 10))).toEqual([]);
});

it('a claimed row whose lease expired is claimed again, and a watched row still comes first', async () => {
  const db = lake.h.knex;
  const held = await claimDue(db, 'person', await options(40, 5));
  await db('person_refresh').where('lease_token', token(40)).update({ lease_until: db.raw("now() - interval '1 second'") });
  const newest = await db('person_refresh').whereNull('lease_token').orderBy('checked_at', 'desc').first('person_id');
  await db('person_refresh').where('person_id', newest!.person_id).update({ watchers: 1 });
  try {
    const again = await claimDue(db, 'person', await options(41, 6));
    // The newest row, watched, goes ahead of the sixth-oldest; the five expired leases are taken over.
    expect(ids(again).sort()).toEqual([newest!.person_id, ...ids(held)].sort());
  } finally {
    await db('person_refresh').where('person_id', newest!.person_id).update({ watchers: 0 });
  }
});
