import { FirstReplyOrder } from '../../../workflows/engine/handlers';
import { Outbox } from '../../../workflows/engine/outbox';
import type { SendRequest } from '../../../protocol';

const bounds = { recentIdsKept: 100, maxQueued: 10, maxQueuedBytes: 10_000 };
const req = (requestId: string, handlerSeq?: number, body = 'hi'): SendRequest => ({
  requestId,
  message: { type: 'text', text: { body } },
  requester: 'wf',
  handlerSeq,
});

describe('outbox', () => {
  it('takes a request id once, whether queued, being sent or done', () => {
    const outbox = new Outbox(bounds, undefined, 0);
    expect(outbox.enqueue(req('a'), 'signal', 0)).toBe('queued');
    expect(outbox.enqueue(req('a'), 'signal', 0)).toBe('duplicate');
    const order = new FirstReplyOrder(1000);
    const next = outbox.next(order, 0, false)!;
    outbox.start(next);
    expect(outbox.enqueue(req('a'), 'update', 0)).toBe('duplicate');
    outbox.finish(next, { ok: true, messageId: 'w1', attempts: 1 });
    expect(outbox.enqueue(req('a'), 'signal', 0)).toBe('duplicate');
    expect(outbox.sending).toBeUndefined();
  });

  it('sends handlers’ replies in arrival order, others after the messages already received', () => {
    const outbox = new Outbox(bounds, undefined, 0);
    const order = new FirstReplyOrder(1000);
    outbox.enqueue(req('notice'), 'update', 2);
    outbox.enqueue(req('reply-3', 3), 'signal', 3);
    outbox.enqueue(req('reply-1', 1), 'signal', 3);
    const sent: string[] = [];
    for (let r = outbox.next(order, 0, false); r; r = outbox.next(order, 0, false)) {
      outbox.start(r);
      outbox.finish(r, { ok: true, messageId: r.requestId, attempts: 1 });
      sent.push(r.requestId);
    }
    expect(sent).toEqual(['reply-1', 'notice', 'reply-3']);
  });

  it('sends replies before background sends (a reminder, an approval), whichever came first', () => {
    const outbox = new Outbox(bounds, undefined, 0);
    const order = new FirstReplyOrder(1000);
    outbox.enqueue({ ...req('reminder'), lane: 'background' }, 'signal', 1);
    outbox.enqueue({ ...req('approval'), lane: 'background' }, 'signal', 1);
    outbox.enqueue(req('reply-2', 2), 'signal', 2);
    const sent: string[] = [];
    for (let r = outbox.next(order, 0, false); r; r = outbox.next(order, 0, false)) {
      outbox.start(r);
      outbox.finish(r, { ok: true, messageId: r.requestId, attempts: 1 });
      sent.push(r.requestId);
    }
    expect(sent).toEqual(['reply-2', 'reminder', 'approval']);
  });

  it('holds a later handler’s reply while an earlier handler holds its turn', () => {
    const outbox = new Outbox(bounds, undefined, 0);
    const order = new FirstReplyOrder(1000);
    order.hold(1, 0);
    outbox.enqueue(req('reply-2', 2), 'signal', 2);
    expect(outbox.next(order, 10, false)).toBeUndefined();
    expect(outbox.next(order, 1000, false)?.requestId).toBe('reply-2');
  });

  it('serves only update callers while draining for continue-as-new', () => {
    const outbox = new Outbox(bounds, undefined, 0);
    const order = new FirstReplyOrder(1000);
    outbox.enqueue(req('by-signal'), 'signal', 0);
    outbox.enqueue(req('by-update'), 'update', 0);
    expect(outbox.next(order, 0, true)?.requestId).toBe('by-update');
    expect(outbox.hasUpdateCallers).toBe(true);
  });

  it('refuses a request past its count or byte bound with OutboxFull, and never drops a queued one', () => {
    const outbox = new Outbox({ ...bounds, maxQueued: 2 }, undefined, 0);
    outbox.enqueue(req('a'), 'signal', 0);
    outbox.enqueue(req('b'), 'signal', 0);
    const refused = outbox.enqueue(req('c'), 'signal', 0);
    expect(refused).toEqual({ refused: expect.objectContaining({ ok: false, type: 'OutboxFull' }) });
    expect(outbox.length).toBe(2);
    expect(outbox.outcomes.get('c')).toMatchObject({ type: 'OutboxFull' });

    const small = new Outbox({ ...bounds, maxQueuedBytes: 200 }, undefined, 0);
    expect(small.enqueue(req('big', undefined, 'x'.repeat(300)), 'signal', 0)).toEqual({
      refused: expect.objectContaining({ type: 'OutboxFull' }),
    });
  });

  it('carries its queue and outcomes, with long failure messages shortened', () => {
    const outbox = new Outbox(bounds, undefined, 0);
    outbox.enqueue(req('queued', 4), 'signal', 4);
    outbox.outcomes.set('failed', { ok: false, type: 'SendInvalid', message: 'e'.repeat(5000), attempts: 1 });
    const state = outbox.snapshot();
    expect(state.queue).toEqual([req('queued', 4)]);
    expect(JSON.stringify(state.outcomes).length).toBeLessThan(500);
    const next = new Outbox(bounds, state, 9);
    expect(next.length).toBe(1);
    expect(next.enqueue(req('failed'), 'signal', 9)).toBe('duplicate');
  });
});
