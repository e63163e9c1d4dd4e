/**
 * The agent API under /agent/v1, as a request pipeline: authentication, routing, reading the
 * body, faults, the rate limiter, then the endpoint's handler (agent-endpoints.ts), the log and
 * the answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { agentEndpoints, BASE_PATH, type Answer, type Handler, type RequestCtx } from './agent-endpoints';
import { ApiError, ErrorCode } from './errors';
import { errorBody, readBody, readJson, sendJson, toApiError } from './http-util';
import { boundaryOf } from './multipart';
import type { Platform } from './platform';
import type { AgentState } from './state';
import type { Endpoint, Fault } from './wire';

/** Where server.ts mounts this API. */
export { BASE_PATH };

interface Route {
  endpoint: Endpoint;
  params: string[];
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

/** The agent API under /agent/v1: auth, faults, limits, then the spec's rules. */
export class AgentApi {
  private readonly handlers: Record<Endpoint, Handler>;

  constructor(private readonly platform: Platform) {
    this.handlers = agentEndpoints(platform);
  }

  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const receivedAt = Date.now();
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
    const log = (endpoint: Endpoint | null, status: number, code?: number, answer?: Answer): void => {
      const path = url.pathname + url.search;
      const fault = answer?.injected;
      const tags = {
        ...(fault ? { fault } : {}),
        ...(answer?.replacedByAbandoned ? { replacedByAbandoned: true as const } : {}),
      };
      agent.log.push({ at: Date.now(), receivedAt, endpoint, method, path, status, code, ...tags });
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
      log(endpoint, 0, undefined, answer);
      return;
    }
    if (endpoint && answer.status === 429) agent.status429[endpoint] += 1;
    const code = (answer.body as { error?: { code?: number } } | undefined)?.error?.code;
    log(endpoint, answer.status, code, answer);
    const written = this.write(res, answer);
    // Only a page the agent was sent delivers its messages; a fault in its place (malformed
    // JSON, a 500, a drop) or a client gone before the answer delivers nothing.
    if (written && answer.status === 200 && answer.delivered?.length) {
      this.platform.markDelivered(agent, answer.delivered);
    }
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
    const fault = this.platform.faults.take(ctx.agent, endpoint);
    const answer = await this.answerWith(ctx, endpoint, res, fault);
    return fault ? { ...answer, injected: fault.kind } : answer;
  }

  private async answerWith(
    ctx: RequestCtx,
    endpoint: Endpoint,
    res: ServerResponse,
    fault: Fault | undefined,
  ): Promise<Answer> {
    const early = fault && this.earlyFault(fault, res);
    if (early) return early;
    if (fault?.kind === 'slow') await delay(fault.delayMs);

    const admission = this.platform.limiter.admit(ctx.agent.config.id, endpoint);
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
      case 'bad_token':
        // As if the token had been revoked: what an unknown token gets (401, code 190).
        return this.errorAnswer(new ApiError(401, ErrorCode.badToken, 'invalid or missing access token'));
      default:
        return undefined;
    }
  }

  private errorAnswer(err: ApiError): Answer {
    return { status: err.status, body: errorBody(err), headers: err.headers };
  }

  /** Writes the answer; false when the connection was gone (nothing was sent). */
  private write(res: ServerResponse, answer: Answer): boolean {
    if (res.headersSent || res.destroyed) return false;
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
    return true;
  }
}

function isTyping(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'typing_indicator' in body;
}
