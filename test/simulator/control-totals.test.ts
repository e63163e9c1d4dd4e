/**
 * GET /_control/totals: every agent's request counters summed in one answer (the fleet bench
 * asks it when thousands of agents have each polled), counted as the per-agent transcripts
 * count them, reset with them, and loopback-only like the rest of the control API.
 */
import { AgentHttp, CREATOR, pollIsWaiting, startHarness, type Harness } from './support';

let h: Harness;
let second: AgentHttp;
let third: AgentHttp;
beforeAll(async () => {
  h = await startHarness({
    agents: [
      { id: 'one', token: 'token-one', creator: CREATOR },
      { id: 'two', token: 'token-two', creator: CREATOR },
      { id: 'three', token: 'token-three', creator: CREATOR },
    ],
  });
  second = new AgentHttp(h.sim.url, 'token-two');
  third = new AgentHttp(h.sim.url, 'token-three');
});
afterAll(() => h.sim.close());

describe('GET /_control/totals', () => {
  it('sums the agents’ requests per endpoint and counts the agents that made one', async () => {
    const before = await h.sim.control.totals();
    expect(before.agents).toBe(3);
    expect(before.endpoints.updates).toEqual({ requests: 0, agents: 0 });
    expect(before.polling).toBe(0);

    expect((await h.agent.poll({ timeout: 0 })).status).toBe(200);
    expect((await h.agent.poll({ timeout: 0 })).status).toBe(200);
    expect((await second.poll({ timeout: 0 })).status).toBe(200);
    expect((await second.sendText('hi')).status).toBe(200);
    // A request that fails auth is no agent's request.
    expect((await h.agent.poll({ timeout: 0 }, { token: 'nobody' })).status).toBe(401);

    const after = await h.sim.control.totals();
    expect(after.endpoints.updates).toEqual({ requests: 3, agents: 2 });
    expect(after.endpoints.messages).toEqual({ requests: 1, agents: 1 });
    expect(after.endpoints.statuses).toEqual({ requests: 0, agents: 0 });
    // The same counters as the transcripts'.
    const perAgent = await Promise.all(['one', 'two', 'three'].map((a) => h.sim.control.transcript(a)));
    expect(perAgent.map((t) => t.counts.requests.updates)).toEqual([2, 1, 0]);
  });

  it('counts the long polls waiting now', async () => {
    const abort = new AbortController();
    const waiting = third.poll({ timeout: 20 }, { signal: abort.signal }).catch(() => undefined);
    await pollIsWaiting(h.sim, 'three');
    expect((await h.sim.control.totals()).polling).toBe(1);
    abort.abort();
    await waiting;
    await h.sim.control.waitFor(
      (c) => c.totals(),
      (t) => t.polling === 0,
    );
  });

  it('forgets an agent’s requests when it is reset', async () => {
    const before = (await h.sim.control.totals()).endpoints.updates;
    await h.sim.control.reset('one');
    const after = (await h.sim.control.totals()).endpoints.updates;
    expect(after.agents).toBe(before.agents - 1);
    expect(after.requests).toBe(before.requests - 2);
  });

  it('answers only GET', async () => {
    const res = await fetch(`${h.sim.origin}/_control/totals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(405);
  });
});
