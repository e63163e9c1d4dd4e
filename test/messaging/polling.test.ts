/**
 * GET /updates (spec 4.2) and the poll loop (spec 8 "Client poll loop rules").
 */
import {
  InMemoryOffsetStore,
  PollReplacedError,
  type PollEvent,
  UnexpectedResponseError,
} from '../../messaging';
import { rejectionOf, useSimulator, waitFor } from './support';

/** Collects the next `n` events of an iterator. */
async function take(iterator: AsyncIterator<PollEvent>, n: number): Promise<PollEvent[]> {
  const events: PollEvent[] = [];
  while (events.length < n) {
    const next = await iterator.next();
    if (next.done) break;
    events.push(next.value);
  }
  return events;
}

const ids = (events: PollEvent[]): string[] =>
  events.map((e) => (e.kind === 'message' ? e.message.id : `${e.status.id}:${e.status.status}`));

const offsetsOf = (paths: { path: string }[]): (string | null)[] =>
  paths.map((r) => new URL(r.path, 'http://x').searchParams.get('offset'));

describe('getUpdates', () => {
  const { sim, client, recorder } = useSimulator();

  it('resolves null on 204; a long poll longer than timeoutMs is not a timeout', async () => {
    const c = client({ timeoutMs: 300 });
    const { offset } = await sim().control.humanText('hi');
    const started = Date.now();
    await expect(c.getUpdates({ offset: offset + 1, timeout: 1 })).resolves.toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('returns a page with next_offset and learns the recipient from it', async () => {
    const c = client();
    const { id, offset } = await sim().control.humanText('hi');
    const page = await c.getUpdates({ offset, timeout: 0 });
    expect(page?.next_offset).toBe(offset + 1);
    expect(page?.entry[0].changes[0].value.messages?.[0].id).toBe(id);
    expect(c.recipient).toBe('user:1001');
  });

  it('passes through a message of a type the client does not know', async () => {
    const c = client();
    const { offset } = await sim().control.human({
      type: 'location',
      location: { latitude: 52.5, longitude: 13.4 },
    });
    const page = await c.getUpdates({ offset, timeout: 0 });
    expect(page?.entry[0].changes[0].value.messages?.[0]).toMatchObject({
      type: 'location',
      location: { latitude: 52.5, longitude: 13.4 },
    });
  });

  it('turns a page that is not JSON into UnexpectedResponseError carrying the raw body', async () => {
    const c = client();
    await sim().control.fault('updates', { kind: 'malformed_json' });
    const err = await rejectionOf(c.getUpdates({ offset: 0, timeout: 0 }));
    expect(err).toBeInstanceOf(UnexpectedResponseError);
    expect((err as UnexpectedResponseError).body).toBe('{"messaging_product": "');
    expect((err as UnexpectedResponseError).status).toBe(200);
  });

  it('fails with PollReplacedError on 409, without retrying', async () => {
    const c = client();
    await sim().control.fault('updates', { kind: 'poll_replaced' });
    const err = await rejectionOf(c.getUpdates({ offset: 0, timeout: 0 }));
    expect(err).toBeInstanceOf(PollReplacedError);
    expect((await sim().control.log()).filter((e) => e.endpoint === 'updates')).toHaveLength(1);
  });

  it('gets PollReplacedError when a second poll of the agent replaces it', async () => {
    const a = client();
    const b = client();
    const { offset } = await sim().control.humanText('hi');
    const first = a.getUpdates({ offset: offset + 1, timeout: 5 });
    // The second poll leaves once the simulator has counted the first one.
    await waitFor(
      () => sim().control.transcript(),
      (t) => t.counts.requests.updates === 1,
    );
    const second = b.getUpdates({ offset: offset + 1, timeout: 1 });
    await expect(first).rejects.toBeInstanceOf(PollReplacedError);
    await expect(second).resolves.toBeNull();
  });

  describe('poll()', () => {
    it('yields messages, follows next_offset and repeats the same offset after a 204', async () => {
      const rec = recorder();
      const c = client({ dispatcher: rec.dispatcher });
      const { offset: start } = await sim().control.humanText('one');
      await sim().control.humanText('two');
      const store = new InMemoryOffsetStore(start);
      const it = c.poll({ offsetStore: store, timeout: 1 });
      const first = await take(it, 2);
      expect(first.map((e) => e.kind === 'message' && e.message.text?.body)).toEqual(['one', 'two']);
      expect(first[0].kind === 'message' && first[0].contact?.wa_id).toBe('user:1001');

      // Asking for more: the page is handled, its next_offset saved; the next polls get 204s.
      const third = it.next();
      await waitFor(
        () => store.load(),
        (o) => o === start + 2,
      );
      await waitFor(
        () => rec.to('/updates').length,
        (n) => n >= 3,
        4000,
      );
      await sim().control.humanText('three');
      const event = (await third).value as PollEvent;
      expect(event.kind === 'message' && event.message.text?.body).toBe('three');
      await it.return();

      const offsets = offsetsOf(rec.to('/updates'));
      expect(offsets[0]).toBe(String(start));
      expect(offsets.slice(1)).toEqual(offsets.slice(1).map(() => String(start + 2)));
    });

    it('yields receipts of its own sends', async () => {
      const c = client();
      const { offset } = await sim().control.humanText('hi');
      const sent = await c.sendText('hello');
      const it = c.poll({ offset, timeout: 1 });
      const events = await take(it, 3);
      await it.return();
      expect(events.find((e) => e.kind === 'status' && e.status.id === sent.messageId)).toMatchObject({
        kind: 'status',
        status: { status: 'sent', recipient_id: 'user:1001' },
      });
    });

    it('resumes from the saved offset after a restart, without the handled page', async () => {
      const { offset: start } = await sim().control.humanText('one');
      const store = new InMemoryOffsetStore(start);
      const stop = new AbortController();
      const first = client().poll({ offsetStore: store, timeout: 1 }, { signal: stop.signal });
      await take(first, 1);
      // Asking for more marks the page handled and saves its next_offset; then the process "dies".
      const pending = first.next();
      await waitFor(
        () => store.load(),
        (o) => o === start + 1,
      );
      stop.abort();
      await expect(pending).resolves.toMatchObject({ done: true });
      await sim().control.humanText('two');

      const restarted = client().poll({ offsetStore: store, timeout: 1 });
      const [event] = await take(restarted, 1);
      expect(event.kind === 'message' && event.message.text?.body).toBe('two');
      await restarted.return();
    });

    it('does not yield a message twice in one process, unless dedupe is off', async () => {
      const c = client();
      const { offset } = await sim().control.humanText('once');
      const stop = new AbortController();
      const a = c.poll({ offset, timeout: 1 }, { signal: stop.signal });
      const [seen] = await take(a, 1);
      const more = a.next(); // the consumer handled 'once'
      await sim().control.humanText('later');
      await more;
      stop.abort();

      const replay = c.poll({ offset, timeout: 0 });
      const [next] = await take(replay, 1);
      await replay.return();
      expect(next.kind === 'message' && next.message.text?.body).toBe('later');

      const noDedupe = c.poll({ offset, timeout: 0, dedupe: false });
      const [again] = await take(noDedupe, 1);
      await noDedupe.return();
      expect(ids([again])).toEqual(ids([seen]));
    });

    it('yields the rest of a page again when the consumer stopped mid-page', async () => {
      const c = client();
      const { offset } = await sim().control.humanText('a');
      await sim().control.humanText('b');
      const first = c.poll({ offset, timeout: 0 });
      const [a] = await take(first, 1);
      await first.return(); // stopped while handling 'a': nothing marked, nothing saved
      const second = c.poll({ offset, timeout: 0 });
      const again = await take(second, 2);
      await second.return();
      expect(ids(again)[0]).toBe(ids([a])[0]);
      expect(again[1].kind === 'message' && again[1].message.text?.body).toBe('b');
    });

    it('ends with PollReplacedError on a 409 by default', async () => {
      const c = client();
      await sim().control.fault('updates', { kind: 'poll_replaced' });
      await expect(c.poll({ timeout: 0 }).next()).rejects.toBeInstanceOf(PollReplacedError);
    });

    it("polls again from the same offset after a 409 with onPollReplaced: 'retry'", async () => {
      const rec = recorder();
      const c = client({ dispatcher: rec.dispatcher });
      const { offset } = await sim().control.humanText('hi');
      await sim().control.fault('updates', { kind: 'poll_replaced' });
      const errors: Error[] = [];
      const it = c.poll({ offset, timeout: 0, onPollReplaced: 'retry', onError: (e) => errors.push(e) });
      const [event] = await take(it, 1);
      await it.return();
      expect(event.kind).toBe('message');
      expect(errors[0]).toBeInstanceOf(PollReplacedError);
      expect(offsetsOf(rec.to('/updates'))).toEqual([String(offset), String(offset)]);
    });

    it('keeps polling through transient failures, reporting each to onError', async () => {
      const c = client({ maxRetries: 0 });
      const { offset } = await sim().control.humanText('hi');
      await sim().control.fault('updates', { kind: 'drop_before' }, { count: 3 });
      const errors: Error[] = [];
      const it = c.poll({ offset, timeout: 0, onError: (e) => errors.push(e) });
      const [event] = await take(it, 1);
      await it.return();
      expect(event.kind).toBe('message');
      expect(errors.map((e) => (e as { code?: string }).code)).toEqual(Array(3).fill('AMS_TRANSPORT'));
    });

    it('ends quietly when its signal aborts, cancelling the open long poll', async () => {
      const c = client();
      const { offset } = await sim().control.humanText('hi');
      const controller = new AbortController();
      const it = c.poll({ offset: offset + 1, timeout: 20 }, { signal: controller.signal });
      const pending = it.next();
      setTimeout(() => controller.abort(), 100);
      const started = Date.now();
      await expect(pending).resolves.toEqual({ done: true, value: undefined });
      expect(Date.now() - started).toBeLessThan(1000);
    });

    it('ends quietly when the client is closed', async () => {
      const c = client();
      const { offset } = await sim().control.humanText('hi');
      const pending = c.poll({ offset: offset + 1, timeout: 20 }).next();
      setTimeout(() => void c.close(), 100);
      await expect(pending).resolves.toEqual({ done: true, value: undefined });
    });
  });
});
