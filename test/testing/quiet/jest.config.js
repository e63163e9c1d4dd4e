// A bot project's jest set-up, as `amsflow init` makes one: no forceExit, no setup files.
const root = require('node:path').join(__dirname, '..', '..', '..');
/** @type {import('jest').Config} */
module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': [require.resolve('ts-jest'), { diagnostics: false, tsconfig: `${root}/tsconfig.json` }],
  },
  testMatch: ['**/*.bot-test.ts'],
  moduleNameMapper: {
    '^amsflow$': `${root}/index.ts`,
    '^amsflow/workflows$': `${root}/workflows/index.ts`,
    '^amsflow/testing$': `${root}/testing/index.ts`,
  },
  testTimeout: 120_000,
};
