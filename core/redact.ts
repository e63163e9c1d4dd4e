/**
 * Redaction of secrets in anything about to be logged: every registered secret (the agents'
 * tokens) wherever it appears, `Bearer <credential>` (an `Authorization` header's value), Temporal
 * task tokens (whoever holds one can complete or fail that activity or workflow task), and the
 * values of keys that name a credential. Errors become plain objects first.
 */

/** What a redacted value is replaced with. */
export const REDACTED = '[REDACTED]';

const secrets = new Set<string>();

/** Registers a secret (e.g. an agent's token) for this process: no log line will contain it. */
export function registerSecret(value: string | undefined): void {
  // Very short values would redact ordinary words; tokens are never that short.
  if (value && value.length >= 6) secrets.add(value);
}

const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9\-._~+/=:]+/gi;
const SECRET_KEY =
  /^(token|authorization|auth|password|secret|api[-_]?key|access[-_]?token|ams_token|(base64[-_]?)?task[-_]?token)$/i;
/**
 * A Temporal task token as the SDK and its core print it (base64 of the server's token message,
 * whose first field is the namespace's UUID: it always starts `CiQ` or `CiR`), in any text; and
 * the core's `TaskToken(...)` and `task_token=...` forms.
 */
const TASK_TOKEN = /(?<![A-Za-z0-9+/_-])Ci[QR][A-Za-z0-9+/_-]{40,}={0,2}/g;
const TASK_TOKEN_FIELD = /\b(TaskToken\(|task[_ ]?token["']?\s*[:=]\s*["']?)[^)\s"',]+/gi;

/** `text` with every registered secret, bearer credential and task token replaced. */
export function redactText(text: string): string {
  let out = text
    .replace(BEARER, (_match, scheme: string) => `${scheme} ${REDACTED}`)
    .replace(TASK_TOKEN_FIELD, (_match, head: string) => `${head}${REDACTED}`)
    .replace(TASK_TOKEN, REDACTED);
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}

/** A deep copy of `value` fit to log: strings redacted, credential keys hidden, errors flattened. */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') {
    return typeof value === 'bigint' ? value.toString() : value;
  }
  if (depth > 8) return '[too deep]';
  if (value instanceof Error) {
    const { name, message, stack } = value;
    const extra = Object.fromEntries(Object.entries(value));
    return redact({ name, message, ...extra, stack }, depth + 1);
  }
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_KEY.test(k) && v !== undefined && v !== '' ? REDACTED : redact(v, depth + 1);
  }
  return out;
}
