/**
 * The agent API's endpoints (spec section 4): one handler per endpoint, from a request that has
 * passed auth, faults and the limiter to its answer. The pipeline around them is agent-api.ts.
 */
import type { IncomingMessage } from 'node:http';
import { ApiError, ErrorCode, badRequest } from './errors';
import { errorBody, parseOrBadRequest } from './http-util';
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
import { mediaHeaders } from './media-headers';

export const BASE_PATH = '/agent/v1';

/** What a handler answers; written (or replaced by a fault) by the dispatcher. */
export interface Answer {
  status: number;
  body?: unknown;
  raw?: { data: Buffer; contentType: string };
  headers?: Record<string, string>;
  /** The kind of the injected fault this request met, if any (kept in the request log). */
  injected?: Fault['kind'];
  /** A poll replaced by a request its client had closed (kept in the request log). */
  replacedByAbandoned?: true;
  /**
   * A page of GET /updates: the ids of the inbound messages on it, delivered once the page is
   * written as it is (not when a fault replaces or drops it).
   */
  delivered?: string[];
}

/** An authenticated request, routed, with its body read. */
export interface RequestCtx {
  req: IncomingMessage;
  url: URL;
  agent: AgentState;
  params: string[];
  body: unknown;
  signal: AbortSignal;
}

export type Handler = (ctx: RequestCtx) => Promise<Answer>;

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

/** The handler of every endpoint, over `platform`. */
export function agentEndpoints(platform: Platform): Record<Endpoint, Handler> {
  return {
    messages: async ({ agent, body }) => {
      const record = platform.send(agent, body);
      return ok({
        messaging_product: MESSAGING_PRODUCT,
        contacts: [{ input: record.to, wa_id: agent.config.creator }],
        messages: [{ id: record.id, message_status: 'accepted' }],
      });
    },

    updates: async ({ agent, url, signal }) => {
      const { longPoll } = platform.options;
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
      const outcome = await platform.updates.poll(
        agent,
        offset,
        Math.min(limit, UPDATES_LIMIT_MAX),
        timeout * 1000,
        signal,
      );
      switch (outcome.kind) {
        case 'entries':
          return {
            ...ok(updatePage(agent, outcome.entries, offset)),
            delivered: outcome.entries.flatMap((e) => (e.kind === 'message' ? [e.message.id] : [])),
          };
        case 'replaced': {
          const err = new ApiError(
            409,
            ErrorCode.pollReplaced,
            'poll replaced by a newer poll for this agent',
          );
          if (!outcome.byAbandoned) throw err;
          return { status: err.status, body: errorBody(err), replacedByAbandoned: true };
        }
        case 'aborted':
          return { status: 0 };
        case 'timeout':
          // WIRE-CONVENTIONS: offset=0&timeout=0 reveals the creator even with no traffic.
          if (offset === 0 && timeout === 0) return ok(updatePage(agent, [], 0));
          return { status: 204 };
      }
    },

    statuses: async ({ agent, body }) => statusesAnswer(platform, agent, body, false),
    typing: async ({ agent, body }) => statusesAnswer(platform, agent, body, true),

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
      const record = platform.media.store(agent, Buffer.from(file.data), mimeType, file.filename, 'agent');
      return ok({ id: record.id });
    },

    'media.get': async ({ agent, params, req }) => {
      const record = platform.media.live(agent, params[0]);
      if (!record) throw badRequest(ErrorCode.invalidValue, `media ${params[0]} is unknown or expired`);
      const host = req.headers.host ?? `${platform.options.host}`;
      return ok({
        messaging_product: MESSAGING_PRODUCT,
        id: record.id,
        url: `http://${host}${BASE_PATH}/media/${record.id}/download`,
        mime_type: record.mimeType,
        sha256: record.sha256,
        file_size: record.bytes.length,
      });
    },

    'media.delete': async ({ agent, params }) => ok({ success: platform.media.delete(agent, params[0]) }),

    'media.download': async ({ agent, params }) => {
      const record = platform.media.live(agent, params[0]);
      if (!record)
        throw new ApiError(404, ErrorCode.invalidValue, `media ${params[0]} is unknown or expired`);
      return {
        status: 200,
        raw: { data: record.bytes, contentType: record.mimeType },
        headers: mediaHeaders(record),
      };
    },
  };
}

/** POST /statuses: marks a message read, with `typing` also shows the typing indicator. */
function statusesAnswer(
  platform: Platform,
  agent: AgentState,
  body: unknown,
  typing: boolean,
): Promise<Answer> {
  platform.markRead(agent, parseOrBadRequest(StatusesBodySchema, body).message_id, typing);
  return Promise.resolve(ok({ success: true }));
}

/** An update page (spec 2.4). */
function updatePage(agent: AgentState, entries: SeqEntry[], offset: number): unknown {
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
