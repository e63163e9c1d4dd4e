import { waitFor } from '../support/temporal';
import { recordHistory } from '../support/histories';
import { engineSuite, failureTypeOf } from './support';

const WINDOW_MS = 6000;

describe('outbox pacing', () => {
  const suite = engineSuite();

  it('sends 30 replies requested at once with zero 429s: 12 at once, the 13th when the oldest ages out, in arrival order', async () => {
    const engine = await suite.start({ windowMs: WINDOW_MS });
    await engine.startWorker();
    // Let the first poll (discovery) happen so all 30 arrive while the loop is long-polling.
    await waitFor('the agent to poll', async () => (await engine.transcript()).counts.requests.updates > 0);
    for (let i = 1; i <= 30; i++) await engine.human(`echo ${i}`);

    const transcript = await waitFor(
      '30 replies',
      async () => {
        const t = await engine.transcript();
        return t.sent.length >= 30 && t;
      },
      { timeoutMs: 60_000 },
    );
    const texts = transcript.sent.map((s) => (s.body as { text: { body: string } }).text.body);
    expect(texts).toEqual(Array.from({ length: 30 }, (_, i) => String(i + 1)));
    expect(transcript.counts.status429.messages).toBe(0);
    expect(transcript.counts.overlappingSends).toBe(0);

    const at = transcript.sent.map((s) => s.realAt);
    // A burst of 12 goes out at once (well inside one window)...
    expect(at[11] - at[0]).toBeLessThan(WINDOW_MS - 1000);
    // ...the 13th exactly when the oldest ages out (plus the pacing margin and scheduling)...
    expect(at[12] - at[0]).toBeGreaterThanOrEqual(WINDOW_MS);
    expect(at[12] - at[0]).toBeLessThan(WINDOW_MS + 1500);
    // ...and no rolling window ever holds more than 12.
    for (let i = 12; i < at.length; i++) expect(at[i] - at[i - 12]).toBeGreaterThanOrEqual(WINDOW_MS);
    await recordHistory(engine.client.workflow.getHandle(engine.agentWorkflowId), 'agent-pacing-30');
  });

  it.each([
    ['429 with Retry-After', { kind: 'rate_limit', retryAfter: 1 } as const, 429],
    ['429 without Retry-After', { kind: 'rate_limit', retryAfter: null } as const, 429],
    ['503 not accepted', { kind: 'not_accepted' } as const, 503],
  ])('waits out a %s and sends exactly once', async (_name, fault, status) => {
    const engine = await suite.start({ windowMs: WINDOW_MS });
    await engine.startWorker();
    await engine.sim.control.fault({ agent: engine.agentKey, endpoint: 'messages', count: 1, fault });
    const id = await engine.human('echo once');
    await waitFor('the reply', async () => (await engine.sentTexts()).length === 1, { timeoutMs: 30_000 });
    // The handler completed: the send succeeded after the rejection.
    await engine.client.workflow.getHandle(engine.handlerWorkflowId(id)).result();
    const log = (await engine.sim.control.log(engine.agentKey)).filter((e) => e.endpoint === 'messages');
    expect(log.map((e) => e.status)).toEqual([status, 200]);
    if (fault.kind === 'rate_limit' && fault.retryAfter === 1) {
      expect(log[1].at - log[0].at).toBeGreaterThanOrEqual(1000);
    }
    expect(await engine.sentTexts()).toEqual(['once']);
  });

  it('gives up after the spec’s three retries: four attempts, then SendRejected, nothing sent', async () => {
    const engine = await suite.start({ windowMs: WINDOW_MS });
    await engine.startWorker();
    await engine.sim.control.fault({
      agent: engine.agentKey,
      endpoint: 'messages',
      count: 10,
      fault: { kind: 'rate_limit', retryAfter: null },
    });
    const id = await engine.human('probe never accepted');
    expect(await failureTypeOf(engine, id)).toBe('SendRejected');
    const log = (await engine.sim.control.log(engine.agentKey)).filter((e) => e.endpoint === 'messages');
    expect(log.map((e) => e.status)).toEqual([429, 429, 429, 429]);
    // The 5/10/20 s ladder (scaled to 0.5/1/2 s in these suites) between the attempts.
    expect(log[1].at - log[0].at).toBeGreaterThanOrEqual(500);
    expect(log[2].at - log[1].at).toBeGreaterThanOrEqual(1000);
    expect(log[3].at - log[2].at).toBeGreaterThanOrEqual(2000);
    await engine.sim.control.clearFaults(engine.agentKey);
  });
});
