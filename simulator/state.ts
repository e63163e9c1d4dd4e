import { EventEmitter } from 'node:events';
import type { CancelTimer } from './clock';
import type { ResolvedOptions } from './options';
import { unreadCounts, type UnreadCounts } from './unread-grace';
import {
  ENDPOINTS,
  type Endpoint,
  type Fault,
  type InboundMessage,
  type ReceiptStatus,
  type StatusItem,
} from './wire';

/** One numbered entry of an agent's update sequence: messages and receipts share it. */
export type SeqEntry =
  | { seq: number; at: number; kind: 'message'; message: InboundMessage }
  | { seq: number; at: number; kind: 'status'; status: StatusItem };

/** A send the platform accepted. */
export interface SentRecord {
  id: string;
  to: string;
  type: string;
  /** The accepted request body, as sent. */
  body: Record<string, unknown>;
  /** Simulated epoch ms. */
  acceptedAt: number;
  /** Real epoch ms. */
  realAt: number;
  receipts: ReceiptStatus[];
  /** Sequence number of its 'sent' receipt; orders it in the conversation. */
  seq: number;
  quoted?: { id: string; from?: string };
  /** Media referenced by the send, as it was when accepted (for the web chat). */
  media?: { mime_type: string; sha256: string; filename?: string };
}

/** A message the human sent to the agent. */
export interface InboundRecord {
  id: string;
  type: string;
  markedRead: boolean;
  offset: number;
  message: InboundMessage;
  /**
   * When the simulator first returned it in a 200 page of GET /updates (simulated and real epoch
   * ms); absent while no page has carried it. The read check (unread-grace.ts) starts there.
   */
  deliveredSimAt?: number;
  deliveredAt?: number;
  /** When the agent marked it read (simulated and real epoch ms); absent while unread. */
  readSimAt?: number;
  readAt?: number;
}

export interface MediaRecord {
  id: string;
  bytes: Buffer;
  mimeType: string;
  sha256: string;
  filename?: string;
  origin: 'agent' | 'human';
  createdAt: number;
  /** Simulated epoch ms after which the id is unknown. */
  expiresAt: number;
}

export interface LogRecord {
  /** Real epoch ms: when it was answered. */
  at: number;
  /** Real epoch ms: when the request came in (a request in flight before an answer came in before it). */
  receivedAt: number;
  endpoint: Endpoint | null;
  method: string;
  path: string;
  /** HTTP status; 0 when the connection was dropped without an answer. */
  status: number;
  code?: number;
  /** The kind of the injected fault the request met, if any. */
  fault?: Fault['kind'];
  /**
   * A poll answered 409 because a newer poll replaced it, where that newer request's client had
   * closed it before the service got to it (a request the service was slow to take up): the
   * client never had two polls open.
   */
  replacedByAbandoned?: true;
}

export interface PendingFault {
  id: string;
  agent: string;
  endpoint: Endpoint;
  remaining: number;
  fault: Fault;
}

export type PollOutcome =
  | { kind: 'entries'; entries: SeqEntry[] }
  | { kind: 'timeout' }
  /** `byAbandoned`: the newer poll's client had gone before the service got to it (see LogRecord). */
  | { kind: 'replaced'; byAbandoned?: boolean }
  | { kind: 'aborted' };

export interface PendingPoll {
  offset: number;
  limit: number;
  finish(outcome: PollOutcome): void;
}

const zeroCounts = (): Record<Endpoint, number> =>
  Object.fromEntries(ENDPOINTS.map((e) => [e, 0])) as Record<Endpoint, number>;

/** Everything the simulator keeps for one agent. Plain data; the rules live in `Platform`. */
export class AgentState {
  readonly participant: string;
  /** Sequence numbers survive `reset`, so a client holding an offset never goes backwards. */
  nextSeq = 1;
  entries: SeqEntry[] = [];
  sent: SentRecord[] = [];
  readonly sentById = new Map<string, SentRecord>();
  inbound: InboundRecord[] = [];
  readonly inboundById = new Map<string, InboundRecord>();
  readonly media = new Map<string, MediaRecord>();
  log: LogRecord[] = [];
  faults: PendingFault[] = [];
  requests = zeroCounts();
  status429 = zeroCounts();
  accepted = 0;
  /** Sends that arrived while another send to the same recipient was still being answered. */
  overlappingSends = 0;
  inflightSends = 0;
  typingUntil: number | null = null;
  poll: PendingPoll | null = null;
  readonly timers = new Set<CancelTimer>();
  readonly events = new EventEmitter();

  constructor(readonly config: ResolvedOptions['agents'][number]) {
    this.participant = `agent:${config.id}`;
    this.events.setMaxListeners(0);
  }

  /** Drops everything but the sequence counter. */
  clear(): void {
    for (const cancel of this.timers) cancel();
    this.timers.clear();
    this.entries = [];
    this.sent = [];
    this.sentById.clear();
    this.inbound = [];
    this.inboundById.clear();
    this.media.clear();
    this.log = [];
    this.faults = [];
    this.requests = zeroCounts();
    this.status429 = zeroCounts();
    this.accepted = 0;
    this.overlappingSends = 0;
    this.typingUntil = null;
  }

  changed(): void {
    this.events.emit('change');
  }
}

/**
 * What `GET /_control/totals` answers: every agent's request counters, summed, and their messages
 * left unread (unread-grace.ts), summed.
 */
export interface RequestTotals extends UnreadCounts {
  /** Agents served. */
  agents: number;
  /** Per endpoint: requests of all agents (since their last reset), and how many agents made one at least. */
  endpoints: Record<Endpoint, { requests: number; agents: number }>;
  /** Agents whose long poll is waiting right now. */
  polling: number;
}

/**
 * Sums `agents`' request counters and unread counts at simulated time `now` with the grace
 * `unreadGraceMs` (one pass; cheap for 10,000 agents, unlike 10,000 transcripts).
 */
export function requestTotals(
  agents: readonly AgentState[],
  now: number,
  unreadGraceMs: number,
): RequestTotals {
  const endpoints = Object.fromEntries(ENDPOINTS.map((e) => [e, { requests: 0, agents: 0 }])) as Record<
    Endpoint,
    { requests: number; agents: number }
  >;
  let polling = 0;
  let unreadPastGrace = 0;
  let unreadDelivered = 0;
  for (const agent of agents) {
    for (const e of ENDPOINTS) {
      endpoints[e].requests += agent.requests[e];
      if (agent.requests[e] > 0) endpoints[e].agents++;
    }
    if (agent.poll !== null) polling++;
    const unread = unreadCounts(agent.inbound, now, unreadGraceMs);
    unreadPastGrace += unread.unreadPastGrace;
    unreadDelivered += unread.unreadDelivered;
  }
  return { agents: agents.length, endpoints, polling, unreadPastGrace, unreadDelivered };
}
