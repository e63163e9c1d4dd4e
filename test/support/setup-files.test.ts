/**
 * The jest setup files install on first use (quiet-runtime.ts, cache-bot-bundles.ts): a suite
 * that loads `@temporalio/worker` gets the harness's Runtime before it can create the SDK's
 * default one, and one that loads worker/bot-bundle.ts gets `bundleBot` wrapped by the run's
 * bundle cache (the global setup sets its folder).
 */
import { Runtime } from '@temporalio/worker';
import * as botBundle from '../../worker/bot-bundle';
import { installTestRuntime } from '../../testing/test-runtime';

describe('the setup files, installed on first use', () => {
  it("installs the harness's Runtime when the suite loads @temporalio/worker", () => {
    expect((Runtime as unknown as { _instance?: Runtime })._instance).toBeDefined();
    // Undefined if another Runtime (the SDK's default one) had been installed first.
    expect(installTestRuntime()).toBeDefined();
  });

  it("wraps bundleBot with the run's bundle cache when the suite loads it", () => {
    expect(process.env.AMSFLOW_TEST_BUNDLE_CACHE_DIR).toBeTruthy();
    expect((botBundle as Record<symbol, unknown>)[Symbol.for('amsflow.test.bundleCache')]).toBe(true);
  });
});
