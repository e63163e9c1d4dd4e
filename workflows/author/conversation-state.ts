/**
 * The conversation state of one workflow (a handler, or a workflow that called `useAgent`): its
 * line to the agent (channel.ts), its place in the first-reply order, its send and wait counters,
 * and what the agent workflow signalled it (outcomes, routed messages, receipts): the
 * `Conversation` class owns it, and `open` wires the agent's signals and the conversation query to
 * it. Module state is isolated per workflow execution by the SDK.
 */
import { ApplicationFailure, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  type ConversationView,
  type InboundMessage,
  type Receipt,
  type RoutedMessage,
  type SendOutcome,
} from '../../protocol/conversations';
import { NO_AGENT_CONTEXT } from '../../protocol/failures';
import {
  cancelSignal,
  conversationQuery,
  inboundSignal,
  movingSignal,
  receiptSignal,
  sendResultSignal,
} from '../../protocol/messages';
import {
  cancelSchema,
  receiptSchema,
  routedMessageSchema,
  sendResultSchema,
} from '../../protocol/message-schemas';
import { Channel, type ChannelEnd } from './channel';
import { setCheckedSignal } from './checked-handlers';

/** What a side command is told of the wait it interrupts. */
export interface PendingWait {
  /** The text of the question waiting for its answer; undefined when the wait has none (`firstOf`). */
  question?: string;
}

/** A side command: answers `message` while a question waits; the question stays pending. */
export type SideCommand = (message: InboundMessage, pending: PendingWait) => Promise<void>;

/** What a conversation does on its own, set by `handleMessages` or `useAgent` options. */
export interface ConversationSettings {
  /** Words that cancel a pending question. */
  cancelWords: readonly string[];
  /** Side commands answered while a question is pending; the question stays pending. */
  commands: Readonly<Record<string, SideCommand>>;
  /** What the human is told when the conversation is cancelled; false says nothing. */
  cancelledText: ((name: string | undefined) => string) | false;
}

/** A receipt status's place in a message's life; a later one replaces an earlier one. */
const STATUS_RANK: Record<string, number> = { sent: 1, delivered: 2, read: 3, failed: 4 };
function rank(status: string): number {
  return STATUS_RANK[status] ?? 0;
}

/** A send's outcome when the send failed. */
export type FailedOutcome = Extract<SendOutcome, { ok: false }>;

/** What a conversation starts with (`open`). */
export interface ConversationStart {
  agentWorkflowId: string;
  agentKey: string;
  settings: ConversationSettings;
  /** Its line to the agent. */
  channel: Channel;
  /** A handler's own message's arrival number: the first reply it owes; undefined for `useAgent`. */
  seq: number | undefined;
  /** Workflow time it began. */
  startedAt: number;
}

/**
 * One workflow's conversation with its agent, the one owner of its state: the waits it opens and
 * ends, the first-reply turn it holds, the question pending, and what the agent workflow signals
 * it (send outcomes, routed messages, receipts, a cancel). The author API and the signal handlers
 * ask it; none writes its fields. Module state is isolated per workflow execution by the SDK.
 */
export class Conversation {
  readonly agentWorkflowId: string;
  readonly agentKey: string;
  readonly settings: ConversationSettings;
  /** Its line to the agent: every request, wait, release and typing goes through it. */
  readonly channel: Channel;
  readonly startedAt: number;
  #name: string | undefined;
  #step: string | undefined;
  #waitingSince: number | undefined;
  #cancelled: 'human' | 'operator' | undefined;
  #cancelTold = false;
  /**
   * The arrival number whose first reply this workflow owes: a handler's own message until its
   * first reply or wait, then each message routed to one of its waits until it answers or waits
   * again. Orders first replies by arrival.
   */
  #seq: number | undefined;
  #question: string | undefined;
  #sends = 0;
  /** Waits so far: each wait for the human has its own id, so a late delivery is told apart. */
  #waits = 0;
  #activeWait: number | undefined;
  readonly #inbox: RoutedMessage[] = [];
  readonly #outcomes = new Map<string, SendOutcome>();
  readonly #receipts = new Map<string, Receipt>();

