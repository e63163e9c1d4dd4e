/**
 * What each function of the conversation API accepts, checked with `option-checks.ts` at the
 * call, before anything is sent (pure: unit-tested without a server). Each throws `InvalidOption`
 * naming the function, the option and the value.
 */
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import {
  checkBoolean,
  checkCount,
  checkDuration,
  checkFunction,
  checkMessage,
  checkMessageRef,
  checkOptions,
  checkString,
  checkWords,
  invalidOption,
  MAX_TEXT_CHARS,
} from './option-checks';

/** The most tries a prompt takes, and nudges of one question. */
export const MAX_TRIES = 100;
export const MAX_NUDGES = 100;
/** The longest `step` and conversation name (operators read them in one line). */
export const MAX_LABEL_CHARS = 200;

const SEND_KEYS = ['retryAmbiguous', 'reconcileAmbiguous'];
/** What a plain send takes besides: whether to wait for the service's answer. */
const CONFIRM = ['confirm'];

type Options = Record<string, unknown> | undefined;

function sendOptions(fn: string, options: Options, extra: readonly string[]): Record<string, unknown> {
  const o = checkOptions(fn, options, [...SEND_KEYS, ...extra]);
  checkBoolean(fn, 'retryAmbiguous', o.retryAmbiguous);
  checkBoolean(fn, 'reconcileAmbiguous', o.reconcileAmbiguous);
  if (extra.includes('confirm')) checkBoolean(fn, 'confirm', o.confirm);
  return o;
}

/** `send(message, options)`. */
export function checkSend(message: unknown, options: Options): void {
  checkMessage('send', 'message', message);
  sendOptions('send', options, CONFIRM);
}

/** `sendText(body, options)` and `textMessage(body, options)`. */
export function checkText(fn: string, body: unknown, options: Options, sending: boolean): void {
  checkString(fn, 'body', body, { max: MAX_TEXT_CHARS });
  const o = sending
    ? sendOptions(fn, options, ['replyTo', 'previewUrl', ...CONFIRM])
    : checkOptions(fn, options, ['replyTo', 'previewUrl']);
  checkMessageRef(fn, 'replyTo', o.replyTo);
  checkBoolean(fn, 'previewUrl', o.previewUrl);
}

/** `reply(message, body, options)`. */
export function checkReply(message: unknown, body: unknown, options: Options): void {
  checkMessageRef('reply', 'message', message ?? null);
  checkString('reply', 'body', body, { max: MAX_TEXT_CHARS });
  sendOptions('reply', options, CONFIRM);
}

/** `typing(message)`. */
export function checkTyping(message: unknown): void {
  checkMessageRef('typing', 'message', message ?? null);
}

/** `waitForMessage(options)` and the `timeout` of `waitForReceipt`. */
export function checkWait(fn: string, options: Options): void {
  const o = checkOptions(fn, options, ['timeout']);
  checkDuration(fn, 'timeout', o.timeout as Duration | undefined);
}

const RECEIPT_STATUSES = ['sent', 'delivered', 'read'];

/** `waitForReceipt(messageId, status, options)`. */
export function checkWaitForReceipt(messageId: unknown, status: unknown, options: Options): void {
  checkString('waitForReceipt', 'messageId', messageId, { max: 1000 });
  if (typeof status !== 'string' || !RECEIPT_STATUSES.includes(status)) {
    throw invalidOption('waitForReceipt', 'status', status, `one of ${RECEIPT_STATUSES.join(', ')}`);
  }
  checkWait('waitForReceipt', options);
}

/** `ask(question, options)`. */
export function checkAsk(question: unknown, options: Options): void {
  checkMessage('ask', 'question', question);
  const o = sendOptions('ask', options, ['timeout', 'replyTo']);
  checkDuration('ask', 'timeout', o.timeout as Duration | undefined);
  checkMessageRef('ask', 'replyTo', o.replyTo);
}

function checkNudge(fn: string, nudge: unknown, question: unknown): void {
  if (nudge === undefined) return;
  const n = checkOptions(fn, nudge as Options, ['after', 'every', 'max', 'text'], 'nudge');
  if (n.after === undefined) throw invalidOption(fn, 'nudge.after', undefined, "a duration (like '1 hour')");
  checkDuration(fn, 'nudge.after', n.after as Duration);
  checkDuration(fn, 'nudge.every', n.every as Duration | undefined);
  checkCount(fn, 'nudge.max', n.max, 0, MAX_NUDGES);
  if (n.text !== undefined) checkString(fn, 'nudge.text', n.text, { max: MAX_TEXT_CHARS });
  // The default nudge is "Still there? " and the question: it must fit too.
  else if (typeof question === 'string')
    checkString(fn, 'question (in its nudge)', `Still there? ${question}`, { max: MAX_TEXT_CHARS });
}

