import { createHash, randomBytes, randomInt } from 'node:crypto';
import { ApiError, ErrorCode, badRequest } from './errors';
import { FaultBook } from './faults';
import { isPlainObject } from './http-util';
import type { SimClock } from './clock';
import type { ResolvedOptions } from './options';
import { RateLimiter } from './rate-limiter';
import { validateSend } from './send-validation';
import {
  AgentState,
  type InboundRecord,
  type MediaRecord,
  type PollOutcome,
  type SentRecord,
  type SeqEntry,
} from './state';
import {
  MEDIA_TYPES,
  TYPING_SHOWN_MS,
  type HumanMessageInput,
  type InboundMessage,
  type ReceiptStatus,
} from './wire';

export const epochSeconds = (ms: number): string => String(Math.floor(ms / 1000));

/**
 * The simulated platform: every rule of the spec that is about state (sequence, buffer, read
 * state, receipts, media, retention) lives here, independent of HTTP.
 */
export class Platform {
  readonly agents: AgentState[];
  readonly limiter: RateLimiter;
  readonly faults = new FaultBook();
  private readonly byToken = new Map<string, AgentState>();
  private readonly byId = new Map<string, AgentState>();
  /** Every message id the platform issued, with its author; quoting is checked against it. */
  private readonly issued = new Map<string, { agent: string; author: string }>();

  constructor(
    readonly options: ResolvedOptions,
    readonly clock: SimClock,
  ) {
    this.agents = options.agents.map((config) => new AgentState(config));
    for (const agent of this.agents) {
      this.byToken.set(agent.config.token, agent);
      this.byId.set(agent.config.id, agent);
    }
    this.limiter = new RateLimiter(clock, options.limits);
  }

  agentByToken(token: string): AgentState | undefined {
    return this.byToken.get(token);
  }

  /** The agent named by a control request; the first agent when none is named. */
  agent(id?: string): AgentState {
    if (id === undefined || id === '') return this.agents[0];
    const agent = this.byId.get(id);
    if (!agent) throw new ApiError(404, ErrorCode.notFound, `unknown agent '${id}'`);
    return agent;
  }

  isAgentId(id: string): boolean {
    return this.byId.has(id);
  }

  private newWamid(agent: AgentState, author: string): string {
    const id = `wamid.${randomBytes(18).toString('base64url')}`;
    this.issued.set(id, { agent: agent.config.id, author });
    return id;
  }

  private schedule(agent: AgentState, delayMs: number, fn: () => void): void {
    const cancel = this.clock.setTimer(delayMs, () => {
      agent.timers.delete(cancel);
      fn();
    });
    agent.timers.add(cancel);
  }

  // ---- update sequence ----

  private append(agent: AgentState, entry: Omit<SeqEntry, 'seq' | 'at'> & Partial<SeqEntry>): number {
    const seq = agent.nextSeq++;
    agent.entries.push({ ...entry, seq, at: this.clock.now() } as SeqEntry);
    this.wakePoll(agent);
    agent.changed();
    return seq;
  }

  private prune(agent: AgentState): void {
    const since = this.clock.now() - this.options.retentionMs;
    if (agent.entries.length > 0 && agent.entries[0].at < since) {
      agent.entries = agent.entries.filter((e) => e.at >= since);
    }
  }

  /** Entries a poll at `offset` sees: never-read messages and all receipts, within retention. */
  visible(agent: AgentState, offset: number, limit: number): SeqEntry[] {
    this.prune(agent);
    const out: SeqEntry[] = [];
    for (const entry of agent.entries) {
      if (entry.seq < offset) continue;
      if (entry.kind === 'message' && agent.inboundById.get(entry.message.id)?.markedRead) continue;
      out.push(entry);
      if (out.length >= limit) break;
    }
    return out;
  }

