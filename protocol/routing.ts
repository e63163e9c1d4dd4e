/**
 * The routing proof: that a message reached a conversation from its agent, for a conversation
 * that must act on nothing else (an approval: only the human's own answer decides it). Anyone who
 * can signal workflows in the namespace (the Temporal CLI or UI, any SDK client) can send a
 * conversation an `amsflow.inbound` that looks like the agent's; none can make the agent route a
 * message the human did not write, since the agent routes only what its own polls read. So the
 * agent keeps a bounded record of its deliveries (the router's), answers the `amsflow.routedTo`
 * query from it, and the conversation asks it (an activity: workflow code cannot query) before it
 * acts on a message. The record keeps a message's gist, not its body: a forged signal that reuses
 * a real message's id with other words does not match it.
 */
import type { InboundMessage } from './wire';

/** What the agent records of a delivery. */
export interface RoutingProof {
  /** The workflow it was routed to. */
  workflowId: string;
  /** The wait it was routed to, when the wait had an id. */
  waitId?: number;
  /** {@link gistOf} the message as the agent routed it. */
  gist: string;
}

/** Characters of each part of a message its gist keeps (its words: an answer, not a body). */
const GIST_CHARS = 64;

/**
 * What identifies a message's content for the proof (pure): who wrote it when, its type, what it
 * quotes and the start of its words, enough to tell a real "yes" from a forged one.
 */
export function gistOf(message: InboundMessage): string {
  const m = message as InboundMessage &
    Record<string, { body?: unknown; caption?: unknown; emoji?: unknown }>;
  const part = m[message.type];
  const words = part?.body ?? part?.caption ?? part?.emoji ?? '';
  // Every part bounded: the agent carries 100 of them across continue-as-new.
  const part_ = (v: unknown) => (typeof v === 'string' ? v.slice(0, GIST_CHARS) : null);
  return JSON.stringify([
    part_(message.from),
    part_(message.timestamp),
    part_(message.type),
    part_(message.context?.id),
    part_(words),
  ]);
}

/** The routing activities (`createRoutingActivities`), on the workflow task queue. */
export interface RoutingActivities {
  /**
   * Agent `agentKey`'s record of its delivery of message `messageId` to the calling workflow, or
   * null when it routed that message elsewhere or never (a forged `amsflow.inbound`).
   */
  amsflowRoutedByAgent(agentKey: string, messageId: string): Promise<RoutingProof | null>;
}
