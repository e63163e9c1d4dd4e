/**
 * Two tiers, so that `npm test` is a loop of minutes:
 * - main (`npm test`): unit tests, the engine's rules and the author API with time skipping, the
 *   engine's in-process suites on the shared dev server (and the echo's cost, counted from the
 *   histories of a worker process), replay, the simulator's conformance suite, the client, the
 *   examples and the docs' examples as written; and, as issue 40 asks, the fleet's failover
 *   reduced (three worker processes, 12 agents, 2-s windows: test/chaos/fleet-failover);
 * - long (`npm run test:long`, after `npm run cluster:setup`): what needs the native cluster (its Go
 *   build and PostgreSQL), the OpenTelemetry Collector, a browser, the packed-tarball install, or
 *   real processes of ours (seconds of start each): worker processes run for minutes and killed,
 *   restarted or signalled (the engine's process suites, test/engine), both chaos runs, `npm start`
 *   and the worker and CLI entries as processes (test/start: bad configurations, the README's bot),
 *   encryption at rest through `npm start`'s own database (test/codec/at-rest), the harness's
 *   output as a bot project's own jest prints it (test/testing/quiet-output), and what is checked
 *   with outside tools of its own: the alert rules and a worker process's /metrics with promtool,
 *   the Temporal wheels' pinned hashes with python and pip.
 * CI (`.ci/run`) runs both. Without AMSFLOW_TEST_TIER (a plain `npx jest <path>`) every suite is
 * found.
 */
const { availableParallelism } = require('node:os');

// Kept in the main tier although under test/engine (and a worker process of ours): the echo's cost
// from real histories, so that a change that adds a hop fails `npm test`.
const MAIN_ENGINE = ['cost'];
// The long tier, as path patterns (regular expressions on a suite's path).
const LONG = [
  `/test/engine/(?!(${MAIN_ENGINE.join('|')})\\.test\\.ts$)`,
  '/test/chaos/(cluster-)?chaos\\.test\\.ts$',
  '/test/start/',
  '/test/cluster/',
  '/test/package/',
  '/test/browser/',
  '/test/worker/tracing-collector\\.test\\.ts$',
  '/test/worker/fleet-reload\\.test\\.ts$',
  '/test/codec/at-rest\\.test\\.ts$',
  '/test/testing/quiet-output\\.test\\.ts$',
  // Deploy artifacts and set-up checked with their real tools: the alert rules with promtool (five
  // runs, a worker process scraped), a worker process's whole /metrics with promtool, the Temporal
  // wheels' pinned hashes with python and pip.
  '/test/deploy/prometheus-rules\\.test\\.ts$',
  '/test/worker/observability/promtool\\.test\\.ts$',
  '/test/tools/temporal-wheels\\.test\\.ts$',
];
const tier = process.env.AMSFLOW_TEST_TIER ?? 'all';
if (!['main', 'long', 'all'].includes(tier)) {
  throw new Error(`AMSFLOW_TEST_TIER must be main, long or all (got "${tier}")`);
}
const inLong = `(${LONG.join('|')})`;
// The main tier one suite more than the cores: its suites spend part of their time waiting on
// their servers (the dev server, the time-skipping server, the simulator), so a third suite on 2
// cores fills that time (on this 2-core machine the tier took 347 s two at a time, 270 s three).
const workers =
  process.env.AMSFLOW_TEST_WORKERS ?? (tier === 'main' ? String(availableParallelism() + 1) : '1');
if (!/^[1-9][0-9]*$/.test(String(workers))) {
  throw new Error(
    `AMSFLOW_TEST_WORKERS must be a whole number of suites at a time, 1 or more (got "${workers}")`,
  );
}

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  preset: 'ts-jest',
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  roots: ['<rootDir>/test', '<rootDir>/examples'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: [
    '/node_modules/',
    ...(tier === 'main' ? [inLong] : []),
    // Every suite outside the long tier's patterns.
    ...(tier === 'long' ? [`^(?!.*${inLong})`] : []),
  ],
  // The package's own names, as a bot imports them (tsconfig paths do the same for tsc).
  moduleNameMapper: {
    '^amsflow$': '<rootDir>/index.ts',
    '^amsflow/worker$': '<rootDir>/worker/index.ts',
    '^amsflow/workflows$': '<rootDir>/workflows/index.ts',
    '^amsflow/engine-workflows$': '<rootDir>/workflows/engine-workflows.ts',
    '^amsflow/testing$': '<rootDir>/testing/index.ts',
  },
  setupFiles: ['<rootDir>/test/support/quiet-runtime.ts', '<rootDir>/test/support/cache-bot-bundles.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // The Temporal core bridge keeps a native handle open after the last test.
  forceExit: true,
  testTimeout: 60_000,
  // The main tier a suite more than the cores at a time (its suites run in process); the long
  // tier serially: its suites run real worker processes for minutes and pace them, and on 2 cores
  // parallel suites would starve them. AMSFLOW_TEST_WORKERS overrides both.
  maxWorkers: Number(workers),
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
