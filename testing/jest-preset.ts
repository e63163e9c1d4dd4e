/**
 * The jest preset of a bot project (`"jest": { "preset": "amsflow" }`, as `amsflow init` writes
 * it): TypeScript tests through ts-jest with its type check on, so that a type error fails the
 * test, and a timeout that leaves room for the harness to start its Temporal server and bundle
 * the bot. ts-jest, jest and typescript are the project's own dev dependencies.
 */
const preset = {
  testEnvironment: 'node',
  transform: { '^.+\\.tsx?$': ['ts-jest', { diagnostics: true }] },
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/\\.amsflow/'],
  testTimeout: 60_000,
};

export = preset;
