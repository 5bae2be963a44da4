// jest runs the tests with jest-light-runner: each worker is one Node process that imports the test files natively
// (Node strips the TypeScript types itself, as it does for src/main.ts), so the service graph (MikroORM, the Temporal
// client, the AWS SDK, the validator) is loaded once per worker, not once per test file as jest's own runner does.
// What that asks of the tests (docs/development.md, "How jest runs a test file"): no module mocks, and a
// test file leaves the process as it found it (a started SDK stopped, process.env restored).
export default {
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  runner: 'jest-light-runner/child-process',
  transform: {},
  // The light runner has no timeouts of its own: test/harness/test-timeouts.ts gives each test and hook jest's.
  setupFilesAfterEnv: ['<rootDir>/test/harness/test-timeouts.ts'],
  // Two cores: the real services (PostgreSQL, Temporal, SeaweedFS) need one of them.
  maxWorkers: 2,
  // One PostgreSQL, Temporal dev server and SeaweedFS per run, on free ports (test/harness/global-setup.ts).
  globalSetup: '<rootDir>/test/harness/global-setup.ts',
  globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
  // The slowest files start first when jest has no timings of its own (a clean clone): no long file left for the end.
  testSequencer: '<rootDir>/test/harness/sequencer.ts',
};
