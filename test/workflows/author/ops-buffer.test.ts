import { OpsBuffer } from '../../../workflows/author/ops-buffer';

const release = (seq: number) => ({ op: 'release' as const, seq });

describe("a conversation's hand-over of its operations", () => {
  it('a handler that never waits hands everything over in its result, nothing by signal', () => {
    const buffer = new OpsBuffer('result');
    const n = buffer.add(release(1));
    // Resolved at once: the op goes with the result.
    expect(buffer.hasArrived(n)).toBe(true);
    buffer.add({ op: 'typing', messageId: 'm1' });
    expect(buffer.end()).toEqual([release(1), { op: 'typing', messageId: 'm1' }]);
    // Ending: no signal any more.
    buffer.add(release(2));
    expect(buffer.wantsSignal()).toBe(false);
  });

  it('the first batch by signal switches to signal hand-over for good; the end then returns nothing', () => {
    const buffer = new OpsBuffer('result');
    buffer.add(release(1));
    expect(buffer.wantsSignal()).toBe(true);
    const batch = buffer.takeBatch();
    expect(batch).toEqual({ ops: [release(1)], last: 1 });
    expect(buffer.handover).toBe('signal');
    const n = buffer.add(release(2));
    // One batch at a time: the next waits until the first has arrived.
    expect(buffer.wantsSignal()).toBe(false);
    expect(buffer.hasArrived(n)).toBe(false);
    buffer.delivered(batch.last);
    expect(buffer.idle).toBe(true);
    expect(buffer.wantsSignal()).toBe(true);
    expect(buffer.end()).toBeUndefined();
    expect(buffer.pendingCount).toBe(1);
  });

  it('the agent moving on (continue-as-new) switches to signals before the end', () => {
    const buffer = new OpsBuffer('result');
    buffer.add(release(1));
    buffer.moving();
    expect(buffer.handover).toBe('signal');
    expect(buffer.end()).toBeUndefined();
  });

  it('a workflow that is no handler hands over by signal from the start, each op once it arrived', () => {
    const buffer = new OpsBuffer('signal');
    const first = buffer.add(release(1));
    expect(buffer.hasArrived(first)).toBe(false);
    const batch = buffer.takeBatch();
    const second = buffer.add(release(2));
    buffer.delivered(batch.last);
    expect(buffer.hasArrived(first)).toBe(true);
    expect(buffer.hasArrived(second)).toBe(false);
  });

  it('a batch that could not be delivered fails its ops and every later call', () => {
    const buffer = new OpsBuffer('signal');
    const n = buffer.add(release(1));
    const batch = buffer.takeBatch();
    const why = new Error('agent gone');
    buffer.undeliverable(1, batch.last, why);
    expect(() => buffer.hasArrived(n)).toThrow('agent gone');
    expect(buffer.failure).toBe(why);
    expect(buffer.idle).toBe(true);
  });
});