function checkParser(fn: string, parse: unknown): void {
  if (parse === undefined || typeof parse === 'function') return;
  const safeParse = (parse as { safeParse?: unknown } | null | undefined)?.safeParse;
  if (typeof safeParse !== 'function') throw invalidOption(fn, 'parse', parse, 'a zod schema or a function');
}

/** `prompt(question, options)`. */
export function checkPrompt(question: unknown, options: Options): void {
  checkMessage('prompt', 'question', question);
  const o = sendOptions('prompt', options, [
    'parse',
    'maxTries',
    'timeout',
    'nudge',
    'replyTo',
    'cancelWords',
    'step',
  ]);
  checkParser('prompt', o.parse);
  checkCount('prompt', 'maxTries', o.maxTries, 1, MAX_TRIES);
  checkDuration('prompt', 'timeout', o.timeout as Duration | undefined);
  checkNudge('prompt', o.nudge, question);
  checkMessageRef('prompt', 'replyTo', o.replyTo);
  checkWords('prompt', 'cancelWords', o.cancelWords);
  checkString('prompt', 'step', o.step, { max: MAX_LABEL_CHARS, optional: true });
}

/** `firstOf(options)`. */
export function checkFirstOf(options: Options): void {
  const fn = 'firstOf';
  const o = checkOptions(fn, options, [
    'message',
    'about',
    'reaction',
    'timeout',
    'cancelWords',
    'signals',
    'until',
  ]);
  checkBoolean(fn, 'message', o.message);
  checkBoolean(fn, 'reaction', o.reaction);
  checkMessageRef(fn, 'about', o.about);
  checkDuration(fn, 'timeout', o.timeout as Duration | undefined);
  checkWords(fn, 'cancelWords', o.cancelWords);
  checkFunction(fn, 'until', o.until);
  if (o.signals === undefined) return;
  if (!Array.isArray(o.signals))
    throw invalidOption(fn, 'signals', o.signals, 'a list of signal definitions');
  o.signals.forEach((def: unknown, i) => {
    if (typeof (def as { name?: unknown } | null)?.name !== 'string') {
      throw invalidOption(fn, `signals[${i}]`, def, 'a signal definition (defineSignal)');
    }
  });
}

/** `handleMessages(handler, options)` and `useAgent(agentKey, options)`. */
export function checkConversationOptions(fn: string, options: Options): void {
  const o = checkOptions(fn, options, ['onLate', 'cancelWords', 'commands', 'cancelledText']);
  checkFunction(fn, 'onLate', o.onLate);
  checkWords(fn, 'cancelWords', o.cancelWords);
  if (o.cancelledText !== false) checkFunction(fn, 'cancelledText', o.cancelledText);
  if (o.commands === undefined) return;
  if (typeof o.commands !== 'object' || o.commands === null || Array.isArray(o.commands)) {
    throw invalidOption(fn, 'commands', o.commands, 'an object of word: function');
  }
  for (const [word, command] of Object.entries(o.commands)) {
    if (word.trim() === '') throw invalidOption(fn, 'commands', word, 'a non-empty word');
    checkFunction(fn, `commands.${word}`, command ?? null);
  }
}

/** `nameConversation(name)`. */
export function checkName(name: unknown): void {
  checkString('nameConversation', 'name', name, { max: MAX_LABEL_CHARS });
}

const REMINDER_KEYS = ['timeZone', 'maxLateness', 'lateAfter'];

/**
 * The options of `remindAt`, `remindIn` and `scheduleRecurring`, with their durations in ms
 * (defaults filled in). Whether the zone exists is the reminder's own check (`ReminderInvalid`).
 */
export function checkReminderOptions(
  fn: string,
  options: { timeZone?: unknown; maxLateness?: Duration; lateAfter?: Duration } | undefined,
  defaults: { maxLateness: Duration; lateAfter: Duration },
): { maxLatenessMs: number; lateAfterMs: number } {
  const o = checkOptions(fn, options as Options, REMINDER_KEYS);
  if (o.timeZone !== undefined && typeof o.timeZone !== 'string') {
    throw invalidOption(fn, 'timeZone', o.timeZone, 'an IANA time zone (like Europe/Berlin)');
  }
  return {
    maxLatenessMs: zeroOrDuration(
      fn,
      'maxLateness',
      (o.maxLateness as Duration | undefined) ?? defaults.maxLateness,
    ),
    lateAfterMs: zeroOrDuration(fn, 'lateAfter', (o.lateAfter as Duration | undefined) ?? defaults.lateAfter),
  };
}

/** A duration, or zero (`maxLateness: 0`: never deliver late; `lateAfter: 0`: always say how late). */
function zeroOrDuration(fn: string, option: string, value: Duration): number {
  let ms: number | undefined;
  try {
    ms = msToNumber(value);
  } catch {
    ms = undefined;
  }
  return ms === 0 ? 0 : checkDuration(fn, option, value)!;
}
