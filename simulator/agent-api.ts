import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { ApiError, ErrorCode, badRequest } from './errors';
import { errorBody, readBody, readJson, sendJson, toApiError } from './http-util';
import { boundaryOf, parseMultipart } from './multipart';
import type { Platform } from './platform';
import type { AgentState, SeqEntry } from './state';
import {
  MESSAGING_PRODUCT,
  OBJECT,
  StatusesBodySchema,
  UPDATES_LIMIT_DEFAULT,
  UPDATES_LIMIT_MAX,
  type Endpoint,
  type Fault,
  type InboundMessage,
  type StatusItem,
} from './wire';

export const BASE_PATH = '/agent/v1';

/** What a handler answers; written (or replaced by a fault) by the dispatcher. */
interface Answer {
  status: number;
  body?: unknown;
  raw?: { data: Buffer; contentType: string };
  headers?: Record<string, string>;
}

interface Route {
  endpoint: Endpoint;
  params: string[];
}

interface RequestCtx {
  req: IncomingMessage;
  url: URL;
  agent: AgentState;
  params: string[];
  body: unknown;
  signal: AbortSignal;
}

const MEDIA_ID = '([A-Za-z0-9._-]+)';
const ROUTES: { re: RegExp; methods: Partial<Record<string, Endpoint>> }[] = [
  { re: /^\/messages$/, methods: { POST: 'messages' } },
  { re: /^\/updates$/, methods: { GET: 'updates' } },
  { re: /^\/statuses$/, methods: { POST: 'statuses' } },
  { re: /^\/media$/, methods: { POST: 'media.upload' } },
  { re: new RegExp(`^/media/${MEDIA_ID}$`), methods: { GET: 'media.get', DELETE: 'media.delete' } },
  { re: new RegExp(`^/media/${MEDIA_ID}/download$`), methods: { GET: 'media.download' } },
];

function matchRoute(method: string, path: string): Route {
  for (const route of ROUTES) {
    const m = route.re.exec(path);
    if (!m) continue;
    const endpoint = route.methods[method];
    if (!endpoint) {
      const allow = Object.keys(route.methods).join(', ');
      throw new ApiError(405, ErrorCode.methodNotAllowed, `method ${method} not allowed here`, { allow });
    }
    return { endpoint, params: m.slice(1) };
  }
  throw new ApiError(404, ErrorCode.notFound, `unknown path ${BASE_PATH}${path}`);
}

const ok = (body: unknown): Answer => ({ status: 200, body });

/** Parses a query parameter as a non-negative decimal integer; 400 code 100 otherwise. */
function intParam(url: URL, name: string): number | undefined {
  const values = url.searchParams.getAll(name);
  if (values.length === 0) return undefined;
  const value = values[values.length - 1];
  if (values.length > 1 || !/^\d{1,15}$/.test(value)) {
    throw badRequest(ErrorCode.invalidParameter, `${name} must be a non-negative integer`);
  }
  return Number(value);
}

/** The agent API under /agent/v1: auth, faults, limits, then the spec's rules. */
export class AgentApi {
  constructor(private readonly platform: Platform) {}

  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = req.method ?? 'GET';
    const path = url.pathname.slice(BASE_PATH.length) || '/';
    const agent = this.authenticate(req);
    if (!agent) {
      await readBody(req, this.platform.options.maxMediaBytes).catch(() => undefined);
      this.write(
        res,
        this.errorAnswer(new ApiError(401, ErrorCode.badToken, 'invalid or missing access token')),
      );
      return;
    }
    const log = (endpoint: Endpoint | null, status: number, code?: number): void => {
      agent.log.push({ at: Date.now(), endpoint, method, path: url.pathname + url.search, status, code });
    };
    const abort = new AbortController();
    res.on('close', () => abort.abort());

