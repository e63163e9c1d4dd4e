/**
 * Faults that never make a send ambiguous, on every endpoint, while the worker is SIGKILLed:
 * every retry is visible to the window that paces it (so the service never has to answer 429
 * on its own), nothing is lost or doubled, and every message is marked read in the end.
 */
import type { Endpoint, Fault } from '../../simulator/wire';
import { waitFor } from '../support/temporal';
import { engineSuite, type WorkerProcess } from './support';

const MESSAGES = 40;
const KILLS = 3;

/** One fault of each kind that leaves a send unambiguous, per endpoint, injected in turn. */
const FAULTS: [Endpoint, Fault][] = [
  ['messages', { kind: 'rate_limit', retryAfter: 1 }],
  ['updates', { kind: 'poll_replaced' }],
  ['statuses', { kind: 'rate_limit', retryAfter: null }],
  ['messages', { kind: 'not_accepted' }],
  ['updates', { kind: 'rate_limit', retryAfter: 1 }],
  ['statuses', { kind: 'not_accepted' }],
  ['messages', { kind: 'rate_limit', retryAfter: null }],
  ['updates', { kind: 'not_accepted' }],
  ['statuses', { kind: 'drop_before' }],
  ['updates', { kind: 'drop_before' }],
  ['statuses', { kind: 'drop_after' }],
  ['updates', { kind: 'malformed_json' }],
  ['updates', { kind: 'rate_limit', retryAfter: null }],
  ['updates', { kind: 'drop_after' }],
  ['updates', { kind: 'slow', delayMs: 800 }],
  ['statuses', { kind: 'rate_limit', retryAfter: 1 }],
];

describe('faults on every endpoint with worker kills', () => {
  const suite = engineSuite();

  it(`answers ${MESSAGES} messages exactly once with zero 429s served by the limiter, and marks every one read`, async () => {
    const engine = await suite.start({
      windowMs: 3000,
      tuning: { rateLimitBackoffMs: 1000, backoffBaseMs: 200 },
    });
    let worker: WorkerProcess = await engine.startWorker();
    await waitFor('the agent to poll', async () => (await engine.transcript()).counts.requests.updates > 0);

    const injected429: Partial<Record<Endpoint, number>> = {};
    let nextFault = 0;
    const killEvery = Math.floor(MESSAGES / (KILLS + 1));
    for (let i = 1; i <= MESSAGES; i++) {
      await engine.human(`echo ${i}`);
      if (i % 2 === 0 && nextFault < FAULTS.length) {
        const [endpoint, fault] = FAULTS[nextFault++];
        if (fault.kind === 'rate_limit') injected429[endpoint] = (injected429[endpoint] ?? 0) + 1;
        await engine.sim.control.fault({ agent: engine.agentKey, endpoint, count: 1, fault });
      }
      if (i % killEvery === 0 && i < MESSAGES) {
        await worker.kill();
        worker = await engine.startWorker();
      }
      await new Promise((r) => setTimeout(r, 150));
    }

    const expected = Array.from({ length: MESSAGES }, (_, i) => String(i + 1));
    const diagnose = async (err: Error): Promise<never> => {
      const t = await engine.transcript();
      const state = await engine.client.workflow
        .getHandle(engine.agentWorkflowId)
        .query('amsflow.state')
        .catch(String);
      const all = await engine.sim.control.log(engine.agentKey);
      const log = [...all.filter((e) => e.endpoint === 'messages' && e.status !== 200), ...all.slice(-5)];
      throw new Error(
        `${err.message}\nsent: ${(await engine.sentTexts()).join(',')}\nunread: ${t.inbound.filter((m) => !m.markedRead).length}` +
          `\nstate: ${JSON.stringify(state)}\nlog: ${JSON.stringify(log)}\nworker: ${worker.output.slice(-10).join('\n')}`,
      );
    };
    await waitFor(
      `${MESSAGES} replies`,
      async () => (await engine.sentTexts()).filter((t) => /^\d+$/.test(t)).length >= MESSAGES,
      { timeoutMs: 120_000 },
    ).catch(diagnose);
    await waitFor(
      'every message marked read and every fault consumed',
      async () => {
        const t = await engine.transcript();
        const faults = await engine.sim.control.faults({ agent: engine.agentKey });
        return t.inbound.every((m) => m.markedRead) && faults.length === 0;
      },
      { timeoutMs: 120_000 },
    ).catch(async (err: Error) => {
      const t = await engine.transcript();
      const state = await engine.client.workflow
        .getHandle(engine.agentWorkflowId)
        .query('amsflow.state')
        .catch(String);
      throw new Error(
        `${err.message}\nunread: ${t.inbound.filter((m) => !m.markedRead).length}\nstate: ${JSON.stringify(state)}`,
      );
    });

    const t = await engine.transcript();
    expect(await engine.sentTexts()).toEqual(expected);
    expect(t.counts.overlappingSends).toBe(0);
    // Every 429 the service answered was one we injected: the limiter itself never refused.
    for (const endpoint of ['messages', 'updates', 'statuses'] as const) {
      expect({ endpoint, served: t.counts.status429[endpoint] }).toEqual({
        endpoint,
        served: injected429[endpoint] ?? 0,
      });
    }
  }, 300_000);
});
