/**
 * Parsing a 2xx answer's body against its zod schema at the edge. The raw text kept for errors is
 * redacted first, because a proxy or a misrouted request can echo the bearer token back, and what
 * is said of a body that does not fit names where and what kind, never a value: an update page
 * holds the human's messages, and an error's message ends up in failures and WARN logs, which
 * must not carry bodies unless `AMSFLOW_LOG_BODIES` asks for them.
 */
import type { z } from 'zod';
import { UnexpectedResponseError } from './errors';
import { readAnswer } from './outcome';
import type { HttpResponse } from './transport';

/** A parsed body, or why it is unusable with its (redacted) raw text. */
export type ParsedAnswer<T> = { ok: true; data: T } | { ok: false; problem: string; raw: string };

/** Parses `res`'s JSON body with `schema`; `secret` is redacted from the raw text. */
export function parseAnswer<S extends z.ZodTypeAny>(
  res: HttpResponse,
  schema: S,
  secret: string,
): ParsedAnswer<z.infer<S>> {
  const raw = readAnswer(res, secret).raw;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { ok: false, problem: raw.length === 0 ? 'empty body' : 'not JSON', raw };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) return { ok: false, problem: describeIssue(parsed.error.issues[0]), raw };
  return { ok: true, data: parsed.data as z.infer<S> };
}

/** Longest member name quoted in a problem: the wire's own names are short, a hostile one is not. */
const MAX_NAME_CHARS = 40;

/**
 * Where an answer did not fit and what kind of problem it is (`entry.0.id: expected string, got
 * number`). Never the value received: zod's own messages quote some (an enum's, a literal's).
 * Paths hold only the schema's member names and array indexes (loose objects report no unknown
 * member), cut all the same.
 */
export function describeIssue(issue: z.ZodIssue, root = 'body'): string {
  const where =
    issue.path
      .map((part) =>
        typeof part === 'number' || part.length <= MAX_NAME_CHARS
          ? part
          : `${part.slice(0, MAX_NAME_CHARS)}…`,
      )
      .join('.') || root;
  switch (issue.code) {
    case 'invalid_type':
      // Both are zod's type names (`string`, `number`, `undefined`), not values.
      return `${where}: expected ${issue.expected}, got ${issue.received}`;
    case 'custom':
      // Custom issues are amsflow's own (e.g. a known type without its payload object).
      return `${where}: ${issue.message}`;
    default:
      return `${where}: ${issue.code}`;
  }
}

/**
 * {@link parseAnswer}, throwing an UnexpectedResponseError (with the raw body, kept off its
 * enumerable members) when the answer of `target` is not `what`. Not for sends: an unreadable send
 * answer means "sent, id unknown", which is an AmbiguousSendError instead.
 */
export function parseAnswerOrThrow<S extends z.ZodTypeAny>(
  res: HttpResponse,
  schema: S,
  secret: string,
  target: string,
  what: string,
): z.infer<S> {
  const parsed = parseAnswer(res, schema, secret);
  if (parsed.ok) return parsed.data;
  throw new UnexpectedResponseError(
    `${target} answered ${res.status} with a body that is not ${what} (${parsed.problem}). The raw body is ` +
      'on the error; the service may have changed or a proxy answered.',
    res.status,
    parsed.raw,
  );
}
