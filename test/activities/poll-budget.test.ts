/**
 * An oversized page (issue 37), through the real simulator over HTTP: a poll result is never
 * larger than the budget (1.5 MB by default, under Temporal's 2 MiB payload limit), so the same
 * page is never fetched for ever. A page too large is read again at the same offset with a
 * smaller limit, each smaller page with its own next offset; an answer over the client's 4 MiB
 * cap too; and a message too large on its own reaches the workflow cut, marked `truncated`, with
 * the receipts around it passed on and the offset after it.
 */
import { pollUpdatesOf, type PollBudget } from '../../activities/polling';
import type { PollOutput } from '../../activities/types';
import { AGENT, activitiesOnSimulator } from '../support/activities-on-simulator';

const CREATOR = 'user:1001';
const KB900 = 900_000;
/** The documented defaults (activities/polling.ts `DEFAULT_POLL_BUDGET`). */
const MAX_RESULT_BYTES = 1_500_000;
const CUT_STRING_BYTES = 16_384;

/** A result's size as Temporal's JSON payload converter encodes it. */
const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

describe('an oversized page', () => {
  const on = activitiesOnSimulator({ maxBodyBytes: 8 * 1024 * 1024 });
  const poll = (offset: number): Promise<PollOutput> =>
    on.env().run(on.acts.pollUpdates, { agentKey: AGENT, offset, limit: 50, timeoutSeconds: 0 });

  /** Every result from `offset` until nothing is left, each checked against the budget. */
  async function drain(
    offset: number,
    read: (offset: number) => Promise<PollOutput> = poll,
    maxBytes = MAX_RESULT_BYTES,
  ): Promise<Extract<PollOutput, { status: 'page' }>[]> {
    const pages: Extract<PollOutput, { status: 'page' }>[] = [];
    for (let i = 0; i < 20; i++) {
      const out = await read(offset);
      expect(jsonBytes(out)).toBeLessThanOrEqual(maxBytes);
      if (out.status !== 'page') return pages;
      pages.push(out);
      offset = out.nextOffset;
    }
    throw new Error('the offset never reached the end');
  }

  it('reads a page of three 900 KB messages again in smaller pages, each under the budget', async () => {
    const sent = [];
    for (const fill of ['a', 'b', 'c']) sent.push(await on.sim.control.humanText(fill.repeat(KB900)));

    const pages = await drain(0);

    // Two of them would be 1.8 MB: one a page, each whole, each page ending at its own offset.
    expect(pages.map((p) => p.messages.map((m) => m.id))).toEqual(sent.map((s) => [s.id]));
    expect(pages.map((p) => p.nextOffset)).toEqual(sent.map((s) => s.offset + 1));
    for (const page of pages) {
      expect(page.messages[0].text?.body).toHaveLength(KB900);
      expect(page.messages[0].truncated).toBeUndefined();
    }
    // The first two pages were read again at limit 1; the poll that was too large is reported
    // for the updates window.
    expect(pages[0]).toMatchObject({ reread: { limit: 1, polls: 1 }, quietPolls: [expect.any(Number)] });
    expect(pages[2].reread).toBeUndefined();
  });

  it("reads a page over the client's 4 MiB cap (five 900 KB messages) again, smaller", async () => {
    const sent = [];
    for (let i = 0; i < 5; i++) sent.push(await on.sim.control.humanText(String(i).repeat(KB900)));
    const pages = await drain(0);
    expect(pages.flatMap((p) => p.messages.map((m) => m.id))).toEqual(sent.map((s) => s.id));
    expect(pages.at(-1)?.nextOffset).toBe(sent[4].offset + 1);
    expect(pages.flatMap((p) => p.messages).every((m) => m.text?.body.length === KB900)).toBe(true);
  });

  it('hands a message too large on its own on cut and marked, the receipts beside it too', async () => {
    // The agent's own message first: its receipts share the sequence with the human's message.
    const own = await on.client.send({ to: CREATOR, type: 'text', text: { body: 'hello' } });
    await new Promise((resolve) => setTimeout(resolve, 400)); // its `delivered` receipt
    const big = await on.sim.control.humanText('x'.repeat(2_000_000));

    const pages = await drain(0);

    const statuses = pages.flatMap((p) => p.statuses);
    expect(statuses.filter((s) => s.id === own.messageId).map((s) => s.status)).toEqual(
      expect.arrayContaining(['sent', 'delivered']),
    );
    const last = pages.at(-1)!;
    expect(last.messages).toHaveLength(1);
    const cut = last.messages[0];
    expect(cut).toMatchObject({
      id: big.id,
      from: CREATOR,
      type: 'text',
      truncated: { originalBytes: expect.any(Number), members: ['text.body'] },
    });
    expect(cut.truncated).toMatchObject({ originalBytes: expect.any(Number) });
    expect((cut.truncated as { originalBytes: number }).originalBytes).toBeGreaterThan(2_000_000);
    expect(cut.text?.body).toBe('x'.repeat(CUT_STRING_BYTES));
    expect(last.nextOffset).toBe(big.offset + 1);
  });

  it('takes its budget as configured: a 900 KB message over a 500 KB budget is cut', async () => {
    const big = await on.sim.control.humanText('é'.repeat(KB900 / 2));
    const budget: Partial<PollBudget> = { maxResultBytes: 500_000, cutStringBytes: 1001 };
    const read = (offset: number): Promise<PollOutput> =>
      on
        .env()
        .run(
          (input: Parameters<typeof on.acts.pollUpdates>[0]) =>
            pollUpdatesOf(() => on.client, input, new AbortController().signal, undefined, budget),
          { agentKey: AGENT, offset, limit: 50, timeoutSeconds: 0 },
        );
    const [page] = await drain(0, read, 500_000);
    const body = page.messages[0].text?.body ?? '';
    // Cut on a character: 'é' is two bytes, so 1000 of the 1001.
    expect(body).toBe('é'.repeat(500));
    expect(page).toMatchObject({
      nextOffset: big.offset + 1,
      messages: [{ truncated: { members: ['text.body'] } }],
    });
  });
});
