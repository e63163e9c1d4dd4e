/**
 * Waiting for the human: one loop (`waitFor`) behind `firstOf`, `ask`, `waitForMessage` and
 * `prompt`. A wait is registered with the agent workflow under its own id; it ends with the
 * first of: a message routed to it, a cancel (a cancel word or the `cancel` signal), one of the
 * author's signals, the author's condition, or the deadline. Side commands (`/help`) are
 * answered on the way and the wait goes on. A wait that ends any other way than by a routed
 * message tells the agent, which hands back a message it routed meanwhile: every message reaches
 * exactly one place.
 */
import { condition, setHandler, workflowInfo, type SignalDefinition } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { checkFirstOf } from './api-checks';
import { textMessage } from './builders';
import { current, type Conversation } from './conversation-state';
import { commandOf, isCancelWord } from './prompt-rules';
import { questionFailure } from './wait-failures';
import { enqueue, release, type SentMessage } from './sending';
import type { InboundMessage, RoutedMessage } from '../../protocol/conversations';

/** How a wait ended: the typed result of {@link firstOf}. */
export type WaitOutcome =
  /** The human's next message (not quoting the message waited on). */
  | { kind: 'message'; message: InboundMessage }
  /** A message quoting the message waited on (`about`). */
  | { kind: 'reply'; message: InboundMessage }
  /** A reaction to the message waited on (`about`). */
  | { kind: 'reaction'; message: InboundMessage; emoji: string }
  /** A cancel word from the human, or the `cancel` signal from an operator. */
  | { kind: 'cancel'; by: 'human' | 'operator'; message?: InboundMessage }
  | { kind: 'timeout' }
  /** One of the `signals` arrived (from a client, another workflow, `amsflow` CLI). */
  | { kind: 'signal'; name: string; args: unknown[] }
  /** The `until` condition became true (e.g. set by your update handler). */
  | { kind: 'until' };

/** What one wait listens for (internal). */
export interface WaitPlan {
  /** Quoting replies to (and reactions to) this message come here. */
  questionId?: string;
  /** The human's next message comes here. */
  next: boolean;
  /** Reactions to `questionId` end the wait; else they are ignored. */
  reactions: boolean;
  /** Workflow ms at which the wait times out. */
  deadline?: number;
  cancelWords: readonly string[];
  signals: readonly SignalDefinition<unknown[]>[];
  until?: () => boolean;
  /** Nudges of a silent human: when each is due, and how one is sent. */
  nudges?: { times: readonly number[]; send: () => Promise<void> };
  /** Bare messages that are one of these words come here too (an approval's yes/no). */
  answers?: { words: string[]; label: string; askedBy?: string };
  /** What the agent answers a late answer to `questionId` once this workflow has ended. */
  lateText?: string;
  /**
   * The request id of the question this wait is for, sent without waiting for its outcome
   * (`sendQuestion`): if it fails, the wait ends with that failure (thrown).
   */
  questionRequest?: string;
  /**
   * Proves a routed message came from the agent before the wait takes it (an approval's answer):
   * resolves to the message as the agent routed it, or undefined for one it did not (a forged
   * signal), which is dropped while the wait goes on, still registered with the agent.
   */
  verify?: (routed: RoutedMessage) => Promise<RoutedMessage | undefined>;
}

/**
 * Registers the active wait with the agent (a question's send registers it by itself). It goes
 * with the conversation's next hand-over, before the workflow task ends: no message can be
 * routed elsewhere meanwhile that this wait should have had, since routing happens in the agent
 * after the registration arrived.
 */
async function register(conv: Conversation, plan: WaitPlan): Promise<void> {
  const waitId = conv.beginWait();
  if (!plan.next && !plan.questionId && !plan.answers) return;
  const label = plan.answers?.label ?? conv.question ?? conv.name;
  await conv.channel.hand({
    op: 'wait',
    request: {
      workflowId: workflowInfo().workflowId,
      wait: true,
      waitId,
      ...(plan.questionId ? { questionId: plan.questionId } : {}),
      nextToo: plan.next,
      ...(plan.answers ? { answerWords: plan.answers.words } : {}),
      ...(plan.answers?.askedBy ? { askedBy: plan.answers.askedBy } : {}),
      // How "which one?" would list this wait: its question (or the conversation's name).
      ...(label ? { label } : {}),
    },
  });
}

/** Ends the active wait at the agent, which hands back anything it routed to it meanwhile. */
async function endWaitAtAgent(conv: Conversation, lateText?: string): Promise<void> {
  const waitId = conv.endWait();
  if (waitId === undefined) return;
  await conv.channel.hand({
    op: 'wait',
    request: {
      workflowId: workflowInfo().workflowId,
      wait: false,
      waitId,
      ...(lateText ? { lateText } : {}),
    },
  });
}

/** Tells the human, once, that the conversation was cancelled ("Cancelled signup."). */
export async function tellCancelled(conv: Conversation, cause?: InboundMessage): Promise<void> {
  if (conv.settings.cancelledText === false || !conv.markCancelTold()) return;
  await enqueue(textMessage(conv.settings.cancelledText(conv.name), cause ? { replyTo: cause } : {}));
}

/** What a routed message means for the wait; undefined when the wait goes on. */
async function classify(
  conv: Conversation,
  plan: WaitPlan,
  routed: RoutedMessage,
): Promise<WaitOutcome | undefined> {
  const { message } = routed;
  if (message.type === 'reaction') {
    return plan.reactions ? { kind: 'reaction', message, emoji: message.reaction?.emoji ?? '' } : undefined;
  }
  if (isCancelWord(message, plan.cancelWords)) {
    conv.cancel('human');
    return { kind: 'cancel', by: 'human', message };
  }
  const command = commandOf(message, conv.settings.commands);
  if (command) {
    await conv.settings.commands[command](message, { question: conv.question });
    return undefined;
  }
  const quoted = message.context?.id;
  // The question's id: the one waited on, or (a question sent without waiting for its outcome)
  // the one the agent routed the answer for.
  const questionId = plan.questionId ?? routed.questionId;
  return questionId !== undefined && quoted === questionId
    ? { kind: 'reply', message }
    : { kind: 'message', message };
}

