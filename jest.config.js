/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // Type errors are caught once by `npm run typecheck`; jest only transpiles.
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  // One PostgreSQL database per run, created here and dropped at the end (test/helpers/globalSetup.ts).
  globalSetup: '<rootDir>/test/helpers/globalSetup.ts',
  globalTeardown: '<rootDir>/test/helpers/globalTeardown.ts',
  testTimeout: 60000,
  maxWorkers: 2,
};
