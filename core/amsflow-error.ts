/**
 * The base of amsflow's own errors: a stable `code` from core/error-codes.ts and a message that
 * says what went wrong and what to do. Like the messaging client's errors, a `cause` is kept
 * non-enumerable, so that logging or serialising an error never walks into what it wraps.
 */
import type { AmsflowErrorCode } from './error-codes';

export abstract class AmsflowError<C extends AmsflowErrorCode = AmsflowErrorCode> extends Error {
  abstract readonly code: C;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message);
    this.name = new.target.name;
    if (options?.cause !== undefined) {
      Object.defineProperty(this, 'cause', {
        value: options.cause,
        enumerable: false,
        writable: true,
        configurable: true,
      });
    }
  }
}

/** Whether `err` is one of amsflow's own errors (its message says all there is). */
export function isAmsflowError(err: unknown): err is AmsflowError {
  return err instanceof AmsflowError;
}