  constructor(start: ConversationStart) {
    this.agentWorkflowId = start.agentWorkflowId;
    this.agentKey = start.agentKey;
    this.settings = start.settings;
    this.channel = start.channel;
    this.#seq = start.seq;
    this.startedAt = start.startedAt;
  }

  /** The author's name for it (`nameConversation`), shown to operators and in "Cancelled <name>.". */
  get name(): string | undefined {
    return this.#name;
  }

  /** Names the conversation (`nameConversation`). */
  setName(name: string): void {
    this.#name = name;
  }

  /** What it is doing now (the pending question's step), for operators; undefined clears it. */
  setStep(step: string | undefined): void {
    this.#step = step;
  }

  /** Who cancelled it (a cancel word, or the cancel signal): every pending and later wait ends so. */
  get cancelled(): 'human' | 'operator' | undefined {
    return this.#cancelled;
  }

  /** Cancels the conversation; the first cancel's author stays. */
  cancel(by: 'human' | 'operator'): void {
    this.#cancelled ??= by;
  }

  /** Records that the human is told of the cancel: true the first time, false once told. */
  markCancelTold(): boolean {
    if (this.#cancelTold) return false;
    this.#cancelTold = true;
    return true;
  }

  /** The text of the question the pending wait answers (side commands restate it). */
  get question(): string | undefined {
    return this.#question;
  }

  /** The pending wait answers `question` (undefined: a wait with no question). */
  setQuestion(question: string | undefined): void {
    this.#question = question;
  }

  /** The wait in progress; a message routed to any other wait is the agent's to route on. */
  get activeWait(): number | undefined {
    return this.#activeWait;
  }

  /** Opens a new wait, the active one; returns its id (1, 2, ...). */
  beginWait(): number {
    this.#activeWait = ++this.#waits;
    return this.#activeWait;
  }

  /** Ends the active wait here (telling the agent is the caller's); returns its id, if one was active. */
  endWait(): number | undefined {
    const waitId = this.#activeWait;
    this.#activeWait = undefined;
    return waitId;
  }

  /** The human is waited for from workflow time `now` on (operators see it). */
  startWaiting(now: number): void {
    this.#waitingSince = now;
  }

  /** The human is no longer waited for. */
  stopWaiting(): void {
    this.#waitingSince = undefined;
  }

  /** The number of the next send request (1, 2, ...): its request id is made of it. */
  nextSend(): number {
    return ++this.#sends;
  }

  /**
   * Gives up the first-reply turn: returns the arrival number whose first reply it held (it goes
   * with the next request, or with a release), undefined when it held none.
   */
  takeTurn(): number | undefined {
    const seq = this.#seq;
    this.#seq = undefined;
    return seq;
  }

  /**
   * Takes a message the agent routed here, unless it was routed to a wait that has ended (the
   * agent hands that back and routes it on: taking it here would deliver it twice). A taken one
   * brings its first-reply turn: the agent holds later messages' replies until this one's.
   */
  deliver(routed: RoutedMessage): boolean {
    if (routed.waitId !== undefined && routed.waitId !== this.#activeWait) return false;
    this.#seq = routed.seq;
    this.#inbox.push(routed);
    return true;
  }

  /** True while a delivered message waits to be taken. */
  get hasMessage(): boolean {
    return this.#inbox.length > 0;
  }

  /** The first delivered message not yet taken. */
  takeMessage(): RoutedMessage | undefined {
    return this.#inbox.shift();
  }

  /** Records the outcome of send request `requestId` (the agent's `sendResult`). */
  recordOutcome(requestId: string, outcome: SendOutcome): void {
    this.#outcomes.set(requestId, outcome);
  }

  /** True once the outcome of `requestId` came back. */
  hasOutcome(requestId: string): boolean {
    return this.#outcomes.has(requestId);
  }

  /** Takes the outcome of `requestId`, if it came back. */
  takeOutcome(requestId: string): SendOutcome | undefined {
    const outcome = this.#outcomes.get(requestId);
    this.#outcomes.delete(requestId);
    return outcome;
  }

  /** Takes the outcome of `requestId` if it came back as a failure; a success stays. */
  takeFailure(requestId: string): FailedOutcome | undefined {
    const outcome = this.#outcomes.get(requestId);
    if (!outcome || outcome.ok) return undefined;
    this.#outcomes.delete(requestId);
    return outcome;
  }

  /** Records a receipt; receipts can arrive out of order, so a message keeps its furthest status. */
  noteReceipt(receipt: Receipt): void {
    const known = this.#receipts.get(receipt.messageId);
    if (!known || rank(receipt.status) >= rank(known.status)) this.#receipts.set(receipt.messageId, receipt);
  }

  /** The furthest receipt of `messageId` so far. */
  receipt(messageId: string): Receipt | undefined {
    return this.#receipts.get(messageId);
  }

  /** True once `messageId` reached `status` (a later status counts) or failed. */
  receiptReached(messageId: string, status: string): boolean {
    const receipt = this.#receipts.get(messageId);
    return receipt !== undefined && (rank(receipt.status) >= rank(status) || receipt.status === 'failed');
  }

  /** What the conversation query answers operators, for the workflow `workflowId`. */
  view(workflowId: string): ConversationView {
    return {
      workflowId,
      agentKey: this.agentKey,
      ...(this.#name === undefined ? {} : { name: this.#name }),
      ...(this.#step === undefined ? {} : { step: this.#step }),
      waiting: this.#waitingSince !== undefined,
      ...(this.#waitingSince === undefined
        ? {}
        : { waitingSince: new Date(this.#waitingSince).toISOString() }),
      startedAt: new Date(this.startedAt).toISOString(),
      ...(this.#cancelled === undefined ? {} : { cancelled: this.#cancelled }),
    };
  }
}

let conversation: Conversation | undefined;

/** This workflow's conversation; throws `NoAgentContext` before `handleMessages` or `useAgent`. */
export function current(): Conversation {
  if (!conversation) {
    throw ApplicationFailure.nonRetryable(
      'No agent in this workflow: write handlers with handleMessages(), or call useAgent(agentKey) first',
      NO_AGENT_CONTEXT,
    );
  }
  return conversation;
}

/**
 * Opens this workflow's conversation with the agent `agentWfId`, and wires the agent's signals
 * and the operators' query to it. A handler's (`ends: 'handler'`) starts in `result` hand-over
 * and its wrapper hands the rest over at its end (see channel.ts).
 */
export function open(
  agentWfId: string,
  agentKey: string,
  settings: ConversationSettings,
  seq: number | undefined,
  ends: ChannelEnd,
): Conversation {
  const startedAt = Date.now();
  const conv = new Conversation({
    agentWorkflowId: agentWfId,
    agentKey,
    settings,
    channel: new Channel(agentWfId, ends),
    seq,
    startedAt,
  });
  conversation = conv;
  setCheckedSignal(sendResultSignal, sendResultSchema, ({ requestId, outcome }) =>
    conv.recordOutcome(requestId, outcome),
  );
  setHandler(movingSignal, () => conv.channel.buffer.moving());
  setCheckedSignal(inboundSignal, routedMessageSchema, (routed) => void conv.deliver(routed));
  setCheckedSignal(receiptSignal, receiptSchema, (receipt) => conv.noteReceipt(receipt));
  setCheckedSignal(cancelSignal, cancelSchema, () => conv.cancel('operator'));
  setHandler(conversationQuery, () => conv.view(workflowInfo().workflowId));
  return conv;
}

/** True once this workflow has a conversation (a handler, or after `useAgent`). */
export function hasConversation(): boolean {
  return conversation !== undefined;
}
