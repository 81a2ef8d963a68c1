/**
 * `enrich distribute` is opt-in: on a PostgreSQL without the citus extension (the default, and CI)
 * it changes nothing and says why. The layout itself is tested on a real Citus cluster
 * (test/citus/distributed.test.ts).
 */
import { enrich } from '../../helpers/cli';
import { createKnex } from '../../../src/db/knex';
import { testDatabaseUrl } from '../../helpers/harness';

it('refuses a database without the citus extension, exit 1, and leaves the schema as it was', async () => {
  const knex = createKnex(testDatabaseUrl(), 1);
  try {
    const res = await enrich('distribute');
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('the citus extension is not installed');
    expect(res.stdout).toBe('');
    const { rows } = await knex.raw<{ rows: { present: boolean }[] }>("select to_regclass('lake_identifiers') is not null as present");
    expect(rows[0]!.present).toBe(false);
    const unique = await knex.raw<{ rows: unknown[] }>("select 1 from pg_constraint where conname = 'persons_username_key'");
    expect(unique.rows.length).toBe(1);
  } finally {
    await knex.destroy();
  }
});
