/**
 * Spec 8 "Client recipient rules", against the simulator.
 */
import { ValidationError } from '../../messaging';
import { CREATOR, rejectionOf, useSimulator } from './support';

/** An identifier full of characters a parser would trip on; the client must pass it back unchanged. */
const ODD_CREATOR = 'user:Zx9:/?#[]@!$&()*+,;=%41~ü';

describe('recipient', () => {
  const { sim, client, recorder } = useSimulator({
    agents: [{ id: 'demo', token: 'sim-token', creator: ODD_CREATOR, creatorName: 'Ada' }],
  });

  it('is discovered with exactly one offset=0&timeout=0 poll by a client that never polled', async () => {
    const rec = recorder();
    const c = client({ dispatcher: rec.dispatcher });
    expect(c.recipient).toBeUndefined();
    await Promise.all([c.sendText('one'), c.sendText('two'), c.discoverRecipient()]);
    const polls = rec.to('/updates');
    expect(polls).toHaveLength(1);
    expect(new URL(polls[0].path, 'http://x').searchParams.toString()).toBe('offset=0&timeout=0');
    expect(c.recipient).toBe(ODD_CREATOR);
    const sent = (await sim().control.transcript()).sent;
    expect(sent.map((s) => s.to)).toEqual([ODD_CREATOR, ODD_CREATOR]);
  });

  it('is never discovered by a client that has polled: a ValidationError says none is known yet', async () => {
    const rec = recorder();
    const c = client({ dispatcher: rec.dispatcher });
    const { offset } = await sim().control.humanText('hi');
    await sim().control.reset(); // the conversation is gone; the poll below sees nothing
    await expect(c.getUpdates({ offset: offset + 5, timeout: 0 })).resolves.toBeNull();
    const err = await rejectionOf(c.sendText('hello'));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toMatch(/No recipient is known yet/);
    expect(rec.to('/messages')).toHaveLength(0);
    expect(rec.to('/updates')).toHaveLength(1);
  });

  it('is learned from a poll and then used without any discovery', async () => {
    const rec = recorder();
    const c = client({ dispatcher: rec.dispatcher });
    const { offset } = await sim().control.humanText('hi');
    await c.getUpdates({ offset, timeout: 0 });
    await c.sendText('reply');
    expect(rec.to('/updates')).toHaveLength(1);
    expect((await sim().control.transcript()).sent[0].to).toBe(ODD_CREATOR);
  });

  it('starts from the recipient option, without any discovery', async () => {
    const rec = recorder();
    const c = client({ dispatcher: rec.dispatcher, recipient: ODD_CREATOR });
    const result = await c.sendText('hello');
    expect(result.recipient).toBe(ODD_CREATOR);
    expect(rec.to('/updates')).toHaveLength(0);
  });

  it('uses `to` when given, with no discovery', async () => {
    const rec = recorder();
    const c = client({ dispatcher: rec.dispatcher });
    await c.sendText('hello', { to: ODD_CREATOR });
    expect(rec.to('/updates')).toHaveLength(0);
    expect(c.recipient).toBe(ODD_CREATOR);
  });

  it('fails without a request when none is known and autoDiscover is off', async () => {
    const rec = recorder();
    const c = client({ dispatcher: rec.dispatcher, autoDiscover: false });
    const err = await rejectionOf(c.sendText('hello'));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toMatch(/autoDiscover is off/);
    expect(rec.requests).toHaveLength(0);
  });

  it('quotes a message by its id with replyTo', async () => {
    const c = client({ recipient: ODD_CREATOR });
    const { id } = await sim().control.humanText('question?');
    await c.sendText('answer', { replyTo: id });
    const conversation = await sim().control.conversation();
    expect(conversation.entries.at(-1)?.context?.id).toBe(id);
  });

  it('rejects a send to another user with 403, nothing sent', async () => {
    const c = client();
    const err = await rejectionOf(c.sendText('hello', { to: CREATOR }));
    expect(err).toMatchObject({ code: 'AMS_API_ERROR', status: 403, errorCode: 131005 });
  });
});
