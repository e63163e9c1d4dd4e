/**
 * The request executor: every request of the client passes through it, so pacing (spec 8), retries
 * with backoff and outcome classification (spec 7), and the naming of aborts hold for all of them in
 * one place. It also owns the client's lifetime, so that closing fails every pending call at once.
 */
import { setMaxListeners } from 'node:events';
import type { FormData } from 'undici';
import type { z } from 'zod';
import { linkSignals } from './abort-signals';
import { exponentialBackoffMs, rateLimitBackoffMs } from '../core/backoff';
import { DEFAULT_BASE_URL, type ResolvedClientOptions } from './client-options';
import { sleep } from './clock';
import {
  ClientClosedError,
  RateLimitError,
  RequestAbortedError,
  TransportError,
  UnexpectedResponseError,
} from './errors';
import { PACED_ENDPOINTS, type PacedEndpoint } from './limits';
import { classifyAnswer, classifyFailure, readAnswer, type RequestKind } from './outcome';
import { RollingWindowLimiter } from './rate-limiter';
import { type ParsedAnswer, parseAnswer, parseAnswerOrThrow } from './response-parsing';
import { httpExchange, type HttpResponse } from './transport';

/** Largest JSON answer read, bytes. */
const MAX_JSON_BYTES = 4 * 1024 * 1024;

/** One request as an operation of the client describes it. */
export interface ApiRequest {
  kind: RequestKind;
  /** Pacing counter; undefined = not paced (media URL fetches have no counter in the spec). */
  endpoint: PacedEndpoint | undefined;
  method: 'GET' | 'POST' | 'DELETE';
  url: URL;
  json?: unknown;
  /** Builds a multipart body; called once per attempt, because a sent form cannot be sent again. */
  form?: () => FormData;
  /** Read time on top of the client's `timeoutMs` (a long poll's wait, an upload's size), ms. Default 0. */
  extraReadMs?: number;
  /** Largest answer accepted, bytes. Default: 4 MiB, for a JSON answer. */
  maxResponseBytes?: number;
  isPoll?: boolean;
}

/** One public call in flight. */
export interface CallContext {
  /** Aborts when the caller's signal does or the client closes. */
  readonly signal: AbortSignal;
  /** A request of this call may have taken effect (sends: may have been delivered). */
  mayHaveLanded: boolean;
}

/** What the executor needs of the client's options. */
export type ExecutorSettings = Pick<
  ResolvedClientOptions,
  | 'token'
  | 'baseUrl'
  | 'timeoutMs'
  | 'maxRetries'
  | 'backoff'
  | 'retrySendOnServerError'
  | 'dispatcher'
  | 'ownsDispatcher'
  | 'userAgent'
  | 'rateLimit'
  | 'limits'
>;

/** Runs the client's calls and their requests; one per client. */
export class RequestExecutor {
  readonly #settings: ExecutorSettings;
  readonly #limiters: Record<PacedEndpoint, RollingWindowLimiter> | undefined;
  readonly #lifetime = new AbortController();
  #closed = false;

