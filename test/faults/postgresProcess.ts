/**
 * Runs one embedded PostgreSQL for the fault suite, in a process of its own (the package is
 * ESM-only, which jest's module sandbox cannot import): `node -r tsx/cjs postgresProcess.ts DIR
 * PORT` prints `ready <adminUrl>` once the server accepts connections, and stops it cleanly on
 * SIGTERM. The suite kills and pauses the server's own processes directly.
 */
import { startEmbeddedPostgres } from '../../src/db/embedded';

async function main(): Promise<void> {
  const [dir, port] = process.argv.slice(2);
  const db = await startEmbeddedPostgres({ dir, port: Number(port) });
  process.stdout.write(`ready ${db.adminUrl}\n`);
  process.once('SIGTERM', () => {
    db.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
