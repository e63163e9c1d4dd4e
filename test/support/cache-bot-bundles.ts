/**
 * Jest setup file: `bundleBot` of this test file's modules (the harness's, an in-process
 * runAmsflow's) reuses the run's bundles (bot-bundle-cache.ts), and the bundles this jest worker
 * process makes share webpack's cache (bundle-cache.ts). Outside the global setup, nothing.
 *
 * Installed when the suite first loads worker/bot-bundle.ts, not before: most suites never
 * bundle, and loading the bundler's modules for each would cost them all. The module is the real
 * one, its `bundleBot` wrapped by the cache before anything calls it.
 */
const dir = process.env.AMSFLOW_TEST_BUNDLE_CACHE_DIR;

if (dir) {
  jest.mock('../../worker/bot-bundle', () => {
    const botBundle = jest.requireActual<typeof import('../../worker/bot-bundle')>('../../worker/bot-bundle');
    const { cacheBotBundles } = jest.requireActual<typeof import('./bot-bundle-cache')>('./bot-bundle-cache');
    cacheBotBundles(botBundle, jest.requireActual('../../worker/bundling'), dir, { webpackCache: true });
    return botBundle;
  });
}
