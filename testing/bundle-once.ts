/**
 * The worker-side bundle of a bot module, built once per process for every test that uses it: the
 * bot with amsflow's own workflows, refused (naming the file) without an `onMessage`.
 */
import { bundleBot } from '../worker/bot-bundle';

export const noop = (): undefined => undefined;
const quiet = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };

const bundles = new Map<string, Promise<{ code: string }>>();

/** The bundle of `workflowsPath` (built on the first call). */
export async function bundleOnce(workflowsPath: string): Promise<{ code: string }> {
  let found = bundles.get(workflowsPath);
  if (!found) {
    found = bundleBot({ workflowsPath, logger: quiet });
    bundles.set(workflowsPath, found);
    // A refused module is refused again on the next call, not cached as a rejection.
    found.catch(() => bundles.delete(workflowsPath));
  }
  return found;
}
