import type { InboundRecord, RequestTotals, SentRecord } from './state';
import type { UnreadCounts } from './unread-grace';
import type { Endpoint, Fault, ReceiptStatus } from './wire';

/** A message from the human, as `POST /_control/human` takes it (without from/id/timestamp). */
export interface HumanMessage {
  /** Agent id; default the first agent. */
  agent?: string;
  type: string;
  /** Quote a message of the chat by its id; the simulator fills `context.from`. */
  context?: { id: string; [member: string]: unknown };
  [member: string]: unknown;
}

export interface ConversationEntry {
  seq: number;
  direction: 'in' | 'out';
  id: string;
  type: string;
  /** The message object of its type (for media sends, with mime_type/sha256/filename filled). */
  payload: unknown;
  /** Epoch seconds as a decimal string, as on the wire. */
  timestamp: string;
  context?: { id: string; from?: string; [member: string]: unknown };
  /** Out only. */
  status?: ReceiptStatus;
  /** In only: the agent marked it read. */
  markedRead?: boolean;
}

export interface Conversation {
  /** `name`: the agent's profile name (the web chat's header). */
  agent: { id: string; name: string; participant: string };
  creator: { participant: string; name: string };
  typing: boolean;
  entries: ConversationEntry[];
}

/** A send as the transcript shows it: the platform's record plus whether the human read it. */
export type TranscriptSent = Pick<
  SentRecord,
  'id' | 'to' | 'type' | 'body' | 'acceptedAt' | 'realAt' | 'receipts'
> & {
  read: boolean;
};

/**
 * A message from the human as the transcript shows it, with the read check's moments
 * (unread-grace.ts): first returned in a 200 page of GET /updates, and marked read; `...At` in real
 * epoch ms (comparable with a send's `realAt`), `...SimAt` in simulated ms, null until then.
 * `pastGrace`: delivered and unread longer than `unreadGraceMs` (read late, or still unread).
 */
export type TranscriptInbound = Pick<InboundRecord, 'id' | 'type' | 'markedRead' | 'offset'> &
  Record<'deliveredAt' | 'deliveredSimAt' | 'readAt' | 'readSimAt', number | null> & { pastGrace: boolean };

export interface Transcript {
  sent: TranscriptSent[];
  inbound: TranscriptInbound[];
  /** A long poll of the agent is waiting right now. */
  polling: boolean;
  counts: {
    requests: Record<Endpoint, number>;
    status429: Record<Endpoint, number>;
    accepted: number;
    /** Sends that arrived while another send of the agent was still being answered. */
    overlappingSends: number;
  } & UnreadCounts;
}

export interface LogEntry {
  /** Real epoch ms: when it was answered. */
  at: number;
  /** Real epoch ms: when the request came in (a request in flight before an answer came in before it). */
  receivedAt: number;
  endpoint: Endpoint | null;
  method: string;
  /** Path with its query string, e.g. `/agent/v1/updates?offset=3&timeout=25`. */
  path: string;
  /** 0 when the connection was dropped without an answer. */
  status: number;
  code?: number;
  /** The kind of the injected fault the request met (a 409 without it is a real replaced poll). */
  fault?: Fault['kind'];
  /** A 409 whose newer poll was a request its client had already closed (not two polls at once). */
  replacedByAbandoned?: true;
}

export interface FaultRequest {
  agent?: string;
  endpoint: Endpoint;
  /** How many matching requests it applies to. Default 1. */
  count?: number;
  fault: Fault;
}

export interface PendingFaultInfo {
  id: string;
  agent: string;
  endpoint: Endpoint;
  remaining: number;
  fault: Fault;
}

/** A control request the simulator refused; `code` is the error object's code. */
export class SimulatorControlError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'SimulatorControlError';
  }
}

type AgentOption = string | { agent?: string } | undefined;
const agentName = (option: AgentOption): string | undefined =>
  typeof option === 'string' ? option : option?.agent;

/** Typed client of the simulator's control API (`/_control`, loopback only). */
export class SimulatorControl {
  readonly origin: string;

  constructor(origin: string) {
    this.origin = origin.replace(/\/+$/, '');
  }

  /** Injects a message from the creator; answers its id and its sequence number. */
  human(message: HumanMessage): Promise<{ id: string; offset: number }> {
    return this.call('POST', '/human', undefined, message);
  }

  /** Shorthand: the human sends a text, optionally quoting `quote`. */
  humanText(
    body: string,
    options: { agent?: string; quote?: string } = {},
  ): Promise<{ id: string; offset: number }> {
    return this.human({
      agent: options.agent,
      type: 'text',
      text: { body },
      ...(options.quote ? { context: { id: options.quote } } : {}),
    });
  }

