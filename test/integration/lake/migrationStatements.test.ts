/**
 * One SQL statement per migration call (src/db/migrations/statements.ts says why): every migration
 * runs on a fresh database, each query it sends is split, and a migration newer than the last
 * shipped multi-statement one may send one statement per call only.
 */
import { randomBytes } from 'node:crypto';
import { createKnex, dropDatabase, ensureDatabase } from '../../../src/db/knex';
import { databaseUrl } from '../../../src/db/embedded';
import { countStatements, LAST_SHIPPED_MULTI_STATEMENT } from '../../../src/db/migrations/statements';

// The run's server (test/helpers/globalSetup.ts: DATABASE_URL's, or the embedded one the setup
// started): a worker cannot start an embedded server itself (an ESM-only package under jest's VM).
const server = { adminUrl: process.env.TEST_ADMIN_DATABASE_URL!, name: process.env.TEST_DATABASE_NAME! };

it('no migration after the shipped ones sends several statements in one call', async () => {
  const name = `${server.name}_stmts_${randomBytes(2).toString('hex')}`;
  await ensureDatabase(server.adminUrl, name);
  const knex = createKnex(databaseUrl(server.adminUrl, name), 2);
  const multi = new Map<string, number>();
  let current = '';
  knex.on('query', (q: { sql: string }) => {
    if (current && countStatements(q.sql) > 1) multi.set(current, (multi.get(current) ?? 0) + 1);
  });
  try {
    for (;;) {
      const [, pending] = (await knex.migrate.list()) as [unknown[], { file: string }[] | string[]];
      if (!pending.length) break;
      const next = pending[0]!;
      current = typeof next === 'string' ? next : next.file;
      await knex.migrate.up();
      current = '';
    }
  } finally {
    await knex.destroy();
    await dropDatabase(server.adminUrl, name);
  }
  const newer = [...multi.keys()].filter((m) => m > LAST_SHIPPED_MULTI_STATEMENT);
  expect(newer).toEqual([]);
  // The shipped ones that do were seen: the check sees what it is meant to see.
  expect(multi.size).toBeGreaterThan(0);
  expect([...multi.keys()].every((m) => m <= LAST_SHIPPED_MULTI_STATEMENT)).toBe(true);
});
