import { Tally } from '../../../workflows/engine/agent-status';

describe('tally', () => {
  it('numbers arrivals from the carried number and counts each event', () => {
    const t = new Tally({
      inboundSeq: 4,
      counters: { received: 4, sent: 2, failedSends: 0, polls: 9, receipts: 3 },
    });
    expect(t.lastSeq).toBe(4);
    expect(t.arrival()).toBe(5);
    expect(t.lastSeq).toBe(5);
    t.received();
    t.polled(3);
    t.receipt();
    t.sent(true);
    t.sent(false);
    expect(t.snapshot()).toEqual({ received: 5, sent: 3, failedSends: 1, polls: 12, receipts: 4 });
  });

  it('starts at zero, and its snapshot is a copy', () => {
    const t = new Tally();
    const before = t.snapshot();
    t.received();
    expect(before.received).toBe(0);
    expect(t.snapshot().received).toBe(1);
    expect(t.lastSeq).toBe(0);
  });
});