/**
 * Runs one wait to its end. The active wait must be registered already (by a question's send,
 * or `registered: false` registers it here). A routed message is looked at first: an answer that
 * arrives in the same instant as a timer wins over it.
 */
export async function waitFor(conv: Conversation, plan: WaitPlan, registered: boolean): Promise<WaitOutcome> {
  if (!registered) {
    // Waiting for the human gives up the first-reply turn (a question's send already did).
    await release();
    conv.setQuestion(undefined);
    await register(conv, plan);
  }
  const fired: { name: string; args: unknown[] }[] = [];
  for (const def of plan.signals)
    setHandler(def, (...args: unknown[]) => void fired.push({ name: def.name, args }));
  conv.startWaiting(Date.now());
  let nudge = 0;
  try {
    for (;;) {
      const arrived = conv.takeMessage();
      // (The wait stays active while a message is verified: the agent's may arrive meanwhile.)
      const routed = arrived && plan.verify ? await plan.verify(arrived) : arrived;
      if (arrived && !routed) continue;
      if (routed) {
        conv.endWait();
        const outcome = await classify(conv, plan, routed);
        if (outcome?.kind === 'cancel') await tellCancelled(conv, outcome.message);
        if (outcome) return outcome;
        // A side command or an unwanted reaction: the router served the wait; wait again, giving
        // up the turn of the message that had none (a side command's answer took it already).
        await release();
        await register(conv, plan);
        continue;
      }
      const failed = questionFailure(conv, plan);
      if (failed) {
        // The question was never sent, so the agent never registered its wait.
        conv.endWait();
        throw failed;
      }
      if (conv.cancelled) {
        await endWaitAtAgent(conv);
        await tellCancelled(conv);
        return { kind: 'cancel', by: conv.cancelled };
      }
      const signal = fired.shift();
      if (signal) {
        await endWaitAtAgent(conv);
        return { kind: 'signal', ...signal };
      }
      if (plan.until?.()) {
        await endWaitAtAgent(conv);
        return { kind: 'until' };
      }
      const now = Date.now();
      if (plan.deadline !== undefined && now >= plan.deadline) {
        await endWaitAtAgent(conv, plan.lateText);
        return { kind: 'timeout' };
      }
      const nudgeAt = plan.nudges?.times[nudge];
      if (nudgeAt !== undefined && now >= nudgeAt) {
        nudge++;
        // The agent drops it if the answer reaches the wait first (`onlyWhileWaiting`).
        await plan.nudges!.send();
        continue;
      }
      const ready = () =>
        conv.hasMessage ||
        (plan.questionRequest !== undefined && conv.hasOutcome(plan.questionRequest)) ||
        conv.cancelled !== undefined ||
        fired.length > 0 ||
        (plan.until?.() ?? false);
      const wakeAt = Math.min(plan.deadline ?? Infinity, nudgeAt ?? Infinity);
      if (wakeAt === Infinity) await condition(ready);
      else await condition(ready, wakeAt - now);
    }
  } finally {
    for (const def of plan.signals) setHandler(def, undefined);
    conv.stopWaiting();
  }
}

/** The deadline of a wait of `timeout` from now. */
export function deadlineOf(timeout: Duration | undefined): number | undefined {
  return timeout === undefined ? undefined : Date.now() + msToNumber(timeout);
}

export { cancelledFailure, isCancelled, isWaitTimeout, timeoutFailure } from './wait-failures';

export interface FirstOfOptions {
  /** The human's next message ends the wait (`kind: 'message'`). Default true. */
  message?: boolean;
  /** A message quoting this one ends the wait (`kind: 'reply'`), and so does a reaction to it. */
  about?: SentMessage | string;
  /** Reactions to `about` end the wait (`kind: 'reaction'`). Default true. */
  reaction?: boolean;
  /** Give up after this long (`kind: 'timeout'`). Default: never. */
  timeout?: Duration;
  /** Words that cancel (`kind: 'cancel'`). Default: the conversation's (`cancel`, `/cancel`). */
  cancelWords?: readonly string[];
  /** Signals that end the wait (`kind: 'signal'`, with the signal's name and arguments). */
  signals?: readonly SignalDefinition<any[]>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** A condition that ends the wait (`kind: 'until'`), e.g. a value your update handler sets. */
  until?: () => boolean;
}

/**
 * Waits for whichever comes first: the human's next message, a quoting reply or a reaction to
 * `about`, a cancel word, the operator's cancel, one of `signals`, `until()`, or the timeout.
 * Never throws for any of them: switch on `kind`. A cancel also tells the human what was
 * cancelled (once), and side commands are answered while it waits.
 */
export async function firstOf(options: FirstOfOptions = {}): Promise<WaitOutcome> {
  checkFirstOf(options as Record<string, unknown>);
  const conv = current();
  const aboutId = typeof options.about === 'string' ? options.about : options.about?.messageId;
  return waitFor(
    conv,
    {
      questionId: aboutId,
      next: options.message ?? true,
      reactions: options.reaction ?? true,
      deadline: deadlineOf(options.timeout),
      cancelWords: options.cancelWords ?? conv.settings.cancelWords,
      signals: (options.signals ?? []) as readonly SignalDefinition<unknown[]>[],
      until: options.until,
    },
    false,
  );
}
