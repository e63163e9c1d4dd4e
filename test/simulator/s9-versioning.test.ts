/** Spec 9 versioning: the version is the path prefix; unknown message types pass through. */
import { pageOf, startHarness, type Harness } from './support';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.sim.close());

it('serves the agent API under a base url ending in /agent/v1', async () => {
  expect(h.sim.url).toMatch(/\/agent\/v1$/);
  expect((await h.agent.poll({ offset: 0, timeout: 0 })).status).toBe(200);
});

it('does not serve other versions', async () => {
  const res = await fetch(`${h.sim.origin}/agent/v2/updates?offset=0&timeout=0`, {
    headers: { authorization: `Bearer ${h.sim.token}` },
  });
  expect(res.status).toBe(404);
});

it('delivers a message of a type unknown to clients with its payload as given', async () => {
  const { offset } = await h.sim.control.human({
    type: 'poll',
    poll: { question: 'tea?', options: ['yes', 'no'] },
  });
  const message = pageOf(await h.agent.poll({ offset, timeout: 0 })).messages[0];
  expect(message).toMatchObject({ type: 'poll', poll: { question: 'tea?', options: ['yes', 'no'] } });
});
