/** Retry-After (spec 7): how long the service asked a client to wait. */

/**
 * Retry-After as ms: delta-seconds (decimals accepted) or an HTTP date. Undefined when absent or
 * unreadable (also when too large to be finite). Honoured exactly, without a cap.
 */
export function parseRetryAfterMs(
  value: string | string[] | undefined,
  nowEpochMs: number = Date.now(),
): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) {
    const ms = Math.round(Number(text) * 1000);
    // Too many digits to be a number of seconds (it parses as Infinity): unreadable.
    return Number.isFinite(ms) ? ms : undefined;
  }
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowEpochMs);
}
