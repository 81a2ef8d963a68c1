/**
 * Run inside a `git archive` of an older commit (bench/tracing.ts's "previous" code): prepares that
 * code's own bench database with that code's own migrations, lake writer and workspace admin, since
 * an older version cannot start on a database migrated by a newer one. Prints {"url","key"}.
 * Usage (cwd: the older tree; DATABASE_URL: a database of the same server, through which the new one
 * is created): node --require tsx/cjs <this file> <root of the older tree> <database> <persons> <companies>
 */
import path from 'node:path';

async function main() {
  const [root, database, persons, companies] = process.argv.slice(2) as [string, string, string, string];
  /* eslint-disable @typescript-eslint/no-require-imports */
  const lib = require(path.join(root, 'bench', 'lib')) as typeof import('./lib');
  const knexModule = require(path.join(root, 'src', 'db', 'knex')) as typeof import('../src/db/knex');
  const admin = require(path.join(root, 'src', 'domain', 'workspaces', 'admin')) as typeof import('../src/domain/workspaces/admin');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const db = await lib.benchDatabaseUrl(database);
  const knex = knexModule.createKnex(db.url);
  try {
    await knexModule.migrateLatest(knex);
    await lib.ensureLake(knex, Number(persons), Number(companies));
    const key = (await admin.createWorkspace(knex, { name: `bench-previous-${Date.now()}`, rateLimit: 1_000_000_000, active: true })).api_key;
    process.stdout.write(`${JSON.stringify({ url: db.url, key })}\n`);
  } finally {
    await knex.destroy();
    await db.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
