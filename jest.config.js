/**
 * Five projects, one pass (`npm test` runs them all; `jest --selectProjects unit` runs one):
 *
 * - unit         pure rules, no database, no server, no global setup: `jest --selectProjects unit`
 *                never starts PostgreSQL.
 * - contract     the contract document and the Prism machinery (mock, proxy); no database either.
 * - integration  every operation against a real PostgreSQL, each request sent through
 *                `prism proxy --errors` (an independent validator) while the harness's own 2020-12
 *                validator checks the same response (test/helpers/prismProxy.ts, harness.ts).
 * - system       what is not one HTTP exchange judged by the contract: the `enrich` CLI, the
 *                fuzzer, the docs page, the typed client; a real PostgreSQL, no proxy.
 * - citus        the lake distributed on a Citus cluster started by the tests (skipped without Citus).
 * - faults       the service against a PostgreSQL and a Redis that the tests themselves start,
 *                stop, kill and pause (test/faults/support.ts); no shared database.
 *
 * The three projects that need it share one PostgreSQL database per run: jest runs each distinct
 * globalSetup file once, and the proxy project's setup also starts Prism (test/helpers/globalSetup*.ts).
 */
const base = {
  testEnvironment: 'node',
  testMatch: ['**/*.test.ts'],
  // Type errors are caught once by `npm run typecheck`; jest only transpiles, with SWC (a native
  // compiler): from a clean clone, where jest's cache is empty and each worker compiles what it
  // loads, a run took 187-188 s against 209 s with ts-jest, side by side (tsconfig.json's
  // isolatedModules keeps every file compilable alone, as SWC compiles them).
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }] },
};
const database = {
  globalSetup: '<rootDir>/test/helpers/globalSetup.ts',
  globalTeardown: '<rootDir>/test/helpers/globalTeardown.ts',
};

/** @type {import('jest').Config} */
module.exports = {
  // Half again as many workers as cores (3 on the 2-core machine): a fifth of a two-worker run's
  // time both cores sat idle while files waited on the processes they start (PostgreSQL clusters,
  // `enrich` children, a key's expiry), and a third worker fills it. Measured side by side, two
  // runs each way in one hour: jest 197 and 180 s with three workers, 227 and 205 s with two.
  // At most 4, because every worker's apps hold their own PostgreSQL connections.
  maxWorkers: Math.min(4, Math.ceil(require('node:os').availableParallelism() * 1.5)),
  // Longest files first (test/durations.json), also on a machine without jest's cache of timings.
  testSequencer: '<rootDir>/test/sequencer.js',
  // A safety net for a hung test, not a budget: the slowest test takes a few seconds.
  testTimeout: 60_000,
  projects: [
    { ...base, displayName: 'unit', roots: ['<rootDir>/test/unit'] },
    { ...base, displayName: 'contract', roots: ['<rootDir>/test/contract', '<rootDir>/test/mock'] },
    {
      ...base,
      ...database,
      displayName: 'integration',
      roots: ['<rootDir>/test/integration'],
      testPathIgnorePatterns: ['/test/integration/cli/'],
      globalSetup: '<rootDir>/test/helpers/globalSetupProxy.ts',
      setupFiles: ['<rootDir>/test/helpers/proxyMode.ts'],
    },
    {
      ...base,
      ...database,
      displayName: 'system',
      roots: ['<rootDir>/test/integration/cli', '<rootDir>/test/fuzz', '<rootDir>/test/docs', '<rootDir>/test/client', '<rootDir>/test/dashboard'],
    },
    // The service (`enrich serve`) against a PostgreSQL and a Redis of its own that the tests stop,
    // kill and pause: no shared database, no proxy (npm run test:faults runs this project alone).
    { ...base, displayName: 'faults', roots: ['<rootDir>/test/faults'] },
    // The lake on a Citus cluster the tests start themselves (a coordinator and two workers of the
    // machine's PostgreSQL 15 with the citus extension); skipped, saying why, where Citus is not
    // installed (test/citus/cluster.ts). npm run test:citus runs this project alone.
    { ...base, displayName: 'citus', roots: ['<rootDir>/test/citus'] },
    // A primary and a streaming standby of its own (initdb, pg_basebackup -R) and `enrich serve`
    // reading from it (test/replica/cluster.ts); skips, saying why, without the PostgreSQL binaries.
    { ...base, displayName: 'replica', roots: ['<rootDir>/test/replica'] },
  ],
};
