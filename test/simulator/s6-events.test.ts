/** Spec 6 events: inbound message types and receipts, both through GET /updates. */
import { CREATOR, pageOf, startHarness, type Harness, type Json } from './support';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ receipts: { deliveredAfterMs: 50 } });
});
afterAll(() => h.sim.close());
beforeEach(() => h.sim.control.reset());

async function lastMessage(): Promise<Json> {
  const page = pageOf(await h.agent.poll({ offset: 0, timeout: 0 }));
  return page.messages[page.messages.length - 1];
}

describe('inbound message types arrive through GET /updates', () => {
  it('text', async () => {
    const { id } = await h.sim.control.humanText('hello');
    expect(await lastMessage()).toEqual({
      from: CREATOR,
      id,
      timestamp: expect.any(String),
      type: 'text',
      text: { body: 'hello' },
    });
  });

  it.each([
    ['image', 'image/jpeg', { caption: 'sunset' }],
    ['video', 'video/mp4', { caption: 'clip' }],
    ['audio', 'audio/ogg', { voice: true }],
    ['document', 'application/pdf', { caption: 'doc', filename: 'report.pdf' }],
    ['sticker', 'image/webp', { animated: true }],
  ])('%s, with the media object filled in', async (type, mime, extra) => {
    const { id: mediaId } = await h.sim.control.uploadHumanMedia(Buffer.from(`${type}-bytes`), mime);
    await h.sim.control.human({ type, [type]: { id: mediaId, ...extra } });
    const message = await lastMessage();
    expect(message.type).toBe(type);
    expect(message[type]).toEqual({
      id: mediaId,
      mime_type: mime,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      ...extra,
    });
  });

  it('reaction (receive-only)', async () => {
    const sent = await h.agent.sendTextId('react to me');
    await h.sim.control.human({ type: 'reaction', reaction: { message_id: sent, emoji: '👍' } });
    expect((await lastMessage()).reaction).toEqual({ message_id: sent, emoji: '👍' });
  });
});

describe('receipts', () => {
  it('refer to the own message through id and arrive sent, then delivered', async () => {
    const sent = await h.agent.sendTextId('hi');
    await h.sim.control.waitFor(
      (c) => c.transcript(),
      (t) => t.sent[0].receipts.length === 2,
    );
    const page = pageOf(await h.agent.poll({ offset: 0, timeout: 0 }));
    expect(page.statuses.map((s) => [s.id, s.status])).toEqual([
      [sent, 'sent'],
      [sent, 'delivered'],
    ]);
  });

  it('arrive read when the human reads the message', async () => {
    const sent = await h.agent.sendTextId('read me');
    await h.sim.control.read(sent);
    const page = pageOf(await h.agent.poll({ offset: 0, timeout: 0 }));
    expect(page.statuses.map((s) => s.status)).toEqual(['sent', 'delivered', 'read']);
    expect((await h.sim.control.transcript()).sent[0].read).toBe(true);
  });

  it('arrive read after readAfterMs when configured', async () => {
    const { sim, agent } = await startHarness({ receipts: { deliveredAfterMs: 0, readAfterMs: 1000 } });
    try {
      await agent.sendTextId('auto-read');
      await sim.control.advanceClock(1000);
      await sim.control.waitFor(
        (c) => c.transcript(),
        (t) => t.sent[0].read,
      );
      expect((await sim.control.transcript()).sent[0].receipts).toEqual(['sent', 'delivered', 'read']);
    } finally {
      await sim.close();
    }
  });

  it('share the sequence with messages', async () => {
    const a = await h.sim.control.humanText('a');
    await h.agent.sendTextId('b');
    const c = await h.sim.control.humanText('c');
    const page = pageOf(await h.agent.poll({ offset: a.offset + 1, timeout: 0, limit: 1 }));
    expect(page.messages).toEqual([]);
    expect(page.statuses).toHaveLength(1);
    expect(page.nextOffset).toBeLessThan(c.offset + 1);
  });
});
