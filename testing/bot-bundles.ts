/** The harness's bundles of bot modules: each module bundled once per process (webpack is slow). */
import { bundleBot } from '../worker/bot-bundle';

const bundles = new Map<string, Promise<{ code: string }>>();

const noop = () => undefined;
const quiet = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };

/** The worker-side bundle of a workflow module, built once per process. */
export async function bundleOnce(workflowsPath: string): Promise<{ code: string }> {
  let found = bundles.get(workflowsPath);
  if (!found) {
    // The bot with amsflow's own workflows; refused (naming the file) without an onMessage.
    found = bundleBot({ workflowsPath, logger: quiet });
    bundles.set(workflowsPath, found);
    // A refused module is refused again on the next call, not cached as a rejection.
    found.catch(() => bundles.delete(workflowsPath));
  }
  return found;
}
