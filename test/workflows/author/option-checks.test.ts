/**
 * The workflow API's argument and option checks, without a server: every wrong value throws a
 * non-retryable `InvalidOption` naming the function, the option and the value; right values pass.
 */
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import {
  checkAsk,
  checkConversationOptions,
  checkFirstOf,
  checkName,
  checkPrompt,
  checkReminderOptions,
  checkReply,
  checkSend,
  checkText,
  checkTyping,
  checkWait,
  checkWaitForReceipt,
} from '../../../workflows/author/api-checks';
import { mediaMessage, textMessage } from '../../../workflows/author/builders';
import {
  checkDuration,
  isInvalidOption,
  MAX_TEXT_CHARS,
  showValue,
} from '../../../workflows/author/option-checks';

const inbound = { id: 'wamid.1', type: 'text', text: { body: 'hi' } };
const long = 'x'.repeat(MAX_TEXT_CHARS + 1);
const DEFAULTS = { maxLateness: '1 day', lateAfter: '1 minute' } as const;

/** The failure `call` throws. */
function failureOf(call: () => unknown): ApplicationFailure {
  try {
    call();
  } catch (err) {
    return err as ApplicationFailure;
  }
  throw new Error('expected InvalidOption, nothing was thrown');
}

/** [what is wrong, the call, the message it must start with] */
const WRONG: [string, () => unknown, string][] = [
  ['ask timeout typo', () => checkAsk('Q?', { timeout: '1 dya' }), `ask: timeout "1 dya" is not a duration`],
  ['ask timeout zero', () => checkAsk('Q?', { timeout: 0 }), 'ask: timeout 0 is not a duration'],
  ['ask timeout negative', () => checkAsk('Q?', { timeout: '-5 minutes' }), 'ask: timeout "-5 minutes"'],
  ['ask timeout NaN', () => checkAsk('Q?', { timeout: NaN }), 'ask: timeout NaN'],
  ['ask timeout 1000 years', () => checkAsk('Q?', { timeout: '1000 years' }), 'ask: timeout "1000 years"'],
  [
    'ask misspelt option',
    () => checkAsk('Q?', { timout: '1 hour' }),
    'ask: options.timout "1 hour" is not an option (known: ',
  ],
  [
    'ask options not an object',
    () => checkAsk('Q?', 'soon' as never),
    'ask: options "soon" is not an object',
  ],
  ['ask question too long', () => checkAsk(long, {}), 'ask: question "xxx'],
  ['ask empty question', () => checkAsk('  ', {}), 'ask: question "  " is not a non-empty string'],
  ['ask question a number', () => checkAsk(42, {}), 'ask: question 42 is not a text or a message'],
  ['ask replyTo without id', () => checkAsk('Q?', { replyTo: {} }), 'ask: replyTo {} is not a message'],
  [
    'ask retryAmbiguous',
    () => checkAsk('Q?', { retryAmbiguous: 'yes' }),
    'ask: retryAmbiguous "yes" is not true or false',
  ],
  [
    'waitForMessage timeout',
    () => checkWait('waitForMessage', { timeout: '10 minuts' }),
    'waitForMessage: timeout "10 minuts"',
  ],
  [
    'waitForReceipt status',
    () => checkWaitForReceipt('m1', 'seen', {}),
    'waitForReceipt: status "seen" is not one of sent, delivered, read',
  ],
  [
    'waitForReceipt id',
    () => checkWaitForReceipt('', 'read', {}),
    'waitForReceipt: messageId "" is not a non-empty string',
  ],
  [
    'prompt maxTries 0',
    () => checkPrompt('Q?', { maxTries: 0 }),
    'prompt: maxTries 0 is not a whole number from 1 to 100',
  ],
  [
    'prompt maxTries 2.5',
    () => checkPrompt('Q?', { maxTries: 2.5 }),
    'prompt: maxTries 2.5 is not a whole number',
  ],
  [
    'prompt nudge.after typo',
    () => checkPrompt('Q?', { nudge: { after: '1 hr s' } }),
    'prompt: nudge.after "1 hr s"',
  ],
  [
    'prompt nudge without after',
    () => checkPrompt('Q?', { nudge: { every: '1 hour' } }),
    'prompt: nudge.after undefined',
  ],
  [
    'prompt nudge.max -1',
    () => checkPrompt('Q?', { nudge: { after: '1h', max: -1 } }),
    'prompt: nudge.max -1',
  ],
  [
    'prompt nudge misspelt',
    () => checkPrompt('Q?', { nudge: { after: '1h', maximum: 2 } }),
    'prompt: nudge.maximum 2 is not an option',
  ],
  [
    'prompt parse',
    () => checkPrompt('Q?', { parse: /\d+/ }),
    'prompt: parse {} is not a zod schema or a function',
  ],
  [
    'prompt cancelWords',
    () => checkPrompt('Q?', { cancelWords: 'stop' }),
    'prompt: cancelWords "stop" is not a list of words',
  ],
  [
    'prompt cancelWords entry',
    () => checkPrompt('Q?', { cancelWords: ['stop', ''] }),
    'prompt: cancelWords[1] "" is not a non-empty word',
  ],
  ['prompt step too long', () => checkPrompt('Q?', { step: 's'.repeat(201) }), 'prompt: step "sss'],
  [
    'prompt nudge text too long',
    () => checkPrompt('x'.repeat(4090), { nudge: { after: '1h' } }),
    'prompt: question (in its nudge)',
  ],
  ['firstOf timeout', () => checkFirstOf({ timeout: '1 dya' }), 'firstOf: timeout "1 dya"'],
  ['firstOf about', () => checkFirstOf({ about: 42 }), 'firstOf: about 42 is not a message'],
  [
    'firstOf signals',
    () => checkFirstOf({ signals: ['approve'] }),
    'firstOf: signals[0] "approve" is not a signal definition',
  ],
  ['firstOf until', () => checkFirstOf({ until: true }), 'firstOf: until true is not a function'],
  [
    'send text too long',
    () => checkSend({ type: 'text', text: { body: long } }, {}),
    'send: message.text.body "xxx',
  ],
  ['send not a message', () => checkSend('hi', { reconcileAmbiguous: 1 }), 'send: reconcileAmbiguous 1'],
  [
    'send no type',
    () => checkSend({ text: { body: 'hi' } }, {}),
    'send: message {"text":{"body":"hi"}} is not a text or a message',
  ],
  ['sendText too long', () => checkText('sendText', long, {}, true), 'sendText: body "xxx'],
  [
    'sendText previewUrl',
    () => checkText('sendText', 'hi', { previewUrl: 'yes' }, true),
    'sendText: previewUrl "yes"',
  ],
  ['reply no message', () => checkReply(undefined, 'hi', {}), 'reply: message null is not a message'],
  ['reply body', () => checkReply(inbound, 42, {}), 'reply: body 42 is not a string'],
  ['typing', () => checkTyping('  '), 'typing: message "  " is not a message'],
  [
    'handleMessages cancelWords',
    () => checkConversationOptions('handleMessages', { cancelWords: [1] }),
    'handleMessages: cancelWords[0] 1',
  ],
  [
    'handleMessages commands',
    () => checkConversationOptions('handleMessages', { commands: { help: 'HELP' } }),
    'handleMessages: commands.help "HELP" is not a function',
  ],
  [
    'handleMessages onLate',
    () => checkConversationOptions('handleMessages', { onLate: 'late' }),
    'handleMessages: onLate "late" is not a function',
  ],
  [
    'useAgent cancelledText',
    () => checkConversationOptions('useAgent', { cancelledText: 'Bye' }),
    'useAgent: cancelledText "Bye" is not a function',
  ],
  ['nameConversation', () => checkName(''), 'nameConversation: name "" is not a non-empty string'],
  ['textMessage body', () => textMessage(undefined as never), 'textMessage: body undefined is not a string'],
  ['textMessage replyTo', () => textMessage('hi', { replyTo: 7 as never }), 'textMessage: replyTo 7'],
  [
    'mediaMessage kind',
    () => mediaMessage('gif' as never, 'media-1'),
    'mediaMessage: kind "gif" is not one of image',
  ],
  ['mediaMessage id', () => mediaMessage('image', ''), 'mediaMessage: mediaId "" is not a non-empty string'],
  [
    'remindIn maxLateness',
    () => checkReminderOptions('remindIn', { maxLateness: '1 dya' as never }, DEFAULTS),
    'remindIn: maxLateness "1 dya"',
  ],
  [
    'remindAt lateAfter',
    () => checkReminderOptions('remindAt', { lateAfter: -1 }, DEFAULTS),
    'remindAt: lateAfter -1',
  ],
  [
    'scheduleRecurring timeZone',
    () => checkReminderOptions('scheduleRecurring', { timeZone: 1 }, DEFAULTS),
    'scheduleRecurring: timeZone 1',
  ],
  [
    'remindIn misspelt',
    () => checkReminderOptions('remindIn', { timezone: 'UTC' } as never, DEFAULTS),
    'remindIn: options.timezone "UTC" is not an option',
  ],
];

