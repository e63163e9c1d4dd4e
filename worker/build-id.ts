/**
 * The default build id of a worker: a digest of the workflow code it runs, so that the same code
 * is the same build and any change to it (the bot's or amsflow's) is a new one. Workers of one
 * build must agree on it without talking to each other, so what differs between two bundlings of
 * the same code is left out: the inline source map, and the name of the temporary folder that
 * holds the bundler's generated entry (worker/bot-bundle.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const SOURCE_MAP = /\n\/\/# sourceMappingURL=[^\n]*\s*$/;
const ENTRY_DIR = /amsflow-entry-[A-Za-z0-9]+/g;

/** The digest of bundled workflow code: 16 hex digits of its SHA-256. */
export function codeDigest(code: string): string {
  const stable = code.replace(SOURCE_MAP, '').replace(ENTRY_DIR, 'amsflow-entry');
  return createHash('sha256').update(stable).digest('hex').slice(0, 16);
}

/** The digest of a workflow bundle given as code or as a file (`AMSFLOW_WORKFLOW_BUNDLE`). */
export function bundleDigest(bundle: { code: string } | { codePath: string }): string {
  return codeDigest('code' in bundle ? bundle.code : readFileSync(bundle.codePath, 'utf8'));
}
