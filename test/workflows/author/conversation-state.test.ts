import { Conversation } from '../../../workflows/author/conversation-state';
import type { Channel } from '../../../workflows/author/channel';
import type { RoutedMessage } from '../../../protocol';

/** The rules of one workflow's conversation state, without a server (the channel is never used). */
function conversation(seq?: number): Conversation {
  return new Conversation({
    agentWorkflowId: 'agent-test',
    agentKey: 'test',
    settings: { cancelWords: ['cancel'], commands: {}, cancelledText: false },
    channel: {} as Channel,
    seq,
    startedAt: Date.UTC(2026, 0, 1),
  });
}

const routed = (seq: number, waitId?: number): RoutedMessage => ({
  seq,
  ...(waitId === undefined ? {} : { waitId }),
  message: { id: `m${seq}`, from: 'h', timestamp: '0', type: 'text', text: { body: `hi ${seq}` } },
});

describe("a conversation's state", () => {
  it('each wait has a new id; ending it leaves none active', () => {
    const conv = conversation();
    expect(conv.beginWait()).toBe(1);
    expect(conv.endWait()).toBe(1);
    expect(conv.activeWait).toBeUndefined();
    expect(conv.endWait()).toBeUndefined();
    expect(conv.beginWait()).toBe(2);
    expect(conv.activeWait).toBe(2);
  });

  it('a message routed to a wait that has ended is not taken; one for the active wait brings its turn', () => {
    const conv = conversation();
    const first = conv.beginWait();
    conv.endWait();
    conv.beginWait();
    expect(conv.deliver(routed(5, first))).toBe(false);
    expect(conv.hasMessage).toBe(false);
    expect(conv.takeTurn()).toBeUndefined();
    expect(conv.deliver(routed(6, conv.activeWait))).toBe(true);
    expect(conv.deliver(routed(7))).toBe(true);
    expect(conv.takeMessage()?.seq).toBe(6);
    expect(conv.takeMessage()?.seq).toBe(7);
    expect(conv.hasMessage).toBe(false);
    // The turn of the last message taken, given up once.
    expect(conv.takeTurn()).toBe(7);
    expect(conv.takeTurn()).toBeUndefined();
  });

  it("a handler holds its own message's turn until its first request", () => {
    const conv = conversation(3);
    expect(conv.takeTurn()).toBe(3);
    expect(conv.takeTurn()).toBeUndefined();
  });

  it('receipts keep the furthest status, whatever their order; a failure counts as reached', () => {
    const conv = conversation();
    conv.noteReceipt({ messageId: 'x', status: 'read' });
    conv.noteReceipt({ messageId: 'x', status: 'delivered' });
    expect(conv.receipt('x')?.status).toBe('read');
    expect(conv.receiptReached('x', 'delivered')).toBe(true);
    expect(conv.receiptReached('y', 'sent')).toBe(false);
    conv.noteReceipt({ messageId: 'y', status: 'sent' });
    expect(conv.receiptReached('y', 'read')).toBe(false);
    conv.noteReceipt({ messageId: 'y', status: 'failed' });
    expect(conv.receiptReached('y', 'read')).toBe(true);
  });

  it('an outcome is taken once; a question keeps a success and gives up a failure', () => {
    const conv = conversation();
    conv.recordOutcome('r1', { ok: true, messageId: 'w1', attempts: 1 });
    expect(conv.takeFailure('r1')).toBeUndefined();
    expect(conv.hasOutcome('r1')).toBe(true);
    expect(conv.takeOutcome('r1')).toEqual({ ok: true, messageId: 'w1', attempts: 1 });
    expect(conv.hasOutcome('r1')).toBe(false);
    conv.recordOutcome('r2', { ok: false, type: 'SendRejected', message: 'no', attempts: 1 });
    expect(conv.takeFailure('r2')?.type).toBe('SendRejected');
    expect(conv.hasOutcome('r2')).toBe(false);
  });

  it('the first cancel stays; the human is told once', () => {
    const conv = conversation();
    conv.cancel('operator');
    conv.cancel('human');
    expect(conv.cancelled).toBe('operator');
    expect(conv.markCancelTold()).toBe(true);
    expect(conv.markCancelTold()).toBe(false);
  });

  it('the operators see its name, step and wait', () => {
    const conv = conversation();
    expect(conv.view('wf')).toEqual({
      workflowId: 'wf',
      agentKey: 'test',
      waiting: false,
      startedAt: '2026-01-01T00:00:00.000Z',
    });
    conv.setName('signup');
    conv.setStep('email');
    conv.startWaiting(Date.UTC(2026, 0, 1, 0, 5));
    expect(conv.view('wf')).toEqual({
      workflowId: 'wf',
      agentKey: 'test',
      name: 'signup',
      step: 'email',
      waiting: true,
      waitingSince: '2026-01-01T00:05:00.000Z',
      startedAt: '2026-01-01T00:00:00.000Z',
    });
    conv.stopWaiting();
    conv.setStep(undefined);
    expect(conv.view('wf')).toMatchObject({ waiting: false });
    expect(conv.view('wf')).not.toHaveProperty('step');
    expect(conv.view('wf')).not.toHaveProperty('waitingSince');
  });
});
