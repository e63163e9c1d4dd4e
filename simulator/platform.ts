import { randomBytes } from 'node:crypto';
import { ApiError, ErrorCode, badRequest } from './errors';
import { FaultBook } from './faults';
import { isPlainObject } from './http-util';
import { MediaStore } from './media-store';
import type { SimClock } from './clock';
import type { ResolvedOptions } from './options';
import { RateLimiter } from './rate-limiter';
import { validateSend } from './send-validation';
import { AgentState, type InboundRecord, type SentRecord } from './state';
import { UpdateBuffer } from './update-buffer';
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
 * state, receipts, media, retention) lives here, independent of HTTP. The update buffer and the
 * media items are its parts `updates` (update-buffer.ts) and `media` (media-store.ts).
 */
export class Platform {
  readonly agents: AgentState[];
  readonly limiter: RateLimiter;
  readonly faults = new FaultBook();
  readonly updates: UpdateBuffer;
  readonly media: MediaStore;
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
    this.updates = new UpdateBuffer(clock, options.retentionMs);
    this.media = new MediaStore(this.agents, clock, options.mediaTtlMs);
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

  // ---- sends and receipts ----

  send(agent: AgentState, body: unknown): SentRecord {
    const valid = validateSend(body, {
      creator: agent.config.creator,
      isAgentId: (id) => this.isAgentId(id),
      mediaUsable: (id) => this.media.live(agent, id) !== undefined,
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
    const media = valid.mediaId ? this.media.live(agent, valid.mediaId) : undefined;
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
    return this.updates.append(agent, {
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
      record.readSimAt = this.clock.now();
      record.readAt = Date.now();
      agent.changed();
    }
    if (typing) this.setTyping(agent, true);
  }

  /**
   * The messages `ids` went out to the agent in a 200 page of GET /updates: the first time a
   * message does is its delivery, from which the read check (unread-grace.ts) counts. Later pages
   * showing it again (a replay) do not move it.
   */
  markDelivered(agent: AgentState, ids: readonly string[]): void {
    let first = false;
    for (const id of ids) {
      const record = agent.inboundById.get(id);
      if (!record || record.deliveredSimAt !== undefined) continue;
      record.deliveredSimAt = this.clock.now();
      record.deliveredAt = Date.now();
      first = true;
    }
    // Announced like any change, so the state file keeps the moment.
    if (first) agent.changed();
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
      const media = this.media.live(agent, payload.id);
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
    record.offset = this.updates.append(agent, { kind: 'message', message });
    return { id, offset: record.offset };
  }

  // ---- restart ----

  /**
   * After the agents' records were restored from a state file (state-file.ts): knows their
   * message ids again (for quoting) and arms the receipts that were still due when it was written.
   */
  resumeRestored(): void {
    const now = this.clock.now();
    const { deliveredAfterMs, readAfterMs } = this.options.receipts;
    for (const agent of this.agents) {
      for (const record of agent.inbound) {
        this.issued.set(record.id, { agent: agent.config.id, author: agent.config.creator });
      }
      for (const record of agent.sent) {
        this.issued.set(record.id, { agent: agent.config.id, author: agent.participant });
        if (!record.receipts.includes('delivered')) {
          this.schedule(agent, Math.max(0, record.acceptedAt + deliveredAfterMs - now), () =>
            this.receipt(agent, record, 'delivered'),
          );
        }
        if (readAfterMs !== null && !record.receipts.includes('read')) {
          this.schedule(agent, Math.max(0, record.acceptedAt + readAfterMs - now), () =>
            this.humanRead(agent, record.id),
          );
        }
      }
    }
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
