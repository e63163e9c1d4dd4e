/**
 * **Tool texts** (pure): the approval question a tool call asks, which shows the tool and the
 * arguments exactly as they will run (made by amsflow from the checked input, never by the model),
 * and what the model is told of a call that did not run.
 */
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { formatDuration } from '../../core/durations';
import type { ToolDefinition } from './tool';

/** The longest question an approval takes (the approval workflow adds its own lines). */
export const MAX_QUESTION_CHARS = 4000;

/** Arguments as a human reads them: `to: "Bob", amount: 50` for an object, JSON otherwise. */
export function formatArguments(input: unknown): string {
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    const entries = Object.entries(input as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return 'no arguments';
    return entries.map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(', ');
  }
  return JSON.stringify(input) ?? 'no arguments';
}

/**
 * The question of a call that needs approval: the author's line for it, if the tool has one, then
 * what runs: "Run transfer with to: "Bob", amount: 50?". Undefined when it would be too long to
 * ask (the call is then refused, not run).
 */
export function approvalQuestion(
  name: string,
  definition: ToolDefinition,
  input: unknown,
): string | undefined {
  const first = typeof definition.needsApproval === 'function' ? definition.needsApproval(input).trim() : '';
  const runs = `Run ${name} with ${formatArguments(input)}?`;
  const question = first ? `${first}\n${runs}` : runs;
  return question.length <= MAX_QUESTION_CHARS ? question : undefined;
}

/** Why a call did not run, as the model is told. */
export function notRunText(
  why: 'rejected' | 'expired' | 'cancelled' | 'interrupted' | 'tooLong',
  timeout?: Duration,
): string {
  switch (why) {
    case 'rejected':
      return 'The human said no: nothing ran. Do not try it again unless they ask for it.';
    case 'expired':
      return `The human did not answer within ${formatDuration(msToNumber(timeout ?? 0))}: nothing ran.`;
    case 'cancelled':
      return 'The approval was cancelled: nothing ran.';
    case 'interrupted':
      return 'The human wrote again before answering the approval: nothing ran.';
    case 'tooLong':
      return `The arguments are too long to show the human for approval (${MAX_QUESTION_CHARS} characters at most): nothing ran.`;
  }
}

/** Arguments that do not fit the tool's schema, as the model is told (the schema's own words). */
export function invalidArguments(
  issues: readonly { message: string; path?: readonly PropertyKey[] }[],
): string {
  const shown = issues
    .slice(0, 5)
    .map((i) => `${i.path && i.path.length ? i.path.map(String).join('.') : 'input'}: ${i.message}`)
    .join('; ');
  return `Invalid arguments (${shown}). Nothing ran.`;
}
