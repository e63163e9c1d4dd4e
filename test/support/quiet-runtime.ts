// The bot test harness's Runtime for every suite: SDK warnings known to be benign are dropped,
// other warnings and errors show as one line each, and the harness sees workflow task failures
// (a test whose handler has a bug fails at once). An earlier suite in this jest worker may have
// installed it already.
import { installTestRuntime } from '../../testing/test-runtime';

try {
  installTestRuntime();
} catch {
  // Already installed in this worker process by an earlier suite.
}
