/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  preset: 'ts-jest',
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  roots: ['<rootDir>/test', '<rootDir>/examples'],
  testMatch: ['**/*.test.ts'],
  // The package's own names, as a bot imports them (tsconfig paths do the same for tsc).
  moduleNameMapper: {
    '^amsflow$': '<rootDir>/index.ts',
    '^amsflow/workflows$': '<rootDir>/workflows/index.ts',
    '^amsflow/testing$': '<rootDir>/testing/index.ts',
  },
  setupFiles: ['<rootDir>/test/support/quiet-runtime.ts', '<rootDir>/test/support/cache-bot-bundles.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // The Temporal core bridge keeps a native handle open after the last test.
  forceExit: true,
  testTimeout: 60_000,
  // Serial: the engine suites run real worker processes and measure pacing; on 2 cores, parallel
  // suites would starve them.
  maxWorkers: 1,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
