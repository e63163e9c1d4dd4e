/**
 * The outbox (pure): the queue of send requests, and the send in flight (the attempt whose
 * outcome is not known yet, and the reconciliations under way).
 */
import type { SendOutcome, SendRequestFields as SendRequest } from '../../protocol/conversations';
import { BoundedMap, jsonBytes } from './bounds';
import type { FirstReplyTurns } from './handlers';

/**
 * The outbox's queue: every send request of the agent, taken once per request id (remembered
 * across continue-as-new), sent one at a time: replies before background sends (reminders,
 * approvals: `lane`), then lowest order key first (a handler's requests carry its message's
 * arrival number; others go after the messages already received), and only when no earlier
 * handler still holds its first-reply turn. Requests are never dropped:
 * past `maxQueued` requests or `maxQueuedBytes` of them, a new request is refused at once with
 * `OutboxFull`. Pure.
 */

/** Longest failure message kept in carried outcomes (the requester got the whole one). */
const CARRIED_MESSAGE_CHARS = 160;

export interface Queued extends SendRequest {
  /** Where the outcome goes: an update caller waiting in this run, or the requester by signal. */
  via: 'update' | 'signal';
  orderKey: number;
  index: number;
}

export interface OutboxState {
  queue: SendRequest[];
  outcomes: [string, SendOutcome][];
}

export type Enqueued = 'queued' | 'duplicate' | { refused: SendOutcome };

const laneRank = (req: Queued) => (req.lane === 'background' ? 1 : 0);

/** Whether `a` goes before `b`: replies before background sends, then arrival order. */
function before(a: Queued, b: Queued): boolean {
  if (laneRank(a) !== laneRank(b)) return laneRank(a) < laneRank(b);
  return a.orderKey < b.orderKey || (a.orderKey === b.orderKey && a.index < b.index);
}

export class Outbox {
  private readonly queue: Queued[];
  private nextIndex = 0;
  private bytes = 0;
  /** The request being sent now. */
  sending: Queued | undefined;
  /** Outcomes of recent requests by id: a request id is taken once. */
  readonly outcomes: BoundedMap<string, SendOutcome>;

  constructor(
    private readonly bounds: { recentIdsKept: number; maxQueued: number; maxQueuedBytes: number },
    carried: Partial<OutboxState> | undefined,
    inboundSeq: number,
  ) {
    this.outcomes = new BoundedMap(bounds.recentIdsKept, carried?.outcomes ?? []);
    this.queue = (carried?.queue ?? []).map((req) => this.queued(req, 'signal', inboundSeq));
    for (const req of this.queue) this.bytes += jsonBytes(req.message);
  }

  /** Takes `req` unless its id is known; `inboundSeq` is the arrival count so far. */
  enqueue(req: SendRequest, via: Queued['via'], inboundSeq: number): Enqueued {
    if (this.outcomes.has(req.requestId) || this.sending?.requestId === req.requestId) return 'duplicate';
    if (this.queue.some((q) => q.requestId === req.requestId)) return 'duplicate';
    const size = jsonBytes(req.message);
    if (this.queue.length >= this.bounds.maxQueued || this.bytes + size > this.bounds.maxQueuedBytes) {
      const outcome: SendOutcome = {
        ok: false,
        type: 'OutboxFull',
        message: `The outbox is full (${this.queue.length} requests, ${this.bytes} bytes); this one was not sent.`,
        attempts: 0,
      };
      this.outcomes.set(req.requestId, outcome);
      return { refused: outcome };
    }
    this.queue.push(this.queued(req, via, inboundSeq));
    this.bytes += size;
    return 'queued';
  }

  /** The next request to send, or undefined; while `draining`, only update callers are served. */
  next(order: FirstReplyTurns, now: number, draining: boolean): Queued | undefined {
    order.expire(now);
    let best: Queued | undefined;
    for (const req of this.queue) {
      if (draining && req.via !== 'update') continue;
      if (order.blocks(req.handlerSeq)) continue;
      if (!best || before(req, best)) best = req;
    }
    return best;
  }

  /** True when a queued request waits for an earlier handler's first-reply turn. */
  heldBack(order: FirstReplyTurns): boolean {
    return this.queue.some((req) => order.blocks(req.handlerSeq));
  }

  /** Moves `req` from the queue to `sending`. */
  start(req: Queued): void {
    this.queue.splice(this.queue.indexOf(req), 1);
    this.bytes -= jsonBytes(req.message);
    this.sending = req;
  }

  /** Records the outcome of the request being sent. */
  finish(req: Queued, outcome: SendOutcome): void {
    this.outcomes.set(req.requestId, outcome);
    if (this.sending === req) this.sending = undefined;
  }

  get length(): number {
    return this.queue.length;
  }

  /** True while an update caller (who waits in this run) has a request queued. */
  get hasUpdateCallers(): boolean {
    return this.queue.some((q) => q.via === 'update');
  }

  snapshot(): OutboxState {
    return {
      queue: this.queue.map(({ via: _via, orderKey: _orderKey, index: _index, ...req }) => req),
      outcomes: [...this.outcomes.entries()].map(([id, o]) => [
        id,
        o.ok || o.message.length <= CARRIED_MESSAGE_CHARS
          ? o
          : { ...o, message: `${o.message.slice(0, CARRIED_MESSAGE_CHARS)}…` },
      ]),
    };
  }

  private queued(req: SendRequest, via: Queued['via'], inboundSeq: number): Queued {
    return { ...req, via, orderKey: req.handlerSeq ?? inboundSeq + 0.5, index: this.nextIndex++ };
  }
}

/**
 * The send attempt whose outcome the agent does not have yet, owned by the sender's outbox loop:
 * from the attempt's start until its outcome is settled (cleared at once by a refusal, which sent
 * nothing), and the reconciliations under way (an ambiguous attempt being decided from the
 * service's receipts). The dispatcher's quote hold and the poller only ask the sender of it. Pure.
 */

export class SendInFlight {
  private attempting: Queued | undefined;
  private reconciliations = 0;

  /** The request whose attempt may have reached the service, if any. */
  get current(): Queued | undefined {
    return this.attempting;
  }

  /** Reconciliations waiting for a poll after their fence: polls are not quiet meanwhile. */
  get reconciling(): number {
    return this.reconciliations;
  }

  /** From here the human may see the message before the agent has the result (see quote-hold). */
  attempt(req: Queued): void {
    this.attempting = req;
  }

  /** The attempt is over: refused (nothing the human could have seen), or its outcome settled. */
  settled(): void {
    this.attempting = undefined;
  }

  /** A reconciliation begins; the returned function ends it (once). */
  reconcile(): () => void {
    this.reconciliations++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.reconciliations--;
    };
  }

  /** Whether the send in flight is a question that takes the human's next message or bare words. */
  get questionInFlight(): boolean {
    const sending = this.attempting;
    return (
      sending?.expectReply === true &&
      sending.requester !== undefined &&
      (sending.waitNextToo !== false || (sending.answerWords?.length ?? 0) > 0)
    );
  }
}
