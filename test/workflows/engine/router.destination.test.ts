import { askAgain, destinationOf, NOT_WAITING_TEXT, Router } from '../../../workflows/engine/router';
import type { InboundMessage } from '../../../protocol';

const text = (id: string, body: string, quoting?: string): InboundMessage => ({
  from: 'user:1',
  id,
  timestamp: '1',
  type: 'text',
  text: { body },
  ...(quoting ? { context: { from: 'agent:1', id: quoting } } : {}),
});

describe('destination', () => {
  it('sends a late answer to the conversation whose question timed out', () => {
    const router = new Router(100);
    router.register({ workflowId: 'asker', waitId: 1 }, 'q1', false);
    router.end({ workflowId: 'asker', waitId: 1 }, 'Too late.');
    expect(destinationOf(router, text('m1', 'yes', 'q1'))).toEqual({
      kind: 'late',
      late: { workflowId: 'asker', questionId: 'q1', lateText: 'Too late.' },
    });
  });

  it('asks "which one?" for a bare word that fits several waits, and reads a reply to the list', () => {
    const router = new Router(100);
    router.register({ workflowId: 'a', waitId: 1 }, 'qa', false, { words: ['yes'], label: 'Deploy A?' });
    router.register({ workflowId: 'b', waitId: 1 }, 'qb', false, { words: ['yes'], label: 'Deploy B?' });
    const yes = text('m1', 'Yes');
    expect(destinationOf(router, yes)).toEqual({
      kind: 'which',
      waits: [
        { workflowId: 'a', label: 'Deploy A?' },
        { workflowId: 'b', label: 'Deploy B?' },
      ],
    });
    router.whichOnes.asked('list', { answer: yes, workflowIds: ['a', 'b'] });
    router.whichOnes.sent('list', 'list-msg');
    expect(destinationOf(router, text('m2', '2', 'list-msg'))).toEqual({
      kind: 'choice',
      choice: { kind: 'pick', workflowId: 'b', answer: yes },
    });
    const again = destinationOf(router, text('m3', 'what?', 'list-msg'));
    expect(again.kind).toBe('choice');
    if (again.kind !== 'choice' || again.choice.kind !== 'again') throw new Error('expected again');
    expect(askAgain(router, again.choice)).toEqual({
      waits: [
        { workflowId: 'a', label: 'Deploy A?' },
        { workflowId: 'b', label: 'Deploy B?' },
      ],
    });
    router.forget('a');
    router.forget('b');
    expect(askAgain(router, again.choice)).toEqual({ text: NOT_WAITING_TEXT });
  });

  it('leaves anything else to the waiters in turn (and a new handler after them)', () => {
    const router = new Router(100);
    expect(destinationOf(router, text('m1', 'hello'))).toEqual({ kind: 'waiters' });
    router.register({ workflowId: 'a', waitId: 1 }, 'qa', false, { words: ['yes'], label: 'A?' });
    expect(destinationOf(router, text('m2', 'yes'))).toEqual({ kind: 'waiters' });
  });
});