describe('option checks', () => {
  it.each(WRONG)(
    '%s: InvalidOption, non-retryable, naming the option and the value',
    (_what, call, start) => {
      const failure = failureOf(call);
      expect(failure).toBeInstanceOf(ApplicationFailure);
      expect(isInvalidOption(failure)).toBe(true);
      expect(failure.type).toBe('InvalidOption');
      expect(failure.nonRetryable).toBe(true);
      expect(failure.message.startsWith(start)).toBe(true);
    },
  );

  it('the failure carries the function, the option and the value', () => {
    expect(failureOf(() => checkAsk('Q?', { timeout: '1 dya' })).details).toEqual([
      { function: 'ask', option: 'timeout', value: '"1 dya"' },
    ]);
  });

  it('right values pass', () => {
    const sent = { messageId: 'wamid.2' };
    expect(() =>
      checkAsk('Q?', { timeout: '10 minutes', replyTo: inbound, reconcileAmbiguous: true }),
    ).not.toThrow();
    expect(() => checkAsk(textMessage('Q?'), { timeout: 60_000, replyTo: 'wamid.1' })).not.toThrow();
    expect(() => checkWait('waitForMessage', undefined)).not.toThrow();
    expect(() => checkWaitForReceipt('wamid.2', 'read', { timeout: '1 day' })).not.toThrow();
    expect(() =>
      checkPrompt('Age?', {
        parse: z.coerce.number(),
        maxTries: 3,
        timeout: '1 hour',
        nudge: { after: '10 minutes', every: '1 hour', max: 2, text: 'Still there?' },
        cancelWords: ['stop'],
        step: 'age',
      }),
    ).not.toThrow();
    expect(() => checkPrompt('Age?', { parse: (t: string) => t })).not.toThrow();
    expect(() =>
      checkFirstOf({
        about: sent,
        timeout: '1h',
        signals: [{ name: 'approve' }],
        until: () => false,
        message: false,
      }),
    ).not.toThrow();
    expect(() => checkSend(mediaMessage('image', 'media-1', { caption: 'hi' }), {})).not.toThrow();
    expect(() => checkText('sendText', 'x'.repeat(MAX_TEXT_CHARS), { previewUrl: true }, true)).not.toThrow();
    expect(() => checkReply(inbound, 'hi', { retryAmbiguous: false })).not.toThrow();
    expect(() =>
      checkConversationOptions('handleMessages', {
        cancelWords: [],
        commands: { help: async () => undefined },
        cancelledText: false,
        onLate: async () => undefined,
      }),
    ).not.toThrow();
    expect(checkReminderOptions('remindIn', { maxLateness: 0, lateAfter: '5 minutes' }, DEFAULTS)).toEqual({
      maxLatenessMs: 0,
      lateAfterMs: 300_000,
    });
    expect(checkReminderOptions('remindIn', undefined, DEFAULTS)).toEqual({
      maxLatenessMs: 86_400_000,
      lateAfterMs: 60_000,
    });
  });

  it('durations: strings and ms, more than zero, at most about 100 years', () => {
    expect(checkDuration('f', 'd', '1.5 hours')).toBe(5_400_000);
    expect(checkDuration('f', 'd', 250)).toBe(250);
    expect(checkDuration('f', 'd', undefined)).toBeUndefined();
    for (const bad of ['', ' 5m', '1 dya', 0, -1, Infinity, '200 years']) {
      expect(() => checkDuration('f', 'd', bad as never)).toThrow(/^f: d .* is not a duration/);
    }
  });

  it('shows values short and plain', () => {
    expect(showValue(undefined)).toBe('undefined');
    expect(showValue(() => 1)).toBe('a function');
    expect(showValue('x'.repeat(200))).toHaveLength(80);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(showValue(cyclic)).toBe('[object Object]');
  });
});
