/** Spec 5 authentication: bearer token on every request, limits per agent, User-Agent. */
import { codeOf, startHarness, type Harness } from './support';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    agents: [
      { id: 'demo', token: 'sim-token', creator: 'user:1001' },
      { id: 'other', token: 'other-token', creator: 'user:2002' },
    ],
  });
});
afterAll(() => h.sim.close());
beforeEach(async () => {
  await h.sim.control.reset('demo');
  await h.sim.control.reset('other');
});

const routes: [string, string][] = [
  ['POST', '/messages'],
  ['GET', '/updates?offset=0&timeout=0'],
  ['POST', '/statuses'],
  ['POST', '/media'],
  ['GET', '/media/1'],
  ['DELETE', '/media/1'],
  ['GET', '/media/1/download'],
];

describe.each([
  ['no Authorization header', null],
  ['an unknown token', 'not-a-token'],
])('with %s', (_name, token) => {
  it.each(routes)('%s %s answers 401 with error code 190', async (method, path) => {
    const reply = await h.agent.request(method, path, {
      token,
      ...(method === 'POST' ? { json: { to: 'user:1001', type: 'text', text: { body: 'x' } } } : {}),
    });
    expect([reply.status, codeOf(reply)]).toEqual([401, 190]);
  });
});

it('rejects a non-Bearer scheme with 401 code 190', async () => {
  const reply = await h.agent.request('GET', '/updates?timeout=0', {
    token: null,
    headers: { authorization: 'Basic c2ltLXRva2Vu' },
  });
  expect([reply.status, codeOf(reply)]).toEqual([401, 190]);
});

it('changes nothing for a request with a bad token', async () => {
  await h.agent.request('POST', '/messages', {
    token: 'nope',
    json: { to: 'user:1001', type: 'text', text: { body: 'x' } },
  });
  const t = await h.sim.control.transcript();
  expect([t.sent, t.counts.requests.messages]).toEqual([[], 0]);
});

it('identifies the agent by its token', async () => {
  const reply = await h.agent.request('GET', '/updates?offset=0&timeout=0', { token: 'other-token' });
  expect(reply.json.entry[0].changes[0].value.contacts[0].wa_id).toBe('user:2002');
});

it('counts limits per agent: one agent at its limit does not limit another', async () => {
  for (let i = 0; i < 12; i++) await h.agent.sendText(`m${i}`);
  expect((await h.agent.sendText('over')).status).toBe(429);
  const other = await h.agent.send(
    { to: 'user:2002', type: 'text', text: { body: 'fine' } },
    { token: 'other-token' },
  );
  expect(other.status).toBe(200);
});

it('accepts a client User-Agent header', async () => {
  const reply = await h.agent.request('GET', '/updates?offset=0&timeout=0', {
    headers: { 'user-agent': 'amsflow-test/1.0' },
  });
  expect(reply.status).toBe(200);
});

it('serves the default agent with a new random token each start, never a fixed one', async () => {
  const [a, b] = await Promise.all([startHarness(), startHarness()]);
  try {
    for (const started of [a, b]) {
      expect(started.sim.token).toMatch(/^sim-[0-9a-f]{24}$/);
      const guessed = await started.agent.request('GET', '/updates?offset=0&timeout=0', {
        token: 'sim-token',
      });
      expect(guessed.status).toBe(401);
    }
    expect(a.sim.token).not.toBe(b.sim.token);
  } finally {
    await Promise.all([a.sim.close(), b.sim.close()]);
  }
});
