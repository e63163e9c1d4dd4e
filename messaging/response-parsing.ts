/**
 * Parsing a 2xx answer's body against its zod schema at the edge. The raw text kept for errors is
 * redacted first, because a proxy or a misrouted request can echo the bearer token back.
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
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, problem: `${issue.path.join('.') || 'body'}: ${issue.message}`, raw };
  }
  return { ok: true, data: parsed.data as z.infer<S> };
}

/**
 * {@link parseAnswer}, throwing an UnexpectedResponseError (with the raw body) when the answer of
 * `target` is not `what`. Not for sends: an unreadable send answer means "sent, id unknown", which
 * is an AmbiguousSendError instead.
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
