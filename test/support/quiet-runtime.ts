// The bot test harness's Runtime for every suite that uses Temporal: SDK warnings known to be
// benign are dropped, other warnings and errors show as one line each, and the harness sees
// workflow task failures (a test whose handler has a bug fails at once).
//
// Installed when the suite first loads `@temporalio/worker` (itself, or through `@temporalio/testing`
// or amsflow's modules), so before anything can create the SDK's default Runtime, and not at all
// in the many suites that never touch Temporal: loading the SDK's worker module and installing a
// Runtime cost each suite about a quarter of a CPU-second (60 small suites: 53–61 CPU-s with both
// setup files run up front, 45–46 with this one on first use, 38 with both). The module is the
// real one; jest's module factory only runs the install first. An earlier suite in this jest
// worker may have installed it already.
let installing = false;

jest.mock('@temporalio/worker', () => {
  const worker = jest.requireActual<typeof import('@temporalio/worker')>('@temporalio/worker');
  // test-runtime.ts loads `@temporalio/worker` too, which comes back here: that load is the module.
  if (!installing) {
    installing = true;
    try {
      jest
        .requireActual<typeof import('../../testing/test-runtime')>('../../testing/test-runtime')
        .installTestRuntime();
    } catch {
      // Already installed in this worker process by an earlier suite.
    } finally {
      installing = false;
    }
  }
  return worker;
});
