import { type Queued, SendInFlight } from '../../../workflows/engine/outbox';

const req = (extra: Partial<Queued> = {}): Queued => ({
  requestId: 'r1',
  message: { type: 'text', text: { body: 'hi' } },
  via: 'signal',
  orderKey: 1,
  index: 0,
  ...extra,
});

describe('send in flight', () => {
  it('holds the attempt from its start until it is settled', () => {
    const inFlight = new SendInFlight();
    expect(inFlight.current).toBeUndefined();
    const r = req();
    inFlight.attempt(r);
    expect(inFlight.current).toBe(r);
    inFlight.settled();
    expect(inFlight.current).toBeUndefined();
  });

  it('counts reconciliations; each end counts once', () => {
    const inFlight = new SendInFlight();
    const first = inFlight.reconcile();
    const second = inFlight.reconcile();
    expect(inFlight.reconciling).toBe(2);
    first();
    first();
    expect(inFlight.reconciling).toBe(1);
    second();
    expect(inFlight.reconciling).toBe(0);
  });

  it('tells a question that takes the next message or bare words from any other send', () => {
    const inFlight = new SendInFlight();
    const cases: [Partial<Queued>, boolean][] = [
      [{ expectReply: true, requester: 'wf' }, true],
      [{ expectReply: true, requester: 'wf', waitNextToo: false }, false],
      [{ expectReply: true, requester: 'wf', waitNextToo: false, answerWords: ['yes'] }, true],
      [{ expectReply: true }, false],
      [{ requester: 'wf' }, false],
    ];
    for (const [extra, question] of cases) {
      inFlight.attempt(req(extra));
      expect(inFlight.questionInFlight).toBe(question);
    }
    inFlight.settled();
    expect(inFlight.questionInFlight).toBe(false);
  });
});
