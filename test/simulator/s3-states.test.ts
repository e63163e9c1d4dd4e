/** Spec 3: the read state of an inbound message in the update buffer, and buffer retention. */
import { DAY_MS, pageOf, startHarness, type Harness } from './support';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ limits: { updates: 100_000, messages: 100_000, statuses: 100_000 } });
});
afterAll(() => h.sim.close());
beforeEach(() => h.sim.control.reset());

const ids = (page: { messages: { id: string }[] }): string[] => page.messages.map((m) => m.id);

describe('states table', () => {
  it('Unread + polling -> Unread: the entry stays and the same offset can be read again', async () => {
    const { id, offset } = await h.sim.control.humanText('unread');
    expect(ids(pageOf(await h.agent.poll({ offset, timeout: 0 })))).toEqual([id]);
    expect(ids(pageOf(await h.agent.poll({ offset, timeout: 0 })))).toEqual([id]);
  });

  it('Unread stays readable at the same offset for 30 days', async () => {
    const { id, offset } = await h.sim.control.humanText('unread');
    await h.sim.control.advanceClock(30 * DAY_MS - 60_000);
    expect(ids(pageOf(await h.agent.poll({ offset, timeout: 0 })))).toEqual([id]);
  });

  it('Unread + POST /statuses for that id -> Read: the message leaves the buffer; a replay no longer returns it', async () => {
    const a = await h.sim.control.humanText('a');
    const b = await h.sim.control.humanText('b');
    expect((await h.agent.markRead(a.id)).json).toEqual({ success: true });
    expect(ids(pageOf(await h.agent.poll({ offset: 0, timeout: 0 })))).toEqual([b.id]);
    expect((await h.sim.control.transcript()).inbound.find((m) => m.id === a.id)?.markedRead).toBe(true);
  });

  it('Receipt for an own message + marking read -> Unchanged: receipts stay in the buffer', async () => {
    const { id: inbound } = await h.sim.control.humanText('question');
    const sent = await h.agent.sendTextId('answer');
    await h.sim.control.waitFor(
      (c) => c.transcript(),
      (t) => t.sent[0]?.receipts.includes('delivered'),
    );
    await h.agent.markRead(inbound);
    const page = pageOf(await h.agent.poll({ offset: 0, timeout: 0 }));
    expect(page.messages).toEqual([]);
    expect(page.statuses.map((s) => [s.id, s.status])).toEqual([
      [sent, 'sent'],
      [sent, 'delivered'],
    ]);
  });

  it('a replay returns only what was never marked read, plus receipts, in sequence order', async () => {
    const a = await h.sim.control.humanText('a');
    const sent = await h.agent.sendTextId('reply');
    const b = await h.sim.control.humanText('b');
    const c = await h.sim.control.humanText('c');
    await h.agent.markRead(b.id);
    const page = pageOf(await h.agent.poll({ offset: a.offset, timeout: 0 }));
    expect(ids(page)).toEqual([a.id, c.id]);
    expect(page.statuses.map((s) => s.id)).toContain(sent);
    expect(page.nextOffset).toBe(c.offset + 1);
  });

  it('marking read twice keeps the message read and answers success', async () => {
    const { id } = await h.sim.control.humanText('twice');
    await h.agent.markRead(id);
    const again = await h.agent.markRead(id);
    expect([again.status, again.json]).toEqual([200, { success: true }]);
    expect(ids(pageOf(await h.agent.poll({ offset: 0, timeout: 0 })))).toEqual([]);
  });

  it('a long poll does not wake for a message that was marked read before it arrived in view', async () => {
    const { id, offset } = await h.sim.control.humanText('read early');
    await h.agent.markRead(id);
    expect((await h.agent.poll({ offset, timeout: 0 })).status).toBe(204);
  });
});

describe('retention', () => {
  it('keeps entries for 30 days and drops them after', async () => {
    const { offset } = await h.sim.control.humanText('old');
    await h.agent.sendTextId('old reply');
    await h.sim.control.advanceClock(30 * DAY_MS + 1);
    const { id: fresh } = await h.sim.control.humanText('new');
    const page = pageOf(await h.agent.poll({ offset, timeout: 0 }));
    expect(ids(page)).toEqual([fresh]);
    expect(page.statuses.every((s) => s.status !== 'sent')).toBe(true);
  });

  it('answers 204 at an old offset once everything there has aged out', async () => {
    const { offset } = await h.sim.control.humanText('old');
    await h.sim.control.advanceClock(31 * DAY_MS);
    expect((await h.agent.poll({ offset, timeout: 0 })).status).toBe(204);
  });
});
