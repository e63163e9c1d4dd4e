/**
 * The `NODE_OPTIONS` entry that preloads the suites' caches into node children (ts-node's output:
 * ts-node-cache.js; bot bundles: bot-bundle-preload.js), added by the global setup and taken out
 * again where a child must see a user's own environment (test/package).
 */
import { join } from 'node:path';

const PRELOAD = ['ts-node-cache.js', 'bot-bundle-preload.js']
  .map((file) => `--require=${JSON.stringify(join(__dirname, file))}`)
  .join(' ');

/** `nodeOptions` with the preloads added once. */
export function withChildCaches(nodeOptions: string | undefined): string {
  const rest = withoutChildCaches(nodeOptions);
  return rest ? `${rest} ${PRELOAD}` : PRELOAD;
}

/** `nodeOptions` without the preloads; undefined when nothing else is left. */
export function withoutChildCaches(nodeOptions: string | undefined): string | undefined {
  const rest = (nodeOptions ?? '').split(` ${PRELOAD}`).join('').split(PRELOAD).join('').trim();
  return rest || undefined;
}
