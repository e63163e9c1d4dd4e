import { WhichOnes, choiceNumber, whichOneText } from '../../../workflows/engine/router';
import type { InboundMessage } from '../../../protocol';

const text = (body: string, id = 'm1', quote?: string): InboundMessage => ({
  from: 'user:1',
  id,
  timestamp: '1',
  type: 'text',
  text: { body },
  ...(quote ? { context: { id: quote } } : {}),
});

const list = {
  answer: text('yes', 'yes-1'),
  workflowIds: ['approval:a:1', 'approval:a:2'],
};

describe('which one?', () => {
  it('lists the questions with their numbers, and says how to answer', () => {
    expect(whichOneText(['Deploy?', 'Rotate?'])).toBe(
      'Which one? Reply to this with its number, or quote the question you answer:\n1. Deploy?\n2. Rotate?',
    );
  });

  it('reads a list number: 2, #2, 2. and 2) but not words', () => {
    expect(choiceNumber('2')).toBe(2);
    expect(choiceNumber(' #2 ')).toBe(2);
    expect(choiceNumber('2.')).toBe(2);
    expect(choiceNumber('2)')).toBe(2);
    expect(choiceNumber('yes')).toBeUndefined();
    expect(choiceNumber('2 yes')).toBeUndefined();
    expect(choiceNumber(undefined)).toBeUndefined();
  });

  it('finds a list by the id of its message once sent, not before', () => {
    const lists = new WhichOnes();
    lists.asked('req-1', list);
    expect(lists.choice(text('1', 'm2', 'wamid.list'))).toBeUndefined();
    lists.sent('req-1', 'wamid.list');
    expect(lists.choice(text('2', 'm2', 'wamid.list'))).toEqual({
      kind: 'pick',
      workflowId: 'approval:a:2',
      answer: list.answer,
    });
  });

  it('asks again for no number of the list (a word, 0, past the end); ignores what quotes no list', () => {
    const lists = new WhichOnes();
    lists.asked('req-1', list);
    lists.sent('req-1', 'wamid.list');
    for (const body of ['yes', '0', '3'])
      expect(lists.choice(text(body, 'm2', 'wamid.list'))).toEqual({ kind: 'again', list });
    expect(lists.choice(text('1', 'm2', 'wamid.other'))).toBeUndefined();
    expect(lists.choice(text('1', 'm2'))).toBeUndefined();
  });

  it('survives continue-as-new through its snapshot', () => {
    const lists = new WhichOnes();
    lists.asked('req-1', list);
    lists.sent('req-1', 'wamid.list');
    const next = new WhichOnes(lists.snapshot());
    expect(next.choice(text('1', 'm2', 'wamid.list'))).toMatchObject({
      kind: 'pick',
      workflowId: 'approval:a:1',
    });
  });
});
