/**
 * Checks of the workflow API's arguments and options, made at the call before anything is sent
 * (pure: no workflow context, unit-tested without a server). A wrong value throws a
 * non-retryable `ApplicationFailure` of type `InvalidOption` naming the function, the option and
 * the value: the handler fails once, visibly, instead of its workflow task failing and being
 * retried forever (a plain `TypeError` from `'1 dya'` would do that), and a question whose
 * timeout is wrong is never asked.
 */
import type { Duration } from '@temporalio/common';
import { ApplicationFailure } from '@temporalio/workflow';
import { msToNumber } from '@temporalio/common/lib/time';
import { INVALID_OPTION } from '../../protocol/failures';

export { INVALID_OPTION };

/** The service's cap on a text body in characters (spec 4.1). */
export const MAX_TEXT_CHARS = 4096;
/** The longest duration an option takes: Temporal timers go no further than about 100 years. */
export const MAX_DURATION_MS = 100 * 365 * 86_400_000;

/** What went wrong, in `details[0]` of the failure. */
export interface InvalidOptionDetails {
  /** The API function called (`ask`). */
  function: string;
  /** The option or argument (`timeout`, `nudge.after`, `question`). */
  option: string;
  /** The value given, as shown in the message. */
  value: string;
}

/** A value as a message shows it: JSON, cut short; functions and undefined by name. */
export function showValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  let shown: string;
  try {
    // undefined for symbols and the like: their type is what helps.
    shown = JSON.stringify(value) ?? typeof value;
  } catch {
    shown = Object.prototype.toString.call(value);
  }
  return shown.length > 80 ? `${shown.slice(0, 77)}...` : shown;
}

/** The failure for option `option` of `fn` with `value`, which is not `expected`. */
export function invalidOption(
  fn: string,
  option: string,
  value: unknown,
  expected: string,
): ApplicationFailure {
  const shown = showValue(value);
  const details: InvalidOptionDetails = { function: fn, option, value: shown };
  return ApplicationFailure.create({
    type: INVALID_OPTION,
    message: `${fn}: ${option} ${shown} is not ${expected}`,
    nonRetryable: true,
    details: [details],
  });
}

/** True for the failure a call with a wrong option throws. */
export function isInvalidOption(err: unknown): boolean {
  return err instanceof ApplicationFailure && err.type === INVALID_OPTION;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The options object itself: undefined or a plain object with only `allowed` keys (a misspelt
 * `timout` would otherwise be ignored without a word). Returns it, `{}` for undefined.
 */
export function checkOptions<T extends object>(
  fn: string,
  options: T | undefined,
  allowed: readonly string[],
  name = 'options',
): T {
  if (options === undefined) return {} as T;
  if (!isRecord(options)) throw invalidOption(fn, name, options, 'an object');
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key))
      throw invalidOption(
        fn,
        `${name}.${key}`,
        options[key as keyof T],
        `an option (known: ${allowed.join(', ')})`,
      );
  }
  return options;
}

const DURATION_EXAMPLE = "a duration (like '10 minutes', '1 day' or a number of ms)";

/** A duration option in ms (more than zero, at most {@link MAX_DURATION_MS}); undefined passes. */
export function checkDuration(fn: string, option: string, value: Duration | undefined): number | undefined {
  if (value === undefined) return undefined;
  let ms: number;
  try {
    ms = typeof value === 'string' || typeof value === 'number' ? msToNumber(value) : NaN;
  } catch {
    ms = NaN;
  }
  if (!Number.isFinite(ms) || ms <= 0 || ms > MAX_DURATION_MS)
    throw invalidOption(fn, option, value, DURATION_EXAMPLE);
  return ms;
}

/** A whole number from `min` to `max`; undefined passes. */
export function checkCount(
  fn: string,
  option: string,
  value: unknown,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw invalidOption(fn, option, value, `a whole number from ${min} to ${max}`);
  }
  return value;
}

/** true or false; undefined passes. */
export function checkBoolean(fn: string, option: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'boolean')
    throw invalidOption(fn, option, value, 'true or false');
}

/** Length as the service counts it: Unicode code points. */
function characters(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

/** A string of at most `max` characters (and not blank unless `blank`); undefined passes when `optional`. */
export function checkString(
  fn: string,
  option: string,
  value: unknown,
  limits: { max: number; optional?: boolean; blank?: boolean },
): void {
  if (value === undefined && limits.optional) return;
  if (typeof value !== 'string') throw invalidOption(fn, option, value, 'a string');
  if (!limits.blank && value.trim() === '') throw invalidOption(fn, option, value, 'a non-empty string');
  const n = characters(value);
  if (n > limits.max)
    throw invalidOption(
      fn,
      option,
      `${value.slice(0, 40)}...`,
      `at most ${limits.max} characters (it has ${n})`,
    );
}

/** A list of non-empty strings (cancel words); undefined passes. */
export function checkWords(fn: string, option: string, value: unknown): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) throw invalidOption(fn, option, value, 'a list of words');
  value.forEach((word, i) => {
    if (typeof word !== 'string' || word.trim() === '')
      throw invalidOption(fn, `${option}[${i}]`, word, 'a non-empty word');
  });
}

/** A function; undefined passes. */
export function checkFunction(fn: string, option: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'function')
    throw invalidOption(fn, option, value, 'a function');
}

/** A message to quote: an inbound message (with its `id`) or a non-empty message id; undefined passes. */
export function checkMessageRef(fn: string, option: string, value: unknown): void {
  if (value === undefined) return;
  const id = isRecord(value) ? (value.id ?? value.messageId) : value;
  if (typeof id !== 'string' || id.trim() === '') {
    throw invalidOption(fn, option, value, 'a message (with its id) or a message id');
  }
}

/** A message body to send: a text of at most {@link MAX_TEXT_CHARS}, or a built message (`{ type }`). */
export function checkMessage(fn: string, option: string, value: unknown): void {
  if (typeof value === 'string') return checkString(fn, option, value, { max: MAX_TEXT_CHARS });
  if (!isRecord(value) || typeof value.type !== 'string') {
    throw invalidOption(fn, option, value, 'a text or a message built with textMessage/mediaMessage');
  }
  if (value.type === 'text') {
    const text = value.text;
    checkString(fn, `${option}.text.body`, isRecord(text) ? text.body : undefined, { max: MAX_TEXT_CHARS });
  }
}
