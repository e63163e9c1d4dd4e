/**
 * Durations as operators write them on the command line (`--timeout 10m`, `--remind-after 5m`):
 * a whole number and one unit, nothing else. Pure: no I/O, no clock.
 */
import { AmsflowError } from './amsflow-error';
import { AmsflowErrorCodes } from './error-codes';

/** Milliseconds in one of each unit {@link parseDuration} accepts. */
export const DURATION_UNITS = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
} as const;

/** A unit {@link parseDuration} accepts: `ms`, `s`, `m`, `h` or `d`. */
export type DurationUnit = keyof typeof DURATION_UNITS;

/** Text that is not a duration {@link parseDuration} accepts. The message says what is. */
export class DurationFormatError extends AmsflowError {
  readonly code = AmsflowErrorCodes.invalidDuration;
  constructor(
    /** The text as given. */
    readonly input: string,
    message: string,
  ) {
    super(message);
  }
}

const DURATION = /^(\d+)(ms|s|m|h|d)$/;

/**
 * The number of milliseconds `text` stands for: a whole number followed directly by one unit,
 * `ms` (milliseconds), `s`, `m`, `h` or `d` (24 hours): `'15s'` → 15000, `'10m'` → 600000,
 * `'1500ms'` → 1500. Strict: no sign, fraction, exponent, space, upper case, combined units
 * (`'1h30m'`; write `'90m'`) or bare number. `'0s'` is 0 (callers that need a positive
 * duration check that themselves). Throws {@link DurationFormatError} otherwise, and when the
 * result is not a safe integer.
 */
export function parseDuration(text: string): number {
  if (typeof text !== 'string') {
    throw new DurationFormatError(String(text), `a duration must be text such as "10m", not ${typeof text}`);
  }
  const shown = JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
  const match = DURATION.exec(text);
  if (!match) {
    const hint = /^\d+$/.test(text)
      ? `: add a unit, e.g. "${text}s"`
      : /^\d+(ms|s|m|h|d)\d/.test(text)
        ? ': use a single unit, e.g. "90m" for an hour and a half'
        : '';
    throw new DurationFormatError(
      text,
      `${shown} is not a duration${hint}; write a whole number and one unit: ms, s, m, h or d (e.g. "15s", "10m", "2h", "3d")`,
    );
  }
  const ms = Number(match[1]) * DURATION_UNITS[match[2] as DurationUnit];
  if (!Number.isSafeInteger(ms)) throw new DurationFormatError(text, `${shown} is too long a duration`);
  return ms;
}

/**
 * `ms` written the way {@link parseDuration} reads it, in the largest unit that divides it
 * exactly: 600000 → `'10m'`, 90000 → `'90s'`, 1500 → `'1500ms'`. For messages and listings.
 */
export function formatDuration(ms: number): string {
  if (!Number.isSafeInteger(ms) || ms < 0)
    throw new RangeError(`${ms} is not a whole, non-negative number of ms`);
  if (ms === 0) return '0s';
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    if (ms % DURATION_UNITS[unit] === 0) return `${ms / DURATION_UNITS[unit]}${unit}`;
  }
  return `${ms}ms`;
}
