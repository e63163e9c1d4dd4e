/**
 * `prompt`: a question that comes back with a typed result. It parses the answer (a zod schema or
 * a function), re-asks with what was wrong, nudges a silent human on a ladder, and ends with
 * `{ ok: true, value }` or `{ ok: false, reason }`; it never throws for the human's behaviour.
 */
import type { Duration } from '@temporalio/common';
import { checkPrompt } from './api-checks';
import { textMessage } from './builders';
import { current } from './conversation-state';
import {
  nudgeText,
  nudgeTimes,
  parseAnswer,
  questionText,
  type NudgeOptions,
  type Parser,
} from './prompt-rules';
import { enqueue, sendQuestion, type SendOptions } from './sending';
import type { InboundMessage, OutboundMessage } from '../../protocol/conversations';
import { deadlineOf, tellCancelled, waitFor } from './waiting';

/** `reconcileAmbiguous` defaults to true here: see {@link prompt}. */
export interface PromptOptions<T> extends Omit<SendOptions, 'confirm'> {
  /** Turns the answer into the value: a zod schema (applied to the text) or a function returning the value or `invalid(reask)`. Default: the text. */
  parse?: Parser<T>;
  /** Answers accepted before giving up with `tooManyTries`. Default 3. */
  maxTries?: number;
  /** Give up after this long without an answer (counted from each question or re-ask). Default: never. */
  timeout?: Duration;
  /** Nudge a silent human: `{ after: '1 hour', every: '1 day', max: 2, text? }`. None is ever sent after the answer was received. */
  nudge?: NudgeOptions;
  /** Quote this message with the question. */
  replyTo?: InboundMessage | string;
  /** Words that cancel. Default: the conversation's (`cancel`, `/cancel`). */
  cancelWords?: readonly string[];
  /** The step operators see (`amsflow conversations show`). Default: the question's text. */
  step?: string;
}

export type PromptResult<T> =
  | { ok: true; value: T; message: InboundMessage }
  | { ok: false; reason: 'timeout' | 'cancelled' | 'tooManyTries'; message?: InboundMessage };

/**
 * Asks `question` until it gets an answer that parses, and resolves to `{ ok: true, value }`;
 * or to `{ ok: false, reason }`: `'timeout'` (silence past `timeout`, nudges spent),
 * `'cancelled'` (a cancel word or the operator; the human was told "Cancelled <name>."), or
 * `'tooManyTries'` (`maxTries` answers that did not parse). A send that fails still throws its
 * send failure. Questions, re-asks and nudges are sent with `reconcileAmbiguous` unless you set
 * it to false: a question whose send was cut by a crash is neither lost nor asked twice.
 */
export async function prompt<T = string>(
  question: string | OutboundMessage,
  options: PromptOptions<T> = {},
): Promise<PromptResult<T>> {
  checkPrompt(question, options as Record<string, unknown>);
  const conv = current();
  const text = questionText(question);
  const maxTries = options.maxTries ?? 3;
  let outgoing: OutboundMessage =
    typeof question === 'string' ? textMessage(question, { replyTo: options.replyTo }) : question;
  conv.setStep(options.step ?? text);
  try {
    for (let tries = 0; ;) {
      if (conv.cancelled) {
        await tellCancelled(conv);
        return { ok: false, reason: 'cancelled' };
      }
      const waitId = conv.beginWait();
      let questionRequest: string;
      try {
        // A question lost to a crash mid-send would leave the human with nothing to answer, and a
        // blind re-send could ask twice: by default the agent settles it from the receipts.
        questionRequest = await sendQuestion(outgoing, { reconcileAmbiguous: true, ...options, waitId });
      } catch (err) {
        conv.endWait();
        throw err;
      }
      const start = Date.now();
      const nudge = options.nudge;
      const outcome = await waitFor(
        conv,
        {
          questionRequest,
          next: true,
          reactions: false,
          deadline: deadlineOf(options.timeout),
          cancelWords: options.cancelWords ?? conv.settings.cancelWords,
          signals: [],
          ...(nudge && {
            nudges: {
              times: nudgeTimes(start, nudge),
              send: () =>
                // The wait in progress: a side command may have opened a new one since.
                enqueue(textMessage(nudgeText(nudge, text)), {
                  reconcileAmbiguous: options.reconcileAmbiguous ?? true,
                  onlyWhileWaiting: conv.activeWait ?? waitId,
                  // The agent quotes the question (its id is the agent's to know).
                  quoteQuestion: true,
                }),
            },
          }),
        },
        true,
      );
      if (outcome.kind === 'timeout') return { ok: false, reason: 'timeout' };
      if (outcome.kind === 'cancel') return { ok: false, reason: 'cancelled', message: outcome.message };
      if (outcome.kind !== 'message' && outcome.kind !== 'reply') continue;
      const parsed = parseAnswer(options.parse, outcome.message, text);
      if (parsed.ok) return { ok: true, value: parsed.value, message: outcome.message };
      if (++tries >= maxTries) return { ok: false, reason: 'tooManyTries', message: outcome.message };
      outgoing = textMessage(parsed.reask, { replyTo: outcome.message });
    }
  } finally {
    conv.setStep(undefined);
  }
}
