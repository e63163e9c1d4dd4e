import {
  APPROVAL_WORDS,
  answerTime,
  decisionOf,
  formatInstant,
  messageTime,
} from '../../../workflows/approvals/approval-rules';
import { Router } from '../../../workflows/engine/router';
import type { InboundMessage } from '../../../protocol';

const text = (body: string, id = 'm', quoting?: string) =>
  ({
    from: 'user:1',
    id,
    timestamp: '1790000000.1239',
    type: 'text',
    text: { body },
    ...(quoting ? { context: { id: quoting } } : {}),
  }) as InboundMessage;
const reaction = (emoji: string) =>
  ({
    from: 'user:1',
    id: 'r',
    timestamp: '1',
    type: 'reaction',
    reaction: { message_id: 'q', emoji },
  }) as InboundMessage;

describe('approval rules', () => {
  it('reads yes/no words and reactions, any case, skin tones ignored', () => {
    expect(decisionOf(text(' YES! '))).toBe('approved');
    expect(decisionOf(text('approve'))).toBe('approved');
    expect(decisionOf(text('Nope'))).toBe('rejected');
    expect(decisionOf(reaction('👍🏽'))).toBe('approved');
    expect(decisionOf(reaction('👎'))).toBe('rejected');
    expect(decisionOf(text('maybe'))).toBeUndefined();
    expect(decisionOf(reaction('❤️'))).toBeUndefined();
  });

  it('reads the wire timestamp exactly, to the millisecond', () => {
    expect(messageTime(text('x'))).toBe(1_790_000_000_123);
    expect(messageTime({ ...text('x'), timestamp: '1790000000' })).toBe(1_790_000_000_000);
    expect(messageTime({ ...text('x'), timestamp: 'soon' })).toBeUndefined();
    expect(formatInstant(Date.UTC(2026, 10, 23, 14, 3, 12))).toBe('2026-11-23 14:03:12 UTC');
    // Whole seconds on the wire: the moment it reached the workflow, inside that second.
    const whole = { ...text('x'), timestamp: '1790000000' };
    expect(answerTime(whole, 1_790_000_000_456)).toBe(1_790_000_000_456);
    expect(answerTime(whole, 1_790_000_003_000)).toBe(1_790_000_000_999);
    expect(answerTime(whole, 1_789_999_999_000)).toBe(1_790_000_000_000);
    expect(answerTime(text('x'), 0)).toBe(1_790_000_000_123);
  });

  it('routes a bare answer word to the one approval that takes it; several: which one', () => {
    const router = new Router(100);
    router.register({ workflowId: 'a1', waitId: 1 }, 'q1', false, {
      words: APPROVAL_WORDS,
      label: 'Deploy?',
    });
    expect(router.ambiguous(text('yes'))).toBeUndefined();
    expect(router.take(text('Yes'))).toEqual({
      workflowId: 'a1',
      waitId: 1,
      questionId: 'q1',
      label: 'Deploy?',
    });
    router.register({ workflowId: 'a1', waitId: 2 }, 'q1', false, {
      words: APPROVAL_WORDS,
      label: 'Deploy?',
    });
    router.register({ workflowId: 'a2', waitId: 1 }, 'q2', false, {
      words: APPROVAL_WORDS,
      label: 'Rotate?',
    });
    expect(router.ambiguous(text('no'))).toEqual(['Deploy?', 'Rotate?']);
    // Quoting decides.
    expect(router.ambiguous(text('no', 'm2', 'q2'))).toBeUndefined();
    expect(router.take(text('no', 'm2', 'q2'))).toEqual({
      workflowId: 'a2',
      waitId: 1,
      questionId: 'q2',
      label: 'Rotate?',
    });
  });

  it('never gives a bare answer silently to an approval while another conversation waits for the next message', () => {
    const router = new Router(100);
    router.register({ workflowId: 'a1', waitId: 1 }, 'q1', false, {
      words: APPROVAL_WORDS,
      label: 'Transfer?',
    });
    // A model asked "Do you want a summary? Reply yes." and waits for the human's next message.
    router.register({ workflowId: 'model', waitId: 3 }, undefined, true, undefined, 'Do you want a summary?');
    router.register({ workflowId: 'plain', waitId: 1 });
    expect(router.ambiguous(text('yes'))).toEqual([
      'Transfer?',
      'Do you want a summary?',
      'the conversation waiting for your next message',
    ]);
    // A word that is no answer goes to the conversation waiting for a message, as before.
    expect(router.ambiguous(text('hello'))).toBeUndefined();
    expect(router.take(text('hello'))).toEqual({
      workflowId: 'model',
      waitId: 3,
      label: 'Do you want a summary?',
    });
    // Picked from the list: the approval, or a conversation waiting for the next message.
    expect(router.choosable(['a1', 'plain', 'gone'])).toEqual([
      { workflowId: 'a1', label: 'Transfer?' },
      { workflowId: 'plain', label: 'the conversation waiting for your next message' },
    ]);
    expect(router.takeChoice('plain')).toEqual({ workflowId: 'plain', waitId: 1 });
    expect(router.takeChoice('plain')).toBeUndefined();
    expect(router.takeChoice('a1')).toMatchObject({ workflowId: 'a1', questionId: 'q1' });
    expect(router.ambiguous(text('yes'))).toBeUndefined();
  });

  it("gives a bare answer to a tool's approval while the model turn that asked it listens for the next message", () => {
    const router = new Router(100);
    // The handler's model turn listens for the human's next message while its tool's approval waits.
    router.register({ workflowId: 'handler', waitId: 4 }, undefined, true, undefined, 'the turn');
    router.register({ workflowId: 'approval:tool-1', waitId: 1 }, 'q1', false, {
      words: APPROVAL_WORDS,
      label: 'bookTable?',
      askedBy: 'handler',
    });
    expect(router.ambiguous(text('yes'))).toBeUndefined();
    expect(router.take(text('yes'))).toMatchObject({ workflowId: 'approval:tool-1' });
    // Another conversation waiting too: which one (the asker itself is not listed).
    router.register({ workflowId: 'approval:tool-1', waitId: 2 }, 'q1', false, {
      words: APPROVAL_WORDS,
      label: 'bookTable?',
      askedBy: 'handler',
    });
    router.register({ workflowId: 'other', waitId: 1 }, undefined, true, undefined, 'Your email?');
    expect(router.ambiguous(text('yes'))).toEqual(['bookTable?', 'Your email?']);
  });

  it('keeps a late text for an ended wait, told to a late answer once its workflow is gone', () => {
    const router = new Router(100);
    router.register({ workflowId: 'a', waitId: 1 }, 'q', false, { words: ['yes'], label: 'x' });
    router.end({ workflowId: 'a', waitId: 1 }, 'Too late.');
    expect(router.late(text('yes', 'm', 'q'))).toEqual({
      workflowId: 'a',
      questionId: 'q',
      lateText: 'Too late.',
    });
    expect(router.take(text('yes'))).toBeUndefined();
  });
});
