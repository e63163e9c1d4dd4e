/**
 * The engine's workflow versions: the one module that may call Temporal's `patched` and
 * `deprecatePatch` (a lint rule, `amsflow/patches-in-versions`, fails any other file that
 * imports them). v1 (2026-11-25) is the baseline (no patch); every recorded history under
 * test/histories/ was recorded from it or from a later code that lists its patch ids here.
 *
 * Changing what the agent workflow does in a way a replay would see (a command added, removed
 * or reordered) while runs of the old code are open:
 * 1. add an id here, stage `patched`, with today's date, and branch on `isPatched(id)`;
 * 2. once no run that began before that deploy is open (a run lives until its next
 *    continue-as-new, so a few hours of traffic at most, and at most the history bound's worth),
 *    set the stage to `deprecated` and replace the branch by `patchDeprecated(id)` and the new
 *    code alone;
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

/** The patch ids in use (none at the v1 baseline). */
export const PATCHES = {
  'amsflow-sent-known-at-settle': {
    added: '2026-11-28',
    stage: 'patched',
    change:
      "a send's message id is known to the quote hold only once its outcome is settled (its question's wait registered): a reply to it handled in the same workflow task as the send's result waits for that instead of reaching a new handler",
    mayGo:
      'deprecated once no agent run begun before 2026-11-28 is open (its next continue-as-new), then removed once no run of the patched stage is open',
  },
  'amsflow-window-at-answer': {
    added: '2026-11-28',
    stage: 'patched',
    change:
      "a poll counts in the updates window from when it was answered, not when it left (the service may count it any time until it answers: a slow front stamps it late), and a failed quiet poll's own report of its polls replaces the assumed ones",
    mayGo:
      'deprecated once no agent run begun before 2026-11-28 is open (its next continue-as-new), then removed once no run of the patched stage is open',
  },
  'amsflow-shorter-runs': {
    added: '2026-11-28',
    stage: 'patched',
    change:
      'the agent continues as new after 1,000 history events (was 4,000) unless its tuning says otherwise: a worker taking a run over replays a quarter as much (at 4,000, replays under load took longer than the 10-s workflow task timeout, again and again)',
    mayGo:
      'deprecated once no agent run begun before 2026-11-28 is open (its next continue-as-new), then removed once no run of the patched stage is open',
  },
  'amsflow-poll-through-drain': {
    added: '2026-11-28',
    stage: 'patched',
    change:
      'a quiet poll ended for a sooner poll (a reconciliation, a receipt watch) while the run drains for continue-as-new is followed by that poll; the loop used to stop there, and a send being reconciled then waited for ever (the run never moved on nor polled again)',
    mayGo:
      'deprecated once no agent run begun before 2026-11-28 is open (its next continue-as-new), then removed once no run of the patched stage is open',
  },
  'amsflow-lost-poll-lease': {
    added: '2026-11-28',
    stage: 'patched',
    change:
      'after a poll activity timed out, the next poll waits until a poll that activity may have started has ended at the service (protocol/poll-lease.ts); it used to start after the backoff, and the service answered the older poll 409 when the lost worker was cut off but alive',
    mayGo:
      'deprecated once no agent run begun before 2026-11-28 is open (its next continue-as-new), then removed once no run of the patched stage is open',
  },
  'amsflow-lost-poll-ticket': {
    added: '2026-11-29',
    stage: 'patched',
    change:
      "that wait is handed to the next poll activity with the lost attempt's ticket, instead of a workflow timer: the activity cuts it to the close grace when the attempt's worker process has ended (activities/poll-tickets.ts), since a dead process has no request open",
    mayGo:
      'deprecated once no agent run begun before 2026-11-29 is open (its next continue-as-new), then removed once no run of the patched stage is open',
  },
  'amsflow-poll-worker-ended': {
    added: '2026-11-29',
    stage: 'patched',
    change:
      'a poll given up because its worker process ended (PollWorkerEnded, sent by a worker on the same machine after the close grace) is followed by the next poll at once, not after the failure backoff (about 1 s): nothing of it is open at the service',
    mayGo:
      'deprecated once no agent run begun before 2026-11-30 is open (its next continue-as-new), then removed once no run of the patched stage is open',
  },
} as const satisfies Record<string, PatchEntry>;

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
