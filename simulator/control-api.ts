import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, ErrorCode, badRequest } from './errors';
import {
  isLoopback,
  mediaTypeOf,
  parseOrBadRequest,
  readBody,
  sendError,
  sendJson,
  toApiError,
} from './http-util';
import { serveMedia, uploadHumanMedia } from './control-media';
import { epochSeconds, type Platform } from './platform';
import type { Conversation, Transcript } from './control-client';
import { requestTotals, type AgentState, type SentRecord } from './state';
import { pastGrace, unreadCounts } from './unread-grace';
import {
  ClockRequestSchema,
  FaultRequestSchema,
  HumanMessageSchema,
  ReadRequestSchema,
  ResetRequestSchema,
  type ReceiptStatus,
} from './wire';

export const CONTROL_PATH = '/_control';

/** How often an idle event stream gets a comment, so proxies and browsers keep it open. */
const SSE_KEEPALIVE_MS = 15_000;

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL, params: string[]) => Promise<unknown>;

const lastStatus = (receipts: ReceiptStatus[]): ReceiptStatus =>
  receipts.includes('read') ? 'read' : receipts.includes('delivered') ? 'delivered' : 'sent';

/**
 * The control API for tests and the web chat: loopback clients only (and, checked before, only
 * requests naming the simulator in their Host from no other site's page: server.ts), JSON in and
 * out (a body of another type is refused, so no page can send one without a CORS preflight,
 * which is never granted), errors in the same error object as the agent API. Routes are
 * documented in simulator/README.md.
 */
export class ControlApi {
  private readonly streams = new Set<ServerResponse>();

