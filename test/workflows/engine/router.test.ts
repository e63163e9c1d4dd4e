import { gistOf } from '../../../protocol/conversations';
import { DELIVERIES_KEPT, Router } from '../../../workflows/engine/router';
import type { InboundMessage } from '../../../protocol';

const text = (id: string, body: string, quoting?: string): InboundMessage => ({
  from: 'user:1',
  id,
  timestamp: '1',
  type: 'text',
  text: { body },
  ...(quoting ? { context: { from: 'agent:1', id: quoting } } : {}),
});

const reaction = (id: string, to: string): InboundMessage => ({
  from: 'user:1',
  id,
  timestamp: '1',
  type: 'reaction',
  reaction: { message_id: to, emoji: '👍' },
});

describe('router', () => {
  it('knows whether a wait is still open: a nudge of a served or ended wait is dropped', () => {
    const router = new Router(100);
    const asker = { workflowId: 'asker', waitId: 2 };
    router.register(asker, 'question-2');
    expect(router.isWaiting(asker)).toBe(true);
    expect(router.isWaiting({ workflowId: 'asker', waitId: 1 })).toBe(false);
    router.take(text('m1', 'Paris'));
    expect(router.isWaiting(asker)).toBe(false);
    router.register({ workflowId: 'other', waitId: 1 }, 'q', false);
    expect(router.isWaiting({ workflowId: 'other', waitId: 1 })).toBe(true);
    router.end({ workflowId: 'other', waitId: 1 });
    expect(router.isWaiting({ workflowId: 'other', waitId: 1 })).toBe(false);
  });

  it('sends a quoting reply to the waiter of the quoted question, before older next-message waiters', () => {
    const router = new Router(100);
    router.register({ workflowId: 'older', waitId: 1 });
    router.register({ workflowId: 'asker', waitId: 1 }, 'question-1');
    // The waiter is told which question it was for (its answer brings the id along).
    expect(router.take(text('m1', 'yes', 'question-1'))).toEqual({
      workflowId: 'asker',
      waitId: 1,
      questionId: 'question-1',
    });
    // The asker's wait is served once: its next-message registration went with it.
    expect(router.take(text('m2', 'hello'))).toEqual({ workflowId: 'older', waitId: 1 });
    expect(router.take(text('m3', 'hello again'))).toBeUndefined();
  });

  it('gives the next message to the oldest waiter, and a message nobody waits for to a new handler', () => {
    const router = new Router(100);
    router.register({ workflowId: 'a', waitId: 1 });
    router.register({ workflowId: 'b', waitId: 1 });
    expect(router.take(text('m1', 'x'))?.workflowId).toBe('a');
    expect(router.take(text('m2', 'y'))?.workflowId).toBe('b');
    expect(router.take(text('m3', 'z'))).toBeUndefined();
  });

  it('routes a reaction only to the waiter of the message it reacts to', () => {
    const router = new Router(100);
    router.register({ workflowId: 'next', waitId: 1 });
    expect(router.take(reaction('r1', 'unrelated'))).toBeUndefined();
    router.register({ workflowId: 'asker', waitId: 2 }, 'question-9', false);
    expect(router.take(reaction('r2', 'question-9'))?.workflowId).toBe('asker');
    expect(router.counts).toEqual({ reply: 0, next: 1 });
  });

  it('hands back a message routed to a wait that had already ended, so it can go elsewhere', () => {
    const router = new Router(100);
    router.register({ workflowId: 'w', waitId: 3 });
    const message = text('m1', 'late');
    const waiter = router.take(message)!;
    router.delivered(waiter, { message, seq: 7 });
    // The end of wait 3 crossed the delivery: the message comes back.
    expect(router.end({ workflowId: 'w', waitId: 3 })).toEqual({ message, seq: 7 });
    // Handed back once only.
    expect(router.end({ workflowId: 'w', waitId: 3 })).toBeUndefined();
  });

  it('hands back a delivery still in flight when the end is processed first, and only once', () => {
    const router = new Router(100);
    router.register({ workflowId: 'w', waitId: 1 });
    const message = text('m1', 'x');
    const waiter = router.take(message)!;
    router.delivered(waiter, { message, seq: 4, waitId: 1 });
    expect(router.end({ workflowId: 'w', waitId: 1 })).toEqual({ message, seq: 4 });
    // The signal then fails (the workflow closed): the message was already routed on.
    expect(router.undeliverable('w', 4, 1)).toBe(false);
  });

  it('leaves an undeliverable message to the caller when no end handed it back', () => {
    const router = new Router(100);
    router.register({ workflowId: 'w', waitId: 1 });
    const message = text('m1', 'x');
    router.delivered(router.take(message)!, { message, seq: 4, waitId: 1 });
    expect(router.undeliverable('w', 4, 1)).toBe(true);
    expect(router.end({ workflowId: 'w', waitId: 1 })).toBeUndefined();
  });

  it('hands back nothing when the wait ended before anything was routed to it', () => {
    const router = new Router(100);
    router.register({ workflowId: 'w', waitId: 1 });
    expect(router.end({ workflowId: 'w', waitId: 1 })).toBeUndefined();
    expect(router.take(text('m1', 'x'))).toBeUndefined();
  });

  it('does not hand back a delivery the workflow took: a new wait confirms it', () => {
    const router = new Router(100);
    router.register({ workflowId: 'w', waitId: 1 });
    const message = text('m1', 'x');
    router.delivered(router.take(message)!, { message, seq: 1 });
    router.register({ workflowId: 'w', waitId: 2 });
    expect(router.end({ workflowId: 'w', waitId: 2 })).toBeUndefined();
  });

  it('remembers the question of a wait that timed out, so a late answer goes to its conversation', () => {
    const router = new Router(100);
    router.register({ workflowId: 'asker', waitId: 1 }, 'question-1');
    router.register({ workflowId: 'other', waitId: 1 });
    expect(router.end({ workflowId: 'asker', waitId: 1 })).toBeUndefined();
    const late = text('m1', 'sorry, yes', 'question-1');
    expect(router.late(late)).toEqual({ workflowId: 'asker', questionId: 'question-1' });
    expect(router.late(reaction('r1', 'question-1'))).toEqual({
      workflowId: 'asker',
      questionId: 'question-1',
    });
    // Not late: a message quoting nothing, or a question someone waits for again.
    expect(router.late(text('m2', 'hello'))).toBeUndefined();
    router.register({ workflowId: 'asker', waitId: 2 }, 'question-1');
    expect(router.late(late)).toBeUndefined();
    // Carried across continue-as-new.
    const next = new Router(100, router.snapshot());
    next.end({ workflowId: 'asker', waitId: 2 });
    expect(next.late(late)?.workflowId).toBe('asker');
  });

  it('keeps at most maxWaiters registrations, dropping the oldest', () => {
    const router = new Router(2);
    for (const id of ['a', 'b', 'c']) router.register({ workflowId: id, waitId: 1 });
    expect(router.counts.next).toBe(2);
    expect(router.take(text('m', 'x'))?.workflowId).toBe('b');
  });

  it('takes the waiters it carried from the run before', () => {
    const before = new Router(100);
    before.register({ workflowId: 'asker', waitId: 3 }, 'q1', false);
    before.register({ workflowId: 'next', waitId: 4 });
    const router = new Router(100, before.snapshot());
    expect(router.take(text('m1', 'a', 'q1'))).toEqual({ workflowId: 'asker', waitId: 3, questionId: 'q1' });
    expect(router.take(text('m2', 'b'))).toEqual({ workflowId: 'next', waitId: 4 });
  });

  it('carries registrations and unconfirmed deliveries across continue-as-new', () => {
    const router = new Router(100);
    router.register({ workflowId: 'w', waitId: 5 }, 'q');
    const message = text('m1', 'x');
    const other = new Router(100);
    other.register({ workflowId: 'v', waitId: 1 });
    other.delivered(other.take(message)!, { message, seq: 2 });
    const next = new Router(100, { ...router.snapshot(), routed: other.snapshot().routed });
    expect(next.counts).toEqual({ reply: 1, next: 1 });
    expect(next.end({ workflowId: 'v', waitId: 1 })).toEqual({ message, seq: 2 });
  });

  it('remembers where it delivered each message, with its gist, for the routing proof; and carries it', () => {
    const router = new Router(100);
    const yes = text('m1', 'yes', 'q1');
    router.register({ workflowId: 'approval', waitId: 2 }, 'q1');
    router.delivered(router.take(yes)!, { message: yes, seq: 1 });
    expect(router.routedTo('m1')).toEqual({ workflowId: 'approval', waitId: 2, gist: gistOf(yes) });
    // Never routed (a forged signal's id): no proof.
    expect(router.routedTo('forged')).toBeNull();
    // A forged signal reusing the id with other words, or quoting something else, has another gist.
    expect(gistOf(text('m1', 'no', 'q1'))).not.toBe(gistOf(yes));
    expect(gistOf(text('m1', 'yes', 'q2'))).not.toBe(gistOf(yes));
    expect(new Router(100, router.snapshot()).routedTo('m1')?.workflowId).toBe('approval');
  });

  it('keeps the last DELIVERIES_KEPT deliveries for the proof, forgetting the oldest', () => {
    const router = new Router(100);
    for (let i = 0; i <= DELIVERIES_KEPT; i++) {
      const message = text(`m${i}`, 'x');
      router.delivered({ workflowId: `w${i}` }, { message, seq: i });
    }
    expect(router.routedTo('m0')).toBeNull();
    expect(router.routedTo(`m${DELIVERIES_KEPT}`)?.workflowId).toBe(`w${DELIVERIES_KEPT}`);
  });

  it('knows the question a wait is for while it waits (a nudge quotes it), and not after', () => {
    const router = new Router(100);
    router.register({ workflowId: 'asker', waitId: 2 }, 'q2');
    expect(router.questionOf({ workflowId: 'asker', waitId: 2 })).toBe('q2');
    expect(router.questionOf({ workflowId: 'asker', waitId: 1 })).toBeUndefined();
    // The next message answers it (it takes the next message too): the wait is served.
    expect(router.take(text('m1', 'an answer'))).toEqual({
      workflowId: 'asker',
      waitId: 2,
      questionId: 'q2',
    });
    expect(router.questionOf({ workflowId: 'asker', waitId: 2 })).toBeUndefined();
  });
});