    let endpoint: Endpoint | null = null;
    let answer: Answer;
    let isSend = false;
    try {
      const route = matchRoute(method, path);
      endpoint = route.endpoint;
      isSend = endpoint === 'messages';
      if (isSend) this.sendStarted(agent);
      const body = await this.readRequestBody(req, route.endpoint).catch((err: unknown) => {
        agent.requests[route.endpoint] += 1;
        throw err;
      });
      if (route.endpoint === 'statuses' && isTyping(body)) endpoint = 'typing';
      agent.requests[endpoint] += 1;
      const ctx: RequestCtx = { req, url, agent, params: route.params, body, signal: abort.signal };
      answer = await this.dispatch(ctx, endpoint, res);
    } catch (err) {
      answer = this.errorAnswer(toApiError(err));
    } finally {
      if (isSend) agent.inflightSends -= 1;
    }
    // Whatever was not read (e.g. the body of a request to an unknown path) is discarded.
    req.resume();
    if (answer.status === 0) {
      log(endpoint, 0);
      return;
    }
    if (endpoint && answer.status === 429) agent.status429[endpoint] += 1;
    const code = (answer.body as { error?: { code?: number } } | undefined)?.error?.code;
    log(endpoint, answer.status, code);
    this.write(res, answer);
  }

  private sendStarted(agent: AgentState): void {
    if (agent.inflightSends > 0) agent.overlappingSends += 1;
    agent.inflightSends += 1;
  }

  private authenticate(req: IncomingMessage): AgentState | undefined {
    const header = req.headers.authorization ?? '';
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return m ? this.platform.agentByToken(m[1]) : undefined;
  }

  private async readRequestBody(req: IncomingMessage, endpoint: Endpoint): Promise<unknown> {
    const { maxBodyBytes, maxMediaBytes } = this.platform.options;
    if (endpoint === 'messages' || endpoint === 'statuses') return readJson(req, maxBodyBytes);
    if (endpoint === 'media.upload') {
      if (!boundaryOf(req.headers['content-type'])) {
        await readBody(req, maxMediaBytes).catch(() => undefined);
        throw new ApiError(415, ErrorCode.unsupportedMediaType, 'Content-Type must be multipart/form-data');
      }
      return readBody(req, maxMediaBytes);
    }
    // GET and DELETE carry no body; drain anything sent so the connection stays usable.
    await readBody(req, maxBodyBytes);
    return undefined;
  }

  /** Faults (after auth, before limits), the limiter, the handler, then after-faults. */
  private async dispatch(ctx: RequestCtx, endpoint: Endpoint, res: ServerResponse): Promise<Answer> {
    const { agent } = ctx;
    const fault = this.platform.faults.take(agent, endpoint);
    const early = fault && this.earlyFault(fault, res);
    if (early) return early;
    if (fault?.kind === 'slow') await delay(fault.delayMs);

    const admission = this.platform.limiter.admit(agent.config.id, endpoint);
    if (!admission.admitted) {
      const seconds = Math.max(1, Math.ceil(this.platform.clock.toRealMs(admission.retryAfterSimMs) / 1000));
      const headers: Record<string, string> = this.platform.options.retryAfter
        ? { 'retry-after': String(seconds) }
        : {};
      throw new ApiError(429, ErrorCode.rateLimited, `rate limit of ${endpoint} exceeded`, headers);
    }

    let answer: Answer;
    try {
      answer = await this.handlers[endpoint](ctx);
    } catch (err) {
      answer = this.errorAnswer(toApiError(err));
    }
    switch (fault?.kind) {
      case 'server_error_after_accept':
        return this.errorAnswer(
          new ApiError(500, ErrorCode.unknown, 'injected server error after acceptance'),
        );
      case 'drop_after':
        res.socket?.destroy();
        return { status: 0 };
      case 'malformed_json':
        return {
          status: 200,
          raw: { data: Buffer.from('{"messaging_product": "'), contentType: 'application/json' },
        };
      default:
        return answer;
    }
  }

  /** Faults answered before any processing; undefined for the others. */
  private earlyFault(fault: Fault, res: ServerResponse): Answer | undefined {
    switch (fault.kind) {
      case 'drop_before':
        res.socket?.destroy();
        return { status: 0 };
      case 'rate_limit': {
        const seconds =
          fault.retryAfter === undefined ? (this.platform.options.retryAfter ? 1 : null) : fault.retryAfter;
        const headers: Record<string, string> = seconds === null ? {} : { 'retry-after': String(seconds) };
        return this.errorAnswer(new ApiError(429, ErrorCode.rateLimited, 'injected rate limit', headers));
      }
      case 'not_accepted':
        return this.errorAnswer(
          new ApiError(503, ErrorCode.notAccepted, 'message not accepted for delivery'),
        );
      case 'poll_replaced':
        return this.errorAnswer(new ApiError(409, ErrorCode.pollReplaced, 'poll replaced by a newer poll'));
      default:
        return undefined;
    }
  }

  private errorAnswer(err: ApiError): Answer {
    return { status: err.status, body: errorBody(err), headers: err.headers };
  }

  private write(res: ServerResponse, answer: Answer): void {
    if (res.headersSent || res.destroyed) return;
    if (answer.raw) {
      res.writeHead(answer.status, {
        'content-type': answer.raw.contentType,
        'content-length': answer.raw.data.length,
        ...answer.headers,
      });
      res.end(answer.raw.data);
    } else if (answer.body === undefined) {
      res.writeHead(answer.status, answer.headers);
      res.end();
    } else {
      sendJson(res, answer.status, answer.body, answer.headers);
    }
  }

  private readonly handlers: Record<Endpoint, (ctx: RequestCtx) => Promise<Answer>> = {
    messages: async ({ agent, body }) => {
      const record = this.platform.send(agent, body);
      return ok({
        messaging_product: MESSAGING_PRODUCT,
        contacts: [{ input: record.to, wa_id: agent.config.creator }],
        messages: [{ id: record.id, message_status: 'accepted' }],
      });
    },

    updates: async ({ agent, url, signal }) => {
      const { longPoll } = this.platform.options;
      const offset = intParam(url, 'offset') ?? 0;
      const limit = intParam(url, 'limit') ?? UPDATES_LIMIT_DEFAULT;
      if (limit < 1) throw badRequest(ErrorCode.invalidParameter, 'limit must be at least 1');
      const timeout = intParam(url, 'timeout') ?? longPoll.defaultSeconds;
      if (timeout > longPoll.maxSeconds) {
        throw badRequest(
          ErrorCode.invalidParameter,
          `timeout must be at most ${longPoll.maxSeconds} seconds`,
        );
      }
      const outcome = await this.platform.poll(
        agent,
        offset,
        Math.min(limit, UPDATES_LIMIT_MAX),
        timeout * 1000,
        signal,
      );
      switch (outcome.kind) {
        case 'entries':
          return ok(this.page(agent, outcome.entries, offset));
        case 'replaced':
          throw new ApiError(409, ErrorCode.pollReplaced, 'poll replaced by a newer poll for this agent');
        case 'aborted':
          return { status: 0 };
        case 'timeout':
          // WIRE-CONVENTIONS: offset=0&timeout=0 reveals the creator even with no traffic.
          if (offset === 0 && timeout === 0) return ok(this.page(agent, [], 0));
          return { status: 204 };
      }
    },

    statuses: async ({ agent, body }) => this.statuses(agent, body, false),
    typing: async ({ agent, body }) => this.statuses(agent, body, true),

    'media.upload': async ({ agent, req, body }) => {
      const boundary = boundaryOf(req.headers['content-type']) as string;
      const parts = parseMultipart(body as Buffer, boundary);
      if (!parts) throw badRequest(ErrorCode.invalidParameter, 'malformed multipart/form-data body');
      const file = parts.find((p) => p.name === 'file' && p.filename !== undefined);
      if (!file)
        throw badRequest(ErrorCode.invalidParameter, "multipart field 'file' (with a filename) is required");
      const typeField = parts
        .find((p) => p.name === 'type')
        ?.data.toString('utf8')
        .trim();
      const mimeType = (typeField || file.contentType || '').split(';')[0].trim().toLowerCase();
      if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(mimeType)) {
        throw badRequest(
          ErrorCode.invalidParameter,
          "a MIME type is required (field 'type' or the file part's Content-Type)",
        );
      }
      const record = this.platform.storeMedia(
        agent,
        Buffer.from(file.data),
        mimeType,
        file.filename,
        'agent',
      );
      return ok({ id: record.id });
    },

    'media.get': async ({ agent, params, req }) => {
      const record = this.platform.liveMedia(agent, params[0]);
      if (!record) throw badRequest(ErrorCode.invalidValue, `media ${params[0]} is unknown or expired`);
      const host = req.headers.host ?? `${this.platform.options.host}`;
      return ok({
        messaging_product: MESSAGING_PRODUCT,
        id: record.id,
        url: `http://${host}${BASE_PATH}/media/${record.id}/download`,
        mime_type: record.mimeType,
        sha256: record.sha256,
        file_size: record.bytes.length,
      });
    },

    'media.delete': async ({ agent, params }) => ok({ success: this.platform.deleteMedia(agent, params[0]) }),

    'media.download': async ({ agent, params }) => {
      const record = this.platform.liveMedia(agent, params[0]);
      if (!record)
        throw new ApiError(404, ErrorCode.invalidValue, `media ${params[0]} is unknown or expired`);
      return { status: 200, raw: { data: record.bytes, contentType: record.mimeType } };
    },
  };

  private statuses(agent: AgentState, body: unknown, typing: boolean): Promise<Answer> {
    const parsed = StatusesBodySchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw badRequest(
        ErrorCode.invalidParameter,
        `invalid ${issue.path.join('.') || 'body'}: ${issue.message}`,
      );
    }
    this.platform.markRead(agent, parsed.data.message_id, typing);
    return Promise.resolve(ok({ success: true }));
  }

  /** An update page (spec 2.4). */
  private page(agent: AgentState, entries: SeqEntry[], offset: number): unknown {
    const messages: InboundMessage[] = [];
    const statuses: StatusItem[] = [];
    for (const entry of entries) {
      if (entry.kind === 'message') messages.push(entry.message);
      else statuses.push(entry.status);
    }
    return {
      object: OBJECT,
      entry: [
        {
          id: agent.config.id,
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: MESSAGING_PRODUCT,
                contacts: [{ wa_id: agent.config.creator, profile: { name: agent.config.creatorName } }],
                messages,
                statuses,
              },
            },
          ],
        },
      ],
      next_offset: entries.length > 0 ? entries[entries.length - 1].seq + 1 : offset,
    };
  }
}

function isTyping(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'typing_indicator' in body;
}