  constructor(private readonly platform: Platform) {}

  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    try {
      if (!isLoopback(req.socket.remoteAddress)) {
        throw new ApiError(403, ErrorCode.forbidden, 'the control API answers loopback clients only');
      }
      const path = url.pathname.slice(CONTROL_PATH.length);
      const method = req.method ?? 'GET';
      for (const [pattern, methods] of this.routes) {
        const m = pattern.exec(path);
        if (!m) continue;
        const handler = methods[method];
        if (!handler) {
          throw new ApiError(405, ErrorCode.methodNotAllowed, `method ${method} not allowed here`, {
            allow: Object.keys(methods).join(', '),
          });
        }
        const result = await handler(req, res, url, m.slice(1));
        if (result !== undefined) sendJson(res, 200, result);
        return;
      }
      throw new ApiError(404, ErrorCode.notFound, `unknown control path ${url.pathname}`);
    } catch (err) {
      req.resume();
      sendError(res, toApiError(err));
    }
  }

  /** Ends open event streams so the server can close. */
  close(): void {
    for (const res of this.streams) res.end();
    this.streams.clear();
  }

  private async json(req: IncomingMessage): Promise<Record<string, unknown>> {
    const type = mediaTypeOf(req);
    if (type !== 'application/json') {
      await readBody(req, this.platform.options.maxBodyBytes).catch(() => undefined);
      throw new ApiError(415, ErrorCode.unsupportedMediaType, 'Content-Type must be application/json');
    }
    const body = await readBody(req, this.platform.options.maxBodyBytes);
    const text = body.toString('utf8').trim();
    if (text === '') return {};
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw badRequest(ErrorCode.invalidParameter, 'request body is not valid JSON');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw badRequest(ErrorCode.invalidParameter, 'request body must be a JSON object');
    }
    return value as Record<string, unknown>;
  }

  private agentOf(url: URL, body?: Record<string, unknown>): AgentState {
    const fromBody = body?.agent;
    if (fromBody !== undefined && typeof fromBody !== 'string') {
      throw badRequest(ErrorCode.invalidParameter, 'agent must be a string');
    }
    return this.platform.agent(fromBody ?? url.searchParams.get('agent') ?? undefined);
  }

  /** Agents a faults query applies to: the named one, or all. */
  private agentsOf(url: URL): AgentState[] {
    const name = url.searchParams.get('agent');
    return name ? [this.platform.agent(name)] : this.platform.agents;
  }

  private readonly routes: [RegExp, Partial<Record<string, Handler>>][] = [
    [
      /^\/human$/,
      {
        POST: async (req, _res, url) => {
          const body = await this.json(req);
          const input = parseOrBadRequest(HumanMessageSchema, body);
          return this.platform.injectHuman(this.agentOf(url, body), input);
        },
      },
    ],
    [
      /^\/media$/,
      { POST: async (req, _res, url) => uploadHumanMedia(this.platform, req, url, this.agentOf(url)) },
    ],
    [
      /^\/media\/([A-Za-z0-9._-]+)$/,
      { GET: async (_req, res, _url, [id]) => serveMedia(this.platform, res, id) },
    ],
    [/^\/conversation$/, { GET: async (_req, _res, url) => this.conversation(this.agentOf(url)) }],
    [/^\/events$/, { GET: async (req, res, url) => this.events(req, res, this.agentOf(url)) }],
    [
      /^\/read$/,
      {
        POST: async (req, _res, url) => {
          const body = await this.json(req);
          const { id } = parseOrBadRequest(ReadRequestSchema, body);
          this.platform.humanRead(this.agentOf(url, body), id);
          return { ok: true };
        },
      },
    ],
    [/^\/transcript$/, { GET: async (_req, _res, url) => this.transcript(this.agentOf(url)) }],
    [/^\/log$/, { GET: async (_req, _res, url) => this.agentOf(url).log }],
    [
      /^\/totals$/,
      {
        GET: async () =>
          requestTotals(this.platform.agents, this.platform.clock.now(), this.platform.options.unreadGraceMs),
      },
    ],
    [
      /^\/faults$/,
      {
        POST: async (req, _res, url) => {
          const body = await this.json(req);
          const request = parseOrBadRequest(FaultRequestSchema, body);
          const agent = this.agentOf(url, body);
          return {
            id: this.platform.faults.add(agent, request.endpoint, request.count ?? 1, request.fault).id,
          };
        },
        GET: async (_req, _res, url) => this.platform.faults.list(this.agentsOf(url)),
        DELETE: async (_req, _res, url) => {
          this.platform.faults.clear(this.agentsOf(url));
          return { ok: true };
        },
      },
    ],
    [
      /^\/clock$/,
      {
        POST: async (req) => {
          const { advanceMs } = parseOrBadRequest(ClockRequestSchema, await this.json(req));
          this.platform.clock.advance(advanceMs);
          return { now: this.platform.clock.now() };
        },
        GET: async () => ({ now: this.platform.clock.now(), speed: this.platform.clock.speed }),
      },
    ],
    [
      /^\/reset$/,
      {
        POST: async (req, _res, url) => {
          const body = await this.json(req);
          parseOrBadRequest(ResetRequestSchema, body);
          this.platform.reset(this.agentOf(url, body));
          return { ok: true };
        },
      },
    ],
  ];

  private conversation(agent: AgentState): Conversation {
    const inbound = agent.inbound.map((r) => ({
      seq: r.offset,
      direction: 'in' as const,
      id: r.id,
      type: r.type,
      payload: r.message[r.type],
      timestamp: r.message.timestamp,
      ...(r.message.context ? { context: r.message.context } : {}),
      markedRead: r.markedRead,
    }));
    const outbound = agent.sent.map((s) => ({
      seq: s.seq,
      direction: 'out' as const,
      id: s.id,
      type: s.type,
      payload: this.outPayload(s),
      timestamp: epochSeconds(s.acceptedAt),
      ...(s.quoted ? { context: s.quoted } : {}),
      status: lastStatus(s.receipts),
    }));
    return {
      agent: { id: agent.config.id, name: agent.config.name, participant: agent.participant },
      creator: { participant: agent.config.creator, name: agent.config.creatorName },
      typing: agent.typingUntil !== null,
      entries: [...inbound, ...outbound].sort((a, b) => a.seq - b.seq),
    };
  }

  private outPayload(s: SentRecord): unknown {
    const payload = s.body[s.type];
    if (!s.media || typeof payload !== 'object' || payload === null) return payload;
    return { ...s.media, ...payload };
  }

  private transcript(agent: AgentState): Transcript {
    const now = this.platform.clock.now();
    const graceMs = this.platform.options.unreadGraceMs;
    return {
      sent: agent.sent.map((s) => ({
        id: s.id,
        to: s.to,
        type: s.type,
        body: s.body,
        acceptedAt: s.acceptedAt,
        realAt: s.realAt,
        receipts: [...s.receipts],
        read: s.receipts.includes('read'),
      })),
      inbound: agent.inbound.map((r) => ({
        id: r.id,
        type: r.type,
        markedRead: r.markedRead,
        offset: r.offset,
        deliveredAt: r.deliveredAt ?? null,
        deliveredSimAt: r.deliveredSimAt ?? null,
        readAt: r.readAt ?? null,
        readSimAt: r.readSimAt ?? null,
        pastGrace: pastGrace(r, now, graceMs),
      })),
      polling: agent.poll !== null,
      counts: {
        requests: { ...agent.requests },
        status429: { ...agent.status429 },
        accepted: agent.accepted,
        overlappingSends: agent.overlappingSends,
        ...unreadCounts(agent.inbound, now, graceMs),
      },
    };
  }

  private async events(req: IncomingMessage, res: ServerResponse, agent: AgentState): Promise<undefined> {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    const send = (): void => {
      res.write('event: change\ndata: {}\n\n');
    };
    // The first event lets a page load the conversation without a separate race-prone fetch.
    res.write('retry: 1000\n\n');
    send();
    const keepalive = setInterval(() => res.write(': keepalive\n\n'), SSE_KEEPALIVE_MS);
    keepalive.unref();
    agent.events.on('change', send);
    this.streams.add(res);
    res.on('close', () => {
      clearInterval(keepalive);
      agent.events.off('change', send);
      this.streams.delete(res);
    });
    req.resume();
    return undefined;
  }
}
