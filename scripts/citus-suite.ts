/**
 * `npm run test:citus:suite [-- jest args]`: the integration, security and fuzz tests against a Citus
 * cluster the run starts (jest.citus.config.js). Where Citus cannot run here (not installed for the
 * machine's PostgreSQL 15, no binaries) it says why and exits 0 without running anything: Citus is
 * not in Debian's packages, and nothing of it is in this repository (docs/scale-out.md says how to
 * build it for local testing).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { citusUnavailable } from '../test/citus/cluster';

const why = citusUnavailable();
if (why) {
  process.stdout.write(`test:citus:suite skipped: ${why}\n`);
  process.exit(0);
}
const jest = path.join(__dirname, '..', 'node_modules', 'jest', 'bin', 'jest.js');
const res = spawnSync(process.execPath, [jest, '-c', path.join(__dirname, '..', 'jest.citus.config.js'), ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(res.status ?? 1);
