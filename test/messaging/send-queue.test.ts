/**
 * Spec 4.1 rule 1: sends to one recipient are never concurrent, and their order is kept.
 */
import { CREATOR, rejectionOf, useSimulator } from './support';
import { RequestAbortedError, ValidationError } from '../../messaging';

describe('send queue', () => {
  const { sim, client } = useSimulator();

  it('issues concurrent sends one at a time, in call order, even when the first is slow', async () => {
    const c = client({ recipient: CREATOR });
    await sim().control.fault('messages', { kind: 'slow', delayMs: 300 });
    const bodies = ['one', 'two', 'three', 'four', 'five'];
    await Promise.all([
      c.sendText(bodies[0]),
      c.sendImage('unknown-media').catch(() => undefined), // a rejected send does not block the queue
      ...bodies.slice(1).map((b) => c.sendText(b)),
    ]);
    const transcript = await sim().control.transcript();
    expect(transcript.counts.overlappingSends).toBe(0);
    expect(transcript.sent.map((s) => (s.body.text as { body: string }).body)).toEqual(bodies);
  });

  it('keeps a send retried after a 429 ahead of the sends queued behind it', async () => {
    const c = client({ recipient: CREATOR });
    await sim().control.fault('messages', { kind: 'rate_limit', retryAfter: null });
    await Promise.all(['first', 'second', 'third'].map((b) => c.sendText(b)));
    const transcript = await sim().control.transcript();
    expect(transcript.sent.map((s) => (s.body.text as { body: string }).body)).toEqual([
      'first',
      'second',
      'third',
    ]);
    expect(transcript.counts.overlappingSends).toBe(0);
  });

  it('drops a queued send whose signal aborts before its turn; nothing of it is sent', async () => {
    const c = client({ recipient: CREATOR });
    await sim().control.fault('messages', { kind: 'slow', delayMs: 300 });
    const controller = new AbortController();
    const first = c.sendText('first');
    const second = c.sendText('second', {}, { signal: controller.signal });
    const third = c.sendText('third');
    controller.abort();
    const err = await rejectionOf(second);
    expect(err).toBeInstanceOf(RequestAbortedError);
    expect((err as RequestAbortedError).mayHaveBeenSent).toBe(false);
    await Promise.all([first, third]);
    const sent = (await sim().control.transcript()).sent.map((s) => (s.body.text as { body: string }).body);
    expect(sent).toEqual(['first', 'third']);
  });

  it('rejects an invalid send at once, without waiting for the queue', async () => {
    const c = client({ recipient: CREATOR });
    await sim().control.fault('messages', { kind: 'slow', delayMs: 500 });
    const slow = c.sendText('slow one');
    const started = Date.now();
    await expect(c.sendText('x'.repeat(5000))).rejects.toBeInstanceOf(ValidationError);
    expect(Date.now() - started).toBeLessThan(200);
    await slow;
  });
});
