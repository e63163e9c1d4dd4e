/**
 * Probes: throwaway files the lint tests plant in the source tree (typed linting needs real files
 * of the project) and remove after. Suites run several at a time, so every test that reads the
 * tree as it is (the fences, import cycles, module READMEs, error codes) leaves them out by their
 * name, and so do the checks `npm test` runs beside them (scripts/types-and-lint.ts).
 */
import { basename, join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** Where a lint test plants its probe `name` in `folder` (relative to the root). */
export function lintProbePath(folder: string, name: string): string {
  return join(ROOT, folder, `__lint-probe-${name}__.ts`);
}

/** The probes, as a glob (the checks leave them out: scripts/types-and-lint.ts). */
export const LINT_PROBE_GLOB = '**/__lint-probe-*__.ts';

/** Whether `path` is a planted probe, not a file of the tree. */
export function isLintProbe(path: string): boolean {
  return /^__lint-probe-.*__\.ts$/.test(basename(path));
}
