/**
 * A poison message (issue 37): a page member that does not fit the schema, injected through the
 * real simulator over HTTP, no longer fails its page on every poll. The poll activity hands the
 * page on with the good messages as they came and the poison one as type `unknown` (its envelope
 * kept, why it did not fit, the message as received), lists it in `misfits`, and its next offset
 * is past all of them; the unknown message can be marked read like any other.
 */
import type { MarkReadReport } from '../../activities/mark-reads';
import type { MarkReadInput, PollOutput } from '../../activities/types';
import { AGENT, activitiesOnSimulator } from '../support/activities-on-simulator';
import { engineClient } from '../support/engine-client';

const CREATOR = 'user:1001';

describe('a poison message on a page', () => {
  const on = activitiesOnSimulator();
  const poll = (offset: number): Promise<PollOutput> =>
    on.env().run(on.acts.pollUpdates, { agentKey: AGENT, offset, limit: 50, timeoutSeconds: 0 });

  it('hands the good messages on as they came and the poison ones as `unknown`, the offset past all', async () => {
    const before = await on.sim.control.humanText('before');
    // The simulator passes members it does not check through as given.
    const imageFive = await on.sim.control.human({
      type: 'text',
      text: { body: 'with a bad image' },
      image: 5,
    });
    const numericBody = await on.sim.control.human({
      type: 'location',
      location: { lat: 1 },
      text: { body: 5 },
    });
    const after = await on.sim.control.humanText('after');

    const out = await poll(0);

    expect(out.status).toBe('page');
    if (out.status !== 'page') return;
    expect(out.messages.map((m) => m.id)).toEqual([before.id, imageFive.id, numericBody.id, after.id]);
    expect(out.messages[0]).toMatchObject({ type: 'text', text: { body: 'before' } });
    expect(out.messages[3]).toMatchObject({ type: 'text', text: { body: 'after' } });
    expect(out.messages[1]).toMatchObject({
      id: imageFive.id,
      from: CREATOR,
      timestamp: expect.stringMatching(/^\d+$/),
      type: 'unknown',
      unknown: {
        type: 'text',
        problems: ['image: expected object, got number'],
        raw: { type: 'text', image: 5, text: { body: 'with a bad image' } },
      },
    });
    expect(out.messages[2]).toMatchObject({
      type: 'unknown',
      unknown: { type: 'location', problems: ['text.body: expected string, got number'] },
    });
    expect(out.misfits).toEqual([
      expect.objectContaining({ kind: 'message', action: 'unknown', id: imageFive.id }),
      expect.objectContaining({ kind: 'message', action: 'unknown', id: numericBody.id }),
    ]);
    expect(out.nextOffset).toBe(after.offset + 1);

    // The agent moves on: nothing is left at the next offset, and the poison one is marked read.
    expect(await poll(out.nextOffset)).toMatchObject({ status: 'empty' });
    const input: MarkReadInput = { agentKey: AGENT, messageIds: [imageFive.id] };
    const read = await on
      .env()
      .run<[MarkReadInput], MarkReadReport, typeof on.acts.markRead>(on.acts.markRead, input);
    expect(read.done).toEqual([imageFive.id]);
  });

  it('keeps the quoting context of a poison message, and the client loop goes on past it', async () => {
    const quoted = await on.sim.control.humanText('quoted');
    const poison = await on.sim.control.human({
      type: 'text',
      text: { body: 'quoting' },
      reaction: 'not an object',
      context: { id: quoted.id },
    });
    const out = await poll(0);
    expect(out).toMatchObject({
      status: 'page',
      messages: [
        { id: quoted.id, type: 'text' },
        { id: poison.id, type: 'unknown', context: { id: quoted.id, from: CREATOR } },
      ],
    });

    // The plain poll loop of the client (no Temporal) does not stop at it either.
    const own = engineClient(on.sim);
    const seen: string[] = [];
    const loop = new AbortController();
    try {
      for await (const event of own.poll({ timeout: 0 }, { signal: loop.signal })) {
        if (event.kind === 'message') seen.push(`${event.message.id}:${event.message.type}`);
        if (seen.length === 2) loop.abort();
      }
    } finally {
      await own.close();
    }
    expect(seen).toEqual([`${quoted.id}:text`, `${poison.id}:unknown`]);
  });
});
