/** Answer text: a long answer in messages of at most 4096 characters, split where it reads well (pure). */
import { MAX_MESSAGE_CHARS, splitAnswer } from '../../../workflows/models/answer-text';

const points = (s: string) => [...s].length;

describe('splitAnswer', () => {
  it('keeps a short answer whole, trimmed, and gives nothing for an empty one', () => {
    expect(splitAnswer('  Hello.  ')).toEqual(['Hello.']);
    expect(splitAnswer('   ')).toEqual([]);
  });

  it('splits at the last paragraph break that fits', () => {
    const a = 'a'.repeat(3000);
    const b = 'b'.repeat(3000);
    expect(splitAnswer(`${a}\n\n${b}`)).toEqual([a, b]);
  });

  it('falls back to a sentence end, then a space, then the limit', () => {
    const sentences = `${'word '.repeat(700).trim()}. ${'more '.repeat(300).trim()}.`;
    const parts = splitAnswer(sentences, 4096);
    expect(parts[0].endsWith('word.')).toBe(true);
    const words = splitAnswer('word '.repeat(1000), 4096);
    expect(
      words.every((p) => !p.startsWith(' ') && !p.endsWith(' ') && p.split(' ').every((w) => w === 'word')),
    ).toBe(true);
    expect(splitAnswer('x'.repeat(9000))).toEqual(['x'.repeat(4096), 'x'.repeat(4096), 'x'.repeat(808)]);
  });

  it('counts characters as the service does (code points), never cutting a pair in two', () => {
    const emoji = '😀'.repeat(5000);
    const parts = splitAnswer(emoji);
    expect(parts.map(points)).toEqual([MAX_MESSAGE_CHARS, 5000 - MAX_MESSAGE_CHARS]);
    expect(parts.join('')).toBe(emoji);
  });

  it('loses no text: the parts joined are the answer', () => {
    const text = Array.from({ length: 40 }, (_, i) => `Line ${i}: ${'z'.repeat(i * 37)}.`).join('\n');
    expect(splitAnswer(text).every((p) => points(p) <= MAX_MESSAGE_CHARS)).toBe(true);
    expect(splitAnswer(text).join('\n')).toBe(text);
  });
});
