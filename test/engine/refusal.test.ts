/**
 * A final refusal stops the retrying (issue 19, point 5), with real worker processes, the dev
 * server and the simulator: a refused token stops the agent's polling at once, with one log line
 * (no task token, no stack), `amsflow state` and `/readyz` saying `unauthorized` with the fix, a
 * metric counting it, sends failing at once with `SendUnauthorized`; and the agent resumes once
 * the token works again (a worker restarted with a good token, or `amsflow agent resume`).
 */
import { main as cli } from '../../client/cli';
import { sendThroughOutbox, getAgentState } from '../../client/agents';
import { textMessage } from '../../workflows/author/builders';
import { freePort } from '../../worker/dev-server';
import type { AgentStateView } from '../../protocol';
import { devServerAddress, waitFor } from '../support/temporal';
import { engineSuite, failureTypeOf, type Engine } from './support';
import { sample } from '../support/metrics-sample';

async function get(url: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url);
  return { status: res.status, text: await res.text() };
}

const state = (engine: Engine) => getAgentState(engine.client, engine.agentKey) as Promise<AgentStateView>;

/** Real time passing, where the old behaviour retried: at 1, 2 and 4 s after the refusal. */
const passing = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a final refusal stops the retrying', () => {
  const suite = engineSuite();

  it('a wrong token: unauthorized at once, one log line, /readyz and a metric say so; a restart with the right token resumes', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const engine = await suite.start({
      windowMs: 2000,
      env: {
        AMS_TOKEN: 'wrong-token-0123456789',
        AMSFLOW_METRICS_PORT: String(port),
        AMSFLOW_HEALTH_CHECK_MS: '300',
      },
    });
    let started = Date.now();
    const worker = await engine.startWorker();
    const startMs = Date.now() - started;
    started = Date.now();
    const stopped = await waitFor('the agent to stop as unauthorized', async () => {
      const s = await state(engine);
      return s?.status === 'unauthorized' && s;
    });
    const quickly = Date.now() - started;
    const mark = (what: string) => console.log(`${what}: ${Date.now() - started} ms`);
    expect(stopped.refusal).toMatchObject({
      status: 'unauthorized',
      where: 'poll',
      httpStatus: 401,
      fix: `the token of agent ${engine.agentKey} was refused (401): set a valid token and restart the worker, or run \`amsflow agent resume ${engine.agentKey}\``,
    });
    expect(stopped.poll.dueBy).toBeUndefined();

    const ready = await waitFor('/readyz to report the agent', async () => {
      const r = await get(`${base}/readyz`);
      return (
        r.status === 503 && r.text.includes('unauthorized') && (JSON.parse(r.text) as { agents?: unknown[] })
      );
    });
    expect(ready).toMatchObject({
      ready: false,
      reason: `agent ${engine.agentKey} is unauthorized: ${stopped.refusal!.fix}`,
      agents: [{ agentKey: engine.agentKey, status: 'unauthorized' }],
    });

    // A send asked for meanwhile fails at once, typed, instead of waiting forever.
    const outcome = await sendThroughOutbox(engine.client, engine.agentKey, textMessage('anyone?'));
    expect(outcome).toMatchObject({ ok: false, type: 'SendUnauthorized', attempts: 0 });

    mark('refused, readyz, send');
    await passing(6000);
    const metrics = (await get(`${base}/metrics`)).text;
    const agent = { agent: engine.agentKey };
    expect(
      sample(metrics, 'amsflow_agent_refusals_total', { ...agent, endpoint: 'updates', status: '401' }),
    ).toBe(1);
    expect(sample(metrics, 'amsflow_polls_total', { ...agent, outcome: 'failed' })).toBe(1);
    expect(sample(metrics, 'amsflow_agent_up', agent)).toBe(0);
    expect(sample(metrics, 'amsflow_agent_status', { ...agent, status: 'unauthorized' })).toBe(1);
    const lines = worker.output.filter((l) => l.includes('[WARN]') || l.includes('[ERROR]'));
    expect(lines.filter((l) => l.includes('stopped polling'))).toHaveLength(1);
    expect(lines.join('\n')).not.toMatch(/taskToken|Activity failed|\n\s+at /);
    expect(lines.find((l) => l.includes('stopped polling'))!.length).toBeLessThan(700);

    // The token works again: a worker started with it resumes the agent.
    expect(await worker.stop()).toBe(0);
    engine.options.env!.AMS_TOKEN = engine.token;
    await engine.startWorker();
    mark('restarted');
    await engine.human('echo back again');
    await waitFor('the reply', async () => (await engine.sentTexts()).includes('back again'), {
      timeoutMs: 40_000,
    });
    expect(await state(engine)).toMatchObject({ status: 'running' });
    expect((await state(engine)).refusal).toBeUndefined();
    await waitFor('/readyz 200', async () => (await get(`${base}/readyz`)).status === 200);
    console.log(
      `measured: worker start ${startMs} ms; the agent unauthorized ${quickly} ms after it said running`,
    );
  }, 240_000);

  it('a token revoked mid-run: no further polls (counted at the simulator); `amsflow agent resume` resumes', async () => {
    const engine = await suite.start({ windowMs: 2000 });
    await engine.startWorker();
    await waitFor('the agent to poll', async () => (await engine.transcript()).counts.requests.updates > 0);
    await engine.sim.control.fault('updates', { kind: 'bad_token' }, { count: 1000 });
    await waitFor(
      'the agent to stop as unauthorized',
      async () => (await state(engine))?.status === 'unauthorized',
    );
    await passing(6000);
    const polls = (await engine.sim.control.log(engine.agentKey)).filter((e) => e.endpoint === 'updates');
    const refused = polls.filter((e) => e.status === 401);
    expect(refused).toHaveLength(1);
    expect(polls.filter((e) => e.at > refused[0].at)).toEqual([]);

    await engine.sim.control.clearFaults(engine.agentKey);
    const env = { TEMPORAL_ADDRESS: devServerAddress(), AMSFLOW_TASK_QUEUE: engine.taskQueue };
    const out: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((line: string) => void out.push(line));
    try {
      expect(await cli(['agent', 'resume', engine.agentKey], env)).toBe(0);
    } finally {
      log.mockRestore();
    }
    expect(out.join('\n')).toContain(`agent "${engine.agentKey}" resumed: it polls again`);
    await engine.human('echo resumed');
    await waitFor('the reply', async () => (await engine.sentTexts()).includes('resumed'), {
      timeoutMs: 40_000,
    });
  }, 180_000);

  it('a 401 on a send stops the agent too: the send fails typed; resumed, it sends again', async () => {
    const engine = await suite.start({ windowMs: 2000 });
    await engine.startWorker();
    await engine.sim.control.fault('messages', { kind: 'bad_token' }, { count: 1 });
    const id = await engine.human('probe hello');
    expect(await failureTypeOf(engine, id)).toBe('SendUnauthorized');
    expect(await state(engine)).toMatchObject({
      status: 'unauthorized',
      refusal: { where: 'send', httpStatus: 401 },
    });
    const env = { TEMPORAL_ADDRESS: devServerAddress() };
    const err: string[] = [];
    const spy = jest.spyOn(console, 'log').mockImplementation((line: string) => void err.push(line));
    try {
      expect(await cli(['agent', 'resume', engine.agentKey], env)).toBe(0);
    } finally {
      spy.mockRestore();
    }
    await engine.human('echo after');
    await waitFor('the reply', async () => (await engine.sentTexts()).includes('after'), {
      timeoutMs: 40_000,
    });
  }, 180_000);
});