  /**
   * Long poll. A new poll replaces the agent's earlier one, which then answers 409 (spec 4.2
   * rule 1). Resolves with entries as soon as one is visible, or on timeout.
   */
  poll(
    agent: AgentState,
    offset: number,
    limit: number,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<PollOutcome> {
    agent.poll?.finish({ kind: 'replaced' });
    const ready = this.visible(agent, offset, limit);
    if (ready.length > 0) return Promise.resolve({ kind: 'entries', entries: ready });
    if (timeoutMs <= 0) return Promise.resolve({ kind: 'timeout' });
    return new Promise((resolve) => {
      let done = false;
      const onAbort = (): void => finish({ kind: 'aborted' });
      const cancelTimer = this.clock.setTimer(timeoutMs, () => finish({ kind: 'timeout' }));
      const waiter = { offset, limit, finish };
      function finish(outcome: PollOutcome): void {
        if (done) return;
        done = true;
        cancelTimer();
        signal.removeEventListener('abort', onAbort);
        if (agent.poll === waiter) agent.poll = null;
        resolve(outcome);
      }
      agent.poll = waiter;
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort);
    });
  }

  private wakePoll(agent: AgentState): void {
    const poll = agent.poll;
    if (!poll) return;
    const entries = this.visible(agent, poll.offset, poll.limit);
    if (entries.length > 0) poll.finish({ kind: 'entries', entries });
  }

  // ---- sends and receipts ----

  send(agent: AgentState, body: unknown): SentRecord {
    const valid = validateSend(body, {
      creator: agent.config.creator,
      isAgentId: (id) => this.isAgentId(id),
      mediaUsable: (id) => this.liveMedia(agent, id) !== undefined,
      messageIssued: (id) => this.issued.has(id),
    });
    const now = this.clock.now();
    const id = this.newWamid(agent, agent.participant);
    const record: SentRecord = {
      id,
      to: valid.to,
      type: valid.type,
      body: structuredClone(body as Record<string, unknown>),
      acceptedAt: now,
      realAt: Date.now(),
      receipts: [],
      seq: 0,
      quoted: valid.quotedId
        ? { id: valid.quotedId, from: this.issued.get(valid.quotedId)?.author }
        : undefined,
    };
    const media = valid.mediaId ? this.liveMedia(agent, valid.mediaId) : undefined;
    if (media) record.media = { mime_type: media.mimeType, sha256: media.sha256, filename: media.filename };
    agent.sent.push(record);
    agent.sentById.set(id, record);
    agent.accepted += 1;
    // Sending a message ends the typing indicator, as on the phone.
    this.setTyping(agent, false);
    record.seq = this.receipt(agent, record, 'sent');
    this.schedule(agent, this.options.receipts.deliveredAfterMs, () =>
      this.receipt(agent, record, 'delivered'),
    );
    const readAfter = this.options.receipts.readAfterMs;
    if (readAfter !== null) this.schedule(agent, readAfter, () => this.humanRead(agent, id));
    return record;
  }

  /** Appends a receipt unless the message already has it; returns its sequence number. */
  private receipt(agent: AgentState, record: SentRecord, status: ReceiptStatus): number {
    if (record.receipts.includes(status)) return 0;
    record.receipts.push(status);
    return this.append(agent, {
      kind: 'status',
      status: { id: record.id, status, timestamp: epochSeconds(this.clock.now()), recipient_id: record.to },
    });
  }

  /** The human read an agent's message: 'read' receipt (after 'delivered' if still missing). */
  humanRead(agent: AgentState, id: string): void {
    const record = agent.sentById.get(id);
    if (!record)
      throw new ApiError(404, ErrorCode.notFound, `agent '${agent.config.id}' never sent message ${id}`);
    this.receipt(agent, record, 'delivered');
    this.receipt(agent, record, 'read');
  }

  // ---- inbound ----

  /** Marks an inbound message read (section 3); with `typing`, also shows the typing indicator. */
  markRead(agent: AgentState, messageId: string, typing: boolean): void {
    const record = agent.inboundById.get(messageId);
    if (!record)
      throw badRequest(ErrorCode.invalidValue, `message ${messageId} is not an inbound message of this chat`);
    if (!record.markedRead) {
      record.markedRead = true;
      agent.changed();
    }
    if (typing) this.setTyping(agent, true);
  }

  private setTyping(agent: AgentState, on: boolean): void {
    if (!on) {
      if (agent.typingUntil === null) return;
      agent.typingUntil = null;
      agent.changed();
      return;
    }
    const until = this.clock.now() + TYPING_SHOWN_MS;
    agent.typingUntil = until;
    this.schedule(agent, TYPING_SHOWN_MS, () => {
      if (agent.typingUntil === until) this.setTyping(agent, false);
    });
    agent.changed();
  }

