/**
 * The engine's workflow versions: the one module that may call Temporal's `patched` and
 * `deprecatePatch` (a lint rule, `amsflow/patches-in-versions`, fails any other file that
 * imports them). Before 1.0 there is no patch at all: amsflow's long-lived workflows (the agent,
 * reminders) are pinned to the build that started a run and move to the current build at
 * continue-as-new, so a change never replays history written by other code; the recorded
 * histories under test/histories/ are today's code's.
 *
 * After 1.0, a change to what a workflow does that a replay would see (a command added, removed
 * or reordered), needed by runs already open on the old build (a fix that cannot wait for their
 * continue-as-new), goes through a patch's life cycle here:
 * 1. add an id here, stage `patched`, with today's date, and branch on `isPatched(id)`;
 * 2. once no run that began before that deploy is open, set the stage to `deprecated` and replace
 *    the branch by `patchDeprecated(id)` and the new code alone;
 * 3. once no run of the `patched` stage's code is open either, delete the entry and the call.
 * Record a history from the new code (`AMSFLOW_RECORD_HISTORIES=1`) so that the replay suite
 * keeps both the old recording and the new one green meanwhile.
 */
import { deprecatePatch, patched } from '@temporalio/workflow';

export type PatchStage = 'patched' | 'deprecated';

export interface PatchEntry {
  /** UTC date the change was deployed (YYYY-MM-DD). */
  added: string;
  stage: PatchStage;
  /** What changed, in one line. */
  change: string;
  /** When it may move to its next stage (`patched` → `deprecated` → removed), as a date or a condition. */
  mayGo: string;
}

/**
 * The patch ids in use: none before 1.0 (a test holds it while package.json's version is 0.x).
 * Until then a change to the engine's workflows reaches running agents through Worker
 * Versioning: a run stays on the build that started it and moves to the current build at its
 * next continue-as-new (docs/OPERATIONS.md, "Upgrading workflow code").
 */
export const PATCHES = {} as const satisfies Record<string, PatchEntry>;

export type PatchId = keyof typeof PATCHES;

/** Why `patches` is not a well-formed list (dates, stages, ids), or an empty list when it is. */
export function patchListProblems(patches: Record<string, PatchEntry>): string[] {
  return Object.entries(patches).flatMap(([id, entry]) => {
    const problems: string[] = [];
    if (!/^amsflow-[a-z0-9-]+$/.test(id)) problems.push(`${id}: ids are amsflow-<kebab-case>`);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(entry.added) || Number.isNaN(Date.parse(entry.added)))
      problems.push(`${id}: added must be a date (YYYY-MM-DD)`);
    if (entry.stage !== 'patched' && entry.stage !== 'deprecated') problems.push(`${id}: unknown stage`);
    if (!entry.change.trim() || !entry.mayGo.trim())
      problems.push(`${id}: change and mayGo must say something`);
    return problems;
  });
}

function entryOf(id: PatchId, stage: PatchStage): PatchEntry {
  const entry = (PATCHES as Record<string, PatchEntry | undefined>)[id];
  if (entry?.stage !== stage) throw new TypeError(`patch ${String(id)} is not listed in stage ${stage}`);
  return entry;
}

/** Temporal's `patched(id)` for a listed id in stage `patched`: true in runs of the new code. */
export function isPatched(id: PatchId): boolean {
  entryOf(id, 'patched');
  return patched(id);
}

/** Temporal's `deprecatePatch(id)` for a listed id in stage `deprecated`. */
export function patchDeprecated(id: PatchId): void {
  entryOf(id, 'deprecated');
  deprecatePatch(id);
}
