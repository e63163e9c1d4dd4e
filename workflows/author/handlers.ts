/**
 * Where a conversation begins: `handleMessages` turns a function into the handler workflow the
 * agent starts for each new message; `useAgent` lets any other workflow (a reminder, an
 * approval) talk as an agent. Both set the conversation's own behaviour: late answers, cancel
 * words, side commands and what the human hears on a cancel.
 */
import { allHandlersFinished, condition } from '@temporalio/workflow';
import { agentKeyProblem, agentWorkflowId } from '../../protocol/agent';
import { checkConversationOptions, checkName } from './api-checks';
import { checkFunction, invalidOption } from './option-checks';
import { lateSignal } from '../../protocol/messages';
import { lateMessageSchema } from '../../protocol/message-schemas';
import { setCheckedSignal } from './checked-handlers';
import {
  current,
  hasConversation,
  open,
  type ConversationSettings,
  type SideCommand,
} from './conversation-state';
import { setActivityQueuePrefix } from './activity-queues';
import { DEFAULT_CANCEL_WORDS } from './prompt-rules';
import { release, reply } from './sending';
import { EXPIRED_QUESTION_TEXT } from './text';
import type { HandlerInput, HandlerResult, InboundMessage } from '../../protocol/conversations';
import { isCancelled } from './waiting';

/**
 * What a conversation does with a late answer: a message quoting (or reacting to) one of its
 * questions after that question's wait timed out. It is never handed to a new handler.
 */
export type LateHandler = (message: InboundMessage, questionId: string) => Promise<void>;

export interface ConversationOptions {
  /**
   * Called with each late answer while this workflow runs. Default: answer it, quoting, with
   * "That question has expired." (reactions get no answer). After the workflow has ended, the
   * agent gives that answer itself.
   */
  onLate?: LateHandler;
  /** Words that cancel a pending question (exact, any case, `/` optional). Default `cancel`. */
  cancelWords?: readonly string[];
  /**
   * Side commands answered while a question is pending, e.g. `{ help: (m) => reply(m, HELP) }`;
   * the question stays pending. Matched like cancel words (`help` and `/help`). The second
   * argument holds the pending question's text, so that the answer can end by restating it.
   */
  commands?: Record<string, SideCommand>;
  /** What the human hears when the conversation is cancelled. Default "Cancelled <name>."; false: nothing. */
  cancelledText?: ((name: string | undefined) => string) | false;
}

const defaultCancelledText = (name: string | undefined) => (name ? `Cancelled ${name}.` : 'Cancelled.');

function settingsOf(options: ConversationOptions): ConversationSettings {
  return {
    cancelWords: options.cancelWords ?? DEFAULT_CANCEL_WORDS,
    commands: options.commands ?? {},
    cancelledText: options.cancelledText ?? defaultCancelledText,
  };
}

function handleLate(options: ConversationOptions): void {
  setCheckedSignal(lateSignal, lateMessageSchema, async ({ message, questionId }) => {
    if (options.onLate) await options.onLate(message, questionId);
    else if (message.type !== 'reaction') await reply(message, EXPIRED_QUESTION_TEXT);
  });
}

/** Lets a workflow that is not a message handler (a reminder, an approval) talk as `agentKey`. */
export function useAgent(agentKey: string, options: ConversationOptions = {}): void {
  if (typeof agentKey !== 'string' || agentKeyProblem(agentKey)) {
    throw invalidOption('useAgent', 'agentKey', agentKey, 'an agent key (letters, digits, . _ -)');
  }
  checkConversationOptions('useAgent', options as Record<string, unknown>);
  if (hasConversation()) return;
  open(agentWorkflowId(agentKey), agentKey, settingsOf(options), undefined, 'none');
  handleLate(options);
}

/**
 * Names the conversation ("signup"): operators see it in `amsflow conversations`, and a cancel
 * tells the human "Cancelled signup.".
 */
export function nameConversation(name: string): void {
  checkName(name);
  current().setName(name);
}

/** What a handler knows besides its message. */
export interface HandlerContext<Config = unknown> {
  /** The operator's name for the agent. */
  agentKey: string;
  /** The bot's configuration (`AMSFLOW_BOT_CONFIG` on the worker), undefined when none was given. */
  config: Config;
  /** Arrival number of the message in this agent (1, 2, ...). */
  seq: number;
  /**
   * Gives up this handler's place in the first-reply order: later messages' replies may go
   * before its first one. Call it before sleeping or waiting on anything but the human (waiting
   * for the human releases by itself).
   */
  release(): Promise<void>;
}

/** A message handler: what the agent workflow starts for each inbound message nobody waits for. */
export type MessageHandler<Config = unknown> = (
  message: InboundMessage,
  ctx: HandlerContext<Config>,
) => Promise<void>;

/**
 * Turns a function into a handler workflow. Export it under the agent's handler workflow type
 * (default `onMessage`): `export const onMessage = handleMessages(async (msg) => { ... })`.
 * A handler that ends with `ConversationCancelled` (an `ask` or `waitForMessage` after a cancel)
 * completes normally: the cancel was already told to the human. A handler that ends without
 * having waited for anything hands its sends to the agent in its result (no signal, no extra
 * workflow task); one that waited hands them over by signal as it goes.
 */
export function handleMessages<Config = unknown>(
  handler: MessageHandler<Config>,
  options: ConversationOptions = {},
): (input: HandlerInput) => Promise<HandlerResult | undefined> {
  return async (input: HandlerInput): Promise<HandlerResult | undefined> => {
    // Checked here, not when the module loads: a throw while the bundle loads would fail every
    // workflow of the worker (the agent's too) instead of this handler, once.
    checkFunction('handleMessages', 'handler', handler ?? null);
    checkConversationOptions('handleMessages', options as Record<string, unknown>);
    const conv = open(input.agentWorkflowId, input.agentKey, settingsOf(options), input.seq, 'handler');
    setActivityQueuePrefix(input.activityQueuePrefix);
    handleLate(options);
    const ctx: HandlerContext<Config> = {
      agentKey: input.agentKey,
      config: input.config as Config,
      seq: input.seq,
      release,
    };
    try {
      await handler(input.message, ctx);
    } catch (err) {
      if (!isCancelled(err)) {
        // What it asked before it failed still reaches the agent (by signal: a failed workflow has
        // no result); then it fails with its own error.
        await release();
        await conv.channel.endFailed().catch(() => undefined);
        throw err;
      }
    }
    await release();
    // A late answer being handled when the handler returns is finished first.
    if (!allHandlersFinished()) await condition(allHandlersFinished);
    return conv.channel.end();
  };
}