  /** Injects a message from the creator (control API). */
  injectHuman(agent: AgentState, input: HumanMessageInput): { id: string; offset: number } {
    const { agent: _agent, type, context, ...rest } = input;
    let payload = rest[type];
    if (type === 'text') {
      if (!isPlainObject(payload) || typeof payload.body !== 'string') {
        throw badRequest(ErrorCode.invalidParameter, 'text.body (string) is required');
      }
    } else if ((MEDIA_TYPES as readonly string[]).includes(type)) {
      if (!isPlainObject(payload) || typeof payload.id !== 'string') {
        throw badRequest(
          ErrorCode.invalidParameter,
          `${type}.id (a media id from /_control/media) is required`,
        );
      }
      const media = this.liveMedia(agent, payload.id);
      if (!media) throw badRequest(ErrorCode.invalidValue, `media ${payload.id} is unknown or expired`);
      // Received media expires 30 days after receipt (spec 2.7).
      media.expiresAt = this.clock.now() + this.options.mediaTtlMs;
      payload = {
        ...payload,
        mime_type: media.mimeType,
        sha256: media.sha256,
        ...(type === 'sticker' && payload.animated === undefined ? { animated: false } : {}),
        ...(type === 'document' && payload.filename === undefined && media.filename
          ? { filename: media.filename }
          : {}),
      };
    } else if (type === 'reaction') {
      if (!isPlainObject(payload) || typeof payload.message_id !== 'string') {
        throw badRequest(ErrorCode.invalidParameter, 'reaction.message_id is required');
      }
    }
    const id = this.newWamid(agent, agent.config.creator);
    const message: InboundMessage = {
      from: agent.config.creator,
      id,
      timestamp: epochSeconds(this.clock.now()),
      type,
    };
    // Other members pass through (spec 9: unknown payloads are passed on as given).
    for (const [member, value] of Object.entries(rest)) {
      if (!(member in message)) message[member] = value;
    }
    if (payload !== undefined) message[type] = payload;
    if (context) {
      const author = this.issued.get(context.id)?.author;
      message.context = { ...context, ...(author ? { from: author } : {}) };
    }
    const record: InboundRecord = { id, type, markedRead: false, offset: 0, message };
    agent.inbound.push(record);
    agent.inboundById.set(id, record);
    record.offset = this.append(agent, { kind: 'message', message });
    return { id, offset: record.offset };
  }

  // ---- media ----

  storeMedia(
    agent: AgentState,
    bytes: Buffer,
    mimeType: string,
    filename: string | undefined,
    origin: MediaRecord['origin'],
  ): MediaRecord {
    let id: string;
    do id = String(randomInt(1, 2 ** 47)) + String(randomInt(10 ** 5, 10 ** 6));
    while (this.agents.some((a) => a.media.has(id)));
    const now = this.clock.now();
    const record: MediaRecord = {
      id,
      bytes,
      mimeType,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      filename,
      origin,
      createdAt: now,
      expiresAt: now + this.options.mediaTtlMs,
    };
    agent.media.set(id, record);
    return record;
  }

  /** The media item if it exists for this agent and has not expired. */
  liveMedia(agent: AgentState, id: string): MediaRecord | undefined {
    const record = agent.media.get(id);
    if (!record) return undefined;
    if (this.clock.now() >= record.expiresAt) {
      agent.media.delete(id);
      return undefined;
    }
    return record;
  }

  /** Any agent's media, for the web chat (no auth, loopback only). */
  anyMedia(id: string): MediaRecord | undefined {
    for (const agent of this.agents) {
      const record = this.liveMedia(agent, id);
      if (record) return record;
    }
    return undefined;
  }

  deleteMedia(agent: AgentState, id: string): boolean {
    if (!this.liveMedia(agent, id)) return false;
    agent.media.delete(id);
    return true;
  }

  // ---- control ----

  reset(agent: AgentState): void {
    agent.poll?.finish({ kind: 'timeout' });
    agent.clear();
    this.limiter.resetAgent(agent.config.id);
    agent.changed();
  }

  close(): void {
    for (const agent of this.agents) {
      agent.poll?.finish({ kind: 'aborted' });
      for (const cancel of agent.timers) cancel();
      agent.timers.clear();
      agent.events.removeAllListeners();
    }
    this.clock.cancelAll();
  }
}