  /** Stores a media item as the human uploaded it; use its id in `human()`. */
  uploadHumanMedia(
    bytes: Uint8Array | { bytes: Uint8Array; mimeType: string; filename?: string; agent?: string },
    mimeType?: string,
    options: string | { filename?: string; agent?: string } = {},
  ): Promise<{ id: string }> {
    const input =
      bytes instanceof Uint8Array
        ? {
            bytes,
            mimeType: mimeType ?? 'application/octet-stream',
            ...(typeof options === 'string' ? { filename: options } : options),
          }
        : bytes;
    const query: Record<string, string | undefined> = {
      agent: input.agent,
      filename: input.filename,
      type: input.mimeType,
    };
    return this.call('POST', '/media', query, undefined, {
      data: input.bytes,
      contentType: 'application/octet-stream',
    });
  }

  /** Url of a media item's bytes (no auth; for pages and tests). */
  mediaUrl(id: string): string {
    return `${this.origin}/_control/media/${encodeURIComponent(id)}`;
  }

  conversation(agent?: AgentOption): Promise<Conversation> {
    return this.call('GET', '/conversation', { agent: agentName(agent) });
  }

  transcript(agent?: AgentOption): Promise<Transcript> {
    return this.call('GET', '/transcript', { agent: agentName(agent) });
  }

  /** Every agent's request counters and unread counts summed, and how many agents reached each endpoint. */
  totals(): Promise<RequestTotals> {
    return this.call('GET', '/totals');
  }

  log(agent?: AgentOption): Promise<LogEntry[]> {
    return this.call('GET', '/log', { agent: agentName(agent) });
  }

  /** Injects a fault for the next `count` (default 1) requests to `endpoint`. */
  fault(request: FaultRequest): Promise<{ id: string }>;
  fault(
    endpoint: Endpoint,
    fault: Fault,
    options?: { count?: number; agent?: string },
  ): Promise<{ id: string }>;
  fault(
    request: FaultRequest | Endpoint,
    fault?: Fault,
    options: { count?: number; agent?: string } = {},
  ): Promise<{ id: string }> {
    const body = typeof request === 'string' ? { endpoint: request, fault, ...options } : request;
    return this.call('POST', '/faults', undefined, body);
  }

  /** Faults still pending (of one agent, or all). */
  faults(agent?: AgentOption): Promise<PendingFaultInfo[]> {
    return this.call('GET', '/faults', { agent: agentName(agent) });
  }

  async clearFaults(agent?: AgentOption): Promise<void> {
    await this.call('DELETE', '/faults', { agent: agentName(agent) });
  }

  /** The human read the agent's message `id`: its receipt becomes 'read'. */
  async read(id: string | { id: string; agent?: string }, agent?: AgentOption): Promise<void> {
    const body = typeof id === 'string' ? { id, agent: agentName(agent) } : id;
    await this.call('POST', '/read', undefined, body);
  }

  /** Moves simulated time forward; answers the new simulated epoch ms. */
  advanceClock(ms: number): Promise<{ now: number }> {
    return this.call('POST', '/clock', undefined, { advanceMs: ms });
  }

  /** Simulated epoch ms and the speed factor. */
  clock(): Promise<{ now: number; speed: number }> {
    return this.call('GET', '/clock');
  }

  /** Clears an agent's messages, media, counters, faults and log (sequence numbers go on). */
  async reset(agent?: AgentOption): Promise<void> {
    await this.call('POST', '/reset', undefined, { agent: agentName(agent) });
  }

  /**
   * Polls `read` until `predicate` holds or `timeoutMs` passes; for tests that wait on the
   * simulator's state instead of sleeping.
   */
  async waitFor<T>(
    read: (control: this) => Promise<T>,
    predicate: (value: T) => boolean,
    { timeoutMs = 10_000, intervalMs = 20 }: { timeoutMs?: number; intervalMs?: number } = {},
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read(this);
      if (predicate(value)) return value;
      if (Date.now() >= deadline) {
        throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }

  private async call<T>(
    method: string,
    path: string,
    query?: Record<string, string | undefined>,
    json?: unknown,
    raw?: { data: Uint8Array; contentType: string },
  ): Promise<T> {
    const url = new URL(`${this.origin}/_control${path}`);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, value);
    }
    const init: RequestInit = { method };
    if (raw) {
      init.body = raw.data;
      init.headers = { 'content-type': raw.contentType };
    } else if (json !== undefined) {
      init.body = JSON.stringify(json);
      init.headers = { 'content-type': 'application/json' };
    }
    const res = await fetch(url, init);
    const text = await res.text();
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = text;
    }
    if (!res.ok) {
      const error = (body as { error?: { code?: number; message?: string } } | undefined)?.error;
      throw new SimulatorControlError(
        res.status,
        error?.code,
        `control ${method} ${path} failed with ${res.status}: ${error?.message ?? text}`,
      );
    }
    return body as T;
  }
}
