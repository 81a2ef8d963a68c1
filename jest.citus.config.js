/**
 * `npm run test:citus:suite`: the integration project (every operation, the security cases) and the
 * fuzzer, unchanged, against a Citus cluster the run starts (a coordinator and two workers of the
 * machine's PostgreSQL 15 with the citus extension), every test database laid out as `enrich
 * distribute` lays it out (test/helpers/globalSetupCitus.ts, clusterDatabase.ts). Not part of `npm
 * test`: it takes much longer, and Citus is not installed everywhere (scripts/citus-suite.ts says why
 * and skips). docs/scale-out.md lists what it covers and what cannot pass on Citus.
 */
const main = require('./jest.config.js');

const project = (name) => {
  const p = main.projects.find((x) => x.displayName === name);
  if (!p) throw new Error(`jest.config.js has no project ${name}`);
  return p;
};
const citus = {
  globalSetup: '<rootDir>/test/helpers/globalSetupCitus.ts',
  globalTeardown: '<rootDir>/test/helpers/globalTeardownCitus.ts',
};

/** @type {import('jest').Config} */
module.exports = {
  ...main,
  // Two workers, as this suite was measured with: every file's databases are made on every node,
  // and each worker's apps hold connections on all of them (npm test runs three; see jest.config.js).
  maxWorkers: 2,
  // Distributed queries are slower, the world templates take longer to build.
  testTimeout: 180_000,
  projects: [
    {
      ...project('integration'),
      ...citus,
      displayName: 'integration on citus',
      globalSetup: '<rootDir>/test/helpers/globalSetupCitusProxy.ts',
    },
    { ...project('system'), ...citus, displayName: 'fuzz on citus', roots: ['<rootDir>/test/fuzz'] },
    // `enrich match` (issue 33) against the Citus layout: the built CLI (npm run build first) on the
    // run's database. Only this CLI file: the others make plain databases of their own or start
    // servers of their own, which the suite's layout does not reach (docs/scale-out.md).
    {
      ...project('system'),
      ...citus,
      displayName: 'cli on citus',
      roots: ['<rootDir>/test/integration/cli'],
      testMatch: ['**/cli/match.test.ts'],
    },
  ],
};
