/**
 * The options of a model turn (`answerWithModel`), their defaults, and their checks at the call
 * (pure): a wrong one fails the handler once with `InvalidOption`, before the model is called.
 */
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import {
  checkBoolean,
  checkCount,
  checkDuration,
  checkOptions,
  checkString,
  invalidOption,
} from '../author/option-checks';
import {
  DEFAULT_MEMORY_LIMITS,
  MAX_MEMORY_BYTES,
  type MemoryLimits,
  type ModelToolSpec,
} from '../../protocol/models';
import { checkTools, type ToolSet } from './tool';
import { DEFAULT_MAX_MESSAGE_CHARS } from './turn';

/**
 * What a turn does with a message the human sends while it is under way:
 * - `interrupt` (default): the model stops thinking and starts again with every message so far; a
 *   pending approval is cancelled (its tool does not run); a tool already running finishes first
 *   and is not run again.
 * - `queue`: the turn goes on; the new message gets a turn of its own once this one has answered.
 * - `apart`: the turn does not listen; the message starts a handler of its own and is answered
 *   apart (each turn sees the memory as it is when it calls the model).
 */
export type DoubleTexting = 'interrupt' | 'queue' | 'apart';
export const DOUBLE_TEXTING: readonly DoubleTexting[] = ['interrupt', 'queue', 'apart'];

export interface ModelTurnOptions {
  /** The system prompt: who the assistant is, what it may do. */
  system?: string;
  /** The tools the model may call, by name (see `tool()`, `reminderTools`, `approvalTool`). */
  tools?: ToolSet;
  /** What a message sent while the turn is under way does. Default `'interrupt'`. */
  doubleTexting?: DoubleTexting;
  /**
   * The agent's memory: the turns before this one are shown to the model, and this one is kept
   * (the newest whole turns within `turns` and `bytes`, UTF-8 JSON; default 30 turns, 48 KiB, at
   * most 256 KiB). `false`: the model sees this turn only, and nothing is kept.
   */
  memory?: boolean | { turns?: number; bytes?: number };
  /** Model calls in one turn at most (each tool round is one). Default 8. */
  maxSteps?: number;
  /** How long the human has to approve a tool call. Default '10 minutes'. */
  approvalTimeout?: Duration;
  /** One attempt of a model call may take this long. Default '2 minutes'. */
  timeout?: Duration;
  /** Attempts of a model call (429, 5xx and timeouts are retried). Default 5. */
  attempts?: number;
  /** The first retry's wait; each next one doubles, up to 30 s (a Retry-After wins). Default '1 second'. */
  backoff?: Duration;
  maxOutputTokens?: number;
  temperature?: number;
  /**
   * The most characters of one of the human's messages the model is shown; a longer one is cut,
   * with a note saying how long it was. Default 4096 (the service's own cap on a sent text).
   */
  maxMessageChars?: number;
  /** What the human is told when the model cannot answer (every attempt failed). */
  apology?: string;
}

/** What the human hears when every attempt of a model call failed. */
export const DEFAULT_APOLOGY = 'Sorry, I cannot answer right now. Please try again in a little while.';

/** The options resolved: every default applied. */
export interface TurnSettings {
  system?: string;
  tools: ToolSet;
  specs: ModelToolSpec[];
  doubleTexting: DoubleTexting;
  memory: MemoryLimits | false;
  maxSteps: number;
  approvalTimeoutMs: number;
  timeoutMs: number;
  attempts: number;
  backoffMs: number;
  maxOutputTokens?: number;
  temperature?: number;
  maxMessageChars: number;
  apology: string;
}

const FN = 'answerWithModel';
const KNOWN = [
  'system',
  'tools',
  'doubleTexting',
  'memory',
  'maxSteps',
  'approvalTimeout',
  'timeout',
  'attempts',
  'backoff',
  'maxOutputTokens',
  'temperature',
  'maxMessageChars',
  'apology',
];

function memoryOf(memory: ModelTurnOptions['memory']): MemoryLimits | false {
  if (memory === false) return false;
  if (memory === undefined || memory === true) return DEFAULT_MEMORY_LIMITS;
  checkOptions(FN, memory, ['turns', 'bytes'], 'memory');
  return {
    turns: checkCount(FN, 'memory.turns', memory.turns, 1, 1000) ?? DEFAULT_MEMORY_LIMITS.turns,
    bytes:
      checkCount(FN, 'memory.bytes', memory.bytes, 1024, MAX_MEMORY_BYTES) ?? DEFAULT_MEMORY_LIMITS.bytes,
  };
}

/** The options checked, with their defaults; throws `InvalidOption` naming the first mistake. */
export function turnSettings(options: ModelTurnOptions | undefined): TurnSettings {
  const o = checkOptions(FN, options, KNOWN);
  checkString(FN, 'system', o.system, { max: 100_000, optional: true });
  checkString(FN, 'apology', o.apology, { max: 4096, optional: true });
  if (o.doubleTexting !== undefined && !DOUBLE_TEXTING.includes(o.doubleTexting))
    throw invalidOption(FN, 'doubleTexting', o.doubleTexting, `one of ${DOUBLE_TEXTING.join(', ')}`);
  if (typeof o.memory !== 'object' && o.memory !== undefined) checkBoolean(FN, 'memory', o.memory);
  if (
    o.temperature !== undefined &&
    (typeof o.temperature !== 'number' || !(o.temperature >= 0 && o.temperature <= 2))
  )
    throw invalidOption(FN, 'temperature', o.temperature, 'a number from 0 to 2');
  return {
    system: o.system,
    tools: o.tools ?? {},
    specs: checkTools(o.tools),
    doubleTexting: o.doubleTexting ?? 'interrupt',
    memory: memoryOf(o.memory),
    maxSteps: checkCount(FN, 'maxSteps', o.maxSteps, 1, 50) ?? 8,
    approvalTimeoutMs: checkDuration(FN, 'approvalTimeout', o.approvalTimeout) ?? msToNumber('10 minutes'),
    timeoutMs: checkDuration(FN, 'timeout', o.timeout) ?? msToNumber('2 minutes'),
    attempts: checkCount(FN, 'attempts', o.attempts, 1, 50) ?? 5,
    backoffMs: checkDuration(FN, 'backoff', o.backoff) ?? 1000,
    maxOutputTokens: checkCount(FN, 'maxOutputTokens', o.maxOutputTokens, 1, 1_000_000),
    temperature: o.temperature,
    maxMessageChars:
      checkCount(FN, 'maxMessageChars', o.maxMessageChars, 1, 1_000_000) ?? DEFAULT_MAX_MESSAGE_CHARS,
    apology: o.apology ?? DEFAULT_APOLOGY,
  };
}