  constructor(settings: ExecutorSettings) {
    this.#settings = settings;
    // Every pending call listens on the client's lifetime signal; many may be pending at once.
    setMaxListeners(0, this.#lifetime.signal);
    const { limits } = settings;
    this.#limiters = settings.rateLimit
      ? (Object.fromEntries(
          PACED_ENDPOINTS.map((e) => [
            e,
            new RollingWindowLimiter({ limit: limits[e], windowMs: limits.windowMs }),
          ]),
        ) as Record<PacedEndpoint, RollingWindowLimiter>)
      : undefined;
  }

  /** The service root, without a trailing slash. */
  get baseUrl(): string {
    return this.#settings.baseUrl;
  }

  /** The URL of a service path such as `/messages`. */
  url(path: string): URL {
    return new URL(`${this.#settings.baseUrl}${path}`);
  }

  /**
   * A context tied to the client's lifetime only, for work that serves several callers (recipient
   * discovery): one caller giving up must not cancel it for the others.
   */
  detachedContext(): CallContext {
    return { signal: this.#lifetime.signal, mayHaveLanded: false };
  }

  /** Runs one public call: links its signal to the client's lifetime and names abort outcomes. */
  async call<T>(userSignal: AbortSignal | undefined, fn: (ctx: CallContext) => Promise<T>): Promise<T> {
    if (this.#closed) throw new ClientClosedError('The client is closed; create a new one.');
    const { signal, dispose } = linkSignals(this.#lifetime.signal, userSignal);
    const ctx: CallContext = { signal, mayHaveLanded: false };
    try {
      return await fn(ctx);
    } catch (err) {
      if (signal.aborted && err === signal.reason) {
        if (this.#lifetime.signal.aborted)
          throw new ClientClosedError('The client was closed during the call.');
        throw new RequestAbortedError(
          ctx.mayHaveLanded
            ? 'The call was aborted after its request left; it may have taken effect (a send may have been ' +
                'delivered). Treat a send as ambiguous.'
            : 'The call was aborted before its request left; nothing was sent.',
          ctx.mayHaveLanded,
          err,
        );
      }
      throw err;
    } finally {
      dispose();
    }
  }

  /** Sends `req` with pacing and retries; resolves to a 2xx answer, else throws the classified error. */
  async execute(req: ApiRequest, ctx: CallContext): Promise<HttpResponse> {
    const { token, maxRetries, backoff, retrySendOnServerError } = this.#settings;
    const target = `${req.method} ${req.url.pathname}`;
    let rateLimited = 0;
    for (let retry = 0; ; retry++) {
      let classified;
      try {
        const res = await this.#paced(req.endpoint, () => this.#attempt(req, ctx), ctx.signal);
        if (res.status >= 200 && res.status < 300) return res;
        classified = classifyAnswer(req.kind, target, res, readAnswer(res, token), {
          retrySendOnServerError,
          isPoll: req.isPoll ?? false,
        });
      } catch (err) {
        if (!(err instanceof TransportError || err instanceof UnexpectedResponseError)) throw err;
        classified = classifyFailure(req.kind, target, err, { retrySendOnServerError });
      }
      if (classified.mayHaveLanded) ctx.mayHaveLanded = true;
      if (!classified.retryable || retry >= maxRetries) throw classified.error;
      let delay: number;
      if (classified.error instanceof RateLimitError) {
        delay = classified.retryAfterMs ?? rateLimitBackoffMs(rateLimited, backoff);
        rateLimited += 1;
      } else {
        delay = exponentialBackoffMs(retry, backoff);
      }
      await sleep(delay, ctx.signal);
    }
  }

  /** {@link parseAnswer} with the token redacted from the raw text. */
  parse<S extends z.ZodTypeAny>(res: HttpResponse, schema: S): ParsedAnswer<z.infer<S>> {
    return parseAnswer(res, schema, this.#settings.token);
  }

  /** {@link parseAnswerOrThrow} with the token redacted from the raw text. */
  parseOrThrow<S extends z.ZodTypeAny>(
    res: HttpResponse,
    schema: S,
    target: string,
    what: string,
  ): z.infer<S> {
    return parseAnswerOrThrow(res, schema, this.#settings.token, target, what);
  }

  /** Fails queued and in-flight calls with ClientClosedError and closes an owned dispatcher. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#lifetime.abort(new ClientClosedError('The client was closed.'));
    if (this.#settings.ownsDispatcher) await this.#settings.dispatcher.close();
  }

  #paced<T>(endpoint: PacedEndpoint | undefined, fn: () => Promise<T>, signal: AbortSignal): Promise<T> {
    const limiter = endpoint === undefined ? undefined : this.#limiters?.[endpoint];
    return limiter ? limiter.run(fn, signal) : fn();
  }

  async #attempt(req: ApiRequest, ctx: CallContext): Promise<HttpResponse> {
    const { token, baseUrl, timeoutMs, userAgent, dispatcher } = this.#settings;
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
    };
    if (userAgent !== undefined) headers['user-agent'] = userAgent;
    let body: string | FormData | undefined;
    if (req.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.json);
    } else if (req.form) {
      body = req.form();
    }
    try {
      return await httpExchange(dispatcher, {
        method: req.method,
        url: req.url,
        headers,
        body,
        readTimeoutMs: timeoutMs + (req.extraReadMs ?? 0),
        signal: ctx.signal,
        maxResponseBytes: req.maxResponseBytes ?? MAX_JSON_BYTES,
        connectHint:
          baseUrl === DEFAULT_BASE_URL
            ? 'baseUrl is the placeholder default; set it to the service address.'
            : undefined,
      });
    } catch (err) {
      // Aborted after the request was handed to the connection: it may have taken effect.
      if (ctx.signal.aborted) ctx.mayHaveLanded = true;
      throw err;
    }
  }
}
