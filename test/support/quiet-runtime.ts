// Keeps Temporal workers' INFO lines out of test output; warnings and errors still show.
import { DefaultLogger, Runtime } from '@temporalio/worker';

try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // Already installed in this worker process by an earlier suite.
}
