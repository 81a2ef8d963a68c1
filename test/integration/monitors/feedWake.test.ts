/**
 * The event feed's sequencer woken by NOTIFY instead of polling every 200 ms (issue 35: an idle
 * `enrich serve` spent its background CPU on polls). Every insert of the feed notifies the channel
 * in the rows' own transaction; a listening sequencer sends no statement while nothing happens
 * (its fallback poll is set to ten minutes here), numbers a committed event when told, and when
 * its listening connection is really broken (pg_terminate_backend) it polls every interval again
 * until the channel listens again. On a database of its own, so no other file's events wake it.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { Knex } from 'knex';
import pg from '../../../src/db/pg';
import { createKnex } from '../../../src/db/knex';
import { FEED_CHANNEL, insertFeedEvents } from '../../../src/db/repositories/eventFeed';
import { createWorkspace } from '../../../src/domain/workspaces/admin';
import { FeedSequencer } from '../../../src/jobs/feedSequencer';
import { isolatedDatabase } from '../../helpers/identifierPool';
import { eventually } from '../../helpers/live';

const silent = pino({ level: 'silent' });
/** Longer than any test here: a sequencer that numbers an event did not wait for its fallback poll. */
const NEVER_MS = 600_000;

describe('the event feed sequencer woken by NOTIFY', () => {
  let database: { url: string; drop(): Promise<void> };
  let db: Knex;
  let workspaceId: string;
  beforeAll(async () => {
    database = await isolatedDatabase('feedwake');
    db = createKnex(database.url, 3);
    ({ workspace_id: workspaceId } = await createWorkspace(db, { name: 'feed wake', rateLimit: 100, active: true }));
  }, 120_000);
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  const event = () => ({ id: randomUUID(), workspace_id: workspaceId, monitor_id: randomUUID(), event: 'monitor.test', subject_id: null, body: '{}' });
  /** The event's feed position once it has one (undefined before: eventually waits on it). */
  const positionOf = async (id: string): Promise<number | undefined> => {
    const row = await db('event_feed').where({ id }).first('position');
    return row?.position == null ? undefined : Number(row.position);
  };
  /** The statements the sequencer's pool sends while `run` runs. */
  const statementsOf = async (pool: Knex, run: () => Promise<void>): Promise<string[]> => {
    const sql: string[] = [];
    const listener = (q: { sql: string }) => void sql.push(q.sql);
    pool.on('query', listener);
    try {
      await run();
      return sql;
    } finally {
      pool.off('query', listener);
    }
  };
  const terminateListener = async () => {
    const { rows } = await db.raw<{ rows: { n: number }[] }>(
      `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = current_database() and application_name = 'enrich-feed-listener'`,
    );
    return rows[0]!.n;
  };

  it('the insert notifies in its own transaction: at commit, and never for rows rolled back', async () => {
    const listener = new pg.Client({ connectionString: database.url });
    const heard: string[] = [];
    listener.on('notification', (m) => heard.push(m.payload === '' ? 'feed' : (m.payload ?? '')));
    await listener.connect();
    try {
      await listener.query(`listen ${FEED_CHANNEL}`);
      // Notifications arrive in commit order: a marker sent after the transaction shows whether it sent one.
      const marker = async (text: string) => {
        await db.raw('select pg_notify(?, ?)', [FEED_CHANNEL, text]);
        await eventually(async () => heard.includes(text), 10_000, 20);
      };
      await db.transaction(async (trx) => {
        await insertFeedEvents(trx, [event()]);
        throw new Error('rolled back');
      }).catch(() => undefined);
      await marker('after rollback');
      expect(heard).toEqual(['after rollback']);

      await db.transaction(async (trx) => {
        await insertFeedEvents(trx, [event(), event()]);
        await insertFeedEvents(trx, [event()]);
      });
      await marker('after commit');
      // One notification for the transaction (identical ones are folded), before the marker.
      expect(heard).toEqual(['after rollback', 'feed', 'after commit']);
    } finally {
      await listener.end();
    }
  }, 60_000);

  it('listening: idle it sends nothing; a committed event is numbered without waiting for the fallback poll', async () => {
    const pool = createKnex(database.url, 1);
    const sequencer = new FeedSequencer({ db: pool, logger: silent, everyMs: 50, wake: { databaseUrl: database.url, fallbackMs: NEVER_MS } });
    try {
      sequencer.start();
      await eventually(async () => sequencer.listening, 20_000, 20);
      // The pass that follows the first LISTEN, then nothing: a polling sequencer sends ~20 probes in a second.
      await new Promise((r) => setTimeout(r, 300));
      const idle = await statementsOf(pool, () => new Promise((r) => setTimeout(r, 1_000)));
      expect(idle).toEqual([]);

      const e = event();
      await insertFeedEvents(db, [e]);
      expect(await eventually(() => positionOf(e.id), 20_000, 20)).toBeGreaterThan(0);
    } finally {
      await sequencer.stop();
      await pool.destroy();
    }
  }, 60_000);

  it('its listening connection broken: it polls every interval (no notification can reach it) until it listens again', async () => {
    const pool = createKnex(database.url, 1);
    // The first reconnection waits a minute: long enough to see the poll alone number an event.
    const sequencer = new FeedSequencer({
      db: pool,
      logger: silent,
      everyMs: 50,
      wake: { databaseUrl: database.url, fallbackMs: NEVER_MS, timing: { initialBackoffMs: 120_000, maxBackoffMs: 120_000 } },
    });
    try {
      sequencer.start();
      await eventually(async () => sequencer.listening, 20_000, 20);
      expect(await terminateListener()).toBe(1);
      await eventually(async () => !sequencer.listening, 20_000, 20);

      const e = event();
      await insertFeedEvents(db, [e]);
      expect(await eventually(() => positionOf(e.id), 20_000, 20)).toBeGreaterThan(0);
      const polls = await statementsOf(pool, () => new Promise((r) => setTimeout(r, 1_000)));
      expect(polls.length).toBeGreaterThan(2);
      expect(sequencer.listening).toBe(false);
    } finally {
      await sequencer.stop();
      await pool.destroy();
    }
  }, 60_000);

  it('after the loss it listens again, stops polling, and is woken by the next event', async () => {
    const pool = createKnex(database.url, 1);
    const sequencer = new FeedSequencer({
      db: pool,
      logger: silent,
      everyMs: 50,
      wake: { databaseUrl: database.url, fallbackMs: NEVER_MS, timing: { initialBackoffMs: 200, maxBackoffMs: 400 } },
    });
    try {
      sequencer.start();
      await eventually(async () => sequencer.listening, 20_000, 20);
      expect(await terminateListener()).toBe(1);
      // A new listening connection (another backend) takes over.
      await eventually(async () => {
        const { rows } = await db.raw<{ rows: { n: number }[] }>(
          `select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = 'enrich-feed-listener'`,
        );
        return rows[0]!.n === 1 && sequencer.listening;
      }, 20_000, 20);
      await new Promise((r) => setTimeout(r, 300));
      expect(await statementsOf(pool, () => new Promise((r) => setTimeout(r, 1_000)))).toEqual([]);

      const e = event();
      await insertFeedEvents(db, [e]);
      expect(await eventually(() => positionOf(e.id), 20_000, 20)).toBeGreaterThan(0);
    } finally {
      await sequencer.stop();
      await pool.destroy();
    }
  }, 60_000);
});
