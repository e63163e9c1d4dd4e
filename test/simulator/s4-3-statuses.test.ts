/** Spec 4.3 POST /statuses and 2.8 acknowledgement: mark read, typing indicator. */
import { codeOf, startHarness, type Harness } from './support';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.sim.close());
beforeEach(() => h.sim.control.reset());

describe('mark read', () => {
  it('answers 200 with the acknowledgement { success: true } (2.8)', async () => {
    const { id } = await h.sim.control.humanText('hi');
    const reply = await h.agent.markRead(id);
    expect([reply.status, reply.json]).toEqual([200, { success: true }]);
  });

  it('shows the read state in the conversation of the web chat', async () => {
    const { id } = await h.sim.control.humanText('hi');
    await h.agent.markRead(id);
    const entry = (await h.sim.control.conversation()).entries.find((e) => e.id === id);
    expect(entry?.markedRead).toBe(true);
  });

  it.each([
    ['a message id never issued', 'wamid.nope'],
    ["the agent's own message id", 'OWN'],
  ])('rejects %s with 400 code 131009', async (_name, id) => {
    const own = await h.agent.sendTextId('mine');
    const reply = await h.agent.markRead(id === 'OWN' ? own : id);
    expect([reply.status, codeOf(reply)]).toEqual([400, 131009]);
  });

  it.each([
    ['status other than read', { messaging_product: 'x', status: 'delivered', message_id: 'wamid.a' }],
    ['missing message_id', { messaging_product: 'x', status: 'read' }],
    ['missing status', { messaging_product: 'x', message_id: 'wamid.a' }],
    [
      'a typing indicator of an unknown type',
      { status: 'read', message_id: 'wamid.a', typing_indicator: { type: 'audio' } },
    ],
  ])('rejects a body with %s with 400 code 100', async (_name, body) => {
    const reply = await h.agent.request('POST', '/statuses', { json: body });
    expect([reply.status, codeOf(reply)]).toEqual([400, 100]);
  });
});

describe('typing indicator', () => {
  it('answers { success: true }, marks the message read and shows typing to the human', async () => {
    const { id } = await h.sim.control.humanText('hi');
    const reply = await h.agent.typing(id);
    expect([reply.status, reply.json]).toEqual([200, { success: true }]);
    const conversation = await h.sim.control.conversation();
    expect(conversation.typing).toBe(true);
    expect(conversation.entries.find((e) => e.id === id)?.markedRead).toBe(true);
  });

  it('stops showing typing when the agent sends', async () => {
    const { id } = await h.sim.control.humanText('hi');
    await h.agent.typing(id);
    await h.agent.sendTextId('done typing');
    expect((await h.sim.control.conversation()).typing).toBe(false);
  });

  it('stops showing typing after 25 simulated seconds', async () => {
    const { id } = await h.sim.control.humanText('hi');
    await h.agent.typing(id);
    await h.sim.control.advanceClock(25_000);
    await h.sim.control.waitFor(
      (c) => c.conversation(),
      (c) => !c.typing,
    );
  });

  it('uses its own counter, not the send budget or the mark-read counter', async () => {
    const { id } = await h.sim.control.humanText('hi');
    for (let i = 0; i < 12; i++) expect((await h.agent.sendText(`s${i}`)).status).toBe(200);
    for (let i = 0; i < 12; i++) expect((await h.agent.markRead(id)).status).toBe(200);
    expect((await h.agent.sendText('13th')).status).toBe(429);
    expect((await h.agent.markRead(id)).status).toBe(429);
    for (let i = 0; i < 12; i++) expect((await h.agent.typing(id)).status).toBe(200);
    const t = await h.sim.control.transcript();
    expect([t.counts.requests.typing, t.counts.requests.statuses]).toEqual([12, 13]);
  });
});
