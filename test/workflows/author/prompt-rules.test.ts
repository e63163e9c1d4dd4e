import { z } from 'zod';
import {
  DEFAULT_CANCEL_WORDS,
  commandOf,
  invalid,
  isCancelWord,
  nudgeText,
  nudgeTimes,
  parseAnswer,
} from '../../../workflows/author/prompt-rules';
import type { InboundMessage } from '../../../protocol';

const text = (body: string) => ({ id: 'm', type: 'text', text: { body } }) as unknown as InboundMessage;
const photo = { id: 'p', type: 'image', image: { id: 'x' } } as unknown as InboundMessage;

describe('prompt rules', () => {
  it('cancel words: exact, any case, spaces and one slash ignored', () => {
    expect(isCancelWord(text(' Cancel '), DEFAULT_CANCEL_WORDS)).toBe(true);
    expect(isCancelWord(text('/cancel'), DEFAULT_CANCEL_WORDS)).toBe(true);
    expect(isCancelWord(text('cancel my order'), DEFAULT_CANCEL_WORDS)).toBe(false);
    expect(isCancelWord(text('stop'), ['stop'])).toBe(true);
    expect(isCancelWord(photo, DEFAULT_CANCEL_WORDS)).toBe(false);
  });

  it('side commands match like cancel words', () => {
    const commands = { help: async () => undefined };
    expect(commandOf(text('/HELP'), commands)).toBe('help');
    expect(commandOf(text('help me'), commands)).toBeUndefined();
  });

  it('the nudge ladder: after, then every, max in all', () => {
    expect(nudgeTimes(1000, { after: '1 hour', every: '2 hours', max: 3 })).toEqual([
      1000 + 3_600_000,
      1000 + 3 * 3_600_000,
      1000 + 5 * 3_600_000,
    ]);
    expect(nudgeTimes(0, { after: 10 })).toEqual([10]);
    expect(nudgeTimes(0, undefined)).toEqual([]);
    expect(() => nudgeTimes(0, { after: 0 })).toThrow(RangeError);
    expect(nudgeText({ after: 1 }, 'Name?')).toBe('Still there? Name?');
    expect(nudgeText({ after: 1, text: 'Hello?' }, 'Name?')).toBe('Hello?');
  });

  it('parses with a schema: the first issue and the question make the re-ask', () => {
    const schema = z.string().email('Not an email.');
    expect(parseAnswer(schema, text(' a@b.co '), 'Email?')).toEqual({ ok: true, value: 'a@b.co' });
    expect(parseAnswer(schema, text('nope'), 'Email?')).toEqual({ ok: false, reask: 'Not an email. Email?' });
    expect(parseAnswer(z.coerce.number(), text('7'), 'N?')).toEqual({ ok: true, value: 7 });
  });

  it('parses with a function: a value, or invalid(text) as the re-ask as it is', () => {
    const parse = (t: string) => (t === 'yes' ? true : invalid('Say yes. Ready?'));
    expect(parseAnswer(parse, text('yes'), 'Ready?')).toEqual({ ok: true, value: true });
    expect(parseAnswer(parse, text('no'), 'Ready?')).toEqual({ ok: false, reask: 'Say yes. Ready?' });
  });

  it('without a parser the answer is its text; an answer without text is re-asked', () => {
    expect(parseAnswer(undefined, text('Ada'), 'Name?')).toEqual({ ok: true, value: 'Ada' });
    expect(parseAnswer(undefined, photo, 'Name?')).toEqual({
      ok: false,
      reask: 'Please answer in words. Name?',
    });
  });
});
